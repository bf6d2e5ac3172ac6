"""Warnings wrap to the terminal's width (issue 47, stumble 2): a vectors file missing most
of MC-30's words gave a warning of 221 columns on an 80-column terminal."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from simeval.cli import app

WORDS = [
    "car",
    "automobile",
    "gem",
    "jewel",
    "journey",
    "voyage",
    "boy",
    "lad",
    "coast",
    "shore",
    "asylum",
    "madhouse",
]


def test_evaluate_warnings_fit_80_columns_and_say_everything(tmp_path: Path) -> None:
    vectors = tmp_path / "vectors.txt"
    vectors.write_text(
        "".join(f"{w} {i % 3 + 1}.0 {i % 5 + 1}.0 {i % 7 + 1}.0\n" for i, w in enumerate(WORDS))
    )
    spec = f"vectors:path={vectors},oov=skip"
    done = CliRunner().invoke(
        app, ["evaluate", spec, "-b", "mc30", "--no-save"], env={"COLUMNS": "80"}
    )
    assert done.exit_code == 0, done.output
    lines = done.stderr.splitlines()
    assert all(len(line) <= 80 for line in lines), [x for x in lines if len(x) > 80]
    joined = " ".join(" ".join(lines).split())
    # 39 distinct words in MC-30's pairs, 12 of them in the file: 27 missing
    assert "27 of 39 words are not in its vocabulary" in joined
    assert "oov=backoff tries their lemmas and normal forms first" in joined
    assert sum(line.startswith("warning:") for line in lines) == 2  # two warnings, each once
