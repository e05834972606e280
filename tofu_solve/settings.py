"""Settings: the process environment, read once at the edge, as one typed value.

The command line (:mod:`tofu_solve.cli`) builds one :class:`Settings` from the process environment
and passes it down; no other module reads the environment (``tests/test_layout.py`` holds
it to that). OpenTofu's ``command.Meta`` plays this part there. The variables and what each
means are listed in the user guide ("Environment variables").
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from ._lazy import load

# --------------------------------------------------------------------------- bounds
MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Bounds on what the outside world can make tofu-solve download, unpack and wait for,
    each settable by the environment variable named in brackets.

    Attributes:
        download_bytes: one package download, compressed [TOFU_SOLVE_MAX_DOWNLOAD_BYTES],
            default 512 MiB. OpenTofu reads a module archive or provider package to its end
            (go-getter's HTTP getter, ``internal/getproviders``: no size bound); a server that
            declares or sends more is cut off here (GHSA-pxh5-6rrc-8rjv).
        document_bytes: one registry answer, checksum document or OCI listing
            [TOFU_SOLVE_MAX_DOCUMENT_BYTES], default 8 MiB. OpenTofu decodes registry JSON
            without a bound; an OCI manifest is bounded apart, at OpenTofu's own 4 MiB
            (:data:`tofu_solve.remote.limits.OCI_MANIFEST_BYTES`).
        extracted_bytes: everything one archive unpacks to [TOFU_SOLVE_MAX_EXTRACTED_BYTES],
            default 1 GiB. OpenTofu's go-getter decompressors are built without
            ``FileSizeLimit`` or ``FilesLimit`` (``internal/getmodules/getter.go``), so it
            has none; tofu-solve refuses archive bombs (GHSA-hw5x-4r37-72w7,
            GHSA-w2jf-268q-mrvh, GHSA-r92c-9c7f-3pj8).
        file_bytes: one unpacked file [TOFU_SOLVE_MAX_FILE_BYTES], default 256 MiB (as
            above: unbounded in OpenTofu).
        entries: entries in one archive [TOFU_SOLVE_MAX_ARCHIVE_ENTRIES], default 100,000
            (as above).
        deadline: seconds one download, registry request or git command may take in all,
            however slowly the server drips its bytes [TOFU_SOLVE_DOWNLOAD_DEADLINE], default
            300. OpenTofu's registry client has a per-request timeout
            (``TF_REGISTRY_CLIENT_TIMEOUT``, :data:`tofu_solve.remote.limits.REQUEST_TIMEOUT`) but a download that
            drips a byte within each read timeout never ends there (GHSA-pxh5-6rrc-8rjv).

    The largest public module packages unpack to a few tens of MiB, far below these. The
    fixed bounds (request timeout, redirects, OCI tag pages and manifest size) are in
    :mod:`tofu_solve.remote.limits`, which re-exports this class: remote code takes every
    bound from there.
    """

    download_bytes: int = 512 * MiB
    document_bytes: int = 8 * MiB
    extracted_bytes: int = 1024 * MiB
    file_bytes: int = 256 * MiB
    entries: int = 100_000
    deadline: float = 300.0

    ENV: ClassVar[dict[str, str]] = {
        "download_bytes": "TOFU_SOLVE_MAX_DOWNLOAD_BYTES", "document_bytes": "TOFU_SOLVE_MAX_DOCUMENT_BYTES",
           "extracted_bytes": "TOFU_SOLVE_MAX_EXTRACTED_BYTES", "file_bytes": "TOFU_SOLVE_MAX_FILE_BYTES",
           "entries": "TOFU_SOLVE_MAX_ARCHIVE_ENTRIES", "deadline": "TOFU_SOLVE_DOWNLOAD_DEADLINE"}

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Limits:
        """The limits, each overridden by its environment variable when set.

        Raises:
            ConfigurationError: a variable that is not a positive number, naming it.
        """
        load("tofu_solve.errors")
        from .errors import ConfigurationError

        values: dict[str, Any] = {}
        for name, var in cls.ENV.items():
            raw = env.get(var)
            if not raw:
                continue
            try:
                value = float(raw) if name == "deadline" else int(raw)
            except ValueError:
                value = 0
            if value <= 0:
                raise ConfigurationError("Invalid environment variable",
                                         f"{var} must be a positive {'number' if name == 'deadline' else 'integer'}"
                                         f", not {raw!r}.")
            values[name] = value
        return cls(**values)




class ReadLog:
    """The files a run read and the places it looked without finding anything, registered
    by the code that reads or looks (issue #47 §2: the warm path is exact by construction).

    The stamp (:mod:`tofu_solve.workdir.stamp`) records each path's size and modification
    time (or its absence) and each listed directory's entries, so that any change to what
    the verified run depended on, a policy or version file appearing in a parent directory
    included, takes the full path. Reading code calls :meth:`saw` for a file it read or
    looked for (found or not) and :meth:`listed` for a directory whose entries it read.
    Each is kept with what it was when first registered (a file's size and modification
    time, or its absence; a directory's entry names), so that :meth:`changed` can say what
    changed while the run went on, and the stamp is not taken of a file saved meanwhile.
    Thread-safe; paths are made absolute.
    """

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self._paths: dict[str, tuple[int, int] | None] = {}
        self._dirs: dict[str, tuple[str, ...] | None] = {}

    @staticmethod
    def _file(path: str) -> tuple[int, int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_size, st.st_mtime_ns)

    @staticmethod
    def _names(path: str) -> tuple[str, ...] | None:
        try:
            return tuple(sorted(os.listdir(path)))
        except OSError:
            return None

    def saw(self, *paths: str | os.PathLike[str]) -> None:
        """Files read, or looked for and not found."""
        for p in paths:
            full = os.path.abspath(p)
            with self._lock:
                if full in self._paths:
                    continue
            seen = self._file(full)
            with self._lock:
                self._paths.setdefault(full, seen)

    def listed(self, directory: str | os.PathLike[str]) -> None:
        """A directory whose entries were read (a glob, a search)."""
        full = os.path.abspath(directory)
        with self._lock:
            if full in self._dirs:
                return
        names = self._names(full)
        with self._lock:
            self._dirs.setdefault(full, names)

    def changed(self) -> list[str]:
        """The files and directories registered that are no longer as they were when
        first registered (sorted): a file whose size or time changed, that appeared or
        went; a directory whose entries changed."""
        with self._lock:
            paths, dirs = dict(self._paths), dict(self._dirs)
        out = [p for p, seen in paths.items() if self._file(p) != seen]
        out += [d for d, seen in dirs.items() if self._names(d) != seen]
        return sorted(out)

    @property
    def paths(self) -> tuple[str, ...]:
        """The files registered, sorted."""
        with self._lock:
            return tuple(sorted(self._paths))

    @property
    def dirs(self) -> tuple[str, ...]:
        """The directories registered, sorted."""
        with self._lock:
            return tuple(sorted(self._dirs))


def _home(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("HOME") or os.path.expanduser("~"))


@dataclass(frozen=True)
class Settings:
    """Everything a run takes from its environment.

    Attributes:
        environ: the environment itself, frozen, for what comes in families (``TF_VAR_*``
            root variables, ``TF_TOKEN_*`` registry tokens, OCI credential files) and for the
            child processes tofu-solve starts (git).
        cache_dir: tofu-solve's download and metadata cache: ``TOFU_SOLVE_CACHE_DIR``, else
            ``$XDG_CACHE_HOME/tofu-solve``, else ``~/.cache/tofu-solve``.
        data_dir: ``TF_DATA_DIR`` (relative to the root module when not absolute), or None
            for ``.terraform``.
        limits: size and time bounds (:class:`Limits`).
        log_level, log_path: ``TF_LOG`` (upper-cased; "" when off) and ``TF_LOG_PATH``.
        no_color: ``NO_COLOR`` is set to something (https://no-color.org).
        corpus: ``TOFU_SOLVE_CORPUS``: the demo's real-data corpus, or None.
        debug: ``TOFU_SOLVE_DEBUG``: an internal error shows its traceback.
        tf_path: ``TOFU_SOLVE_TF_PATH``: the client ``init`` hands over to and solves for
            (``-tf-path`` wins), or None to look for ``tofu``, then ``terraform``, on PATH.
        min_age: ``TOFU_SOLVE_MIN_AGE``: the release cooldown as written (``7d``, ``36h``;
            ``-min-age`` wins), or None (issue #25).
        reads: what this run read and looked for (:class:`ReadLog`), registered by the code
            that reads; the one mutable part, which the warm path's stamp is made of.
    """

    environ: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    cache_dir: Path = Path(".tofu-solve-cache")
    data_dir: str | None = None
    limits: Limits = field(default_factory=Limits)
    log_level: str = ""
    log_path: str | None = None
    no_color: bool = False
    corpus: str | None = None
    debug: bool = False
    tf_path: str | None = None
    min_age: str | None = None
    # what the run reads and looks for outside the root module, for the stamp (issue #47 §2)
    reads: ReadLog = field(default_factory=ReadLog, compare=False, repr=False)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        """The settings ``environ`` gives (a copy of it is kept, so later changes to the
        process environment do not leak into a run).

        Raises:
            ConfigurationError: a limit variable that is not a positive number.
        """
        env = MappingProxyType(dict(environ))
        if env.get("TOFU_SOLVE_CACHE_DIR"):
            cache = Path(env["TOFU_SOLVE_CACHE_DIR"])
        else:
            base = env.get("XDG_CACHE_HOME") or str(_home(env) / ".cache")
            cache = Path(base) / "tofu-solve"
        return cls(environ=env, cache_dir=cache, data_dir=env.get("TF_DATA_DIR") or None,
                   limits=Limits.from_env(env), log_level=(env.get("TF_LOG") or "").strip().upper(),
                   log_path=env.get("TF_LOG_PATH") or None, no_color=bool(env.get("NO_COLOR")),
                   corpus=env.get("TOFU_SOLVE_CORPUS") or None, debug=bool(env.get("TOFU_SOLVE_DEBUG")),
                   tf_path=env.get("TOFU_SOLVE_TF_PATH") or None, min_age=env.get("TOFU_SOLVE_MIN_AGE") or None)
