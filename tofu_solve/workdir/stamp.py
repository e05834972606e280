"""The warm path: what the last verified ``init`` or ``check`` saw, by size and modification
time, so that a re-run on an unchanged working directory answers at once (issue #36 §2).

Git's index answers ``git status`` the same way: a file whose size and modification time are
those recorded is taken as unchanged and not read again, and only files that changed are
hashed. Here the unit is the whole working directory: when the root module's directory, the
local module directories, the lock file, ``modules.json`` (by content: ``tofu init`` rewrites
it on every run), every file of every installed module, the clients on ``PATH``, the
``-var-file`` files, the environment (``TF_*``, ``TOFU_SOLVE_*``, ``TFPOLICY_INPUT_*``, ``PATH``, ``HOME``...),
tofu-solve's own version, and **every file the verified run read or looked for outside
those** all match the stamp, the command prints what the verified run printed and exits 0,
without reading configuration, hashing modules or importing the solver.

What the run read or looked for is not a list kept here: the code that reads registers it
(:class:`tofu_solve.settings.ReadLog`, issue #47 §2): the policy file and the version files
looked for in each parent directory (found or not), a policy file named by ``-policy`` or
``TOFU_SOLVE_POLICY``, the CLI configuration files and the ``.terraform.d`` directory whose
``*.tfrc`` files are merged, the credentials file. Each stamped run keeps its own list and
its own state, so an ``init`` and a ``check`` that read different files each keep theirs.

The stamp is written only after a run that changed nothing and asked the network nothing (a
warm run: its output is what the next one would print), and only when what it read is what is
there when it ends: the root's and the local modules' directories as :func:`inputs` saw them
before the run, and each file and directory the run registered as it was when registered
(:meth:`tofu_solve.settings.ReadLog.changed`). A file saved while the run (or the client's
init it handed over to) was going is not stamped with its new size and time: no stamp is
written, and the next run takes the full path (issue #58: Git stamps what it saw when it read
it). A file modified within
:data:`RACY_NS` of the stamp (Git's "racily clean" entries: it could change again in the same
clock tick without its size or time changing) is stamped by its content too, and checked by
content next time. A run with flags passed on to the client's init (``-backend-config``,
``-reconfigure``...) is stamped under a hash of its arguments; its hand-over is kept without
those flags, which the next run passes on from its own command line, so no value is written.
A stamp trusts sizes and times: ``TOFU_SOLVE_FULL_CHECK=1`` always takes the full path,
which reads and hashes everything; CI on a fresh clone has no stamp (it lives in
``.terraform``).

This module imports nothing but the standard library: it runs before the CLI builds its
parser.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence

from .._lazy import load
from .._version import __version__

STAMP_FILE = "tofu-solve-stamp.json"
SCHEMA = 3  # 3: each run with its own state and what it read (issue #47 §2)
RACY_NS = 2_000_000_000
"""A file modified less than this many nanoseconds before the stamp is written is stamped by
its content too (a change within the same clock tick keeps its size and time)."""
MAX_RUNS = 16  # stamped runs (argument sets) kept per working directory, the newest

class Finished:
    """What a command that may be answered from the stamp returns (``init``, ``check``):
    its exit status, and for a verified run that changed nothing, what :func:`record`
    keeps for the next identical run: the ``message`` it prints, and the ``handover``
    (:func:`handover_record`) it runs again. None: nothing to stamp (issue #51 §4: the
    command returns its result; it does not write it into the parsed arguments). A plain
    class, not a dataclass: this module is on the warm path, which imports nothing it does
    not need (``dataclasses`` costs it some 8 ms)."""

    __slots__ = ("code", "handover", "message")

    def __init__(self, code: int, message: str | None = None, handover: dict | None = None):
        self.code = code
        self.message = message
        self.handover = handover


FULL_CHECK_VARIABLE = "TOFU_SOLVE_FULL_CHECK"
COMMANDS = ("init", "check")
_ENV_PREFIXES = ("TF_", "TOFU_SOLVE_", "TFPOLICY_INPUT_")  # policy inputs decide too (issue #69 §2)
_ENV_NAMES = ("PATH", "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "DOCKER_CONFIG", "REGISTRY_AUTH_FILE", "NO_COLOR",
              "APPDATA", "NETRC")
_VCS = frozenset({".git", ".hg", ".svn"})


def split_argv(argv: Sequence[str]) -> tuple[str, list[str]]:
    """(``-chdir``'s value or ".", the other arguments in order): ``-chdir=D``,
    ``--chdir=D``, ``-chdir D`` and ``--chdir D``, wherever they stand."""
    chdir, rest = ".", []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-chdir", "--chdir") and i + 1 < len(argv):
            chdir, i = argv[i + 1], i + 2
            continue
        if a.startswith(("-chdir=", "--chdir=")):
            chdir = a.split("=", 1)[1]
        else:
            rest.append(a)
        i += 1
    return chdir, rest


def data_dir(root: str, environ: Mapping[str, str]) -> str:
    """``TF_DATA_DIR`` (relative to ``root`` unless absolute), else ``root/.terraform``, as
    :func:`tofu_solve.workdir.install.data_dir` places it."""
    d = environ.get("TF_DATA_DIR")
    return os.path.join(root, d) if d else os.path.join(root, ".terraform")


def _stat(path: str) -> list | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _digest(path: str) -> str | None:
    """A small file's content hash (None when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


class _Walk:
    """The state being recorded: every file seen, with its size and modification time, and,
    for the files named in ``by_content`` (racily new when the stamp was written), its
    content hash."""

    def __init__(self, by_content: frozenset[str] = frozenset()) -> None:
        self.by_content = by_content
        self.files: list[tuple[str, int]] = []  # (path, modification time ns) of every file seen

    def _file(self, path: str, st: os.stat_result) -> list:
        self.files.append((path, st.st_mtime_ns))
        out: list = [st.st_size, st.st_mtime_ns]
        if path in self.by_content:
            out.append(_digest(path))
        return out

    def stat(self, path: str) -> list | None:
        """A file's size and time (and content hash, when racy); None when it does not exist;
        a directory by its entries."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        if os.path.isdir(path):
            return ["dir", self.entries(path)]
        return self._file(path, st)

    def entries(self, path: str) -> list:
        """One directory's entries, not recursive: files with size and time, directories by
        name (a directory's own time changes with what is inside, which is not read here)."""
        out: list[list] = []
        with os.scandir(path) as it:
            for e in it:
                if e.is_dir():
                    out.append([e.name])
                else:
                    out.append([e.name, *self._file(e.path, e.stat())])
        return sorted(out)

    def tree(self, path: str) -> list:
        """Every file and directory under ``path`` (version-control folders left out, as the
        installed-copy hashes leave them out), with sizes and times."""
        out: list[list] = []
        for top, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in _VCS)
            rel = os.path.relpath(top, path)
            out.append([rel])
            for name in sorted(files):
                full = os.path.join(top, name)
                out.append([os.path.join(rel, name), *self._file(full, os.lstat(full))])
        return out

    def racy(self, now_ns: int) -> list[str]:
        """The files seen that were modified within :data:`RACY_NS` of ``now_ns``."""
        return sorted({p for p, m in self.files if m > now_ns - RACY_NS})


def _on_path(name: str, environ: Mapping[str, str]) -> str | None:
    if os.sep in name:
        return name
    for d in environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d or ".", name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def _flag_values(rest: Sequence[str], names: tuple[str, ...]) -> list[str]:
    out = []
    for i, a in enumerate(rest):
        for n in names:
            if a.startswith(n + "="):
                out.append(a.split("=", 1)[1])
            elif a == n and i + 1 < len(rest):
                out.append(rest[i + 1])
    return out


def state(root: str, rest: Sequence[str], environ: Mapping[str, str], watched: Sequence[str] = (),
          listed: Sequence[str] = (), by_content: frozenset[str] = frozenset()) -> tuple[str, _Walk]:
    """The digest of what a warm ``init`` or ``check`` in ``root`` depends on (see the
    module docstring; the run's arguments and environment are its key, :func:`_key`):
    the working directory, and ``watched`` (files read or looked for, by size and time, or
    absent) and ``listed`` (directories, by their entries), as the run registered them; the
    files in ``by_content`` by their content too. Returns the digest and the walk (every
    file seen, for :meth:`_Walk.racy`).

    Raises:
        OSError, ValueError: the working directory cannot be read (no stamp applies).
    """
    w = _Walk(by_content)
    ddir = data_dir(root, environ)
    modules = os.path.join(ddir, "modules")
    # modules.json by content: the client's own init rewrites it on every run, unchanged
    doc: dict = {"version": __version__, "python": sys.executable, "root": w.entries(root),
                 "data": {n: _digest(os.path.join(ddir, n)) for n in ("modules/modules.json", "tofu-solve.json")}}
    with open(os.path.join(modules, "modules.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    local, installed = {}, {}
    for rec in manifest.get("Modules", []):
        d = os.path.normpath(os.path.join(root, rec["Dir"]))
        rel = os.path.relpath(d, modules)
        if rel == os.curdir or rel.startswith(os.pardir):
            if d not in local:
                local[d] = w.entries(d)
        else:
            top = os.path.join(modules, rel.split(os.sep, 1)[0])
            if top not in installed:
                installed[top] = w.tree(top)
    doc["local"], doc["installed"] = local, installed
    doc["watched"] = [[p, w.stat(p)] for p in watched]
    doc["listed"] = [[d, w.entries(d) if os.path.isdir(d) else None] for d in listed]
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest(), w


def inputs(argv: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """A digest of what the user edits in the working directory of ``argv``: the root
    module's directory and each local module directory ``modules.json`` names (entries, with
    sizes and times); taken before a run and again when its stamp is recorded (the run
    writes none of them when it is warm). None when the directory cannot be read."""
    chdir, _ = split_argv(argv)
    root = os.path.abspath(chdir)
    w = _Walk()
    try:
        doc: dict = {"root": w.entries(root)}
        try:
            with open(os.path.join(data_dir(root, environ), "modules", "modules.json"), encoding="utf-8") as f:
                records = json.load(f).get("Modules", [])
        except (OSError, ValueError, AttributeError):
            records = []
        modules = os.path.join(data_dir(root, environ), "modules")
        for rec in records:
            d = os.path.normpath(os.path.join(root, str(rec.get("Dir", ""))))
            rel = os.path.relpath(d, modules)
            if (rel == os.curdir or rel.startswith(os.pardir)) and d not in doc and os.path.isdir(d):
                doc[d] = w.entries(d)
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def _key(root: str, rest: Sequence[str], environ: Mapping[str, str]) -> str:
    """What a run is besides the files: its arguments, its environment (``TF_*``,
    ``TOFU_SOLVE_*``, ``PATH``, ``HOME``...), whether its output is a terminal, the clients
    it finds and the ``-var-file`` files it reads; hashed, so that ``-var`` values and tokens
    are never written."""
    clients = ["tofu", "terraform", environ.get("TOFU_SOLVE_TF_PATH", ""), *_flag_values(rest, ("-tf-path",
                                                                                                   "--tf-path"))]
    try:
        terminal = sys.stdout.isatty()  # colour, and the -no-color a hand-over passes on
    except (AttributeError, ValueError):
        terminal = False
    doc = {"argv": list(rest), "terminal": terminal,
           "env": sorted((k, v) for k, v in environ.items() if k.startswith(_ENV_PREFIXES) or k in _ENV_NAMES),
           "clients": [[c, _stat(p) if (p := _on_path(c, environ)) else None] for c in clients if c],
           "var_files": [[v, _stat(os.path.join(root, v))] for v in _flag_values(rest, ("-var-file", "--var-file"))]}
    return hashlib.sha256(json.dumps(doc).encode()).hexdigest()


def _path(root: str, environ: Mapping[str, str]) -> str:
    return os.path.join(data_dir(root, environ), STAMP_FILE)


def record(argv: Sequence[str], environ: Mapping[str, str], message: str, now_ns: int | None = None,
           handover: Mapping | None = None, watched: Sequence[str] = (), listed: Sequence[str] = (),
           before: str | None = None, changed: Sequence[str] = ()) -> bool:
    """After a verified run of ``argv`` (an ``init`` or ``check`` that changed nothing and
    read nothing from the network) that printed ``message``: remember the working
    directory's state, what the run read or looked for beyond it (``watched`` files,
    ``listed`` directories: :class:`tofu_solve.settings.ReadLog`) and the message;
    ``handover``, the client's init that run handed over to (:func:`handover_record`), to run
    again. ``before``: :func:`inputs` as the run began; ``changed``: what the run registered
    that changed after it was read (:meth:`~tofu_solve.settings.ReadLog.changed`): when
    either says an input changed during the run, nothing is written. A file modified within
    :data:`RACY_NS` is stamped by content too. Returns whether a stamp was written (not when
    the directory cannot be read, nor when an input changed). Written atomically; never
    raises."""
    if environ.get(FULL_CHECK_VARIABLE) or changed:
        return False
    if before is not None and inputs(argv, environ) != before:
        return False
    chdir, rest = split_argv(argv)
    root = os.path.abspath(chdir)
    path = _path(root, environ)
    try:
        watched, listed = sorted(watched), sorted(listed)
        now = time.time_ns() if now_ns is None else now_ns
        racy = state(root, rest, environ, watched, listed)[1].racy(now)
        digest = state(root, rest, environ, watched, listed, frozenset(racy))[0]
        try:
            with open(path, encoding="utf-8") as f:
                old = json.load(f)
        except (OSError, ValueError):
            old = {}
        runs = old.get("runs", {}) if old.get("schema") == SCHEMA and isinstance(old.get("runs"), dict) else {}
        key = _key(root, rest, environ)
        runs.pop(key, None)
        runs[key] = {"message": message, "handover": dict(handover) if handover else None, "state": digest,
                     "watched": watched, "listed": listed, "racy": racy}
        runs = dict(list(runs.items())[-MAX_RUNS:])
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"schema": SCHEMA, "runs": runs}, f)
        os.replace(tmp, path)
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return False


def fast_path(argv: Sequence[str], environ: Mapping[str, str], out=None,
              passed_on: Callable[[], Sequence[str]] | None = None) -> int | None:
    """Answer ``argv`` from the stamp: when it names ``init`` or ``check`` with exactly the
    arguments of a stamped run and what that run depended on is as it was, print that run's
    message to ``out`` (default stdout), run its hand-over again (with the flags
    ``passed_on`` gives from this command line, when the run passed any on) and return its
    status; else None (the full path runs). Never raises."""
    if environ.get(FULL_CHECK_VARIABLE):
        return None
    try:
        chdir, rest = split_argv(argv)
        if not rest or rest[0] not in COMMANDS:
            return None
        root = os.path.abspath(chdir)
        with open(_path(root, environ), encoding="utf-8") as f:
            stamp = json.load(f)
        run = stamp["runs"].get(_key(root, rest, environ)) if stamp.get("schema") == SCHEMA else None
        if not isinstance(run, dict):
            return None
        now = state(root, rest, environ, [str(p) for p in run["watched"]], [str(d) for d in run["listed"]],
                    frozenset(str(p) for p in run["racy"]))[0]
        if now != run["state"]:
            return None
        message, handover = str(run["message"]), run.get("handover")
        flags: list[str] = []
        if handover and handover.get("passed_on"):
            if passed_on is None:
                return None
            flags = list(passed_on())
            if len(flags) != handover["passed_on"]:
                return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    out = out or sys.stdout
    out.write(message if message.endswith("\n") else message + "\n")
    if handover:
        out.flush()
        return _hand_over(handover, flags, root, environ, out)
    return 0


def handover_record(argv: Sequence[str], passed_on: Sequence[str], extra_env: Mapping[str, str],
                    client: Mapping[str, str], suffix: str, note: str, mirror=None) -> dict:
    """What :func:`record` keeps of a hand-over: the client's command (``argv``, the
    executable first) without the flags passed on to it (``passed_on``: kept only as where
    they stand and how many, since a ``-backend-config`` value may be a credential and a
    stamp is a file; the next run passes on its own), the environment it added
    (``TF_PLUGIN_CACHE_DIR``...), the client (``path``, ``product``, ``version``,
    ``origin``), what follows the command line in the line printed before it, the note
    after it, and the provider packages offered (``mirror``, a
    :class:`~tofu_solve.workdir.client_config.ProviderMirror`: its directory, platform and
    locked versions; which are there is decided again when the stamp runs it)."""
    flags = list(passed_on)
    at = next((i for i in range(len(argv)) if list(argv[i:i + len(flags)]) == flags), len(argv)) if flags else 0
    kept = list(argv[:at]) + list(argv[at + len(flags):]) if flags else list(argv)
    return {"argv": kept, "at": at, "passed_on": len(flags), "env": dict(extra_env), "client": dict(client),
            "suffix": suffix, "note": note, "mirror": mirror.to_dict() if mirror is not None else None}


def _hand_over(h: Mapping, flags: Sequence[str], root: str, environ: Mapping[str, str], out) -> int:
    """Run the recorded hand-over with ``flags`` passed on where the verified run passed its
    own (:func:`tofu_solve.workdir.handover.run`: the client's output streamed, its exit
    status returned, a changed lock file put back and refused)."""
    from pathlib import Path

    load("tofu_solve.addrs.product")
    from ..addrs.product import product_named
    load("tofu_solve.versions.hashicorp_go_version")
    from ..versions.hashicorp_go_version import GoVersion
    load("tofu_solve.versions.target")
    from ..versions.target import Client
    load("tofu_solve.workdir.handover")
    from .handover import Handover, HandoverError, run
    load("tofu_solve.workdir.client_config")
    from .client_config import ProviderMirror, offered_text, provider_mirror

    c = h["client"]
    product = product_named(c["product"])
    if product is None:
        return 1
    client = Client(c["path"], product, GoVersion.parse(c["version"]), c["origin"])
    env = {**environ, "CHECKPOINT_DISABLE": environ.get("CHECKPOINT_DISABLE", "1"), **h["env"]}
    at = int(h.get("at") or 0)
    argv = (*h["argv"][:at], *flags, *h["argv"][at:]) if flags else tuple(h["argv"])
    mirror = None
    if h.get("mirror"):  # the same rule as the verified run's, over what the plugin directory holds now
        load("tofu_solve.settings")
        from ..settings import Settings
        load("tofu_solve.store.cache")
        from ..store.cache import Cache

        was = ProviderMirror.from_dict(h["mirror"])
        mirror = provider_mirror(was.everything(), was.path, was.platform, was.hashes,
                                 Cache(Settings.from_environ(environ).cache_dir))
    handover = Handover(client, argv, Path(root), env, mirror)
    out.write(f"\nHanding over to {handover.command_line}{h['suffix']}\n")
    if mirror is not None:
        out.write(offered_text(mirror, product.command) + "\n")
    out.flush()
    try:
        code = run(handover)
    except HandoverError as e:
        sys.stderr.write("\n" + e.render() + "\n\n")
        return 1
    if h.get("note"):
        out.write("\n" + h["note"] + "\n")
    return code


# --------------------------------------------------------------------------- directory hashes

HASH_MEMO_FILE = "tofu-solve-hashes.json"


class HashMemo:
    """The ``h1:`` hashes of directories (installed module copies, cached packages), each
    remembered with its tree of sizes and modification times, so that a directory whose tree
    is unchanged is not read and hashed again: Git's index for ``git status``, per directory
    (issue #36 §2: "hashes only where they changed"). Entries are written only for trees
    with no file modified within :data:`RACY_NS`; a damaged or missing memo file is an empty
    memo. Thread-safe; ``file`` None: remembers for this run only; ``trust`` False
    (``TOFU_SOLVE_FULL_CHECK``): nothing remembered is used, every directory is hashed.
    """

    def __init__(self, file: str | os.PathLike | None, trust: bool = True):
        import threading

        self.file = os.fspath(file) if file is not None else None
        self._lock = threading.Lock()
        self._dirty = False
        self.hits = 0
        self.entries: dict[str, list] = {}
        if self.file is not None and trust:
            try:
                with open(self.file, encoding="utf-8") as f:
                    doc = json.load(f)
                if doc.get("schema") == SCHEMA and isinstance(doc.get("dirs"), dict):
                    self.entries = doc["dirs"]
            except (OSError, ValueError):
                pass

    def h1(self, path: str | os.PathLike, compute) -> str:
        """``compute(path)`` (the directory's ``h1:``), or the remembered one when the
        directory's tree is the one it was computed for."""
        key = os.path.abspath(path)
        w = _Walk()
        digest = hashlib.sha256(json.dumps(w.tree(key)).encode()).hexdigest()
        with self._lock:
            known = self.entries.get(key)
        if isinstance(known, list) and len(known) == 2 and known[0] == digest:
            with self._lock:
                self.hits += 1
            return known[1]
        value = compute(path)
        if not w.racy(time.time_ns()):
            with self._lock:
                self.entries[key] = [digest, value]
                self._dirty = True
        return value

    def forget(self, path: str | os.PathLike) -> None:
        """Drop what is remembered of ``path`` (a directory being replaced)."""
        with self._lock:
            if self.entries.pop(os.path.abspath(path), None) is not None:
                self._dirty = True

    def save(self) -> None:
        """Write the memo (atomically) when it changed; a failure to write is ignored (the
        memo only saves work)."""
        with self._lock:
            if self.file is None or not self._dirty:
                return
            doc = {"schema": SCHEMA, "dirs": {k: v for k, v in self.entries.items() if os.path.isdir(k)}}
            self._dirty = False
        try:
            tmp = f"{self.file}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            os.replace(tmp, self.file)
        except OSError:
            pass
