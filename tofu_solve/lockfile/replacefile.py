"""The one atomic writer: every file tofu-solve writes goes through :func:`write_atomic`,
every directory it puts in place through :func:`replace_dir`.

As OpenTofu's ``internal/replacefile``: the content goes to a temporary file in the same
directory, is flushed to disk (fsync), given its final mode, and renamed over the target,
so that a reader sees the old file or the new one, never a part, and a killed run leaves
the old file in place. The mode is the one ``tofu`` gives its own files (0644) less the
user's umask, as ``os.WriteFile``/``os.Create`` do; ``tempfile.mkstemp`` alone would leave
0600, which another user or a CI container step cannot read.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

_umask_lock = threading.Lock()
_umask: int | None = None


def process_umask() -> int:
    """The process's umask (read once: ``os.umask`` can only be read by setting it, so it is
    set back at once, under a lock)."""
    global _umask
    with _umask_lock:
        if _umask is None:
            current = os.umask(0o022)
            os.umask(current)
            _umask = current
        return _umask


def write_atomic(path: str | os.PathLike, data: str | bytes, mode: int = 0o644) -> None:
    """Write ``data`` (text is written as UTF-8, newlines untouched) to ``path`` atomically,
    with permissions ``mode`` less the umask.

    Raises:
        OSError: the directory is not writable or the disk is full; the old file, if any,
            is left as it was and no temporary file is left behind.
    """
    p = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode & ~process_umask())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def replace_dir(dest: str | os.PathLike, fill: Callable[[Path], object], mode: int | None = None, *,
                keep_existing: bool = False) -> bool:
    """Make ``dest`` the directory ``fill`` writes, atomically, as :func:`write_atomic` does
    for a file: ``fill(tmp)`` writes into an empty directory beside ``dest`` (the same file
    system), which is given ``mode`` less the umask (None: ``mkdtemp``'s 0700, for what only
    tofu-solve reads: its cache) and renamed into place. An existing ``dest`` is moved aside
    first and removed after, unless ``keep_existing``: then a ``dest`` that exists (placed by
    another process meanwhile) is kept and ``fill``'s copy dropped.

    Returns:
        True when ``dest`` is ``fill``'s copy; False when an existing one was kept.

    Raises:
        OSError: as the file system refuses; ``dest`` is left as it was, nothing behind.
        Whatever ``fill`` raises, likewise.
    """
    final = Path(dest)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
    try:
        fill(tmp)
        if mode is not None:
            os.chmod(tmp, mode & ~process_umask())
        if final.exists():
            if keep_existing:
                shutil.rmtree(tmp, ignore_errors=True)
                return False
            old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old.", dir=final.parent))
            os.replace(final, old / "x")
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.replace(tmp, final)
        except OSError:
            if keep_existing and final.is_dir():
                shutil.rmtree(tmp, ignore_errors=True)
                return False
            raise
        return True
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
