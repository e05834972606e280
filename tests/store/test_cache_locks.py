"""The cache's inter-process locks (tofu_solve/store/cache.py, Cache.locked): flock where it
exists, readers shared and writers exclusive; filelock's exclusive lock where it does not
(Windows), exercised here by taking flock away."""

from __future__ import annotations

import threading

import pytest

from tofu_solve.store import cache as cache_module
from tofu_solve.store.cache import Cache


def _overlap(cache: Cache, first_shared: bool, second_shared: bool) -> bool:
    """Whether a second holder gets the lock while the first still holds it."""
    held, got, release = threading.Event(), threading.Event(), threading.Event()

    def first():
        with cache.locked("git:mirror", shared=first_shared):
            held.set()
            release.wait(10)

    def second():
        held.wait(10)
        with cache.locked("git:mirror", shared=second_shared):
            got.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    overlapped = got.wait(0.5)
    release.set()
    for t in threads:
        t.join(10)
    assert got.is_set()  # the second holder always gets it in the end
    return overlapped


@pytest.mark.skipif(cache_module._fcntl is None, reason="flock is POSIX only; the fallback is tested below")
def test_flock_readers_share_and_a_writer_excludes(tmp_path):
    cache = Cache(tmp_path)
    assert _overlap(cache, True, True)
    assert not _overlap(cache, True, False)
    assert not _overlap(cache, False, True)
    assert not _overlap(cache, False, False)


def test_without_flock_filelock_excludes_everyone(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_module, "_fcntl", None)
    cache = Cache(tmp_path)
    assert not _overlap(cache, True, True)
    assert not _overlap(cache, False, False)
    with cache.locked("pkg:x"):
        pass
    assert (tmp_path / "locks").is_dir()
