"""Catalog entries of more English word-similarity sets: SimVerb-3500 and the sets of
mfaruqui/eval-word-vectors (Rare Words, MTurk-287/771, YP-130, Verb-143), from the data
README's file table (sizes and sha256 of the staged copy)."""

from __future__ import annotations

from simeval.data.catalog_types import CatalogEntry, CatalogFile

GITHUB_RAW = "https://raw.githubusercontent.com"
FILES = {
    "simverb3500": (
        (
            "simverb3500/README.txt",
            3936,
            "a77ba369d2cf6a0a743f8a5421cc127e45870671743b2c4b0b22e69cd4f6adbf",
        ),
        (
            "simverb3500/SimVerb-3000-test.txt",
            83795,
            "d669857c829e4952befdf00eeb09a8826a0d3e55b66f95b5e09d7aa1ef8b4c0a",
        ),
        (
            "simverb3500/SimVerb-3500.txt",
            97799,
            "614b001640f2b0e65e243854d98e5ac3805bab527c0da723f2260b53f8b9d973",
        ),
        (
            "simverb3500/SimVerb-500-dev.txt",
            14031,
            "3496828dc089f3588e7f008e6d845841c12f72198ed7a31819ccf3c839525be5",
        ),
    ),
    "wordsets_en": (
        (
            "wordsets_en/EN-MTurk-287.txt",
            7218,
            "a9ae3a9decb75a9700fe0cf18b048c1344774d9f40e0196baf8e34d4cd9d1ce5",
        ),
        (
            "wordsets_en/EN-MTurk-771.txt",
            19628,
            "04dc297c9e86b6fa7cf8ef0e4ba2e2c8d3399ec68d92fb7a53c0b4aae27198b5",
        ),
        (
            "wordsets_en/EN-RW-STANFORD.txt",
            49851,
            "5108d54dfc746f44f9c3d7e31d2857c37cf71430bc1594175a61a3b89bb0ae1f",
        ),
        (
            "wordsets_en/EN-VERB-143.txt",
            3320,
            "7259e19961c81912aa4c72de0102e480b2ad2bb9f4ce97d036fbde8e1a403001",
        ),
        (
            "wordsets_en/EN-YP-130.txt",
            2614,
            "7643fdbc6158c3424061e2cba450c71285767266ff9f3db947bfc1f1f5ce67ab",
        ),
        (
            "wordsets_en/LICENSE",
            1071,
            "d966f71dc26b1a28af0c2176721a503ad4abf6267638c64d3bed2be6034840d1",
        ),
    ),
}


def _files(folder: str) -> tuple[CatalogFile, ...]:
    return tuple(CatalogFile(p, s, h, p.split("/", 1)[1]) for p, s, h in FILES[folder])


WORD_ENTRIES = (
    CatalogEntry(
        name="simverb3500",
        title="SimVerb-3500 (Gerz et al. 2016)",
        description="3,500 English verb pairs rated 0-10 for similarity, with the WordNet "
        "relation of each pair; dev 500 and test 3,000 splits.",
        upstream=f"{GITHUB_RAW}/mrmechko/simcross/ffc5c7598185be00260d81fd71274db32e6bceda/",
        licence="as in simverb3500/README.txt (research use)",
        citation="Gerz, Vulić, Hill, Reichart, Korhonen (2016), SimVerb-3500: A Large-Scale "
        "Evaluation Set of Verb Similarity, EMNLP",
        files=_files("simverb3500"),
        note="The header of SimVerb-3500.txt is written with spaces, its rows with tabs.",
    ),
    CatalogEntry(
        name="wordsets_en",
        title="English word-similarity sets of eval-word-vectors",
        description="Stanford Rare Words (2,034 pairs), MTurk-287 (286 here), MTurk-771, "
        "YP-130, Verb-143 (144 lines): word1 word2 score, tab-separated, lower-cased.",
        upstream=f"{GITHUB_RAW}/mfaruqui/eval-word-vectors/"
        "94b3dd9fdbac7ed08dbee7179cd5ee464acf0594/data/word-sim/",
        licence="MIT for the repository; the data are third-party copies (research use)",
        citation="Faruqui and Dyer (2014), Community Evaluation and Exchange of Word Vectors "
        "at wordvectors.org, ACL demos; and each set's own paper",
        files=_files("wordsets_en"),
    ),
)
