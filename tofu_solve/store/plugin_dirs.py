"""A plugin directory's package, trusted for its bytes only (issue #80 §3).

A directory in the plugin cache (``HOST/NS/TYPE/VERSION/OS_ARCH/``) may have been put there
by anything that writes the cache, a CI cache restored from an earlier job among them. It is
offered to the client, or kept in place, only when it hashes (``h1:``) to a hash the lock or
the package just verified gives; a directory verified before is known by its signature
(:func:`_signature`), so a warm run does not hash it again.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..errors import TofuSolveError
from ..lockfile.hashes import hash_dir
from .cache import Cache, key_of


def _signature(directory: Path) -> str:
    """What a directory's files are as the file system says (names, sizes, modes, inode,
    change and modification times): a file written or replaced since changes its change
    time, which no user-space program sets back, so an unchanged signature is an unchanged
    directory (the verification of its ``h1:`` stands)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames.sort()
        for name in sorted(filenames + dirnames):
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            h.update(f"{os.path.relpath(p, directory)}\0{st.st_size}\0{st.st_mode}\0{st.st_ino}\0{st.st_mtime_ns}"
                     f"\0{st.st_ctime_ns}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def verified_dir(directory: Path, allowed: tuple[str, ...], cache: Cache | None) -> bool:
    """Whether the unpacked package at ``directory`` hashes (``h1:``) to one of ``allowed``
    (the lock's): hashed, unless ``cache`` recorded it verified with the same
    :func:`_signature` (issue #80 §3: a directory is offered for its bytes, never because it
    exists). Raises nothing: an unreadable directory is not verified."""
    try:
        sig = _signature(directory)
        key = key_of(f"plugin-dir\n{os.path.realpath(directory)}")
        known = cache.read_json("plugin-dir-verified", key) if cache is not None else None
        if isinstance(known, dict) and known.get("signature") == sig and known.get("h1") in allowed:
            return True
        h1 = hash_dir(directory)
        if h1 not in allowed:
            return False
        if cache is not None and _signature(directory) == sig:  # unchanged while it was hashed
            cache.write_json("plugin-dir-verified", key, {"signature": sig, "h1": h1})
        return True
    except (OSError, TofuSolveError):
        return False


__all__ = ["verified_dir"]
