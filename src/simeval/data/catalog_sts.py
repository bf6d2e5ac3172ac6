"""Catalog entries of the SemEval STS 2013-2016 English test sets (``sts/<year>/``), from the
data README's file table (sizes and sha256 of the staged copy)."""

from __future__ import annotations

from simeval.data.catalog_types import CatalogEntry, CatalogFile

UPSTREAM = (
    "https://raw.githubusercontent.com/rcln/SemEval/"
    "0524e9b9bfd6f85da2bc8f284d8c642b149753d0/english_testbed/data/"
)
CITATIONS = {
    2013: "Agirre et al. (2013), *SEM 2013 shared task: Semantic Textual Similarity",
    2014: "Agirre et al. (2014), SemEval-2014 Task 10: Multilingual Semantic Textual Similarity",
    2015: "Agirre et al. (2015), SemEval-2015 Task 2: Semantic Textual Similarity",
    2016: "Agirre et al. (2016), SemEval-2016 Task 1: Semantic Textual Similarity",
}
FILES = {
    2013: (
        (
            "sts/2013/00-readme.txt",
            7889,
            "bebc5a882a8dbfd96d538dc1c1ab5cb20e8eea890641ad869427f1392c8e737b",
        ),
        (
            "sts/2013/test/STS.2013.test.gs.ALL.txt",
            8155,
            "046ddd1187dea275635416b832e0d127e773e62b72a57a054b6bb08979e50259",
        ),
        (
            "sts/2013/test/STS.2013.test.gs.FNWN.txt",
            685,
            "8ca95b7228119578e2007839cf7969f22c4f1fd41fd610c4b7f9683072d98066",
        ),
        (
            "sts/2013/test/STS.2013.test.gs.OnWN.txt",
            2001,
            "0cd497aaddb00a2fb6db25f77bccfc09e8aa012e11549b81b434bab1a27ad954",
        ),
        (
            "sts/2013/test/STS.2013.test.gs.SMT.txt",
            2753,
            "a09775ba2fafc9cbe0a7d0a08f0c729789b0d6c99dc4867a86b45b71a73f004e",
        ),
        (
            "sts/2013/test/STS.2013.test.gs.headlines.txt",
            2716,
            "f49f64089011436dd296ef384c07160219406feef7dc4b9fa2af52a519f32bc6",
        ),
        (
            "sts/2013/test/STS.2013.test.input.FNWN.txt",
            45727,
            "b48fc64cd85703ac6431f8ea6722f325fe9620fd4f33b3d5c24dd89c553e74bc",
        ),
        (
            "sts/2013/test/STS.2013.test.input.OnWN.txt",
            47247,
            "127c66889627f26dc11864dc9be4ba1e4895ed60125985c755429ad588e4b9c8",
        ),
        (
            "sts/2013/test/STS.2013.test.input.SMT.txt",
            222567,
            "270e4b225ead0c5640350dcef38ef00a5bade9b42a685d594079e9f8ae792c9e",
        ),
        (
            "sts/2013/test/STS.2013.test.input.headlines.txt",
            69120,
            "885e6149fff28a79591ba464c13626d03593b822c88c7c04b6564354d31c7561",
        ),
    ),
    2014: (
        (
            "sts/2014/test/STS.2014.test.gs.OnWN.txt",
            2765,
            "1c80147df270ea4cfce14a47ed29f8a2f10d5dc016d02836077fd786ff7f535b",
        ),
        (
            "sts/2014/test/STS.2014.test.gs.deft-forum.txt",
            1780,
            "ba6dc76696b5c93985590a325b4d142449932cdf0d715b2bab1b1743fe3c488c",
        ),
        (
            "sts/2014/test/STS.2014.test.gs.deft-news.txt",
            1058,
            "105c5b333abd50c274efb4dae9e3e0dab36ed63eee780cfb49955b1586bd62f2",
        ),
        (
            "sts/2014/test/STS.2014.test.gs.headlines.txt",
            2610,
            "f243c34647255cd0b994565ed4f58dd31506e7d9c9d6250d1a6dd14095625832",
        ),
        (
            "sts/2014/test/STS.2014.test.gs.images.txt",
            2550,
            "fc994ebacc7074c332626fa9e29542d7340a48a3cdb999b47cdb59c378523a62",
        ),
        (
            "sts/2014/test/STS.2014.test.gs.tweet-news.txt",
            2640,
            "0098c644bfeaa2d511a8297b1940771865900c372c9dd49a62726dc5ec02c9a3",
        ),
        (
            "sts/2014/test/STS.2014.test.input.OnWN.txt",
            68106,
            "a227d5fe1c1f729a52a0b39b5b36d3225e1bca3c278e7ed392cac2ecd3990f1c",
        ),
        (
            "sts/2014/test/STS.2014.test.input.deft-forum.txt",
            42219,
            "8b48aa15bb850e2827446f6e98cc3c5123ff283924b4571a409aa2fab73e35c6",
        ),
        (
            "sts/2014/test/STS.2014.test.input.deft-news.txt",
            62688,
            "92df5b8c48873cbfba36b73a77955fb965c9244776df9e9c2c4d2f6155bdeefe",
        ),
        (
            "sts/2014/test/STS.2014.test.input.headlines.txt",
            71549,
            "a19f84294325c62a2a403b59957196fd7737f86654ded0e04e0b54bc4a8bcf9e",
        ),
        (
            "sts/2014/test/STS.2014.test.input.images.txt",
            69478,
            "cec1b3c08b0e4c88aeaf8dca047f5b28f4a8588eeef58475e0f16491d2bb7193",
        ),
        (
            "sts/2014/test/STS.2014.test.input.tweet-news.txt",
            91730,
            "d0f2b34fed71e859f7236ffe2c160d09be349030583cb4443c6766ee5d1847f9",
        ),
    ),
    2015: (
        (
            "sts/2015/test/STS.2015.gs.answers-forums.txt",
            3500,
            "1644301a7540e5484da285002e9269062852efb2272be614cad99c9530f6a102",
        ),
        (
            "sts/2015/test/STS.2015.gs.answers-students.txt",
            4500,
            "028db213140f8c7aef7497c4ae38b6380938f20359852231669c83dce11c3701",
        ),
        (
            "sts/2015/test/STS.2015.gs.belief.txt",
            3500,
            "5736192faaccbdbecd0ef6b73ec04b24115cd2e48d55dc3b1b170da3d2a81c75",
        ),
        (
            "sts/2015/test/STS.2015.gs.headlines.txt",
            4500,
            "e8e432f769c8a94ddb62ae3343890ac24a9dd78a116d56c707313bc59413dd56",
        ),
        (
            "sts/2015/test/STS.2015.gs.images.txt",
            4500,
            "ed8878209098c77ca7f02ac413d3fd698f92ad3425999555e50fda89fc46012a",
        ),
        (
            "sts/2015/test/STS.2015.input.answers-forums.LICENSE",
            2494,
            "65718ec23624d97933308adc08cb270db798cdd5593d35501be9bfda5ba1a28a",
        ),
        (
            "sts/2015/test/STS.2015.input.answers-forums.txt",
            347534,
            "fe8e460a74e8e38704ac4e6ddcedec89fd6e51cd0467d6f4301b444b259688e1",
        ),
        (
            "sts/2015/test/STS.2015.input.answers-students.txt",
            161643,
            "16eedf46fb3b29822b275a0ddcff8e873a6eb4bafba244a17c4049ffc318d62a",
        ),
        (
            "sts/2015/test/STS.2015.input.belief.txt",
            281234,
            "6e924a19fb1abbce01a8666f07766250b46a96c89272de8e5b01d0905bc61b79",
        ),
        (
            "sts/2015/test/STS.2015.input.headlines.txt",
            145511,
            "779c195c54b72282bd3c8ca1dbb09a4155a39b2acd13d5cf819d8555d717cf6a",
        ),
        (
            "sts/2015/test/STS.2015.input.images.txt",
            144021,
            "6f332542a75bcd18ea1442fc129306f746cd7ade7010ea274e763bfca576cc47",
        ),
    ),
    2016: (
        (
            "sts/2016/test/LICENSE.txt",
            3543,
            "94b7380d16f832ae97bcb48536f22fe9a22e8e20f8cf88a9298f65c556e3a6f2",
        ),
        (
            "sts/2016/test/README.txt",
            2998,
            "1b74b4c84a59f139153f0348e212bfdb33dffd3b008dfb2c4f7728c4fa27141f",
        ),
        (
            "sts/2016/test/STS.2016.gs.answer-answer.txt",
            1826,
            "332efd741b0cb247d20dd2a6cec854360c921c7e6b395f328f562d8d26057214",
        ),
        (
            "sts/2016/test/STS.2016.gs.headlines.txt",
            1747,
            "01e33a95996201a6e81e3cce9eda0f15048b77613ea64dce2929bb35479f7d85",
        ),
        (
            "sts/2016/test/STS.2016.gs.plagiarism.txt",
            1501,
            "29984944a91aaff484f2b2e5d4d434fc8a6f5ef6f578a880cccd2786f5142fdc",
        ),
        (
            "sts/2016/test/STS.2016.gs.postediting.txt",
            3531,
            "81947ed9dbe7f85b7bd249df68ed5c7b2f16f06390ad568eb5554b1e26bc5577",
        ),
        (
            "sts/2016/test/STS.2016.gs.question-question.txt",
            1764,
            "cf9ebf9d140191f73620cda0560947ad9283c910735d0d541b8a401a5e64afb0",
        ),
        (
            "sts/2016/test/STS.2016.input.answer-answer.ascii",
            621627,
            "1770cbd3b07ef198cb8f118114dbfc22ab490ff259b7cf840909012298cf460a",
        ),
        (
            "sts/2016/test/STS.2016.input.answer-answer.txt",
            621670,
            "7daf2cd87751a0f8b754fe705bdb280c31591d9febf5b6fce9dcb10d3b8a72a7",
        ),
        (
            "sts/2016/test/STS.2016.input.headlines.ascii",
            289007,
            "4abc9faf7d16b52c1207834bcb101017b1c5c541e4d137a26ddf186f2d528ee5",
        ),
        (
            "sts/2016/test/STS.2016.input.headlines.txt",
            289010,
            "ec8ee1124e71f4cc18c861f542fa8f32c86fef0703de31b0f7a02e22e935d992",
        ),
        (
            "sts/2016/test/STS.2016.input.plagiarism.ascii",
            516587,
            "817854e5c8e004d606a656a26be7bb48f25857882ecdcca7dbda1d61ed146e2b",
        ),
        (
            "sts/2016/test/STS.2016.input.plagiarism.txt",
            517084,
            "6760cb210f4423262fd8962674e6668409690ce888bb1617659c6886cf004019",
        ),
        (
            "sts/2016/test/STS.2016.input.postediting.ascii",
            1448299,
            "fe08761cdf93c7933a86cf4062466b6a745997c9d04d9c6fe794cc41ad888a3a",
        ),
        (
            "sts/2016/test/STS.2016.input.postediting.txt",
            1449412,
            "a8a66185877785307803c99a0899d65aefb062c4bf7689560b95d37bb0c05474",
        ),
        (
            "sts/2016/test/STS.2016.input.question-question.ascii",
            727109,
            "1206ebfeb55a41b4f60723b2e1e476e8a0ab55aa9865e1abd1a342e069486906",
        ),
        (
            "sts/2016/test/STS.2016.input.question-question.txt",
            727206,
            "b7f95dead3d8c59fbaacbb135643c6ebd322682db6502fdb24d4ce83c9bf016d",
        ),
    ),
}


def _entry(year: int) -> CatalogEntry:
    files = tuple(
        CatalogFile(path, size, sha, path.removeprefix("sts/")) for path, size, sha in FILES[year]
    )
    return CatalogEntry(
        name=f"sts{year}",
        title=f"SemEval-{year} STS English test sets",
        description=f"STS {year} test: sentence pairs with 0-5 gold; unscored pairs have empty "
        "gold lines from 2015 on.",
        upstream=UPSTREAM,
        licence="per-source terms of the STS releases; research use",
        citation=CITATIONS[year],
        files=files,
        note="Upstream paths follow the staged copy's layout; the sha256 is verified.",
    )


STS_ENTRIES = tuple(_entry(year) for year in sorted(FILES))


STSB_FILES = (
    ("LICENSE.txt", 6641, "3dfc3217395f8c5dd05c5f8995f25fe2f8fd258e6dd770b3de480749caee8c70"),
    ("readme.txt", 5994, "e9488363d211c32ca5e912954f16eb9233cfed1b5b4b0475d0d812d35d7c8ef1"),
    ("sts-dev.csv", 255680, "5d7e944d8b02734b07bfdb5df67db3420c64bed153fcaa1ba47ad03480cf4234"),
    ("sts-test.csv", 282419, "affe45928a66ee5a708531233c95b7dacbbdc57f974f002a3d32ea0180cf816a"),
    ("sts-train.csv", 901177, "0f71910b59aa1ad973c5897f0791f3b0965a92b8f82b1a95f3eea9f4162fda82"),
)

STSB_ENTRY = CatalogEntry(
    name="stsbenchmark",
    title="STS Benchmark (Cer et al. 2017)",
    description="8,628 English sentence pairs from the STS tasks 2012-2017 with 0-5 gold: "
    "train 5,749, dev 1,500, test 1,379; genre, source file and year kept per pair.",
    upstream="https://raw.githubusercontent.com/zhangzhenhu/Semantic-Texual-Similarity-Toolkits/"
    "c55a72f51bd15a8bd75114247c06984b432050f9/",
    licence="per-source terms (stsbenchmark/LICENSE.txt); research use",
    citation="Cer, Diab, Agirre, Lopez-Gazpio, Specia (2017), SemEval-2017 Task 1: Semantic "
    "Textual Similarity Multilingual and Cross-lingual Focused Evaluation",
    files=tuple(CatalogFile(f"stsbenchmark/{n}", size, sha, n) for n, size, sha in STSB_FILES),
    note="Tab-separated genre, file, year, id, score, sentence1, sentence2; some rows add two "
    "source columns, and sentences hold quote marks (read with quoting off). The upstream path "
    "within the repository is not verified from here (the sha256 is).",
)
