"""The on-disk cache: git mirrors, extracted packages, candidate metadata and tag lists.

Location: ``$TOFU_SOLVE_CACHE_DIR``, else ``$XDG_CACHE_HOME/tofu-solve``, else
``~/.cache/tofu-solve``. Every directory name is a SHA-256 of a credential-free address,
never the raw URL. Entries are written to a temporary name and renamed into place under a
file lock, so two runs sharing the cache never see half-written entries.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from .netutil import url_key


def default_cache_dir(env: dict | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("TOFU_SOLVE_CACHE_DIR"):
        return Path(env["TOFU_SOLVE_CACHE_DIR"])
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tofu-solve"


def key_of(text: str) -> str:
    """Cache key of an address: SHA-256 hex of the credential-free form."""
    if "://" in text:
        return url_key(text.split("::", 1)[-1]) if "::" in text.split("://", 1)[0] else url_key(text)
    return hashlib.sha256(text.encode()).hexdigest()


def _safe_name(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class Cache:
    """Directories under one root; see the module docstring."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def _dir(self, *parts: str) -> Path:
        p = self.root.joinpath(*parts)
        p.mkdir(parents=True, exist_ok=True)
        return p

    @contextlib.contextmanager
    def locked(self, name: str) -> Iterator[None]:
        """An exclusive inter-process lock named ``name`` (flock on a lock file)."""
        lock_path = self._dir("locks") / (_safe_name(name) + ".lock")
        with open(lock_path, "a+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

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
        if final.is_dir():
            return final
        with self.locked(f"pkg:{package_address}@{ref}"):
            if final.is_dir():
                return final
            tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=final.parent))
            try:
                fill(tmp)
                os.replace(tmp, final)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
        return final

    def write_archive_hash(self, key: tuple[str, str], data: bytes) -> None:
        """Remember the ``zh:`` of the archive a package was extracted from."""
        self.write_json("archive-hashes", key_of("\n".join(key)), "zh:" + hashlib.sha256(data).hexdigest())

    def archive_hash(self, key: tuple[str, str]) -> str | None:
        return self.read_json("archive-hashes", key_of("\n".join(key)))

    # ------------------------------------------------------------------ JSON documents

    def _json_path(self, kind: str, key: str) -> Path:
        return self._dir(kind, key[:2]) / f"{key}.json"

    def read_json(self, kind: str, key: str):
        p = self._json_path(kind, key)
        try:
            return json.loads(p.read_text())
        except (OSError, ValueError):
            return None

    def write_json(self, kind: str, key: str, data) -> None:
        p = self._json_path(kind, key)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=p.parent)
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh)
        os.replace(tmp, p)
