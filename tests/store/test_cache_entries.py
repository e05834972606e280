"""Package entries of the cache (tofu_solve/store/cache.py, Cache.ensure_package): published
with their h1: recorded, checked against it once per run before reuse, discarded and filled
again when they no longer match."""

from __future__ import annotations

from pathlib import Path

from tofu_solve.store import cache as cache_module
from tofu_solve.store.cache import Cache


def _fill(text: str):
    def fill(d: Path) -> None:
        (d / "modules" / "a").mkdir(parents=True)
        (d / "modules" / "a" / "main.tf").write_text(text)
        (d / "main.tf").write_text("# root\n")
    return fill


def test_an_entry_is_hashed_once_per_run_and_checked_again_by_the_next(tmp_path, monkeypatch):
    hashed: list[Path] = []
    real = cache_module.hash_dir

    def counting(path, **kw):
        hashed.append(Path(path))
        return real(path, **kw)
    monkeypatch.setattr(cache_module, "hash_dir", counting)
    run = Cache(tmp_path)
    first = run.ensure_package("git::https://example.com/m.git", "c0ffee", _fill("a\n"))
    assert len(hashed) == 1  # published with its hash
    for _ in range(3):  # the same package asked for again (another subdirectory, another call)
        assert run.ensure_package("git::https://example.com/m.git", "c0ffee", _fill("never\n")) == first
    assert len(hashed) == 1
    later = Cache(tmp_path)  # the next run checks it once before its first reuse
    for _ in range(3):
        assert later.ensure_package("git::https://example.com/m.git", "c0ffee", _fill("never\n")) == first
    assert len(hashed) == 2
    assert (first / "modules" / "a" / "main.tf").read_text() == "a\n"


def test_a_damaged_entry_is_filled_again_by_the_next_run(tmp_path):
    run = Cache(tmp_path)
    entry = run.ensure_package("git::https://example.com/m.git", "c0ffee", _fill("a\n"))
    (entry / "modules" / "a" / "main.tf").write_text("tampered\n")
    later = Cache(tmp_path)
    again = later.ensure_package("git::https://example.com/m.git", "c0ffee", _fill("a\n"))
    assert (again / "modules" / "a" / "main.tf").read_text() == "a\n"
    assert later.discarded == ["git::https://example.com/m.git@c0ffee"]
