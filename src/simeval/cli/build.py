"""`simeval build …`: benchmark datasets built from raw material."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from simeval.cli.common import (
    DataDir,
    build_app,
    err,
    guarded,
    out,
    prepared_corpus,
    store_of,
)


@build_app.command("linking")
@guarded
def build_linking(
    out_dir: Annotated[Path, typer.Argument(help="Folder to write the benchmark into.")],
    lang: Annotated[str, typer.Option(help="Language of the X side (de, fr, ru, tr, zh).")],
    inputs: Annotated[
        list[str] | None,
        typer.Option(
            "--input",
            help="FORMAT:FILE[,FILE...][@SOURCE], repeatable. Formats: ntrex:IDS,X,EN; "
            "wmt-sgm:X,EN; wmt-xml:FILE; wmt-txt:DOCS,EN,X; marked-lines:X,EN; xquad:X,EN; "
            "wiki-tsv:ARCHIVE,MEMBER. Default: every source staged in xling/ for LANG.",
        ),
    ] = None,
    drop_first: Annotated[
        bool, typer.Option(help="Drop each document's first sentence (BUCC: yes).")
    ] = True,
    iqr: Annotated[
        bool, typer.Option(help="Keep pairs whose length ratio is within the IQR (BUCC: yes).")
    ] = True,
    test_share: Annotated[
        float, typer.Option(help="Share of kept pairs held back as test, per source.")
    ] = 0.5,
    drop_sentences: Annotated[
        float,
        typer.Option(help="Comparability noise: drop each sentence with this probability."),
    ] = 0.0,
    seed: Annotated[int, typer.Option(help="Seed of the noise, the split and the halves.")] = 0,
    halves: Annotated[
        bool,
        typer.Option(
            "--halves",
            help="Each side keeps a different random half of an aligned pair's sentences "
            "(xling-hard-*; rule in simeval.datasets.bucc.HALVES_RULE).",
        ),
    ] = False,
    data_dir: DataDir = None,
) -> None:
    """Build a BUCC 2015-style linking benchmark from linked document pairs: drop first
    sentences, filter by length ratio, split train/test, optionally halve each pair
    (--halves), write queries, English corpus and qrels (layout: simeval.data.documents)."""
    from simeval.data.docpairs import read_input, xling_pairs
    from simeval.data.documents import write_collection
    from simeval.data.textio import sha256_file
    from simeval.datasets.bucc import HALVES_RULE, Preparation, prepare

    options = Preparation(drop_first, drop_sentences, iqr, test_share, seed, halves)
    if inputs:
        pairs, data = [], {}
        for spec in inputs:
            found, files = read_input(spec, lang)
            pairs += found
            data.update({str(f): sha256_file(f) for f in files})
    else:
        pairs, data = xling_pairs(lang, store_of(data_dir))
    from simeval.datasets.folder import building

    collection = prepare(pairs, lang, options)
    collection.meta["data"] = data
    c = collection.meta["counts"]
    settings = {"lang": lang, **asdict(options), **({"rule": HALVES_RULE} if halves else {})}
    with building(out_dir, "bucc", settings) as b:
        b.inputs, b.counts = data, c
        written = [p.name for p in write_collection(collection, b.path)]
        steps = ("read", "non_empty", "kept", *(("halved",) if halves else ()), "train", "test")
        for step in (*steps, "corpus"):
            b.note("prepare", step, str(c[step]), "pairs" if step != "corpus" else "documents")
    halved = f", {c['halved']} halved" if halves else ""
    out.print(
        f"{c['read']} pairs read, {c['non_empty']} non-empty, {c['kept']} kept{halved} "
        f"({c['train']} train, {c['test']} test), {c['corpus']} English documents"
    )
    out.print(Text(f"wrote {out_dir}: {', '.join(written)}, manifest.json, log.tsv"))


@build_app.command("sts-sample")
@guarded
def build_sts_sample(
    out_dir: Annotated[Path, typer.Argument(help="A new folder to write into.")],
    pool: Annotated[
        list[Path],
        typer.Option(
            help="Sentence pairs to sample from: STS input files (two tab-separated "
            "sentences a line); repeatable."
        ),
    ],
    size: Annotated[int, typer.Option(min=1, help="Pairs to sample.")] = 750,
    bands: Annotated[int, typer.Option(min=1, help="Equal-width similarity bands in [0, 1].")] = 5,
    by: Annotated[
        str, typer.Option(help="overlap: token-overlap cosine; edit: 1 - edit distance ratio.")
    ] = "overlap",
    seed: Annotated[int, typer.Option(help="Seed of the draw and of the written order.")] = 0,
) -> None:
    """Sample sentence pairs evenly across string-similarity bands, so the set is neither
    near-duplicates nor unrelated pairs (STS 2012), and write STS.input.sample.txt, an
    annotation sheet (annotation.csv: id, sentence1, sentence2, rating), sample.tsv (each
    pair's band and similarity), manifest.json and log.tsv."""
    import csv

    from simeval.data.sts import read_sts_input
    from simeval.data.textio import sha256_file
    from simeval.datasets.folder import building
    from simeval.datasets.sts_sample import SIMILARITIES, sample
    from simeval.errors import InputError

    if by not in SIMILARITIES:
        raise InputError(None, None, f"--by must be {' or '.join(SIMILARITIES)}, not {by!r}")
    pairs = [p for path in pool for p in read_sts_input(path)]
    drawn = sample(pairs, size, bands, by, seed)
    settings = {"size": size, "bands": bands, "by": by, "seed": seed}
    with building(out_dir, "sts-sample", settings) as b:
        b.inputs = {str(p): sha256_file(p) for p in pool}
        with (b.path / "STS.input.sample.txt").open("w", encoding="utf-8") as f:
            f.writelines(f"{s1}\t{s2}\n" for s1, s2 in drawn.pairs)
        with (b.path / "annotation.csv").open("w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["id", "sentence1", "sentence2", "rating"])
            writer.writerows([i, s1, s2, ""] for i, (s1, s2) in enumerate(drawn.pairs, 1))
        with (b.path / "sample.tsv").open("w", encoding="utf-8") as f:
            f.write("id\tband\tsimilarity\n")
            for i, (band, sim) in enumerate(zip(drawn.band, drawn.similarity, strict=True), 1):
                f.write(f"{i}\t{band + 1}\t{sim:.4f}\n")
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
    out.print(
        Text(
            f"wrote {out_dir}: {len(drawn.pairs)} pairs, per band "
            f"{'/'.join(map(str, drawn.taken))} of {'/'.join(map(str, drawn.available))}"
        )
    )


@build_app.command("negatives")
@guarded
def build_negatives(
    out_dir: Annotated[
        Path, typer.Argument(help="Folder to write: pairs.csv, log.tsv, manifest.json.")
    ],
    positives: Annotated[
        Path,
        typer.Option(
            help="Related pairs, a RUSSE-style pair file (word1,word2[,sim,...]); with a score "
            "column only rows with score > 0 are positives (ae2-train.csv's sim 0 rows are not).",
        ),
    ],
    corpus: Annotated[
        Path, typer.Option(help="A text file, a folder of .txt files or a .tar.xz/.tar.gz.")
    ],
    lang: Annotated[str, typer.Option(help="ru or en: sentence splitting, tokens, word filter.")],
    lemmatize: Annotated[
        bool, typer.Option(help="Lemmas instead of word forms (pymorphy3 / simplemma).")
    ] = False,
    one_per_line: Annotated[
        bool, typer.Option(help="Each non-empty line of a corpus file is a document.")
    ] = False,
    veto: Annotated[
        list[Path] | None,
        typer.Option(
            metavar="FILE",
            help="Annotators' objections (repeatable): a header with word1, word2 and "
            "optionally related (a row objects when related is non-empty and not 0). One "
            "objection removes a negative; nothing replaces it.",
        ),
    ] = None,
    min_count: Annotated[int, typer.Option(min=1, help="Words rarer than this are not in S.")] = 5,
    window: Annotated[int, typer.Option(min=1, help="Co-occurrence window on each side.")] = 5,
    alpha: Annotated[
        float, typer.Option(help="PMI context smoothing exponent (1: plain PMI).")
    ] = 1.0,
    per_positive: Annotated[
        int, typer.Option(min=1, help="Negatives taken per positive (RUSSE: the top two).")
    ] = 2,
    word_filter: Annotated[
        bool,
        typer.Option(
            "--nouns/--any-word",
            help="Candidates must be nouns (ru, pymorphy3) or non-stop words (en).",
        ),
    ] = True,
    sources: Annotated[
        int,
        typer.Option(
            min=0,
            help="Use the positives of N source words drawn at random with --seed (kept in "
            "file order); 0: every source.",
        ),
    ] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the --sources draw.")] = 0,
    workers: Annotated[int, typer.Option(min=1, help="Processes counting co-occurrences.")] = 1,
) -> None:
    """Build RUSSE 2015-style (BLESS-style) negatives for related pairs: S = PMI of the
    corpus's window co-occurrences with s <= 0 dropped; for each positive <w_i, w_j> in file
    order, the candidates w_k with s_ik > 0 ranked by corpus frequency (ties: the word, code
    point order); the top two that are not w_i, a positive partner of w_i or a target taken
    before become negatives, and their targets are removed from further consideration. Vetoed
    pairs are dropped; each source keeps as many negatives as positives (first picks before
    second picks; with too few negatives its last positives are dropped). Writes OUT/pairs.csv
    (word1,word2,sim: 1 related, 0 not), OUT/log.tsv (every decision) and OUT/manifest.json
    (inputs' sha256, settings, counts). Evaluate with `simeval evaluate MEASURE -b OUT`.
    Rules in detail: the docstring of simeval.datasets.negatives."""
    import numpy as np
    from rich.progress import Progress

    from simeval.data.textio import sha256_file
    from simeval.datasets import negatives as neg
    from simeval.errors import InputError
    from simeval.results.record import package_versions
    from simeval.text.tokenize import LANGUAGES

    if lang not in LANGUAGES:
        raise InputError(None, None, f"--lang must be one of {', '.join(LANGUAGES)}")
    neg.check_out(out_dir)
    every, read_info = neg.read_positives(positives)
    chosen = neg.sample_sources(every, sources, seed) if sources else every
    objections = neg.read_vetoes(veto or [])
    with Progress(console=err, transient=True) as progress:
        prepared, task = prepared_corpus(progress, corpus, lang, lemmatize, one_per_line)
        progress.update(
            task, description="counting co-occurrences", completed=0, total=prepared.sentences
        )
        sim = neg.similarity_from_corpus(
            prepared.path,
            min_count,
            window,
            alpha=alpha,
            workers=workers,
            progress=lambda n: progress.advance(task, n),
        )
        if word_filter:
            sim = neg.restrict_targets(sim, neg.word_filter(lang))
        progress.update(task, description="selecting negatives", completed=0, total=len(chosen))
        selection = neg.build(
            chosen,
            sim,
            objections=objections,
            per_positive=per_positive,
            partners=neg.partners_of(every),
            progress=lambda n: progress.update(task, completed=n),
        )
    selection.counts.update(read_info)
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
            "veto": [{"path": str(f), "sha256": sha256_file(f)} for f in veto or []],
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
            if word_filter and lang == "ru"
            else ("non-stop words" if word_filter else "none"),
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
    folder = neg.write_folder(out_dir, selection, manifest)
    c = selection.counts
    out.print(
        f"{c['positives_in']} positives of {c['sources_in']} sources; {c['selected']} negatives "
        f"selected, {c['vetoed']} vetoed; kept {c['positives']} positives and {c['negatives']} "
        f"negatives of {c['sources']} sources ({c['positives_dropped']} positives dropped to "
        "balance)"
    )
    out.print(Text(f"wrote {folder / neg.PAIRS}, {folder / neg.LOG}, {folder / neg.MANIFEST}"))
