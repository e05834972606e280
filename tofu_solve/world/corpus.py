"""The corpus a fixture world is built from: the real dependency data in ``../shared/corpus``
(beside the repository), or the copy the package carries (``tofu_solve/data/corpus``, written
by ``scripts/bundle_corpus.py``), so that ``tofu-solve demo`` works from an installed package
(issue #37 §2)."""

from __future__ import annotations

import hashlib
import lzma
from importlib import resources
from pathlib import Path

from ..errors import CacheError
from ..lockfile.replacefile import replace_dir

FILES = ("modules.json", "providers.json")


def bundled_corpus(cache_dir: Path) -> Path:
    """The package's own corpus as a directory (``modules.json``, ``providers.json``),
    decompressed once into ``cache_dir/corpus/<digest>/`` and reused; a damaged or partial
    copy is never used (each copy is written beside its final place and renamed into it).

    Raises:
        CacheError: the cache directory cannot be written.
        FileNotFoundError: the package carries no corpus (a build without package data).
    """
    data = resources.files("tofu_solve").joinpath("data/corpus")
    packed = {name: data.joinpath(f"{name}.xz").read_bytes() for name in FILES}
    digest = hashlib.sha256(b"".join(hashlib.sha256(packed[n]).digest() for n in FILES)).hexdigest()[:16]
    dest = cache_dir / "corpus" / digest
    if all((dest / n).is_file() for n in FILES):
        return dest

    def fill(tmp: Path) -> None:
        for name, blob in packed.items():
            (tmp / name).write_bytes(lzma.decompress(blob))
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        # a copy another run placed meanwhile is kept; a partial one found above is replaced
        replace_dir(dest, fill, keep_existing=not dest.exists())
    except OSError as e:
        raise CacheError("Cannot use the cache directory",
                         f"{dest}: {e.strerror or e}. The demo unpacks its corpus there; set TOFU_SOLVE_CACHE_DIR "
                         "to a writable directory.") from None
    return dest
