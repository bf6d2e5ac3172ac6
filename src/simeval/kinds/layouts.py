"""How a suite's submission is laid out: one file for every member, or a folder of the members'
files. A :class:`~simeval.kinds.base.Suite` picks its layout once, by name, from
:data:`LAYOUTS`; every step that depends on it (the requests, a measure's submission, reading,
writing, and what each member evaluates and how coverage adds up) asks the layout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simeval.data.atomic import remove
from simeval.errors import InputError
from simeval.results.record import warning_texts

COVERAGE = ("gold", "scored", "missing", "extra")

Suite = Any  # simeval.kinds.base.Suite (which imports this module)


class OneFile:
    """One submission for every member (RUSSE's test.csv): each distinct item once, read and
    written by the first member's rules; a member's item is not extra in another's."""

    name = "one-file"

    def requests(self, suite: Suite, scored_only: bool) -> list[Any]:
        """Every distinct pair once, in the official file's order."""
        template = getattr(suite.members[0], "template", None)
        keys = template.pairs if template is not None else []
        pairs = dict.fromkeys([*keys, *(p for m in suite.members for p in m.request().pairs)])
        return [type(suite.members[0].request())(list(pairs))]

    def submit(self, suite: Suite, measure: Any, progress: Any, scored_only: bool) -> Any:
        (request,) = self.requests(suite, scored_only)
        answers = request.answer(measure, progress)
        return suite.members[0].from_answers(request, answers, measure)

    def read(self, suite: Suite, path: Path, **options: Any) -> Any:
        return suite.members[0].read_submission(path, only=suite.known, **options)

    def write(self, suite: Suite, submission: Any, out: Path) -> list[Path]:
        return suite.members[0].write_submission(submission, out)

    def parts(
        self, suite: Suite, submission: Any, options: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Each member's submission (the one file) and the options it is evaluated with."""
        parts = {m.name: submission for m in suite.members}
        return parts, {**options, "suite_known": suite.known}

    def coverage(
        self, suite: Suite, submission: Any, results: list[Any]
    ) -> tuple[dict[str, int], list[str]]:
        """The suite's coverage and warnings, counted on the one file."""
        coverage, found = suite.members[0].suite_coverage(submission, suite.known)
        return coverage, warning_texts(found)


class Folder:
    """One file per member in a folder, each named by the member's ``submission_file``."""

    name = "folder"

    def requests(self, suite: Suite, scored_only: bool) -> list[Any]:
        return [r for m in suite.members for r in m.requests(scored_only)]

    def submit(self, suite: Suite, measure: Any, progress: Any, scored_only: bool) -> Any:
        return {m.name: m.submit(measure, progress, scored_only) for m in suite.members}

    def read(self, suite: Suite, path: Path, **options: Any) -> dict[str, Any]:
        names = ", ".join(m.submission_file(Path()).name for m in suite.members)
        if not path.is_dir():
            raise InputError(path, None, f"expected a folder holding {names}")
        out = {}
        for m in suite.members:
            f = m.submission_file(path)
            if not f.is_file():
                raise InputError(f, None, f"missing: {suite.name} needs every file ({names})")
            out[m.name] = m.read_submission(f, **options)
        return out

    def write(self, suite: Suite, submission: Any, out: Path) -> list[Path]:
        """Each member's file, written whole; when one fails (a full disk) the ones written
        before it are removed too, so no part of a submission is left."""
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        try:
            for m in suite.members:
                written += m.write_submission(submission[m.name], m.submission_file(out))
        except BaseException:
            remove(written)
            raise
        return written

    def parts(
        self, suite: Suite, submission: Any, options: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        absent = [m.name for m in suite.members if m.name not in submission]
        if absent:
            raise InputError(None, None, f"{suite.name}: no submission for {', '.join(absent)}")
        return submission, options

    def coverage(
        self, suite: Suite, submission: Any, results: list[Any]
    ) -> tuple[dict[str, int], list[str]]:
        """The members' coverage summed, their warnings once each."""
        coverage = {k: sum(r.coverage.get(k, 0) for r in results) for k in COVERAGE}
        return coverage, list(dict.fromkeys(w for r in results for w in r.warnings))


Layout = OneFile | Folder
LAYOUTS: dict[str, Layout] = {x.name: x for x in (OneFile(), Folder())}
