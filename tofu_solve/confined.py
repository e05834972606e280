"""Files a repository names are read only from inside it (issue #67 §3).

A pull request may hold symbolic links (git keeps them): ``evil.policy.hcl ->
/proc/self/environ``, a ``.tf`` file, the lock file or ``terraform.tfvars`` pointing at a file
of the CI machine. Read and quoted in a syntax error, such a file printed the job's whole
environment. So every configuration, policy, lock, variables and version file that tofu-solve
finds (rather than one the person running it named with a flag) is read through
:func:`read_text`, which refuses it, naming the file and why, without reading it, when its real
path (symbolic links followed) is outside the **boundary**: the repository the file is found
in (the nearest directory upward that holds ``.git``, from where the file was found, not where
a link points), else the directory it was found in. Links inside the repository keep working.
A file that is not a regular file (a FIFO, whose read would never end; a device; a directory
named like a configuration file) is refused the same way, and so is one over
:data:`MAX_FILE_BYTES`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import ConfigurationError

MAX_FILE_BYTES = 64 << 20
"""The largest file read (64 MiB: a whole eks release is about 0.5 MB of HCL)."""


def boundary(directory: str) -> str:
    """The real path of the repository that holds ``directory`` as written (the nearest
    directory from it upward with a ``.git`` entry), else of ``directory`` itself."""
    d = os.path.abspath(directory)
    while True:
        if os.path.lexists(os.path.join(d, ".git")):
            return os.path.realpath(d)
        parent = os.path.dirname(d)
        if parent == d:
            return os.path.realpath(directory)
        d = parent


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def check(path: Path, shown: str, top: str | None = None) -> None:
    """Refuse ``path`` (``shown``: its name in messages) unless it is a regular file whose
    real path is inside ``top`` (default: :func:`boundary` of its directory) and at most
    :data:`MAX_FILE_BYTES`.

    Raises:
        ConfigurationError: "File outside the repository", "Not a regular file", "File too
            large" (the file's contents never appear in the message); FileNotFoundError when
            it does not exist (the caller's "not found" applies).
    """
    real = os.path.realpath(path)
    top = top or boundary(os.fspath(Path(path).parent))
    if not _inside(real, top):
        raise ConfigurationError(
            "File outside the repository",
            f"{shown} is {'a symbolic link to a file ' if os.path.islink(path) else ''}outside "
            f"{'the repository' if _has_git(top) else 'its directory'} it is found in. tofu-solve reads the "
            "configuration, policy, lock, variables and version files of a repository only from inside it"
            + ("; replace the link with the file itself." if os.path.islink(path) else "."))
    info = os.stat(real)  # FileNotFoundError: a dangling link or a missing file, as before
    if not stat.S_ISREG(info.st_mode):
        raise ConfigurationError("Not a regular file", f"{shown} is not a regular file (a directory, FIFO, socket "
                                 "or device): tofu-solve reads only regular files.")
    if info.st_size > MAX_FILE_BYTES:
        raise ConfigurationError("File too large", f"{shown} is {info.st_size} bytes; tofu-solve reads files of at "
                                 f"most {MAX_FILE_BYTES >> 20} MiB.")


def _has_git(top: str) -> bool:
    return os.path.lexists(os.path.join(top, ".git"))


def read_text(path: Path, shown: str, top: str | None = None) -> str:
    """The text of ``path`` once :func:`check` lets it through (UTF-8).

    Raises:
        ConfigurationError: as :func:`check`.
        OSError, UnicodeDecodeError: as reading it raises them.
    """
    check(path, shown, top)
    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:  # grew since it was looked at
        raise ConfigurationError("File too large", f"{shown} is over {MAX_FILE_BYTES >> 20} MiB.")
    return data.decode("utf-8")


__all__ = ["MAX_FILE_BYTES", "boundary", "check", "read_text"]
