"""Package entries of the cache (tofu_solve/store/cache.py, Cache.ensure_package): published
with their h1: recorded, checked against it once per run before reuse, discarded and filled
again when they no longer match."""

from __future__ import annotations

from pathlib import Path

from tofu_solve.lockfile.hashes import VCS_DIRS, hash_dir
from tofu_solve.store import cache as cache_module
from tofu_solve.store.cache import Cache


def _fill(text: str):
    def fill(d: Path) -> None:
        (d / "modules" / "a").mkdir(parents=True)
        (d / "modules" / "a" / "main.tf").write_text(text)
        (d / "main.tf").write_text("# root\n")
    return fill


def _count_calls(monkeypatch, module, name: str) -> list[Path]:
    """The directories ``module.name`` (a directory hash) is called on from now on, in order."""
    calls: list[Path] = []
    real = getattr(module, name)

    def counting(path, **kw):
        calls.append(Path(path))
        return real(path, **kw)
    monkeypatch.setattr(module, name, counting)
    return calls


def test_an_entry_is_hashed_once_per_run_and_checked_again_by_the_next(tmp_path, monkeypatch):
    hashed = _count_calls(monkeypatch, cache_module, "hash_dir_listed")
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


def test_the_hash_of_an_entry_published_or_checked_this_run_is_handed_to_its_user(tmp_path):
    run = Cache(tmp_path)
    entry = run.ensure_package("git::https://example.com/m.git", "c0ffee", _fill("a\n"))
    assert run.entry_h1(entry) == hash_dir(entry, exclude=VCS_DIRS)
    assert run.entry_h1(tmp_path / "elsewhere") is None  # not an entry this run hashed
    later = Cache(tmp_path)
    assert later.entry_h1(entry) is None  # the next run has not checked it yet
    later.ensure_package("git::https://example.com/m.git", "c0ffee", _fill("never\n"))
    assert later.entry_h1(entry) == hash_dir(entry, exclude=VCS_DIRS)


def test_no_hash_is_handed_out_for_an_entry_holding_a_file_its_user_leaves_out(tmp_path):
    run = Cache(tmp_path)
    entry = run.ensure_package("git::https://example.com/m.git", "c0ffee", _fill("a\n"))
    assert run.entry_h1(entry, frozenset({"main.tf"})) is None  # in two directories
    assert run.entry_h1(entry, frozenset({"absent.tf"})) == hash_dir(entry, exclude=VCS_DIRS)


def test_the_lock_takes_the_hash_the_cache_computed_and_computes_its_own_when_they_differ(tmp_path, monkeypatch):
    """workdir/install.package_hashes: the lock's h1: leaves tofu-solve's own override file
    out (NOT_HASHED); the cache's covers every file. The cache's hash is taken only when no
    such file is in the package, and it is then the hash the lock would compute."""
    from types import SimpleNamespace

    from tofu_solve.workdir import install

    run = Cache(tmp_path / "cache")
    plain = run.ensure_package("git::https://example.com/m.git", "c0ffee", _fill("a\n"))

    def with_override(d: Path) -> None:
        _fill("b\n")(d)
        (d / "modules" / "a" / next(iter(install.NOT_HASHED))).write_text("# shipped by the package\n")
    odd = run.ensure_package("git::https://example.com/m.git", "beef", with_override)
    computed = _count_calls(monkeypatch, install, "hash_dir")
    for entry in (plain, odd):
        pkg = SimpleNamespace(root=entry, zh=None)
        assert install.package_hashes(None, pkg, None, run) == install.package_hashes(None, pkg)
    assert computed == [plain, odd, odd]  # with the cache, the plain entry was not read again
    assert install.package_hashes(None, SimpleNamespace(root=odd, zh=None))[0] != run.entry_h1(odd)
