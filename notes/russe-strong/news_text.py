"""ru_news_rt_ng's .jsonlines.zip files as plain text for `simeval train --corpus FOLDER`:
one .txt per part, each document its title, a full stop and its content.

    python notes/russe-strong/news_text.py ../shared/data/corpora/ru_news_rt_ng/data OUT_DIR
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path


def main(source: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for archive in sorted(source.glob("*.jsonlines.zip")):
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                with zf.open(name) as lines, open(out / f"{name}.txt", "w", encoding="utf-8") as f:
                    for line in lines:
                        doc = json.loads(line)
                        f.write(f"{doc.get('title') or ''}.\n{doc.get('content') or ''}\n\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
