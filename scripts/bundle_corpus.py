"""Bundle the real-data corpus into the package, for ``tofu-solve demo`` from an installed
package (issue #37 §2):

    python3 scripts/bundle_corpus.py            # ../shared/corpus -> tofu_solve/data/corpus/
    python3 scripts/bundle_corpus.py --check    # exit 1 when the bundled copy is stale

Only what the demo's fixture world is built from ships: ``modules.json`` and
``providers.json`` (``example_roots.json`` feeds the benchmarks and the snapshot, which run
from the repository), each xz-compressed (9.5 MB of JSON become about 150 kB). The files are
byte-identical to the corpus once decompressed; ``tests/world/test_bundled_corpus.py`` checks
that they still are.
"""

from __future__ import annotations

import argparse
import lzma
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"
BUNDLED = REPO / "tofu_solve" / "data" / "corpus"
FILES = ("modules.json", "providers.json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the bundled corpus is stale")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus (default ../shared/corpus)")
    ns = parser.parse_args(argv)
    stale = []
    for name in FILES:
        data = (ns.corpus / name).read_bytes()
        target = BUNDLED / f"{name}.xz"
        if ns.check:
            if not target.exists() or lzma.decompress(target.read_bytes()) != data:
                stale.append(name)
            continue
        BUNDLED.mkdir(parents=True, exist_ok=True)
        target.write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))
        print(f"wrote {target} ({target.stat().st_size} bytes from {len(data)})")
    if stale:
        print(f"bundled corpus is stale ({', '.join(stale)}): run python3 scripts/bundle_corpus.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
