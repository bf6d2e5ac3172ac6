"""The one HTML page around simeval's tables: the report, the campaign simulation and the
leaderboard a campaign export writes (``templates/page.html``). Self-contained (its stylesheet
and the tables' sorting script inline, no request to the network) and readable in a narrow
window: a table wider than the window scrolls on its own instead of widening the page.
"""

from __future__ import annotations

from markupsafe import Markup

from simeval.report.templating import render

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 13px; display: block;
        max-width: 100%; overflow-x: auto; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { cursor: pointer; background: #f3f3f3; user-select: none; }
td:first-child, th:first-child { text-align: left; }
.board td:nth-child(2), .board th:nth-child(2) { text-align: left; }
.board td { white-space: nowrap; }
small { color: #666; } .note, .meta { color: #555; font-size: 13px; }
.tops { display: flex; flex-wrap: wrap; gap: 1.5em; }
figure { margin: 0.5em 0; } img { max-width: 100%; }
@media (max-width: 640px) {
  body { margin: 0.6em; }
  table, .note, .meta { font-size: 12px; }
  th, td { padding: 2px 5px; }
}
"""

SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0];
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var down = th.dataset.order !== "desc";
    th.dataset.order = down ? "desc" : "asc";
    var rows = Array.prototype.slice.call(body.rows);
    function key(row) {
      var cell = row.cells[col];
      if (!cell) return "";
      var v = cell.dataset.sort;
      return v === undefined ? cell.textContent : parseFloat(v);
    }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      var numbers = typeof x === "number" && typeof y === "number";
      var c = numbers ? x - y : String(x).localeCompare(String(y));
      return down ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
"""


def page(title: str, body: Markup) -> str:
    """A whole page: ``title`` (text) and ``body`` (Markup a template rendered; text would be
    shown escaped). The style and the script are this module's constants."""
    return render("simeval.report", "page.html", title=title, body=body,
                  style=Markup(STYLE), script=Markup(SCRIPT))  # fmt: skip
