"""Linked document pairs (X document, English document) read from the formats in ``xling/``.

Every adapter returns :class:`DocPair` records: the X and English documents as lists of
sentences (segments), the source they came from and the document id the source gives. Readers
check what they rely on (aligned line counts, one reference per document) and name the file
when it fails.

============================  ===========================================================
``ntrex``                     NTREX-128: one segment a line per language, ``DOCUMENT_IDS.tsv``
``wmt_sgm``                   WMT14 ``test-full`` SGM: ``<doc docid>`` / ``<seg>``, X and en files
``wmt_xml``                   WMT21-23 XML: ``<doc>`` with ``<src lang>`` and ``<ref lang>``
                              (reference A); system outputs (``<hyp>``) are ignored
``wmt_txt``                   WMT24 ``txt``: source, reference and ``.docs`` line files
``marked_lines``              one segment a line, ``<d>`` starting each document (Maruf et al.)
``xquad``                     XQuAD / SQuAD JSON: one document per context paragraph
``wiki_tsv``                  zh-en Wikipedia TSV (page, sections, zh, en) grouped by page
============================  ===========================================================

:func:`xling_pairs` lists, for each of de, fr, ru, tr and zh, every source staged in
``xling/`` (see ``xling/SOURCES.md`` for the counts these readers reproduce).
"""

from __future__ import annotations

import json
import lzma
import re
import tarfile
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from simeval.data.store import DataStore
from simeval.data.textio import iter_lines, read_lines, read_text
from simeval.errors import InputError

LANGUAGES = ("de", "fr", "ru", "tr", "zh")


@dataclass
class DocPair:
    """A gold link: an X document and its English counterpart, each a list of sentences."""

    source: str
    doc_id: str
    x: list[str]
    en: list[str]


def _lines(path: Path) -> list[str]:
    """The lines of a line-aligned file (under the line cap of :func:`iter_lines`)."""
    return [text for _, text in iter_lines(path)]


def _group(
    ids: Iterable[str], x: list[str], en: list[str], source: str, path: Path | None = None
) -> list[DocPair]:
    """Pairs from line-aligned X and English segments and a document id per line; a document
    is a run of consecutive lines with one id. An id that comes back after another document's
    lines is refused (naming ``path``, the file of the ids): its lines would split in two."""
    out: list[DocPair] = []
    first: dict[str, int] = {}  # id -> the line its run starts on
    for n, (doc_id, xs, es) in enumerate(zip(ids, x, en, strict=True), 1):
        if not out or out[-1].doc_id != doc_id:
            if doc_id in first and path is not None:
                again = f"again after other documents (first on line {first[doc_id]})"
                raise InputError(path, n, f"document {doc_id!r} {again}")
            first[doc_id] = n
            out.append(DocPair(source, doc_id, [], []))
        out[-1].x.append(xs.strip())
        out[-1].en.append(es.strip())
    return out


def _same_length(files: dict[Path, list[str]]) -> None:
    sizes = {len(v) for v in files.values()}
    if len(sizes) > 1:
        counts = ", ".join(f"{p.name}: {len(v)}" for p, v in files.items())
        raise InputError(next(iter(files)), None, f"line counts differ ({counts})")


def read_ntrex(ids: Path, x: Path, en: Path, source: str = "ntrex128") -> list[DocPair]:
    """NTREX-128: ``DOCUMENT_IDS.tsv`` names the document of each line of the text files."""
    files = {ids: _lines(ids), x: _lines(x), en: _lines(en)}
    _same_length(files)
    return _group((i.strip() for i in files[ids]), files[x], files[en], source, ids)


def read_wmt_txt(
    docs: Path, en: Path, x: Path, source: str, skip: tuple[str, ...] = ("canary",)
) -> list[DocPair]:
    """WMT24 plain text: ``.docs`` lines are ``domain<TAB>doc_id``; documents in ``skip``
    (the canary line) are dropped."""
    files = {docs: _lines(docs), en: _lines(en), x: _lines(x)}
    _same_length(files)
    ids = [line.split("\t")[-1].strip() for line in files[docs]]
    found = _group(ids, files[x], files[en], source, docs)
    return [p for p in found if p.doc_id not in skip]


_SGM_DOC = re.compile(r"<doc\s[^>]*?docid=\"([^\"]*)\"[^>]*>(.*?)</doc>", re.S)
_SGM_SEG = re.compile(r"<seg[^>]*>(.*?)</seg>", re.S)


def _sgm_docs(path: Path) -> dict[str, list[str]]:
    docs = {m.group(1): _SGM_SEG.findall(m.group(2)) for m in _SGM_DOC.finditer(read_text(path))}
    if not docs:
        raise InputError(path, None, 'no <doc docid="..."> elements')
    return docs


def read_wmt_sgm(x: Path, en: Path, source: str) -> list[DocPair]:
    """WMT SGM source and reference files with the same documents, segments in order
    (text kept as written: the WMT14 files do not escape ``&``)."""
    xd, ed = _sgm_docs(x), _sgm_docs(en)
    if list(xd) != list(ed):
        raise InputError(en, None, f"documents differ from those of {x.name}")
    out = []
    for doc_id, segs in xd.items():
        if len(segs) != len(ed[doc_id]):
            raise InputError(en, None, f"document {doc_id}: segment counts differ from {x.name}")
        out.append(DocPair(source, doc_id, [s.strip() for s in segs], ed[doc_id]))
    return out


def _segments(block: ET.Element) -> list[str]:
    return [(seg.text or "").strip() for seg in block.iter("seg")]


def read_wmt_xml(path: Path, lang: str, source: str, collection: str = "general") -> list[DocPair]:
    """WMT XML (2021 on): each ``<doc>`` has a ``<src lang>`` and references ``<ref lang
    translator>``; the pair is the source with the first reference (translator A). Documents
    without a reference are skipped; so are collections other than ``collection`` when the
    file has collections."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise InputError(path, exc.position[0], f"not well-formed XML: {exc}") from None
    parts = root.findall("collection")
    docs = (
        [d for c in parts if c.get("id") == collection for d in c.iter("doc")]
        if parts
        else list(root.iter("doc"))
    )
    out = []
    for doc in docs:
        src, refs = doc.find("src"), doc.findall("ref")
        if src is None or not refs:
            continue
        sides = {src.get("lang"): _segments(src), refs[0].get("lang"): _segments(refs[0])}
        if set(sides) != {lang, "en"}:
            raise InputError(path, None, f"document {doc.get('id')}: languages {sorted(sides)}")
        out.append(DocPair(source, doc.get("id", ""), sides[lang], sides["en"]))
    return out


def read_marked_lines(x: Path, en: Path, source: str, marker: str = "<d>") -> list[DocPair]:
    """Line-aligned files where a line ``<d>`` starts each document (Maruf et al. 2019)."""
    files = {x: _lines(x), en: _lines(en)}
    _same_length(files)
    ids: list[str] = []
    count = 0
    for n, (a, b) in enumerate(zip(files[x], files[en], strict=True), 1):
        if (a.strip() == marker) != (b.strip() == marker):
            raise InputError(en, n, f"document marker {marker!r} in one file only")
        count += a.strip() == marker
        ids.append("" if a.strip() == marker else str(count))
    pairs = _group(ids, files[x], files[en], source)
    return [p for p in pairs if p.doc_id]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])")


def split_sentences(text: str) -> list[str]:
    """A language-neutral sentence split for paragraph sources: after ``.!?`` and white space,
    or after a CJK full stop, exclamation or question mark."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _xquad_paragraphs(path: Path) -> list[tuple[str, str]]:
    try:
        data = json.loads(read_text(path))["data"]
        found = [
            (f"{i}.{j}", p["context"])
            for i, article in enumerate(data)
            for j, p in enumerate(article["paragraphs"])
        ]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(
            path,
            None,
            f"not SQuAD JSON ({type(exc).__name__}: {exc}); expected "
            '{"data": [{"paragraphs": [{"context": ...}]}]}',
        ) from None
    if not all(isinstance(text, str) for _, text in found):
        raise InputError(path, None, "not SQuAD JSON: a paragraph's context is not a string")
    return found


def read_xquad(x: Path, en: Path, source: str = "xquad") -> list[DocPair]:
    """XQuAD: paragraph j of article i in one language translates the same paragraph in the
    other; each paragraph is a document (sentences split by :func:`split_sentences`)."""
    xp, ep = _xquad_paragraphs(x), _xquad_paragraphs(en)
    if [k for k, _ in xp] != [k for k, _ in ep]:
        raise InputError(x, None, f"articles and paragraphs differ from {en.name}")
    return [
        DocPair(source, k, split_sentences(a), split_sentences(b))
        for (k, a), (_, b) in zip(xp, ep, strict=True)
    ]


def read_wiki_tsv(archive: Path, member: str, source: str) -> list[DocPair]:
    """The zh-en Wikipedia TSV (``page<TAB>section zh<TAB>section en<TAB>zh<TAB>en``) inside
    ``archive``: one document pair per page, sentences in file order."""
    try:
        tar = tarfile.open(archive)  # noqa: SIM115 (closed by the with below)
    except (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError):
        raise InputError(archive, None, DAMAGED) from None
    with tar:
        try:
            try:
                handle = tar.extractfile(member)
            except KeyError:
                handle = None
            if handle is None:
                raise InputError(archive, None, f"no member {member}")
            return _wiki_pages(handle, f"{archive}:{member}", source)
        except (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError):
            # a cut download: gzip and tarfile only find out while reading
            raise InputError(archive, None, f"{DAMAGED}: cut short or damaged") from None


DAMAGED = "not a readable tar archive (.tar, .tar.gz, .tar.xz)"


def _wiki_pages(handle: BinaryIO, name: str, source: str) -> list[DocPair]:
    """The document pairs of the wiki TSV member open in ``handle`` (named ``name``)."""
    out: dict[str, DocPair] = {}
    for n, line in read_lines(handle, name):
        fields = line.split("\t")
        if len(fields) != 5:
            raise InputError(name, n, f"expected 5 fields, found {len(fields)}")
        page = fields[0].strip()
        pair = out.setdefault(page, DocPair(source, page, [], []))
        pair.x.append(fields[3].strip())
        pair.en.append(fields[4].strip())
    return list(out.values())


# -- the xling collection -------------------------------------------------------------------------

X = "xling/"
NTREX_CODES = {"de": "deu", "fr": "fra", "ru": "rus", "tr": "tur", "zh": "zho-CN"}
MARUF = [
    (f"{corpus.lower().replace('-', '')}.{split}", f"{X}docmt_de_en_maruf/data/{corpus}/", split)
    for corpus in ("Europarl7", "IWSLT2017", "NC-2016")
    for split in ("dev", "test")
]
WIKI_PARTS = ("train", "dev", "zh2en-test", "en2zh-test")


Reader = Callable[[Callable[[str], Path]], list[DocPair]]


def _sources(lang: str) -> list[tuple[str, Reader, list[str]]]:
    """(source, reader over a path resolver, catalogued files) for one language."""
    ntrex = [
        f"{X}ntrex128/DOCUMENT_IDS.tsv",
        f"{X}ntrex128/NTREX-128/newstest2019-ref.{NTREX_CODES[lang]}.txt",
        f"{X}ntrex128/NTREX-128/newstest2019-src.eng.txt",
    ]
    out: list = []
    if lang in ("de", "fr", "ru"):
        files = [
            f"{X}wmt14_newstest_full/test-full/newstest2014-{lang}en-src.{lang}.sgm",
            f"{X}wmt14_newstest_full/test-full/newstest2014-{lang}en-ref.en.sgm",
        ]
        out.append(("wmt14", lambda p, f=files: read_wmt_sgm(p(f[0]), p(f[1]), "wmt14"), files))
    if lang == "ru":
        for year, name in (("21", "newstest2021.{}.all.xml"), ("22", "wmttest2022.{}.xml")):
            for pair in ("ru-en", "en-ru"):
                folder = "wmt21_newstest2021" if year == "21" else "wmt22_generaltest2022"
                f = f"{X}{folder}/xml/" + name.format(pair)
                src = f"wmt{year}.{pair}"
                out.append((src, lambda p, f=f, s=src: read_wmt_xml(p(f), "ru", s), [f]))
        f = f"{X}wmt23_generaltest2023/xml/wmttest2023.ru-en.all.xml"
        out.append(("wmt23.ru-en", lambda p, f=f: read_wmt_xml(p(f), "ru", "wmt23.ru-en"), [f]))
    if lang == "zh":
        for pair in ("zh-en", "en-zh"):
            f = f"{X}wmt22_generaltest2022/xml/wmttest2022.{pair}.xml"
            src = f"wmt22.{pair}"
            out.append((src, lambda p, f=f, s=src: read_wmt_xml(p(f), "zh", s), [f]))
    if lang in ("de", "ru", "zh"):
        w = f"{X}wmt24_generaltest2024/txt/"
        files = [f"{w}documents/en.docs", f"{w}sources/en.txt", f"{w}references/en-{lang}.refA.txt"]
        out.append(
            ("wmt24", lambda p, f=files: read_wmt_txt(p(f[0]), p(f[1]), p(f[2]), "wmt24"), files)
        )
    out.append(("ntrex128", lambda p, f=ntrex: read_ntrex(p(f[0]), p(f[1]), p(f[2])), ntrex))
    if lang == "de":
        for src, folder, split in MARUF:
            files = [f"{folder}concatenated_en2de_{split}_{s}.txt" for s in ("de", "en")]
            out.append(
                (src, lambda p, f=files, s=src: read_marked_lines(p(f[0]), p(f[1]), s), files)
            )
    if lang == "zh":
        f = f"{X}wiki_zh_en_docsubstructure/parallel/zh-en.tar.gz"
        for part in WIKI_PARTS:
            src = f"wiki.{part}"
            out.append(
                (src, lambda p, f=f, m=part, s=src: read_wiki_tsv(p(f), f"zh-en/{m}.zh-en", s), [f])
            )
    if lang != "fr":
        files = [f"{X}xquad/xquad.{lang}.json", f"{X}xquad/xquad.en.json"]
        out.append(("xquad", lambda p, f=files: read_xquad(p(f[0]), p(f[1])), files))
    return out


def xling_files(lang: str) -> list[str]:
    """The catalogued files ``xling_pairs`` reads for ``lang``."""
    if lang not in LANGUAGES:
        raise InputError(None, None, f"language {lang!r}: expected one of {', '.join(LANGUAGES)}")
    return [f for _, _, files in _sources(lang) for f in files]


def xling_pairs(lang: str, store: DataStore | None = None) -> tuple[list[DocPair], dict[str, str]]:
    """Every gold document pair X-en staged in ``xling/`` for ``lang`` (de, fr, ru, tr, zh),
    and the sha256 of each file read."""
    if lang not in LANGUAGES:
        raise InputError(None, None, f"language {lang!r}: expected one of {', '.join(LANGUAGES)}")
    store = store or DataStore.from_env()
    pairs: list[DocPair] = []
    data: dict[str, str] = {}
    for _, reader, files in _sources(lang):
        pairs.extend(reader(store.path))
        data.update({f: store.sha256(f) for f in files})
    return pairs, data


# -- any collection, named on the command line ----------------------------------------------------

ADAPTERS: dict[str, tuple[str, Callable[..., list[DocPair]]]] = {
    "ntrex": ("IDS,X,EN", lambda f, lang, s: read_ntrex(f[0], f[1], f[2], s)),
    "wmt-sgm": ("X,EN", lambda f, lang, s: read_wmt_sgm(f[0], f[1], s)),
    "wmt-xml": ("FILE", lambda f, lang, s: read_wmt_xml(f[0], lang, s)),
    "wmt-txt": ("DOCS,EN,X", lambda f, lang, s: read_wmt_txt(f[0], f[1], f[2], s)),
    "marked-lines": ("X,EN", lambda f, lang, s: read_marked_lines(f[0], f[1], s)),
    "xquad": ("X,EN", lambda f, lang, s: read_xquad(f[0], f[1], s)),
    "wiki-tsv": ("ARCHIVE,MEMBER", lambda f, lang, s: read_wiki_tsv(f[0], str(f[1]), s)),
}


def read_input(spec: str, lang: str) -> tuple[list[DocPair], list[Path]]:
    """Pairs from ``FORMAT:FILE[,FILE...][@SOURCE]`` (formats and their files: ``ADAPTERS``);
    the source name defaults to the format. Returns the pairs and the files read."""
    fmt, sep, rest = spec.partition(":")
    if not sep or fmt not in ADAPTERS:
        known = "; ".join(f"{k}:{v[0]}" for k, v in ADAPTERS.items())
        raise InputError(None, None, f"input {spec!r}: expected FORMAT:FILES, one of {known}")
    files_text, _, source = rest.partition("@")
    expected, reader = ADAPTERS[fmt]
    files = [Path(f) for f in files_text.split(",") if f]
    if len(files) != len(expected.split(",")):
        raise InputError(None, None, f"input {spec!r}: {fmt} takes {expected}")
    on_disk = files[:1] if fmt == "wiki-tsv" else files  # the member is a name in the archive
    for f in on_disk:
        if not f.is_file():
            raise InputError(f, None, "no such file")
    return reader(files, lang, source or fmt), on_disk
