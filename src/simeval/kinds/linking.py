"""The document-linking task kind (BUCC 2015): success@1, success@5 and MRR (the main metric) by
trec_eval's rules, and its MAP, R-precision, P@5/10, recall@5/10 and nDCG@5/10.

Gold: TREC qrels (a relevance of 1 or more is relevant). Submission: a TREC run
(``qid Q0 docno rank score run``) or BUCC 2015's ``id1 X id2 Y score run.name``; the rank column
is ignored, documents are ordered as trec_eval orders them (:mod:`simeval.metrics.ranking`).
A measure ranks the benchmark's documents when it was built from a collection (queries and
English documents, :mod:`simeval.data.documents`); a benchmark of qrels alone scores runs only.

Rows: one per evaluated query: ``qid``, the per-query ``success_1, success_5, recip_rank, map,
Rprec, P_5, P_10, recall_5, recall_10, ndcg_cut_5, ndcg_cut_10`` (the outputs two systems'
comparisons swap) and trec_eval's counts ``num_ret, num_rel, num_rel_ret`` (and ``source``).
Metrics (declared in :mod:`simeval.metrics.catalog`): trec_eval's means over the queries and
its sums and ``num_q``. A registry file declares one as ``kind = "linking"`` (``folder``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.documents import LinkingCollection, LinkingInput
from simeval.data.textio import iter_lines, shown
from simeval.data.trec import Qrels, Run, read_run, write_run
from simeval.errors import InputError, InputWarning
from simeval.kinds.base import (
    Aligned,
    Benchmark,
    Files,
    TaskKind,
    sha256_of,
)
from simeval.kinds.handout import LeakView, Ordered, Restored, opaque_ids
from simeval.kinds.predictions import run_submission
from simeval.measures.base import Documents
from simeval.metrics import evaluate_trec
from simeval.metrics.catalog import QUERY_COUNTS as COUNTS
from simeval.metrics.catalog import QUERY_MEANS as LINKING_METRICS
from simeval.metrics.ranking.id_keys import as_text

BUCC_CANDIDATES = 5  # candidates per query, as BUCC 2015 allowed


class LinkingKind(TaskKind):
    name = "linking"
    toml = ("linking",)
    main = "recip_rank"
    columns = ("qid", *LINKING_METRICS, *COUNTS)
    numeric = (*LINKING_METRICS, *COUNTS)
    outputs = LINKING_METRICS

    def entry(self, source: Path, name: str, spec: dict[str, Any], rel: Any) -> LinkingEntry:
        return LinkingEntry(name, rel("folder"), str(spec.pop("description", "")))

    def built_entry(
        self, name: str, builder: str, options: tuple[tuple[str, Any], ...], description: str
    ) -> CollectionEntry:
        return CollectionEntry(name, builder, options, description)

    def load(self, entry: Any, files: Files, build: Any = None) -> LinkingBenchmark:
        if isinstance(entry, LinkingEntry):
            return linking_folder(Path(entry.folder), entry.name, entry.description)
        if build is None:
            raise InputError(None, None, f"{entry.name} is built from raw files; no builder given")
        collection = build(entry)
        data = collection.meta.get("data", {})
        return LinkingBenchmark.from_collection(entry.name, collection, entry.description, data)

    def entry_files(self, entry: Any) -> list[str]:
        if isinstance(entry, CollectionEntry):
            from simeval.data.docpairs import xling_files

            return xling_files(str(dict(entry.options).get("lang", "")))
        return [entry.folder]

    # -- the shared-task server's questions (TaskKind) ----------------------------------------

    def as_submission(self, target: Any, predictions: Any) -> Any:
        return run_submission(target, predictions)

    def input_file(self, target: Any, secret: str | None = None) -> tuple[str, bytes] | None:
        """A zip of JSON lines: ``queries.jsonl`` (the test documents to link),
        ``documents.jsonl`` (the candidates) and ``train.jsonl`` (training documents with their
        ``link``; the test links are the gold and stay out); None for a benchmark of qrels
        alone (no documents to hand out). With a campaign's ``secret`` the test queries and
        the documents get opaque ids, each file in the order they draw (train queries keep
        their ids; their links name the renamed documents): :mod:`simeval.kinds.handout`."""
        from simeval.data.zipped import pack

        if getattr(target, "collection", None) is None:
            return None
        return f"{target.name}-inputs.zip", pack(linking_inputs(target, secret))

    def public_check(self, target: Any, path: Path) -> list[InputWarning]:
        """The run reads as a TREC run (the reader checks nothing of the gold)."""
        target.read_submission(path)
        return []

    def restore(
        self, target: Any, path: Path, secret: str | None, scratch: Path, blanks: bool = False
    ) -> Restored:
        """The run with the handed-out ids put back to the collection's own, line for line
        (a line that is not a run's is left for the reader to name). A run that names the
        collection's own test queries and none of the handed-out ones is refused: it was made
        from the published files, not from this campaign's input."""
        names = _names(target, secret)
        if not names:
            return Restored(path)
        back = {v: k for k, v in names.items()}
        own = handed = 0
        first_own = ""
        rows: list[str] = []
        queries = {q.id for q in target.collection.split("test")}
        for _, text in iter_lines(path):
            fields = text.split()
            if len(fields) >= 3:
                qid = fields[0]
                if qid in back:
                    handed += 1
                elif qid in queries:
                    own += 1
                    first_own = first_own or qid
                fields[0] = back.get(qid, qid)
                fields[2] = back.get(fields[2], fields[2])
                text = " ".join(fields)
            rows.append(text)
        if own and not handed:
            raise InputError(
                path,
                None,
                f"this run names the published collection's queries ({shown(first_own)}, ...): "
                f"in this campaign, use the ids of queries.jsonl and documents.jsonl in "
                f"{target.name}-inputs.zip, the phase's input download",
            )
        out = scratch / "restored" / Path(path).name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(f"{x}\n" for x in rows), encoding="utf-8")
        return Restored(out, names=names, origin=path)

    def leak_view(self, target: Any, secret: str | None) -> LeakView:
        """Each test query's handed-out id beside its judged documents'; the order of the
        queries against the places of their documents; the ids handed out and the
        collection's own."""
        coll = getattr(target, "collection", None)
        if coll is None:
            return LeakView()
        names = _names(target, secret)
        test = _handed(coll.split("test"), names)
        corpus = _handed(coll.corpus, names)
        place = {d.id: k for k, d in enumerate(corpus)}
        view = LeakView()
        places, gold = [], []
        for k, q in enumerate(test):
            docs = [names.get(d, d) for d in coll.relevant(q.id)]
            view.links.append((target.name, names.get(q.id, q.id), docs))
            if docs and docs[0] in place:
                places.append(k)
                gold.append(float(place[docs[0]]))
        view.ordered.append(Ordered(target.name, places, gold))
        view.handed = {names.get(d.id, d.id) for d in (*test, *corpus)}
        view.published = {d.id for d in (*coll.split("test"), *coll.corpus)}
        return view


def _names(target: Any, secret: str | None) -> dict[str, str]:
    """The handed-out name of each test query and document (none without a secret)."""
    coll = getattr(target, "collection", None)
    if secret is None or coll is None:
        return {}
    queries = [q.id for q in coll.split("test")]
    return {
        **opaque_ids(secret, "query", target.name, queries),
        **opaque_ids(secret, "document", target.name, [d.id for d in coll.corpus]),
    }


def _handed(docs: list[Any], names: dict[str, str]) -> list[Any]:
    """``docs`` renamed and in the order their new names draw (as published without)."""
    from dataclasses import replace

    if not names:
        return list(docs)
    renamed = [replace(d, id=names[d.id]) for d in docs]
    return sorted(renamed, key=lambda d: d.id)


def linking_inputs(target: Any, secret: str | None = None) -> list[tuple[str, bytes]]:
    """A linking benchmark's public parts as JSON lines (:meth:`LinkingKind.input_file`)."""
    import json

    def jsonl(rows: list[dict[str, str]]) -> bytes:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()

    collection = target.collection
    names = _names(target, secret)
    test = [{"id": q.id, "text": q.text} for q in _handed(collection.split("test"), names)]
    corpus = [{"id": d.id, "text": d.text} for d in _handed(collection.corpus, names)]
    train = [
        {"id": q.id, "text": q.text, "link": names.get(links[0], links[0])}
        for q in collection.split("train")
        if (links := collection.relevant(q.id))
    ]
    return [
        ("queries.jsonl", jsonl(test)),
        ("documents.jsonl", jsonl(corpus)),
        ("train.jsonl", jsonl(train)),
    ]


LINKING = LinkingKind()


@dataclass(frozen=True)
class CollectionEntry:
    """A linking benchmark whose collection a builder makes once (``builder``, ``options``)."""

    name: str
    builder: str
    options: tuple[tuple[str, Any], ...]
    description: str
    source: str = ""
    kind: str = LINKING.name


@dataclass(frozen=True)
class LinkingEntry:
    """A linking folder on disk (user entries): qrels, and the documents if given."""

    name: str
    folder: str
    description: str = ""
    kind: str = LINKING.name


def collection_qrels(collection: LinkingCollection, split: str = "test") -> Qrels:
    """The gold links of one split as TREC qrels: the split's qrels file as read (several
    relevant documents a query, relevance 0 as trec_eval reads it), or for a built collection
    its one link a query (relevance 1)."""
    if split in collection.judgements:
        return collection.judgements[split]
    queries = collection.split(split)
    qids = np.array([q.id.encode() for q in queries], dtype=bytes)
    docnos = np.array([collection.links[q.id].encode() for q in queries], dtype=bytes)
    n = len(queries)
    return Qrels(None, qids, docnos, np.ones(n, np.int64), np.arange(1, n + 1))


def by_source(sources: np.ndarray, items: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """Per-query metrics averaged within each source (plus the number of queries)."""
    out: dict[str, dict[str, float]] = {}
    for source in sorted(set(sources.tolist())):
        rows = sources == source
        out[str(source)] = {k: float(items[k][rows].mean()) for k in LINKING_METRICS}
        out[str(source)]["num_q"] = int(rows.sum())
    return out


def run_name(system: str) -> str:
    """A run name trec_eval and BUCC's scripts read as one field."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in system) or "simeval"


@dataclass
class LinkingBenchmark(Benchmark):
    """Queries with judged relevant documents (qrels), and the documents when there are."""

    name: str
    qrels: Qrels
    description: str = ""
    data: dict[str, str] = field(default_factory=dict)
    max_candidates: int | None = None  # BUCC 2015 allowed 5
    # the documents, when the benchmark was built from a collection (measures need them)
    collection: LinkingCollection | None = None
    kind = LINKING.name
    submission_name = "{name}.run"

    @classmethod
    def from_collection(
        cls,
        name: str,
        collection: LinkingCollection,
        description: str = "",
        data: dict[str, str] | None = None,
    ) -> LinkingBenchmark:
        """The test split of ``collection`` as a benchmark (at most 5 candidates, as BUCC)."""
        qrels = collection_qrels(collection, "test")
        return cls(name, qrels, description, dict(data or {}), BUCC_CANDIDATES, collection)

    def _documents(self) -> LinkingCollection:
        if self.collection is None:
            raise InputError(None, None, f"{self.name} has qrels only, no documents to rank")
        return self.collection

    def request(self) -> Documents:
        """Test queries, every English document, and the train queries with the position of
        their gold document (for learned rankers)."""
        coll = self._documents()
        position = {d.id: i for i, d in enumerate(coll.corpus)}
        # a train query with several relevant documents is one training pair for each
        train = [(q, d) for q in coll.split("train") for d in coll.relevant(q.id)]
        data = LinkingInput(
            coll.lang,
            [q.text for q in coll.split("test")],
            [d.text for d in coll.corpus],
            [q.text for q, _ in train],
            np.array([position[d] for _, d in train], dtype=np.int64),
            [d.id for d in coll.corpus],  # the run's docnos: ties go as trec_eval orders them
        )
        return Documents(data, self.max_candidates or BUCC_CANDIDATES)

    def from_answers(self, request: Documents, answers: Any, measure: Any = None) -> Run:
        """The measure's top k documents per test query as a run; what the measure found on the
        way (dictionary coverage, BLI precision) goes with it as ``facts``."""
        coll = self._documents()
        qids = np.array([q.id.encode() for q in coll.split("test")], dtype=bytes)
        docnos = np.array([d.id.encode() for d in coll.corpus], dtype=bytes)
        found = answers.index >= 0
        rows = np.nonzero(found)[0]
        n = int(found.sum())
        system = measure.describe() if measure is not None else {}
        return Run(
            None,
            qids[rows],
            docnos[answers.index[found]],
            answers.score[found].astype(float),
            np.arange(1, n + 1),
            str(system.get("spec") or "simeval"),
            measure.extra() if measure is not None else {},
        )

    def read_submission(self, path: Path, **_: Any) -> Run:
        """A run file, its scores as trec_eval reads them (:meth:`Run.as_trec_eval`)."""
        return read_run(path).as_trec_eval()

    def write_submission(self, submission: Run, out: Path) -> list[Path]:
        """A BUCC 2015 run, ``id1 X id2 Y score run.name``, at most ``max_candidates`` a query."""
        out.parent.mkdir(parents=True, exist_ok=True)
        write_run(
            out,
            submission.qids,
            submission.docnos,
            submission.scores,
            run_name(submission.name),
            depth=self.max_candidates,
            bucc=True,
        )
        return [out]

    def align(
        self,
        submission: Run,
        *,
        complete: bool = False,
        max_retrieved: int | None = None,
        **_: Any,
    ) -> Aligned:
        """trec_eval's per-query values for ``submission``: one row per evaluated query.

        ``complete`` counts queries of the qrels absent from the run as 0 (trec_eval ``-c``);
        ``max_retrieved`` cuts each query's ranking (trec_eval ``-M``; default: no cut).
        """
        depth = {} if max_retrieved is None else {"max_retrieved": max_retrieved}
        ev = evaluate_trec(
            submission.qids,
            submission.docnos,
            submission.scores,
            self.qrels.qids,
            self.qrels.docnos,
            self.qrels.relevance,
            complete=complete,
            **depth,
        )
        warnings: list[InputWarning] = []
        unknown, absent = ev.unjudged, ev.absent
        if len(unknown):
            text = f"{len(unknown)} run queries have no judgements (e.g. {unknown[0]}); ignored"
            warnings.append(InputWarning(submission.path, None, text))
        if len(absent):
            how = "counted as 0 (-c)" if complete else "left out of the averages, as trec_eval does"
            text = f"{len(absent)} judged queries are not in the run (e.g. {absent[0]}); {how}"
            warnings.append(InputWarning(submission.path, None, text))
        over = int((ev.per_query["num_ret"] > (self.max_candidates or np.inf)).sum())
        if over:
            text = f"{over} queries have more than {self.max_candidates} candidates; all are scored"
            warnings.append(InputWarning(submission.path, None, text))
        judged = len(ev.qids) + (0 if complete else len(absent))
        items = {
            "qid": as_text(np.asarray(ev.qids)).astype(str),
            **{k: np.asarray(ev.per_query[k], dtype=float) for k in (*LINKING_METRICS, *COUNTS)},
        }
        breakdown = {}
        if self.collection is not None:
            source = {q.id: q.source for q in self.collection.queries}
            items["source"] = np.asarray([source.get(q, "") for q in items["qid"]], dtype=str)
            breakdown = by_source(items["source"], items)
        settings: dict[str, Any] = {"complete": complete, **depth}
        if submission.facts is not None:
            settings["facts"] = submission.facts
        return Aligned(
            items,
            {
                "gold": judged,
                "scored": judged - len(absent),
                "missing": len(absent),
                "extra": len(unknown),
            },
            warnings,
            settings,
            breakdown,
        )


def linking_folder(
    folder: Path, name: str | None = None, description: str = ""
) -> LinkingBenchmark:
    """A linking folder: ``qrels.test`` or ``qrels`` (TREC qrels), and the documents
    (``queries.jsonl``, ``corpus.jsonl``: :mod:`simeval.data.documents`) when a measure is to
    rank them. Without ``meta.json`` the language is taken as unknown."""
    from simeval.data.documents import qrels_path as test_qrels
    from simeval.data.documents import read_collection
    from simeval.data.trec import read_qrels

    name = name or str(folder).rstrip("/")
    qrels_path = test_qrels(folder)
    if qrels_path is None:
        raise InputError(folder, None, "no qrels.test or qrels file in this folder")
    if (folder / "queries.jsonl").is_file():
        collection = read_collection(folder)
        files = [p for p in sorted(folder.iterdir()) if p.is_file()]
        return LinkingBenchmark.from_collection(name, collection, description, sha256_of(files))
    return LinkingBenchmark(name, read_qrels(qrels_path), description, sha256_of([qrels_path]))
