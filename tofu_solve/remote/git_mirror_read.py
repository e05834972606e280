"""Reading a commit a git mirror holds (split from :class:`~.git.GitRemotes` in issue #71
§2): its configuration files straight from the mirror's objects, or the whole commit as a
``git archive`` tar. Each reader is called under the mirror's lock by
:meth:`~.git.GitRemotes.export` and :meth:`~.git.GitRemotes.config_files`, which fetch and
heal the mirror first; a reader raises :class:`BrokenMirror` when the mirror cannot produce
the commit (objects missing after a killed fetch), and the caller rebuilds the mirror once.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ..addrs.redact import redact
from ..errors import NetworkError
from . import gitcmd
from .archives import config_files_from_tree
from .gitcmd import GitError
from .limits import Limits

ARCHIVE = object()
"""What :func:`tree_files` returns for a commit whose configuration files must be read from
its archive instead (a ``.gitattributes`` may change what ``git archive`` gives)."""


class BrokenMirror(Exception):
    """The mirror holds a commit it cannot archive (objects missing after a killed fetch)."""


def tree_files(url: str, ref, mirror: Path, rebuilt: bool, environ: Mapping[str, str], limits: Limits):
    """The configuration files of ``ref.commit`` straight from the mirror's objects:
    ``git ls-tree`` for the entries, one ``git cat-file --batch`` for the configuration
    files, checked as an archive's entries are
    (:func:`~tofu_solve.remote.archives.config_files_from_tree`). A tar of the whole
    commit read by Python's ``tarfile`` cost 16 ms of the interpreter per version of a
    real package (issue #23); this costs git's time, not the interpreter's. What
    ``git archive`` would give: except where a ``.gitattributes`` may change it
    (``export-ignore``, ``export-subst``, line endings), which returns ARCHIVE for the
    archive path. Called under the mirror's lock."""
    try:
        listing = gitcmd.run(["ls-tree", "-r", "-t", "-l", "-z", "--full-tree", ref.commit], environ,
                             git_dir=mirror, timeout=limits.deadline)
    except GitError as e:
        if not rebuilt:
            raise BrokenMirror() from None
        raise NetworkError("Failed to read git commit",
                           f"git ls-tree {ref.commit} from {redact(url)} failed: {redact(e.stderr)}",
                           url=redact(url)) from None
    entries, blobs = [], {}
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, raw = record.partition(b"\t")
        mode, kind, oid, size = meta.split()
        name = raw.decode("utf-8", "surrogateescape")
        if name == ".gitattributes" or name.endswith("/.gitattributes"):
            return ARCHIVE
        if kind == b"blob":
            if not size.isdigit():
                # "BAD" (builtin/ls-tree.c): the tree names a blob the mirror does not
                # hold, as a fetch killed before it wrote every object leaves it
                if not rebuilt:
                    raise BrokenMirror()
                raise NetworkError("Failed to read git commit",
                                   f"{redact(url)} at {ref.commit} names {name}, whose object the fetched copy "
                                   "does not hold.", url=redact(url))
            link = mode == b"120000"
            entries.append((name, "link" if link else "file", int(size)))
            blobs[name] = oid.decode()
        else:  # a tree, or a submodule's commit (an empty directory in an archive)
            entries.append((name, "dir", 0))
    return config_files_from_tree(entries, lambda paths: _blobs(url, mirror, paths, blobs, environ, limits), limits)

def _blobs(url: str, mirror: Path, paths: list[str], oids: dict[str, str], environ: Mapping[str, str],
           limits: Limits) -> dict[str, bytes]:
    """The contents of ``paths`` (their blob ids in ``oids``), in one ``git cat-file --batch``."""
    try:
        out = gitcmd.run(["cat-file", "--batch"], environ, git_dir=mirror, timeout=limits.deadline,
                         input="".join(oids[p] + "\n" for p in paths).encode())
    except GitError:
        out = b""
    at, files = 0, {}
    for p in paths:
        end = out.find(b"\n", at)
        header = out[at:end].split() if end >= 0 else []
        if len(header) != 3 or header[1] != b"blob":
            raise NetworkError("Failed to read git commit",
                               f"git cat-file {oids[p]} ({p}) from {redact(url)} failed.", url=redact(url))
        size = int(header[2])
        files[p] = out[end + 1:end + 1 + size]
        at = end + 1 + size + 1
    return files


def git_archive(url: str, ref, mirror: Path, rebuilt: bool, environ: Mapping[str, str], limits: Limits,
                tmp_dir: Path) -> Path:
    """``git archive`` of ``ref.commit`` from the mirror (called under its locks)."""
    fd, name = tempfile.mkstemp(prefix="git-archive-", suffix=".tar", dir=tmp_dir)
    tar = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            gitcmd.run(["archive", "--format=tar", ref.commit], environ, git_dir=mirror,
                       timeout=limits.deadline, stdout=out)
    except GitError as e:
        tar.unlink(missing_ok=True)
        if not rebuilt:
            raise BrokenMirror() from None
        raise NetworkError("Failed to read git commit",
                           f"git archive {ref.commit} from {redact(url)} failed: {redact(e.stderr)}",
                           url=redact(url)) from None
    return tar
