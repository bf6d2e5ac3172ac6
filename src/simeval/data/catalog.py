"""The data catalog: every file simeval reads, with its upstream source, size and sha256.

A :class:`CatalogEntry` is one published file set (a dataset release). Files are addressed by
their path inside a data directory laid out like ``../shared/data`` (``russe/hj-test.csv``);
``remote`` is the path under the entry's ``upstream`` URL, pinned to a commit.
"""

from __future__ import annotations

from simeval.data.catalog_sts import STS_ENTRIES, STSB_ENTRY
from simeval.data.catalog_types import CatalogEntry, CatalogFile
from simeval.data.catalog_words import WORD_ENTRIES
from simeval.data.catalog_xling import XLING_ENTRIES

GITHUB_RAW = "https://raw.githubusercontent.com"

_RUSSE_FILES = (
    CatalogFile(
        "russe/ae-test.csv",
        59236,
        "0441532710fae0b699c28f3583696d6af7ce1363876838e4780a436a23be38d2",
        "evaluation/ae-test.csv",
    ),
    CatalogFile(
        "russe/ae-train.csv",
        780297,
        "6c95b29dce15a483c2ba85ab5a5495b5795ab38dfd7ad0399fd3338e23dde796",
        "evaluation/ae-train.csv",
    ),
    CatalogFile(
        "russe/ae2-test.csv",
        90252,
        "e0eaccb69490f6448097628a3b1608ab00c3ca6bc20818a44f1aa7a1dc71ffea",
        "evaluation/ae2-test.csv",
    ),
    CatalogFile(
        "russe/ae2-train.csv",
        3079542,
        "4e3c38688978a799fb4663c58a2a257084ff5c7bee9251968e2a8b5b420465c4",
        "evaluation/ae2-train.csv",
    ),
    CatalogFile(
        "russe/ae2.csv",
        2612098,
        "3d28a5dd985a65083152a38fae743051722070b49059d53ff1ba9fe50ba39350",
        "evaluation/ae2.csv",
    ),
    CatalogFile(
        "russe/black-list.csv",
        68,
        "1f76e8ddb3a37ebd3eb66f111e7b89be7f304a18f763192094ec708510b9ab93",
        "res/black-list.csv",
    ),
    CatalogFile(
        "russe/hj-mc.csv",
        1091,
        "db19271024961a4ca7d42fb9eaaaacbdab99ba672047bc21528f4b6c0bbfa91c",
        "evaluation/hj-mc.csv",
    ),
    CatalogFile(
        "russe/hj-rg.csv",
        2379,
        "ba717387078aea0799aa6fecccbfb9b3ee67c1d48c45414250f6abe445f21bef",
        "evaluation/hj-rg.csv",
    ),
    CatalogFile(
        "russe/hj-submission.csv",
        2945,
        "047696e6ca75f047e976bd9dbd4a9989d96ce5a16fadc483d6be509a97255d5d",
        "evaluation/hj-submission.csv",
    ),
    CatalogFile(
        "russe/hj-test.csv",
        12754,
        "a84a5c2849215abf12fd6bb8aed5d36b0d27892a5f1a282db9897ff10ba28816",
        "evaluation/hj-test.csv",
    ),
    CatalogFile(
        "russe/hj-train.csv",
        2467,
        "2e78f55f45a00957555b38142bc519f410da3268241c20902c01a9ced48f8969",
        "evaluation/hj-train.csv",
    ),
    CatalogFile(
        "russe/hj-wordsim353-relatedness.csv",
        9532,
        "7b819d4018b1e9ed1397fb728fd370e22d012b5eb49e69379e49d376047cf771",
        "evaluation/hj-wordsim353-relatedness.csv",
    ),
    CatalogFile(
        "russe/hj-wordsim353-similarity.csv",
        7391,
        "689fed4b89fc8857dee1e64e4ee9c716a3d925f243371a2d700f00c0b4f4c44d",
        "evaluation/hj-wordsim353-similarity.csv",
    ),
    CatalogFile(
        "russe/hj.csv",
        15205,
        "b03a3854b0bf423a9f35307b9e8a8c6ca4a293c77d60e02404c4be604ce1e5a3",
        "evaluation/hj.csv",
    ),
    CatalogFile(
        "russe/negatives/negatives0-13.csv",
        152022,
        "32d1e6bcaa16f923a3a044c8e530d35812da13fb41152a1e36d4dfcf4ae59db7",
        "res/negatives/negatives0-13.csv",
    ),
    CatalogFile(
        "russe/negatives/negatives0-7.csv",
        147150,
        "bf67427b3fdbee16e769b8d1b684517fc798bf57ab6b1cbc41f69e2683f5588b",
        "res/negatives/negatives0-7.csv",
    ),
    CatalogFile(
        "russe/negatives/negatives1-14.csv",
        150549,
        "46af40d1ecc25b34c6571e887ecaf8dc781c1375fb136526586d25afaaa6ccba",
        "res/negatives/negatives1-14.csv",
    ),
    CatalogFile(
        "russe/negatives/negatives1-6.csv",
        139565,
        "979ffbc9d74830736901daf9bd024ce6eac7fbd918d1db27dd006dd2f88da294",
        "res/negatives/negatives1-6.csv",
    ),
    CatalogFile(
        "russe/negatives/negatives2-12.csv",
        156573,
        "f633f2cae3b9fb01fce70f6753781edb769f3f2be976f01c9492647361973401",
        "res/negatives/negatives2-12.csv",
    ),
    CatalogFile(
        "russe/negatives/negatives2-5.csv",
        146526,
        "9947ce490dfab43dfc0c91996edc62d999019423eab752fba93843467d8e1a9d",
        "res/negatives/negatives2-5.csv",
    ),
    CatalogFile(
        "russe/negatives/negatives2-9.csv",
        134533,
        "e690c6c23fbb62643b9a85760a899089975b2170a86eac1e197cfecd986e5a7c",
        "res/negatives/negatives2-9.csv",
    ),
    CatalogFile(
        "russe/negatives/negatives3-10.csv",
        125575,
        "613da5b8e59f9520757d9364a7f49d1fe6b6a402160c52ed8a7df0a3368489ed",
        "res/negatives/negatives3-10.csv",
    ),
    CatalogFile(
        "russe/negatives/negatives3-11.csv",
        127302,
        "03c9b126793762e7648144b62cb6593edc969bc6b642b22a35dcdc200292cc8f",
        "res/negatives/negatives3-11.csv",
    ),
    CatalogFile(
        "russe/negatives/negatives4-4.csv",
        147095,
        "e4fff358a67ae5fe9445ee416819744e0dbc6126869af6a2f6a9003a9f1452cc",
        "res/negatives/negatives4-4.csv",
    ),
    CatalogFile(
        "russe/negatives/negatives4-8.csv",
        138464,
        "d0741e8a10af7da20848723cdd67b085524efa9111dd7653785a7b69b78b77de",
        "res/negatives/negatives4-8.csv",
    ),
    CatalogFile(
        "russe/rt-test.csv",
        350485,
        "db33d6daa8e328130caef75778e841fbfcf46ca4557dec3cd15cbc586229435b",
        "evaluation/rt-test.csv",
    ),
    CatalogFile(
        "russe/rt.csv",
        4109127,
        "c72ce744726de1d3f7d83155a511946dddca9788ba9c79a5d2dd603caa166f0c",
        "evaluation/rt.csv",
    ),
    CatalogFile(
        "russe/src-submission.csv",
        418856,
        "c5f80c11ca54a0977552757b95a0e65d1e187e0d0f48a32610b09a1d40b89046",
        "evaluation/src-submission.csv",
    ),
    CatalogFile(
        "russe/test.csv",
        495513,
        "988677383d3689e064799d28711aec8eb99852dba0c28539738d85599e7f7687",
        "evaluation/test.csv",
    ),
    CatalogFile(
        "russe/white-list.csv",
        348,
        "65b39d50b813ce656ffd7a97716866a9571ef10bc4f9d3ddcffb9be7f13a28dd",
        "res/white-list.csv",
    ),
)

_SIMLEX999_FILES = (
    CatalogFile(
        "simlex999/README.txt",
        2766,
        "9a5137f54986b4ef42099225885f086da60a55f387db01e661c3a59679be9131",
        "README.txt",
    ),
    CatalogFile(
        "simlex999/SimLex-999.txt",
        44050,
        "ca00ff8515a36cde32d13c2b83def23f5a167b67db93ebfcfb7dae039ba22c0b",
        "SimLex-999.txt",
    ),
)

_WORDSIM353_FILES = (
    CatalogFile(
        "wordsim353/combined.csv",
        7433,
        "49ff6433ae68abe716fb66433fd870483e289a7a8c74531f59eca847d103fff3",
        "combined.csv",
    ),
    CatalogFile(
        "wordsim353/combined.tab",
        7433,
        "1edf400ed472e796b3be562cf7970b10d749a07874a96ddc77e75fd1006b446c",
        "combined.tab",
    ),
    CatalogFile(
        "wordsim353/instructions.txt",
        1908,
        "276722cafef27972548bc068af11a60523ce55c07660b3aee4dbe428755551d9",
        "instructions.txt",
    ),
    CatalogFile(
        "wordsim353/relatedness.tab",
        5134,
        "66a7c88100624d0a391605ff61ce84e11d11ee620d51ec0298da49592838f8fa",
        "relatedness.tab",
    ),
    CatalogFile(
        "wordsim353/set1.tab",
        7683,
        "e7ecd8858b9d1585faebb55b135ce4f354deb4130e5c519caa5fdaa1ed530067",
        "set1.tab",
    ),
    CatalogFile(
        "wordsim353/set2.tab",
        11185,
        "e2656288a78dc0a4b29ab850630ff415d2dc63208e2d55986c08bdcd3246fb44",
        "set2.tab",
    ),
    CatalogFile(
        "wordsim353/similarity.tab",
        4002,
        "f1da938998863c94e53f72f984a5c6e215f0b46c323aae8f0f4930703a339107",
        "similarity.tab",
    ),
)

_RG65_FILES = (
    CatalogFile(
        "rg65/EN-RG-65.txt",
        1210,
        "c243f3a91c3f5d8cf67f21a67f6fb80bde8b6bb060851a6a48e6f2d68ec98c9f",
        "EN-RG-65.txt",
    ),
)

_MC30_FILES = (
    CatalogFile(
        "mc30/EN-MC-30.txt",
        543,
        "33ee05911496ff83d95cac351d0746c6f63b9181b605cb7d307f4daa8864511b",
        "EN-MC-30.txt",
    ),
)

_MEN_FILES = tuple(
    CatalogFile(f"men/{name}", size, sha, name)
    for name, size, sha in (
        (
            "MEN_dataset_natural_form_full",
            69876,
            "87a5b7229e6cf32426063da921e83031b9efeab3101d4413eaa3f44fcbce3a45",
        ),
        (
            "MEN_dataset_lemma_form_full",
            80611,
            "ea3441417fea4be40916422957cddce912dd7a8bb8f81d8ded532a667e80d6eb",
        ),
        (
            "MEN_dataset_lemma_form.dev",
            53825,
            "56ef0c18290989c095466de349d7754102f7f6b20d2b9386d179b1945a4436fa",
        ),
        (
            "MEN_dataset_lemma_form.test",
            26804,
            "d518c0cea13272d51a72a184899bde78d30f8a0b9839cb9ee75a5cfd180856df",
        ),
        ("licence.txt", 809, "d8d7416e8adbba39f5eeabf2876a98293c4ac2ce2f25f7446d6a435f8e7b67b6"),
    )
)

_STS2012_FILES = (
    CatalogFile(
        "sts2012/00-readme.txt",
        5171,
        "bc0641542694710006cb02f7e5975ada74cfeb83ff9f0f72cb5b1a6aa35fdca6",
        "00-readme.txt",
    ),
    CatalogFile(
        "sts2012/test/STS.gs.ALL.txt",
        18648,
        "5bcbfda125ad56a1b924763482420b585bea9bf74dc2c18d88d62cd6d2e3422f",
        "test/STS.gs.ALL.txt",
    ),
    CatalogFile(
        "sts2012/test/STS.gs.MSRpar.txt",
        4500,
        "5526be59228bc34ccb3cb6f1f56c0d7278d3419b8886713ae016fd92b151f19c",
        "test/STS.gs.MSRpar.txt",
    ),
    CatalogFile(
        "sts2012/test/STS.gs.MSRvid.txt",
        4500,
        "9c6096c6bcfb0144c8bbddb00900ca9198c88498630cd0c8f08d18365f1d7150",
        "test/STS.gs.MSRvid.txt",
    ),
    CatalogFile(
        "sts2012/test/STS.gs.SMTeuroparl.txt",
        2754,
        "708530c4d006d06881f3289fce35d624d7efe562dcf0fe5f8aa0eec3a135f6d4",
        "test/STS.gs.SMTeuroparl.txt",
    ),
    CatalogFile(
        "sts2012/test/STS.gs.surprise.OnWN.txt",
        4500,
        "088d8ca22c0aa406e4a5d2e6e308a4f38b482b8e736c2445a38ffb6e4c4fb4fd",
        "test/STS.gs.surprise.OnWN.txt",
    ),
    CatalogFile(
        "sts2012/test/STS.gs.surprise.SMTnews.txt",
        2394,
        "aa6dfc868db333c43dc59be14d46fa6587c7ebddc0d497e717f647bf35121cf1",
        "test/STS.gs.surprise.SMTnews.txt",
    ),
    CatalogFile(
        "sts2012/test/STS.input.MSRpar.txt",
        163764,
        "76bf7089f9e7c05732163a227b3ce679512554513eb783f2548b07d659bd733d",
        "test/STS.input.MSRpar.txt",
    ),
    CatalogFile(
        "sts2012/test/STS.input.MSRvid.txt",
        48893,
        "476d14034a241f71b832e4ae557dd6cdbe265b57c915570a2583f93b4456948d",
        "test/STS.input.MSRvid.txt",
    ),
    CatalogFile(
        "sts2012/test/STS.input.SMTeuroparl.txt",
        59522,
        "dd31dbb6e7eef8a0d00347fe012f7cf372943167e30f60f6fb3b10219a41941f",
        "test/STS.input.SMTeuroparl.txt",
    ),
    CatalogFile(
        "sts2012/test/STS.input.surprise.OnWN.txt",
        67373,
        "07ec7b91348aece0873b41f7fc4e76e9fddf05bdb82c048c98d92f5db0bec07d",
        "test/STS.input.surprise.OnWN.txt",
    ),
    CatalogFile(
        "sts2012/test/STS.input.surprise.SMTnews.txt",
        58678,
        "2788a98ef33c3b7b704ef4891fe863cfcf061338e8aa41cb737d0f137f3ba03c",
        "test/STS.input.surprise.SMTnews.txt",
    ),
    CatalogFile(
        "sts2012/train/STS.gs.MSRpar.txt",
        4500,
        "8c21613b5416fb45f19434028eb35015165357d0d0d8518c755e44af206f6892",
        "train/STS.gs.MSRpar.txt",
    ),
    CatalogFile(
        "sts2012/train/STS.gs.MSRvid.txt",
        4500,
        "00d4118c99db24ec70d84c61aefdd0b7c91a7961ddab0cecdbde3d48d6a750a6",
        "train/STS.gs.MSRvid.txt",
    ),
    CatalogFile(
        "sts2012/train/STS.gs.SMTeuroparl.txt",
        4404,
        "b679e8b839a7d7e13ac36d66b06debd6a3abdc4fb4261db7b0958b758db935e8",
        "train/STS.gs.SMTeuroparl.txt",
    ),
    CatalogFile(
        "sts2012/train/STS.input.MSRpar.txt",
        166754,
        "53b13f0ff68162a4f49051835b4e6ef91111f8dd3e8ffcae5eafd8db70384f90",
        "train/STS.input.MSRpar.txt",
    ),
    CatalogFile(
        "sts2012/train/STS.input.MSRvid.txt",
        49117,
        "06e8689cf0eba38a45475021bd50be3d06c543304533eeac526f9b58ce91fc29",
        "train/STS.input.MSRvid.txt",
    ),
    CatalogFile(
        "sts2012/train/STS.input.SMTeuroparl.txt",
        239093,
        "d4751dc01a1e2f3f2044bc3e84a5f669cf0665411c5966e65f9d8bbd499ad41b",
        "train/STS.input.SMTeuroparl.txt",
    ),
)

CATALOG: dict[str, CatalogEntry] = {
    e.name: e
    for e in (
        CatalogEntry(
            name="russe",
            title="RUSSE 2015: Russian semantic similarity evaluation",
            description=(
                "Gold sets hj (333 graded pairs), rt (9,548), ae (1,952) and ae2 (3,002) "
                "related/unrelated pairs, their train splits where published (rt.csv holds rt "
                "train and test), the 14,835-pair test.csv participants scored, two sample "
                "submissions (column usim) and the negative pools used to build rt and ae."
            ),
            upstream=f"{GITHUB_RAW}/nlpub/russe-evaluation/"
            "bc2cf2504fabed650561399716c9a74ae64a2300/russe/",
            licence="MIT",
            citation="""@inproceedings{panchenko2015russe,
  title={RUSSE: The First Workshop on Russian Semantic Similarity},
  author={Panchenko, Alexander and Loukachevitch, Natalia and Ustalov, Dmitry and
          Paperno, Denis and Meyer, Christian M. and Konstantinova, Natali},
  booktitle={Computational Linguistics and Intellectual Technologies: Papers from the
             Annual International Conference "Dialogue"},
  volume={2}, pages={89--105}, year={2015}
}""",
            files=_RUSSE_FILES,
        ),
        CatalogEntry(
            name="simlex999",
            title="SimLex-999",
            description=(
                "999 English pairs rated for similarity (not association), 0-10, with POS, "
                "concreteness, USF association, SimAssoc333 and rating SD."
            ),
            upstream=f"{GITHUB_RAW}/mrmechko/simcross/"
            "ffc5c7598185be00260d81fd71274db32e6bceda/SimLex-999/",
            licence="research use, as distributed by its authors",
            citation="""@article{hill2015simlex,
  title={SimLex-999: Evaluating Semantic Models with (Genuine) Similarity Estimation},
  author={Hill, Felix and Reichart, Roi and Korhonen, Anna},
  journal={Computational Linguistics}, volume={41}, number={4}, pages={665--695}, year={2015}
}""",
            files=_SIMLEX999_FILES,
            note="Upstream path inside the repository is not verified from here; the sha256 is.",
        ),
        CatalogEntry(
            name="wordsim353",
            title="WordSim-353",
            description=(
                "353 English pairs (0-10), set1/set2 with every rater's score, and the "
                "similarity/relatedness split of Agirre et al. (2009)."
            ),
            upstream=f"{GITHUB_RAW}/mrmechko/simcross/"
            "ffc5c7598185be00260d81fd71274db32e6bceda/wordsim353/",
            licence="research use",
            citation="""@article{finkelstein2002placing,
  title={Placing Search in Context: The Concept Revisited},
  author={Finkelstein, Lev and Gabrilovich, Evgeniy and Matias, Yossi and Rivlin, Ehud and
          Solan, Zach and Wolfman, Gadi and Ruppin, Eytan},
  journal={ACM Transactions on Information Systems}, volume={20}, number={1},
  pages={116--131}, year={2002}
}
@inproceedings{agirre2009study,
  title={A Study on Similarity and Relatedness Using Distributional and WordNet-based
         Approaches},
  author={Agirre, Eneko and Alfonseca, Enrique and Hall, Keith and Kravalova, Jana and
          Pa{\\c{s}}ca, Marius and Soroa, Aitor},
  booktitle={Proceedings of NAACL-HLT}, pages={19--27}, year={2009}
}""",
            files=_WORDSIM353_FILES,
        ),
        CatalogEntry(
            name="rg65",
            title="RG-65 (Rubenstein & Goodenough)",
            description="65 English noun pairs rated 0-4.",
            upstream=f"{GITHUB_RAW}/mfaruqui/eval-word-vectors/"
            "94b3dd9fdbac7ed08dbee7179cd5ee464acf0594/data/word-sim/",
            licence="MIT (repository)",
            citation="""@article{rubenstein1965contextual,
  title={Contextual Correlates of Synonymy},
  author={Rubenstein, Herbert and Goodenough, John B.},
  journal={Communications of the ACM}, volume={8}, number={10}, pages={627--633}, year={1965}
}""",
            files=_RG65_FILES,
        ),
        CatalogEntry(
            name="mc30",
            title="MC-30 (Miller & Charles)",
            description="30 English noun pairs rated 0-4 (a subset of RG-65, re-rated).",
            upstream=f"{GITHUB_RAW}/mfaruqui/eval-word-vectors/"
            "94b3dd9fdbac7ed08dbee7179cd5ee464acf0594/data/word-sim/",
            licence="MIT (repository)",
            citation="""@article{miller1991contextual,
  title={Contextual Correlates of Semantic Similarity},
  author={Miller, George A. and Charles, Walter G.},
  journal={Language and Cognitive Processes}, volume={6}, number={1}, pages={1--28},
  year={1991}
}""",
            files=_MC30_FILES,
        ),
        CatalogEntry(
            name="sts2012",
            title="SemEval-2012 Task 6: Semantic Textual Similarity",
            description=(
                "Sentence pairs with 0-5 gold: test MSRpar 750, MSRvid 750, SMTeuroparl 459, "
                "surprise.OnWN 750, surprise.SMTnews 399; train MSRpar 750, MSRvid 750, "
                "SMTeuroparl 734."
            ),
            upstream=f"{GITHUB_RAW}/rcln/SemEval/"
            "0524e9b9bfd6f85da2bc8f284d8c642b149753d0/english_testbed/data/2012/",
            licence="as in 00-readme.txt (MSR terms for MSRpar/MSRvid)",
            citation="""@inproceedings{agirre2012semeval,
  title={SemEval-2012 Task 6: A Pilot on Semantic Textual Similarity},
  author={Agirre, Eneko and Cer, Daniel and Diab, Mona and Gonzalez-Agirre, Aitor},
  booktitle={Proceedings of *SEM 2012 / SemEval 2012}, pages={385--393}, year={2012}
}""",
            files=_STS2012_FILES,
            note=(
                "The local mirror renames files back to their official names; the upstream "
                "paths assume the same names and are not verified from here (the sha256 is)."
            ),
        ),
        CatalogEntry(
            name="men",
            title="MEN (Bruni, Tran & Baroni)",
            description="3,000 English word pairs rated for relatedness 0-50 (natural form); the "
            "lemma-form files give the dev 2,000 / test 1,000 split.",
            upstream=f"{GITHUB_RAW}/mrmechko/simcross/ffc5c7598185be00260d81fd71274db32e6bceda/",
            licence="CC BY 2.0 (men/licence.txt)",
            citation="""@article{bruni2014multimodal,
  title={Multimodal Distributional Semantics},
  author={Bruni, Elia and Tran, Nam Khanh and Baroni, Marco},
  journal={Journal of Artificial Intelligence Research}, volume={49}, pages={1--47},
  year={2014}
}""",
            files=_MEN_FILES,
            note=(
                "This copy starts every file with an added header line (word1 word2 score); "
                "the upstream path within the repository is not verified from here."
            ),
        ),
        *STS_ENTRIES,
        STSB_ENTRY,
        *WORD_ENTRIES,
        *XLING_ENTRIES,
    )
}


def get_entry(name: str) -> CatalogEntry:
    """The catalog entry ``name``; KeyError lists the known names."""
    try:
        return CATALOG[name]
    except KeyError:
        raise KeyError(f"unknown data set {name!r}; known: {', '.join(CATALOG)}") from None
