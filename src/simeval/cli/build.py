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
    guarded,
    out,
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
    seed: Annotated[int, typer.Option(help="Seed of the noise and the split.")] = 0,
    data_dir: DataDir = None,
) -> None:
    """Build a BUCC 2015-style linking benchmark from linked document pairs: drop first
    sentences, filter by length ratio, split train/test, write queries, English corpus and
    qrels (layout: simeval.data.documents)."""
    from simeval.build.bucc import Preparation, prepare
    from simeval.data.docpairs import read_input, xling_pairs
    from simeval.data.documents import write_collection
    from simeval.data.textio import sha256_file

    options = Preparation(drop_first, drop_sentences, iqr, test_share, seed)
    if inputs:
        pairs, data = [], {}
        for spec in inputs:
            found, files = read_input(spec, lang)
            pairs += found
            data.update({str(f): sha256_file(f) for f in files})
    else:
        pairs, data = xling_pairs(lang, store_of(data_dir))
    from simeval.build.folder import building

    collection = prepare(pairs, lang, options)
    collection.meta["data"] = data
    c = collection.meta["counts"]
    with building(out_dir, "bucc", {"lang": lang, **asdict(options)}) as b:
        b.inputs, b.counts = data, c
        written = [p.name for p in write_collection(collection, b.path)]
        for step in ("read", "non_empty", "kept", "train", "test", "corpus"):
            b.note("prepare", step, str(c[step]), "pairs" if step != "corpus" else "documents")
    out.print(
        f"{c['read']} pairs read, {c['non_empty']} non-empty, {c['kept']} kept "
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

    from simeval.build.folder import building
    from simeval.build.sts_sample import SIMILARITIES, sample
    from simeval.data.sts import read_sts_input
    from simeval.data.textio import sha256_file
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
