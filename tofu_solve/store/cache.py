"""The on-disk cache: git mirrors, extracted packages, candidate metadata and tag lists.

Location: ``$TOFU_SOLVE_CACHE_DIR``, else ``$XDG_CACHE_HOME/tofu-solve``, else
``~/.cache/tofu-solve``. Every directory name is a SHA-256 of a credential-free address,
never the raw URL. Entries are written to a temporary name and renamed into place under a
file lock, so two runs sharing the cache never see half-written entries.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from .._lazy import load
from ..addrs.redact import redact, url_key
from ..errors import CacheError, HashError
from ..lockfile.hashes import VCS_DIRS, DirHash, hash_dir_listed
from ..lockfile.replacefile import replace_dir, write_atomic

try:
    import fcntl as _fcntl
except ImportError:  # Windows: filelock's exclusive locks instead (see Cache.locked)
    _fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

STALE_SCRATCH_SECONDS = 24 * 3600  # scratch older than this in the cache's tmp/ is a killed run's


def _sweep(directory: Path, before: float) -> None:
    """Remove the entries of ``directory`` last modified before ``before`` (epoch seconds);
    an entry that vanishes or resists meanwhile is left alone."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for e in entries:
        try:
            if e.stat(follow_symlinks=False).st_mtime >= before:
                continue
            if e.is_dir(follow_symlinks=False):
                shutil.rmtree(e.path, ignore_errors=True)
            else:
                os.unlink(e.path)
        except OSError:
            continue


def key_of(text: str) -> str:
    """Cache key of an address: SHA-256 hex of the credential-free form."""
    if "://" in text:
        return url_key(text.split("::", 1)[-1]) if "::" in text.split("://", 1)[0] else url_key(text)
    return hashlib.sha256(redact(text).encode()).hexdigest()


def _safe_name(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class Cache:
    """Directories under one root; see the module docstring.

    Package entries heal: each is published with its ``h1:`` recorded beside it and is
    hashed again before its first reuse in a run; an entry that no longer matches (tampered,
    or damaged by a crash or a full disk) is discarded and filled again, never handed out.
    An entry published or checked by this run is not hashed again by it (a package many
    calls use at several subdirectories was hashed once per subdirectory). With
    ``fresh=True`` (``init -upgrade``) every entry is filled afresh once per run.

    Attributes:
        discarded: package addresses (redacted) whose cached copy was damaged and replaced
            during this run.
    """

    def __init__(self, root: str | os.PathLike, fresh: bool = False):
        self.root = Path(root)
        self.fresh = fresh
        self.discarded: list[str] = []
        self._refreshed: set[str] = set()
        self._checked: set[str] = set()  # package entries published or checked by this run
        self._hashes: dict[str, DirHash] = {}  # their directories' hashes, as computed then
        self._mutex = threading.Lock()
        self._swept = False

    def cache_error(self, e: OSError, where: Path) -> CacheError:
        """The error for an OSError met while writing ``where`` in the cache."""
        return CacheError("Cannot use the cache directory",
                          f"{where}: {e.strerror or e}. tofu-solve keeps downloads in {self.root} "
                          "(TOFU_SOLVE_CACHE_DIR, else $XDG_CACHE_HOME/tofu-solve); point it at a writable "
                          "directory with free space.")

    def _dir(self, *parts: str) -> Path:
        p = self.root.joinpath(*parts)
        try:
            p.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise self.cache_error(e, p) from None
        return p

    @contextlib.contextmanager
    def locked(self, name: str, shared: bool = False) -> Iterator[None]:
        """An inter-process lock named ``name`` on a lock file in the cache: exclusive, or
        ``shared`` with other shared holders (readers of a git mirror). Every call opens the
        file afresh, so threads of one process exclude each other as processes do.

        Where ``flock`` exists (POSIX) it is used directly: filelock, the well-kept library
        for this, has no shared ``flock`` lock (its read-write locks keep their state in
        SQLite or in heartbeat files). Elsewhere (Windows) a ``filelock.FileLock`` is
        taken, exclusive for readers too: correct, only less parallel.

        Raises:
            CacheError: the lock file cannot be opened.
        """
        lock_path = self._dir("locks") / (_safe_name(name) + ".lock")
        if _fcntl is None:
            yield from _file_lock(lock_path, self.cache_error)
            return
        try:
            fh = open(lock_path, "a+")  # noqa: SIM115 (the with below; its failure is a cache error)
        except OSError as e:
            raise self.cache_error(e, lock_path) from None
        with fh:
            _fcntl.flock(fh, _fcntl.LOCK_SH if shared else _fcntl.LOCK_EX)
            try:
                yield
            finally:
                _fcntl.flock(fh, _fcntl.LOCK_UN)

    def tmp_dir(self) -> Path:
        """Scratch space for downloads and git fetches in flight (same file system as the
        entries, so finished ones are renamed into place). The first call of a run removes
        what a killed run left there more than :data:`STALE_SCRATCH_SECONDS` ago (no live
        run keeps scratch that long: every download and git command has a deadline)."""
        d = self._dir("tmp")
        with self._mutex:
            swept, self._swept = self._swept, True
        if not swept:
            _sweep(d, time.time() - STALE_SCRATCH_SECONDS)
        return d

    # ------------------------------------------------------------------ git mirrors

    def git_mirror(self, url: str) -> Path:
        """The bare mirror directory for a git remote (not created)."""
        return self._dir("git") / (url_key(url) + ".git")

    # ------------------------------------------------------------------ packages

    def package_dir(self, package_address: str, ref: str) -> Path:
        """Where the extracted package ``package_address`` at ``ref`` lives (may not exist)."""
        return self._dir("packages", key_of(package_address)) / _safe_name(ref)

    def ensure_package(self, package_address: str, ref: str, fill: Callable[[Path], None]) -> Path:
        """The package directory, created with ``fill(tmp_dir)`` under a lock when missing.
        ``fill`` writes into an empty temporary directory that is renamed into place only
        when it returns."""
        final = self.package_dir(package_address, ref)
        name = f"{package_address}@{ref}"
        if self._usable(final, name):
            return final
        with self.locked(f"pkg:{name}"):
            if self._usable(final, name):
                return final
            hashed: list[DirHash] = []

            def fill_and_hash(tmp: Path) -> None:
                fill(tmp)
                hashed.append(hash_dir_listed(tmp, exclude=VCS_DIRS))
            try:
                replace_dir(final, fill_and_hash)  # private to the cache: mkdtemp's 0700
                self.write_json("package-h1", key_of(name), hashed[0].h1)
            except OSError as e:
                raise self.cache_error(e, final) from None
            with self._mutex:
                self._refreshed.add(name)
                self._checked.add(name)
                self._hashes[os.fspath(final)] = hashed[0]
        return final

    def entry_h1(self, path: str | os.PathLike, exclude_files: frozenset[str] = frozenset()) -> str | None:
        """The ``h1:`` (version-control directories excluded) of the package entry at
        ``path`` as this run computed it when it published or checked the entry, so that
        the caller need not read it again; None when this run did not hash it, or when it
        holds a file whose base name is in ``exclude_files`` (its hash without them is
        another)."""
        with self._mutex:
            known = self._hashes.get(os.fspath(path))
        return None if known is None or known.covers_any(exclude_files) else known.h1

    def _usable(self, final: Path, name: str) -> bool:
        """Whether the entry exists, needs no refresh this run, and still hashes to the
        ``h1:`` recorded when it was published (an entry from before hashes were recorded
        is trusted once and its hash recorded)."""
        if not final.is_dir():
            return False
        with self._mutex:
            if self.fresh and name not in self._refreshed:
                return False
            if name in self._checked:
                return True
        expected = self.read_json("package-h1", key_of(name))
        try:
            listed: DirHash | None = hash_dir_listed(final, exclude=VCS_DIRS)
        except HashError:
            listed = None
        actual = listed.h1 if listed is not None else None
        if expected is None and actual is not None:
            self.write_json("package-h1", key_of(name), actual)
        elif actual != expected:
            log.warning("cache entry %s no longer matches its recorded hash; discarding it", redact(name))
            with self._mutex:
                if redact(name) not in self.discarded:  # found before the lock and again under it: once
                    self.discarded.append(redact(name))
            return False
        with self._mutex:
            self._checked.add(name)
            if listed is not None:
                self._hashes[os.fspath(final)] = listed
        return True

    def write_archive_hash(self, key: tuple[str, str], sha256_hex: str) -> None:
        """Remember the ``zh:`` of the archive a package was extracted from."""
        self.write_json("archive-hashes", key_of("\n".join(key)), "zh:" + sha256_hex)

    def archive_hash(self, key: tuple[str, str]) -> str | None:
        return self.read_json("archive-hashes", key_of("\n".join(key)))

    # ------------------------------------------------------------------ JSON documents

    def _json_path(self, kind: str, key: str) -> Path:
        return self._dir(kind, key[:2]) / f"{key}.json"

    def json_file(self, kind: str, key: str) -> Path:
        """Where the document ``kind``/``key`` is kept, creating nothing (for a read-only
        command: :meth:`peek_json`)."""
        return self.root / kind / key[:2] / f"{key}.json"

    def peek_json(self, kind: str, key: str):
        """The document ``kind``/``key``, or None; creates nothing, as ``check`` must not."""
        try:
            return json.loads(self.json_file(kind, key).read_text())
        except (OSError, ValueError):
            return None

    def read_json(self, kind: str, key: str):
        p = self._json_path(kind, key)
        try:
            return json.loads(p.read_text())
        except (OSError, ValueError):
            return None

    def json_written_at(self, kind: str, key: str) -> float | None:
        """When the document was stored (seconds since the epoch), or None when absent."""
        try:
            return self._json_path(kind, key).stat().st_mtime
        except OSError:
            return None

    def write_json(self, kind: str, key: str, data) -> None:
        """Store a JSON document atomically. Raises CacheError (disk full, read-only)."""
        p = self._json_path(kind, key)
        try:
            write_atomic(p, json.dumps(data))
        except OSError as e:
            raise self.cache_error(e, p) from None


class AcceptedSyntax:
    """A :class:`tofu_solve.config.hcl1.SyntaxMemo` kept in the cache (``hcl1-accepted``):
    the digests of CLI configuration texts pyhcl's parser accepted, never the texts (issue
    #81 §6). Unwritable: remembers nothing, and says so nowhere (the parser runs again)."""

    KIND = "hcl1-accepted"

    def __init__(self, cache: Cache):
        self.cache = cache

    def knows(self, digest: str) -> bool:
        return self.cache.peek_json(self.KIND, digest) == {"accepted": True}

    def remember(self, digest: str) -> None:
        try:
            self.cache.write_json(self.KIND, digest, {"accepted": True})
        except CacheError:
            pass


def _file_lock(lock_path: Path, cache_error: Callable[[OSError, Path], CacheError]) -> Iterator[None]:
    """Hold ``filelock.FileLock(lock_path)`` (a new one per call: no reentrancy between
    threads) around one ``yield``."""
    load("filelock")
    import filelock

    lock = filelock.FileLock(str(lock_path), thread_local=False)
    try:
        lock.acquire()
    except OSError as e:
        raise cache_error(e, lock_path) from None
    try:
        yield
    finally:
        lock.release()
