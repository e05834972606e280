"""The corpus the package carries (tofu_solve/data/corpus, issue #37 §2): byte for byte the
corpus beside the repository, unpacked once into the cache, and what the demo falls back to
when no corpus is beside it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tofu_solve.world.corpus import FILES, bundled_corpus

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "corpus"


def test_the_bundled_corpus_is_the_shared_one(tmp_path):
    got = bundled_corpus(tmp_path)
    for name in FILES:
        assert (got / name).read_bytes() == (SHARED / name).read_bytes(), f"run python3 scripts/bundle_corpus.py ({name})"
    assert subprocess.run([sys.executable, str(REPO / "scripts" / "bundle_corpus.py"), "--check"],
                          capture_output=True, timeout=120).returncode == 0


def test_unpacked_once_and_reused(tmp_path):
    first = bundled_corpus(tmp_path)
    stamp = (first / "modules.json").stat().st_mtime_ns
    assert bundled_corpus(tmp_path) == first
    assert (first / "modules.json").stat().st_mtime_ns == stamp
    assert [p.name for p in (tmp_path / "corpus").iterdir()] == [first.name]  # no scratch left behind


def test_a_partial_copy_is_replaced(tmp_path):
    first = bundled_corpus(tmp_path)
    (first / "providers.json").unlink()  # a copy someone damaged
    again = bundled_corpus(tmp_path)
    assert (again / "providers.json").read_bytes() == (SHARED / "providers.json").read_bytes()


def test_the_demo_finds_the_bundled_corpus_with_no_corpus_beside_it(tmp_path):
    """Run from a directory with nothing beside it and the source tree's own ../shared out of
    the way (a copy of the package elsewhere): the corpus comes from the package."""
    import shutil

    pkg = tmp_path / "site" / "tofu_solve"
    shutil.copytree(REPO / "tofu_solve", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    work = tmp_path / "empty" / "dir"
    work.mkdir(parents=True)
    code = ("from pathlib import Path; from tofu_solve.command.demo import find_corpus; "
            f"import tofu_solve; assert tofu_solve.__file__.startswith({str(pkg)!r}), tofu_solve.__file__; "
            f"print(find_corpus(None, None, Path({str(tmp_path / 'cache')!r})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(tmp_path / "site")})
    assert out.returncode == 0, out.stderr
    found = Path(out.stdout.strip())
    assert found.parent == tmp_path / "cache" / "corpus"
    assert (found / "modules.json").read_bytes() == (SHARED / "modules.json").read_bytes()
