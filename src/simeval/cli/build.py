"""`simeval build …`: benchmark datasets built from raw material."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from simeval.cli.common import (
    SEED_RANGE,
    DataDir,
    RichSteps,
    build_app,
    computing,
    guarded,
    out,
    plain,
    say_warning,
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
    seed: Annotated[
        int, typer.Option(**SEED_RANGE, help="Seed of the noise, the split and the halves.")
    ] = 0,
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
    from simeval.api.building import build_linking as build

    built = build(
        out_dir,
        lang,
        inputs or [],
        drop_first=drop_first,
        iqr=iqr,
        test_share=test_share,
        drop_sentences=drop_sentences,
        seed=seed,
        halves=halves,
        store=store_of(data_dir),
    )
    out.print(plain(built.summary))
    written = ", ".join(f.name for f in built.files)
    out.print(plain(f"wrote {out_dir}: {written}, manifest.json, log.tsv"))


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
    seed: Annotated[
        int, typer.Option(**SEED_RANGE, help="Seed of the draw and of the written order.")
    ] = 0,
) -> None:
    """Sample sentence pairs evenly across string-similarity bands, so the set is neither
    near-duplicates nor unrelated pairs (STS 2012), and write STS.input.sample.txt, an
    annotation sheet (annotation.csv: id, sentence1, sentence2, rating), sample.tsv (each
    pair's band and similarity), manifest.json and log.tsv."""
    from simeval.api.building import build_sts_sample as build

    built = build(out_dir, pool, size=size, bands=bands, by=by, seed=seed)
    out.print(plain(f"wrote {out_dir}: {built.summary}"))
    for warning in built.extra.get("warnings", []):
        say_warning(warning)


@build_app.command("negatives")
@computing
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
    seed: Annotated[int, typer.Option(**SEED_RANGE, help="Seed of the --sources draw.")] = 0,
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
    from simeval.api.building import build_negatives as build

    with RichSteps() as steps:
        built = build(
            out_dir,
            positives,
            corpus,
            lang,
            lemmatize=lemmatize,
            one_per_line=one_per_line,
            veto=veto or [],
            min_count=min_count,
            window=window,
            alpha=alpha,
            per_positive=per_positive,
            nouns=word_filter,
            sources=sources,
            seed=seed,
            workers=workers,
            steps=steps,
        )
    out.print(plain(built.summary))
    out.print(plain(f"wrote {', '.join(map(str, built.files))}"))
