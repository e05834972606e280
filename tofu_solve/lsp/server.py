"""The protocol side of ``tofu-solve lsp`` (issue #61 §1): pygls over stdin and stdout.

Each document the editor opens, changes, saves or closes schedules a solve of its root
module (:func:`.analysis.find_root`) on a worker thread, a short moment later so that a burst
of keystrokes solves once; a newer edit supersedes an older solve's result. The solve runs
with ``$/progress`` when the client offers it and never blocks a request: hovers, lenses and
code actions answer from the last report of the root. Diagnostics are published for every
file a report speaks of (and cleared where it no longer does); a root that fails to read (a
syntax error) keeps the last good report's diagnostics for its other files.

The server claims ``.tf``, ``.tf.json``, ``.tofu``, ``.tofu.json`` and ``.hcl`` files, and
only the diagnostics, code actions, hovers and lenses of :mod:`.analysis` and
:mod:`.policy_files`: completion, formatting and the rest are terraform-ls's or tofu-ls's,
beside which it runs. What an ``.hcl`` file is decides what is solved (issue #85): a unit's
``terragrunt.hcl`` solves the unit; a policy or policy test file is read as one
(:mod:`.policy_files`); any other ``.hcl`` file (``root.hcl``, ``_envcommon/*.hcl``, a file
``read_terragrunt_config`` reads) solves every unit of the workspace that reads it, and a
finding on a file several units share is shown for each of them, naming it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from .. import confined
from .._lazy import load
from .._threads import worker_pool
from .._version import __version__
from ..lockfile import LOCK_FILE_NAME
from ..settings import Settings
from ..terragrunt import CONFIG_FILE as UNIT_FILE
from ..versions.target import Client
from .analysis import INIT_COMMAND, UPGRADE_COMMAND, Finding, RootReport, analyse, find_root, units_reading
from .policy_files import TEAM_FILE, analyse_policy_file, is_policy_file

log = logging.getLogger(__name__)

#: The files the server speaks about (issue #61 §1; ``.hcl``: Terragrunt's and policy files, issue #85).
CLAIMED_SUFFIXES = (".tf", ".tf.json", ".tofu", ".tofu.json", ".hcl")
CLAIMED_NAMES = (".terraform.lock.hcl", "tofu-solve-policy.hcl")
DEBOUNCE = 0.08  # seconds a change waits for the next keystroke before its root is solved

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
             "information": types.DiagnosticSeverity.Information, "hint": types.DiagnosticSeverity.Hint}


def claimed(path: Path) -> bool:
    """Whether the server speaks about the file at ``path``."""
    return path.name in CLAIMED_NAMES or path.name.endswith(CLAIMED_SUFFIXES)


def uri_path(uri: str) -> Path | None:
    """The local path of a ``file://`` URI, normalized (``%2e%2e`` and ``..`` segments
    resolved, issue #80 §5); None for any other scheme (a diff view's ``git:`` document, an
    untitled buffer: never the working tree, issue #67 §6)."""
    parts = urlparse(uri)
    if parts.scheme != "file":
        return None
    return Path(os.path.normpath(unquote(parts.path)))


SOLVE_SECONDS = 30.0
"""The time budget of one solve (issue #67 §6): past it, the solve stops at its next round and
the root's report says so; the worker goes on with the next root."""


def network_setting(value: object) -> bool | None:
    """The ``network`` setting from initialization options or a configuration change
    (``{"network": true}`` or ``{"tofu-solve": {"network": true}}``); None when not given."""
    if isinstance(value, dict):
        inner = value.get("tofu-solve", value.get("tofuSolve", value))
        if isinstance(inner, dict) and isinstance(inner.get("network"), bool):
            return bool(inner["network"])
    return None


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, but a request after ``shutdown`` is answered with InvalidRequest, as
    the specification says (pygls drops it, and the client waits for ever; issue #67 §6)."""

    def handle_message(self, message):
        method = getattr(message, "method", None)
        if self._shutdown and getattr(message, "id", None) is not None and method not in (None, types.EXIT):
            self._send_response(message.id, None, JsonRpcInvalidRequest(
                f"the server is shut down; {method} is not served").to_response_error())
            return None
        return super().handle_message(message)


def _within(ls: LanguageServer, uri: str, *lines: int) -> None:
    """Refuse a position outside the open document at ``uri`` (InvalidParams, as the
    specification names it); a document the server does not hold is not checked."""
    doc = ls.workspace.text_documents.get(uri)
    if doc is None:
        return
    count = max(1, len(doc.lines))
    for line in lines:
        if not 0 <= line <= count:
            raise JsonRpcInvalidParams(f"line {line} is outside {uri}, which has {count} lines")


class SolveServer(LanguageServer):
    """The language server: its settings, the last report of each root, and the workers.

    Attributes:
        reports: root -> the last report published for it.
        published: root (or policy file) -> the files (absolute) it published diagnostics for.
    """

    def __init__(self, settings: Settings):
        super().__init__("tofu-solve", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=_Protocol)
        self.settings = settings
        self.reports: dict[Path, RootReport] = {}
        self.published: dict[Path, set[Path]] = {}
        self._generation: dict[Path, int] = {}
        self._lock = threading.Lock()
        self._workers = worker_pool(2, "tofu-solve-lsp")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client_found = False
        self._client: Client | None = None
        self.network = False  # registries, git hosts and stores are asked only once turned on (issue #67 §6)
        self._uris: dict[Path, str] = {}  # path -> the URI the client opened it with

    # ------------------------------------------------------------------ solving

    def schedule(self, uri: str) -> None:
        """Solve what the document at ``uri`` belongs to soon (after :data:`DEBOUNCE`): its
        root module or unit; a policy file itself; for another ``.hcl`` file, every unit of
        the workspace that reads it (found on a worker: :func:`.analysis.units_reading`)."""
        path = uri_path(uri)
        if path is None or not claimed(path) or not self.in_workspace(path):
            return
        if is_policy_file(path):
            self._submit(path)
            if path.name != TEAM_FILE:
                return  # a tofu-solve-policy.hcl is its root module's too
        if path.name.endswith(".hcl") and path.name not in (LOCK_FILE_NAME, UNIT_FILE, TEAM_FILE) \
                and not is_policy_file(path):
            self._workers.submit(self._solve_readers, path)
            return
        self._submit(path.parent if path.name == UNIT_FILE else find_root(path))

    def _submit(self, key: Path) -> None:
        """Solve ``key`` (a root, or a policy file) on a worker, superseding any solve of it
        still waiting."""
        with self._lock:
            generation = self._generation[key] = self._generation.get(key, 0) + 1
        self._workers.submit(self._solve_policy if is_policy_file(key) else self._solve, key, generation)

    def in_workspace(self, path: Path) -> bool:
        """Whether ``path`` is inside a folder of the workspace (every path, when the client
        named none): a document elsewhere (a ``file://`` URI with ``%2e%2e`` segments) is
        not solved (issue #80 §5)."""
        folders = [uri_path(f.uri) for f in getattr(self.workspace, "folders", {}).values()]
        root = getattr(self.workspace, "root_path", None)
        tops = [Path(os.path.realpath(p)) for p in [*folders, *([root] if root else [])] if p is not None]
        if not tops:
            return True
        real = Path(os.path.realpath(path))
        return any(real == t or t in real.parents for t in tops)

    def workspace_root(self) -> Path | None:
        """The workspace's top folder (the client's root URI, else its first folder)."""
        root = getattr(self.workspace, "root_path", None)
        if root:
            return Path(root)
        folders = list(getattr(self.workspace, "folders", {}).values())
        return uri_path(folders[0].uri) if folders else None

    def scope_of(self, path: Path) -> Path | None:
        """Where the units that may read the file at ``path`` are looked for: the git
        repository that holds it (Terragrunt's includes are the repository's: an editor may
        start the server with the include's own folder as its root), else the workspace."""
        top = Path(confined.boundary(str(path.parent)))
        if (top / ".git").exists():
            return top
        return self.workspace_root()

    def _solve_readers(self, path: Path) -> None:
        """Solve every unit of the repository (or workspace) that reads the ``.hcl`` file at
        ``path``."""
        time.sleep(DEBOUNCE)
        scope = self.scope_of(path)
        if scope is None:
            return
        for root in units_reading(path, scope, self.settings, self._texts_all()):
            with self._lock:
                generation = self._generation[root] = self._generation.get(root, 0) + 1
            self._solve(root, generation, debounce=False)

    def _solve_policy(self, path: Path, generation: int) -> None:
        time.sleep(DEBOUNCE)
        if not self._current(path, generation):
            return
        try:
            report = analyse_policy_file(path, self._texts_all(), self.settings, self.workspace_root())
            version = self.version_of(path)
            report.versions = {path.name: version} if version is not None else {}
        except Exception as e:  # a bug must not take the server down: said once, in the client's log
            log.exception("tofu-solve lsp: reading %s failed", path)
            said = f"tofu-solve: reading {path} failed: {type(e).__name__}: {e}"
            self._later(lambda: self.window_log_message(types.LogMessageParams(types.MessageType.Error, said)))
            return
        if self._current(path, generation):
            self._later(lambda: self._publish(path, report))

    def set_network(self, told: bool | None) -> None:
        """The ``network`` setting changed (None: not given): every root known is solved again
        with what the network now gives, or without it."""
        if told is not None and told != self.network:
            self.network = told
            for key in list(self.reports):
                if not is_policy_file(key):
                    self._submit(key)

    def _current(self, root: Path, generation: int) -> bool:
        with self._lock:
            return self._generation.get(root) == generation

    def _documents(self, root: Path | None) -> dict[Path, Any]:
        """The open ``file`` documents under ``root`` (every one for None, and for a
        Terragrunt unit, whose includes may be anywhere), by path, each as the client keys
        it (its own URI, remembered for publishing; issue #70 §3)."""
        every = root is None or (root / UNIT_FILE).is_file()
        out = {}
        for doc in list(self.workspace.text_documents.values()):
            p = uri_path(doc.uri)
            if p is not None and claimed(p) and (every or p == root or root in p.parents):
                out[p] = doc
                self._uris[p] = doc.uri
        return out

    def _texts(self, root: Path) -> dict[Path, str]:
        """The open buffers under ``root``, by path: what the solve reads instead of the disk."""
        return {p: doc.source for p, doc in self._documents(root).items()}

    def _texts_all(self) -> dict[Path, str]:
        """Every open buffer the server claims, by path."""
        return {p: doc.source for p, doc in self._documents(None).items()}

    def uri_of(self, path: Path) -> str:
        """The URI the client knows ``path`` by (the one it opened it with), else its file URI."""
        return self._uris.get(path, path.as_uri())

    def version_of(self, path: Path) -> int | None:
        """The client's version of the open document at ``path`` (None: not open)."""
        doc = self.workspace.text_documents.get(self.uri_of(path))
        return getattr(doc, "version", None) if doc is not None else None

    def _target_client(self):
        if not self._client_found:
            load("tofu_solve.versions.target")
            from ..versions.target import configured_client

            try:
                self._client = configured_client(self.settings, None, named=False)
            except Exception:  # no client, or one that does not answer: solve for the version files' target
                self._client = None
            self._client_found = True
        return self._client

    def _solve(self, root: Path, generation: int, debounce: bool = True) -> None:
        if debounce:
            time.sleep(DEBOUNCE)
        if not self._current(root, generation):
            return  # a newer edit follows: it solves
        token = self._progress_begin(f"Solving {root.name}")
        try:
            documents = self._documents(root)
            versions = {os.path.relpath(p, root): d.version for p, d in documents.items() if d.version is not None}
            report = analyse(root, {p: d.source for p, d in documents.items()}, self.settings, self._target_client(),
                             network=self.network, deadline=time.monotonic() + SOLVE_SECONDS)
            report.versions = versions
        except Exception as e:  # a bug must not take the server down: said once, in the client's log
            log.exception("tofu-solve lsp: the solve of %s failed", root)
            said = f"tofu-solve: the solve of {root} failed: {type(e).__name__}: {e}"
            self._later(lambda: self.window_log_message(types.LogMessageParams(types.MessageType.Error, said)))
            return
        finally:
            self._progress_end(token)
        if not self._current(root, generation):
            return
        self._later(lambda: self._publish(root, report))

    def _later(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the server's event loop (notifications are sent from there)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(fn)
        else:
            fn()

    def _progress_begin(self, title: str) -> str | None:
        caps = self.client_capabilities.window if self.client_capabilities is not None else None
        if caps is None or not caps.work_done_progress:
            return None
        token = str(uuid.uuid4())
        try:
            self.work_done_progress.create(token).result(timeout=5)
            self.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=False))
        except Exception:
            return None
        return token

    def _progress_end(self, token: str | None) -> None:
        if token is not None:
            self._later(lambda: self.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done")))

    # ------------------------------------------------------------------ publishing

    def _publish(self, key: Path, report: RootReport) -> None:
        """Publish what ``report`` (of ``key``: a root, or a policy file) says. A file is
        published with the findings of every report that speaks of it (a shared include, for
        each unit that reads it, named), and a file a report no longer speaks of is cleared."""
        root = report.root
        previous = self.reports.get(key)
        findings = list(report.findings)
        if report.read_error and previous is not None:  # keep the last good solve's word on the other files
            bad = {f.file for f in report.findings}
            findings += [f for f in previous.findings if f.file not in bad]
            report.findings = findings
            report.files |= previous.files
            report.lenses, report.hovers, report.fixes = previous.lenses, previous.hovers, previous.fixes
        self.reports[key] = report
        # every open document of the root is answered, an empty list when all is well
        opened = {} if is_policy_file(key) else self._texts(root)
        files = {_absolute(root, f) for f in report.files | {f.file for f in findings}} | set(opened)
        for path in sorted(files | self.published.get(key, set())):
            rel = os.path.relpath(path, root)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=self.uri_of(path), diagnostics=self._diagnostics_of(path), version=report.versions.get(rel)))
        self.published[key] = files
        workspace = self.client_capabilities.workspace if self.client_capabilities is not None else None
        lens = workspace.code_lens if workspace is not None else None
        if lens is not None and lens.refresh_support:  # the lenses are pulled: say they changed
            self.workspace_code_lens_refresh(None)

    def reports_of(self, path: Path) -> list[RootReport]:
        """The reports that speak of the file at ``path``: its root's (or unit's, or the
        policy file's own), and every other that has a finding, a fix, a lens or a hover in it."""
        path = Path(os.path.normpath(path))
        out = []
        own = {path, path.parent if path.name == UNIT_FILE else find_root(path)}
        for key, report in list(self.reports.items()):
            spoken = {_absolute(report.root, f) for f in report.files} | {
                _absolute(report.root, lens.file) for lens in report.lenses} | {
                _absolute(report.root, h.file) for h in report.hovers}
            if key in own or path in spoken:
                out.append(report)
        return out

    def _diagnostics_of(self, path: Path) -> list[types.Diagnostic]:
        """Every report's findings at ``path``; a finding of a unit on a file outside it (a
        shared include) names the unit, and the same diagnostic is given once."""
        out: list[types.Diagnostic] = []
        seen = set()
        for report in self.reports_of(path):
            outside = not (path == report.root or report.root in path.parents)
            for x in report.findings:
                if _absolute(report.root, x.file) != path:
                    continue
                if outside:  # named from the repository's (or workspace's) top, as -recursive names it
                    scope = self.scope_of(report.root / UNIT_FILE)
                    name = os.path.relpath(report.root, scope) if scope is not None else report.root.name
                    x = dataclasses.replace(x, message=f"{name}: {x.message}")
                d = self.diagnostic(report.root, x)
                mark = (d.range.start.line, d.range.start.character, d.message, d.code)
                if mark not in seen:
                    seen.add(mark)
                    out.append(d)
        return out

    def line_text(self, path: Path, line: int) -> str:
        """Line ``line`` (1-based) of the file as the editor shows it, "" when there is none."""
        doc = self.workspace.text_documents.get(self.uri_of(path))
        try:
            text = doc.source if doc is not None else path.read_text(encoding="utf-8")
        except OSError:
            return ""
        lines = text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def span(self, path: Path, line: int, needle: str | None) -> types.Range:
        """The range of ``needle`` (quoted first) on ``line``; the line's text otherwise."""
        text = self.line_text(path, line)
        start, end = len(text) - len(text.lstrip()), len(text.rstrip())
        if needle:
            for n in (f'"{needle}"', needle):
                at = text.find(n)
                if at >= 0:
                    start, end = at, at + len(n)
                    break
        return types.Range(types.Position(max(0, line - 1), start), types.Position(max(0, line - 1), max(start, end)))

    def diagnostic(self, root: Path, f: Finding) -> types.Diagnostic:
        return types.Diagnostic(
            range=self.span(_absolute(root, f.file), f.line, f.needle), message=f.message,
            severity=_SEVERITY[f.severity], source="tofu-solve", code=f.code,
            related_information=[types.DiagnosticRelatedInformation(
                types.Location(self.uri_of(_absolute(root, r.file)), self.span(_absolute(root, r.file), r.line, None)),
                r.message) for r in f.related] or None)


def build_server(settings: Settings) -> SolveServer:
    """The server with its handlers (a function, so that tests and the CLI each get their own)."""
    server = SolveServer(settings)

    @server.feature(types.INITIALIZE)
    def initialize(ls: SolveServer, params: types.InitializeParams) -> None:
        ls.network = bool(network_setting(params.initialization_options))

    @server.feature(types.INITIALIZED)
    async def initialized(ls: SolveServer, params: types.InitializedParams) -> None:
        ls._loop = asyncio.get_running_loop()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: SolveServer, params: types.DidChangeConfigurationParams) -> None:
        ls.set_network(network_setting(params.settings))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: SolveServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SolveServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: SolveServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SolveServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)  # the disk's text again

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: SolveServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        _within(ls, params.text_document.uri, params.range.start.line, params.range.end.line)
        return _code_actions(ls, params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: SolveServer, params: types.HoverParams) -> types.Hover | None:
        _within(ls, params.text_document.uri, params.position.line)
        path = uri_path(params.text_document.uri)
        if path is None:
            return None
        line = params.position.line + 1
        for report in ls.reports_of(path):
            rel = os.path.relpath(path, report.root)
            for h in report.hovers:
                if h.file == rel and h.first <= line <= h.last:
                    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, h.markdown))
        return None

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: SolveServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        path = uri_path(params.text_document.uri)
        if path is None:
            return []
        out, seen = [], set()
        for report in ls.reports_of(path):
            rel = os.path.relpath(path, report.root)
            for lens in report.lenses:
                if lens.file == rel and (lens.line, lens.title) not in seen:
                    seen.add((lens.line, lens.title))
                    out.append(types.CodeLens(range=types.Range(types.Position(lens.line - 1, 0),
                                                                types.Position(lens.line - 1, 0)),
                                              command=types.Command(title=lens.title, command="")))
        return out

    @server.command(INIT_COMMAND)
    def run_init_command(ls: SolveServer, *args) -> None:
        _run_init(ls, args, ())

    @server.command(UPGRADE_COMMAND)
    def run_upgrade_command(ls: SolveServer, *args) -> None:
        flat = _flat(args)
        _run_init(ls, flat[:1], tuple(flat[1:2]))

    return server


def _flat(args) -> list[str]:
    """A command's arguments, as clients send them (a list, or the list's items)."""
    if len(args) == 1 and isinstance(args[0], list):
        args = args[0]
    return [str(a) for a in args]


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _absolute(root: Path, file: str) -> Path:
    """A report's file (relative to its root, ``../../_envcommon/vpc.hcl`` for a unit's
    include) as one absolute path, so that the reports of several roots meet on it."""
    return Path(os.path.normpath(root / file))


def _code_actions(ls: SolveServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The verified fixes whose edits touch the requested lines, and the commands of the
    findings there."""
    path = uri_path(params.text_document.uri)
    if path is None:
        return []
    out: list[types.CodeAction] = []
    for report in ls.reports_of(path):
        out += _code_actions_of(ls, report, path, params)
    return out


def _code_actions_of(ls: SolveServer, report: RootReport, path: Path,
                     params: types.CodeActionParams) -> list[types.CodeAction]:
    """:func:`_code_actions` of one report."""
    root, rel = report.root, os.path.relpath(path, report.root)
    first, last = params.range.start.line + 1, params.range.end.line + 1
    out = []
    for i, fix in enumerate(report.fixes):
        if not fix.offered(rel, first, last):
            continue
        edits = _current_edits(ls, report, fix)
        if edits is None:  # computed for text the document no longer holds: never applied (issue #70 §3)
            continue
        out.append(types.CodeAction(title=fix.title, kind=types.CodeActionKind.QuickFix, is_preferred=i == 0,
                                    edit=edits,
                                    diagnostics=[ls.diagnostic(root, f) for f in report.findings
                                                 if f.code == "conflict" and f.file == rel
                                                 and first <= f.line <= last] or None))
    seen = set()
    for f in report.findings:
        if f.command is None or f.file != rel or not first <= f.line <= last or f.command in seen:
            continue
        seen.add(f.command)
        title, name, arguments = f.command
        out.append(types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix,
                                    command=types.Command(title=title, command=name, arguments=list(arguments))))
    return out


def _current_edits(ls: SolveServer, report: RootReport, fix) -> types.WorkspaceEdit | None:
    """The fix's edits against the documents as they are now, or None when any is stale: a
    document whose version is not the one the report was computed from, or a line that no
    longer holds the quoted old text (never a whole line replaced). Versioned document edits
    where the client takes them, so that it too refuses them on a newer version."""
    root = report.root
    per_file: dict[str, list[types.TextEdit]] = {}
    for e in fix.edits:
        target = _absolute(root, e.file)
        if ls.version_of(target) != report.versions.get(e.file):
            return None
        text = ls.line_text(target, e.line)
        if f'"{e.old}"' not in text:
            return None
        per_file.setdefault(e.file, []).append(types.TextEdit(ls.span(target, e.line, e.old), f'"{e.new}"'))
    caps = ls.client_capabilities.workspace if ls.client_capabilities is not None else None
    versioned = caps is not None and caps.workspace_edit is not None and bool(caps.workspace_edit.document_changes)
    if not versioned:
        return types.WorkspaceEdit(changes={ls.uri_of(_absolute(root, f)): edits for f, edits in per_file.items()})
    return types.WorkspaceEdit(document_changes=[
        types.TextDocumentEdit(types.OptionalVersionedTextDocumentIdentifier(ls.uri_of(_absolute(root, f)),
                                                                             report.versions.get(f)), edits)
        for f, edits in per_file.items()])


def _run_init(ls: SolveServer, args, upgrade: tuple[str, ...]) -> None:
    """``tofu-solve init`` (``-upgrade=NAME`` with ``upgrade``) in the root the command
    names, on a worker; the lock changes are shown, and the root solved again."""
    flat = _flat(args)
    if not flat:
        return
    root = Path(flat[0])

    def work() -> None:
        load("tofu_solve.command.init")
        from ..command.init import InitOptions, run_init
        load("tofu_solve.errors")
        from ..errors import TofuSolveError

        try:
            result = run_init(InitOptions(root=root, upgrade_only=upgrade), ls.settings)
            moved = [f"{c.block} {c.label} {c.old or '(none)'} -> {c.new or '(removed)'}"
                     for c in [*result.changes, *result.provider_changes]]
            text = "tofu-solve init: " + ("; ".join(moved) if moved else "the lock file is up to date")
            kind = types.MessageType.Info
        except TofuSolveError as e:
            text, kind = f"tofu-solve init: {e.summary}: {e.detail}", types.MessageType.Error
        ls._later(lambda: ls.window_show_message(types.ShowMessageParams(kind, text)))
        with ls._lock:
            generation = ls._generation[root] = ls._generation.get(root, 0) + 1
        ls._solve(root, generation)
    ls._workers.submit(work)


def run(args, settings: Settings) -> int:
    """``tofu-solve lsp``: serve over stdin and stdout until the client exits; exit status 2,
    with an error on stderr, for a client that asks for another transport (``--socket``,
    ``--port``, ``--pipe``, ``--node-ipc``, ``--tcp``, ``--ws``: what editors' clients pass
    to ask for one). ``--stdio`` and ``--clientProcessId`` are accepted (issue #85 §3)."""
    refused = getattr(args, "refused_transport", None)
    if refused:
        import sys

        print(f"\nError: Unsupported transport\n\nThe client asked for {refused}: tofu-solve lsp serves the Language "
              "Server Protocol over stdin and stdout only. Start it as tofu-solve lsp --stdio (or with no "
              "transport flag), and set the client's transport to stdio.\n", file=sys.stderr)
        return 2
    build_server(settings).start_io()
    return 0


__all__ = ["CLAIMED_NAMES", "CLAIMED_SUFFIXES", "SolveServer", "build_server", "claimed", "run", "uri_path"]
