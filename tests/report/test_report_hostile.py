"""The HTML report over results whose system, benchmark and folder names are hostile text:
shown as text (escaped), never as markup, a script or a template expression."""

from __future__ import annotations

import html
import json
from html.parser import HTMLParser
from pathlib import Path

from simeval.api import evaluate
from simeval.metrics.stats import Resampling
from simeval.report.collect import load_grid
from simeval.report.html import ReportOptions, build_report
from simeval.report.page import SCRIPT

HOSTILE = "<script>alert(1)</script> \"><img src=x onerror=alert(1)> {{7*7}} ' onmouseover='"


class Elements(HTMLParser):
    """A page's elements (tag, attributes) and the text of its scripts."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        if self.lasttag == "script" and data.strip():
            self.scripts.append(data)


def test_the_report_shows_hostile_names_as_text(store, tmp_path: Path) -> None:
    for spec in ("orthographic:kind=dice", "orthographic:kind=prefix"):
        evaluate(spec, "mc30", "russe", store=store, results_dir=tmp_path)
    path = tmp_path / "results.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for r in records:  # a system's and a benchmark's names as a results file may hold them
        if r["system"]["spec"] == "orthographic:kind=dice":
            r["system"]["spec"] = f"[system] {HOSTILE}"
        if r["benchmark"] == "mc30":
            r["benchmark"] = f"[benchmark] {HOSTILE}"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    grid = load_grid(tmp_path)
    assert f"[system] {HOSTILE}" in grid.systems  # the names reached the report

    page = build_report(grid, ReportOptions(Resampling(50)), f"[folder] {HOSTILE}")
    for raw in ("<script>alert(1)", "<img src=x", '"><img'):
        assert raw not in page
    found = Elements(page)
    assert not [(t, a) for t, attrs in found.tags for a in attrs if a.startswith("on")]
    assert found.scripts == [SCRIPT]  # the page's own, and no other
    images = [attrs for t, attrs in found.tags if t == "img"]
    assert images and all((a.get("src") or "").startswith("data:image/") for a in images)
    text = html.unescape(page)
    for field in ("system", "benchmark", "folder"):
        assert f"[{field}] {HOSTILE}" in text, field  # as typed: {{7*7}} not evaluated
    assert f"id='[benchmark] {HOSTILE}'" not in page  # the section's id quoted, not broken
