"""The documentation site: its generated reference pages equal what their generators write
today, and ``mkdocs build --strict`` builds it (a broken link or anchor, a page outside the
navigation, a docstring mkdocstrings cannot read: each fails)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATED = {
    "docs/reference/cli.md": "simeval.cli.reference",
    "docs/reference/benchmarks.md": "simeval.registry.reference",
}


@pytest.mark.parametrize("page", sorted(GENERATED))
def test_generated_page_is_up_to_date(page: str) -> None:
    module = __import__(GENERATED[page], fromlist=["markdown_page"])
    assert (ROOT / page).read_text(encoding="utf-8") == module.markdown_page(), (
        f"{page} is out of date: python -m {GENERATED[page]} > {page}"
    )


def test_cli_reference_has_every_command_and_option() -> None:
    """Counted from Typer's own command tree, independently of the generator's walk."""
    import typer

    from simeval.cli import app

    page = (ROOT / "docs/reference/cli.md").read_text(encoding="utf-8")
    root = typer.main.get_command(app)
    stack, seen = [(("simeval",), root)], 0
    while stack:
        words, command = stack.pop()
        assert f"`{' '.join(words)}`" in page, words
        seen += 1
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--") and opt != "--help":
                    assert opt in page, (words, opt)
        if hasattr(command, "commands"):
            stack += [((*words, n), c) for n, c in command.commands.items() if not c.hidden]
    assert seen > 40  # every command and group: 44 when this was written


def test_benchmark_page_lists_each_catalog_name_with_its_checksum() -> None:
    """Read from the catalog's TOML here: every benchmark and suite has a row, and a
    benchmark's row gives its gold file's size and sha256."""
    import tomllib

    page = (ROOT / "docs/reference/benchmarks.md").read_text(encoding="utf-8")
    rows = {line.split("`")[1]: line for line in page.splitlines() if line.startswith("| `")}
    files, checked = {}, 0
    catalog = sorted((ROOT / "src/simeval/registry/catalog").glob("*.toml"))
    tables = [tomllib.loads(t.read_text(encoding="utf-8")) for t in catalog]
    for table in tables:
        for entry in table.get("dataset", {}).values():
            files.update({f["path"]: f for f in entry["files"]})
    for table in tables:
        for name in [*table.get("benchmark", {}), *table.get("suite", {})]:
            assert name in rows, name
        for name, spec in table.get("benchmark", {}).items():
            gold = files.get(spec.get("gold", ""))
            if gold is not None:
                assert f"{gold['size']:,} B, `{gold['sha256'][:12]}`" in rows[name], name
                checked += 1
    assert checked > 30


def test_every_page_is_in_the_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))
    listed = set(re.findall(r":\s*(\S+\.md)\s*$", nav, re.MULTILINE))
    assert [p for p in pages if p not in listed] == []


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    built = tmp_path / "site"
    for page in ["index.html", "reference/cli/index.html", "reference/python/index.html",
                 "reference/benchmarks/index.html", "errors/index.html"]:  # fmt: skip
        assert (built / page).stat().st_size > 2000, page
    api = (built / "reference/python/index.html").read_text(encoding="utf-8")
    assert "simeval.api.running.evaluate" in api  # mkdocstrings rendered the docstrings
    # the report's charts, drawn by docs/hooks/plots.py into the site only (not docs/)
    for page, image in [("guide/reports/index.html", "russe-by-member"),
                        ("guide/reports/index.html", "rg65-scatter"),
                        ("tutorials/python/index.html", "russe-by-member")]:  # fmt: skip
        html = (built / page).read_text(encoding="utf-8")
        found = re.search(rf'<img alt="[^"]+" src="([./]*(?:tutorials/)?img/{image}\.svg)"', html)
        assert found, (page, image)
        assert (built / page).parent.joinpath(found.group(1)).resolve().is_file(), found.group(1)
    svg = (built / "tutorials/img/russe-by-member.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert len(re.findall(r'<g id="axes_\d+"', svg)) == 3  # sum, Spearman, AP: an axis each
    assert not (ROOT / "docs/tutorials/img").exists()  # nothing generated lands in docs/


def test_a_build_without_the_data_says_so_in_one_line_and_keeps_the_old_site(
    tmp_path: Path,
) -> None:
    """The charts' hook needs RUSSE's and RG-65's data. Without ``SIMEVAL_DATA_DIR`` (an empty
    cache, downloads off) ``mkdocs build`` stops with one error line that names the variable,
    no traceback, and before mkdocs cleans the site folder: a site built earlier is kept."""
    pytest.importorskip("mkdocs")
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>built earlier</p>", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "SIMEVAL_DATA_DIR"}
    env |= {"NO_MKDOCS_2_WARNING": "1", "SIMEVAL_OFFLINE": "1"}
    env["SIMEVAL_CACHE_DIR"] = str(tmp_path / "empty-cache")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1, done.stderr[-3000:]
    assert "SIMEVAL_DATA_DIR" in errors[0] and "russe/" in errors[0], errors[0]
    assert (site / "index.html").read_text(encoding="utf-8") == "<p>built earlier</p>"
