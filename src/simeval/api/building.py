"""Build benchmark datasets (``simeval build``): each call writes a new folder with its data,
``manifest.json`` (builder, settings, inputs' sha256, counts) and ``log.tsv`` (a row per
decision), which ``evaluate(measure, folder)`` reads (:mod:`simeval.datasets.folder`)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from simeval.api.progress import Quiet, Steps
from simeval.api.training import check_lang, check_seed, prepared_corpus
from simeval.data.store import DataStore
from simeval.errors import InputError

LANG = re.compile(r"[a-z]{2,3}")  # an ISO 639 code: it names the queries (``de:...``)
MAX_WINDOW = 1000  # words each side; co-occurrence counting loops over the offsets


@dataclass
class Built:
    """What a builder wrote."""

    folder: Path
    files: list[Path]  # the data files written (manifest.json and log.tsv beside them)
    counts: dict[str, Any]  # the manifest's counts
    summary: str  # the counts in a sentence
    extra: dict[str, Any] = field(default_factory=dict)  # what a builder adds (agreement…)


def digests(*paths: str | Path | None) -> dict[str, str]:
    """``{path: sha256}`` of the inputs given (None: not given)."""
    from simeval.data.textio import sha256_file

    return {str(p): sha256_file(p) for p in paths if p is not None}


def build_linking(
    out: str | Path,
    lang: str,
    inputs: Sequence[str] = (),
    *,
    drop_first: bool = True,
    iqr: bool = True,
    test_share: float = 0.5,
    drop_sentences: float = 0.0,
    seed: int = 0,
    halves: bool = False,
    store: DataStore | None = None,
) -> Built:
    """A BUCC 2015-style linking benchmark from linked document pairs.

    Args:
        out: a new folder.
        lang: the language of the X side (de, fr, ru, tr, zh).
        inputs: ``FORMAT:FILE[,FILE...][@SOURCE]`` specs (:func:`simeval.data.docpairs.
            read_input`); none: every source staged in ``xling/`` for ``lang``.
        drop_first: the preparation (:class:`simeval.datasets.bucc.Preparation`), as are
            the five that follow.
        iqr: see ``drop_first``.
        test_share: see ``drop_first``.
        drop_sentences: see ``drop_first``.
        seed: see ``drop_first``.
        halves: see ``drop_first``.

    Writes queries, the English corpus and qrels (layout: :mod:`simeval.data.documents`),
    ``manifest.json`` and ``log.tsv`` into ``out``.
    """
    from simeval.data.docpairs import read_input, xling_pairs
    from simeval.data.documents import write_collection
    from simeval.datasets.bucc import HALVES_RULE, Preparation, prepare
    from simeval.datasets.folder import building

    if not LANG.fullmatch(lang) or lang == "en":
        raise InputError(
            None, None, f"--lang {lang!r}: expected the X side's language code (de, fr, ru, ...)"
        )
    check_seed(seed)
    options = Preparation(drop_first, drop_sentences, iqr, test_share, seed, halves)
    if inputs:
        pairs, data = [], {}
        for spec in inputs:
            found, files = read_input(spec, lang)
            if not found:
                raise InputError(None, None, f"--input {spec}: no document pairs in it")
            pairs += found
            data.update(digests(*files))
    else:
        pairs, data = xling_pairs(lang, store or DataStore.from_env())
    collection = prepare(pairs, lang, options)
    collection.meta["data"] = data
    c = collection.meta["counts"]
    if not c["kept"]:
        where = ", ".join(inputs) or f"the sources staged for {lang}"
        raise InputError(
            None,
            None,
            f"no document pair left to build from {where}: {c['read']} read, "
            f"{c['non_empty']} non-empty, {c['kept']} kept",
        )
    settings = {"lang": lang, **asdict(options), **({"rule": HALVES_RULE} if halves else {})}
    with building(out, "bucc", settings) as b:
        b.inputs, b.counts = data, c
        written = [p.name for p in write_collection(collection, b.path)]
        steps = ("read", "non_empty", "kept", *(("halved",) if halves else ()), "train", "test")
        for step in (*steps, "corpus"):
            b.note("prepare", step, str(c[step]), "pairs" if step != "corpus" else "documents")
    halved = f", {c['halved']} halved" if halves else ""
    summary = (
        f"{c['read']} pairs read, {c['non_empty']} non-empty, {c['kept']} kept{halved} "
        f"({c['train']} train, {c['test']} test), {c['corpus']} English documents"
    )
    return Built(Path(out), [Path(out) / w for w in written], c, summary)


def build_sts_sample(
    out: str | Path,
    pool: Sequence[str | Path],
    *,
    size: int = 750,
    bands: int = 5,
    by: str = "overlap",
    seed: int = 0,
) -> Built:
    """Sentence pairs sampled evenly across string-similarity bands, so the set is neither
    near-duplicates nor unrelated pairs (STS 2012; :mod:`simeval.datasets.sts_sample`).

    Args:
        out: a new folder.
        pool: STS input files (two tab-separated sentences a line) to sample from.
        size: pairs to sample; bands: equal-width similarity bands in [0, 1];
        by: ``overlap`` (token-overlap cosine) or ``edit`` (1 - edit distance ratio);
        seed: of the draw and of the written order.

    Writes ``STS.input.sample.txt``, ``annotation.csv`` (id, sentence1, sentence2, rating),
    ``sample.tsv`` (each pair's band and similarity), ``manifest.json`` and ``log.tsv``.
    """
    from simeval.data.sts import read_sts_input
    from simeval.datasets.folder import building
    from simeval.datasets.sts_sample import SIMILARITIES, sample
    from simeval.datasets.tables import write_table

    if by not in SIMILARITIES:
        raise InputError(None, None, f"--by must be {' or '.join(SIMILARITIES)}, not {by!r}")
    check_seed(seed)
    pairs = [p for path in pool for p in read_sts_input(Path(path), sentences=True)]
    drawn = sample(pairs, size, bands, by, seed)
    settings = {"size": size, "bands": bands, "by": by, "seed": seed}
    names = ("STS.input.sample.txt", "annotation.csv", "sample.tsv")
    with building(out, "sts-sample", settings) as b:
        b.inputs = digests(*pool)
        with (b.path / names[0]).open("w", encoding="utf-8") as f:
            f.writelines(f"{s1}\t{s2}\n" for s1, s2 in drawn.pairs)
        write_table(
            b.path / names[1],
            ("id", "sentence1", "sentence2", "rating"),
            ([i, s1, s2, ""] for i, (s1, s2) in enumerate(drawn.pairs, 1)),
        )
        bands_of = zip(drawn.band, drawn.similarity, strict=True)
        write_table(
            b.path / names[2],
            ("id", "band", "similarity"),
            ((i, band + 1, f"{sim:.4f}") for i, (band, sim) in enumerate(bands_of, 1)),
            "\t",
        )
        for k, (n, t) in enumerate(zip(drawn.available, drawn.taken, strict=True), 1):
            quota = size // bands + (1 if k <= size % bands else 0)
            why = "short: the rest went to other bands" if t < quota else ""
            b.note("band", f"{k}: [{(k - 1) / bands:.2f}, {k / bands:.2f})", f"{t} of {n}", why)
        b.counts = {
            "pool": len(pairs),
            "distinct": sum(drawn.available),
            "sampled": len(drawn.pairs),
            "per_band": {"available": drawn.available, "taken": drawn.taken},
        }
    summary = (
        f"{len(drawn.pairs)} pairs, per band "
        f"{'/'.join(map(str, drawn.taken))} of {'/'.join(map(str, drawn.available))}"
    )
    short = []
    if len(drawn.pairs) < size:
        short.append(
            f"--size {size}: the pool ({', '.join(map(str, pool))}) holds only "
            f"{len(drawn.pairs)} distinct pairs; all of them were taken"
        )
    files = [Path(out) / n for n in names]
    return Built(Path(out), files, b.counts, summary, {"warnings": short})


def build_negatives(
    out: str | Path,
    positives: str | Path,
    corpus: str | Path,
    lang: str,
    *,
    lemmatize: bool = False,
    one_per_line: bool = False,
    veto: Sequence[str | Path] = (),
    min_count: int = 5,
    window: int = 5,
    alpha: float = 1.0,
    per_positive: int = 2,
    nouns: bool = True,
    sources: int = 0,
    seed: int = 0,
    workers: int = 1,
    steps: Steps | None = None,
) -> Built:
    """RUSSE 2015-style (BLESS-style) negatives for related pairs (rules:
    :mod:`simeval.datasets.negatives`).

    Args:
        out: a new folder.
        positives: a RUSSE-style pair file; with a score column only rows with score > 0.
        corpus: a text file, a folder of .txt files or a .tar.xz/.tar.gz (``lang``,
            ``lemmatize``, ``one_per_line``: how it is tokenized).
        veto: annotators' objection files; min_count, window, alpha: the PMI matrix;
        per_positive: negatives per positive; nouns: candidates must be nouns (ru) or
            non-stop words (en); sources: use N source words drawn with ``seed`` (0: all);
        workers: processes counting co-occurrences; steps: progress.

    Writes ``pairs.csv`` (word1,word2,sim: 1 related, 0 not), ``log.tsv`` and
    ``manifest.json`` (inputs' sha256, settings, counts) into ``out``.
    """
    import numpy as np

    from simeval.data.textio import sha256_file
    from simeval.datasets import negatives as neg
    from simeval.results.record import package_versions

    steps = steps or Quiet()
    positives, corpus, veto = Path(positives), Path(corpus), [Path(v) for v in veto]
    check_lang(lang)
    if not 1 <= window <= MAX_WINDOW:
        raise InputError(None, None, f"--window must be 1 to {MAX_WINDOW}, not {window}")
    if not (math.isfinite(alpha) and alpha > 0):
        raise InputError(None, None, f"--alpha must be a number above 0, not {alpha:g}")
    check_seed(seed)
    neg.check_out(out)
    every, read_info = neg.read_positives(positives)
    chosen = neg.sample_sources(every, sources, seed) if sources else every
    objections = neg.read_vetoes(veto)
    prepared = prepared_corpus(steps, corpus, lang, lemmatize, one_per_line)
    steps.start("counting co-occurrences", prepared.sentences)
    sim = neg.similarity_from_corpus(
        prepared.path,
        min_count,
        window,
        alpha=alpha,
        workers=workers,
        progress=steps.advance,
        named=corpus,
    )
    if nouns:
        sim = neg.restrict_targets(sim, neg.word_filter(lang))
    steps.start("selecting negatives", len(chosen))
    selection = neg.build(
        chosen,
        sim,
        objections=objections,
        per_positive=per_positive,
        partners=neg.partners_of(every),
        progress=steps.update,
    )
    selection.counts.update(read_info)
    if not selection.counts["negatives"]:
        raise InputError(
            corpus,
            None,
            f"no negative found for any of the {len(chosen)} positives: the positives' words "
            "and the corpus share too few co-occurring words (a larger corpus, or a lower "
            "--min-count)",
        )
    manifest = {
        "inputs": {
            "positives": {"path": str(positives), "sha256": sha256_file(positives)},
            "corpus": {
                "path": str(corpus),
                "sha256": prepared.sha256,
                "documents": prepared.documents,
                "sentences": prepared.sentences,
                "tokens": prepared.tokens,
            },
            "veto": [{"path": str(f), "sha256": sha256_file(f)} for f in veto],
        },
        "settings": {
            "lang": lang,
            "lemmatize": lemmatize,
            "one_per_line": one_per_line,
            "min_count": min_count,
            "window": window,
            "alpha": alpha,
            "per_positive": per_positive,
            "word_filter": "nouns"
            if nouns and lang == "ru"
            else ("non-stop words" if nouns else "none"),
            "sources": sources,
            "seed": seed,
        },
        "similarity": {
            "words": len(sim.words),
            "targets": int(np.count_nonzero(sim.matrix.getnnz(axis=0))),
            "nonzero": int(sim.matrix.nnz),
        },
        "versions": package_versions(),
    }
    folder = neg.write_folder(out, selection, manifest)
    c = selection.counts
    summary = (
        f"{c['positives_in']} positives of {c['sources_in']} sources; {c['selected']} negatives "
        f"selected, {c['vetoed']} vetoed; kept {c['positives']} positives and {c['negatives']} "
        f"negatives of {c['sources']} sources ({c['positives_dropped']} positives dropped to "
        "balance)"
    )
    return Built(folder, [folder / neg.PAIRS, folder / neg.LOG, folder / neg.MANIFEST], c, summary)
