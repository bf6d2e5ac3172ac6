"""`simeval build …`: benchmark datasets built from raw material."""

from __future__ import annotations

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
    collection = prepare(pairs, lang, options)
    collection.meta["data"] = data
    written = write_collection(collection, out_dir)
    c = collection.meta["counts"]
    out.print(
        f"{c['read']} pairs read, {c['non_empty']} non-empty, {c['kept']} kept "
        f"({c['train']} train, {c['test']} test), {c['corpus']} English documents"
    )
    out.print(Text(f"wrote {', '.join(str(p) for p in written)}"))
