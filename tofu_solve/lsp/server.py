"""The protocol side of ``tofu-solve lsp`` (issue #61 §1): pygls over stdin and stdout.

Each document the editor opens, changes, saves or closes schedules a solve of its root
module (:func:`.analysis.find_root`) on a worker thread, a short moment later so that a burst
of keystrokes solves once; a newer edit supersedes an older solve's result. The solve runs
with ``$/progress`` when the client offers it and never blocks a request: hovers, lenses and
code actions answer from the last report of the root. Diagnostics are published for every
file a report speaks of (and cleared where it no longer does); a root that fails to read (a
syntax error) keeps the last good report's diagnostics for its other files.

The server claims only ``.tf``, ``.tf.json``, ``.tofu``, ``.tofu.json``,
``.terraform.lock.hcl`` and ``tofu-solve-policy.hcl`` files, and only the diagnostics, code
actions, hovers and lenses of :mod:`.analysis`: completion, formatting and the rest are
terraform-ls's or tofu-ls's, beside which it runs.
"""

from __future__ import annotations

import asyncio
import logging
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

from .._lazy import load
from .._threads import worker_pool
from .._version import __version__
from ..settings import Settings
from ..versions.target import Client
from .analysis import INIT_COMMAND, UPGRADE_COMMAND, Finding, RootReport, analyse, find_root

log = logging.getLogger(__name__)

#: The files the server speaks about (issue #61 §1).
CLAIMED_SUFFIXES = (".tf", ".tf.json", ".tofu", ".tofu.json")
CLAIMED_NAMES = (".terraform.lock.hcl", "tofu-solve-policy.hcl")
DEBOUNCE = 0.08  # seconds a change waits for the next keystroke before its root is solved

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
             "information": types.DiagnosticSeverity.Information, "hint": types.DiagnosticSeverity.Hint}


def claimed(path: Path) -> bool:
    """Whether the server speaks about the file at ``path``."""
    return path.name in CLAIMED_NAMES or path.name.endswith(CLAIMED_SUFFIXES)


def uri_path(uri: str) -> Path | None:
    """The local path of a ``file://`` URI; None for any other scheme (a diff view's
    ``git:`` document, an untitled buffer: never the working tree, issue #67 §6)."""
    parts = urlparse(uri)
    if parts.scheme != "file":
        return None
    return Path(unquote(parts.path))


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
        published: root -> the files (relative) it published diagnostics for.
    """

    def __init__(self, settings: Settings):
        super().__init__("tofu-solve", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=_Protocol)
        self.settings = settings
        self.reports: dict[Path, RootReport] = {}
        self.published: dict[Path, set[str]] = {}
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
        """Solve the root of the document at ``uri`` soon (after :data:`DEBOUNCE`)."""
        path = uri_path(uri)
        if path is None or not claimed(path):
            return
        root = find_root(path)
        with self._lock:
            generation = self._generation[root] = self._generation.get(root, 0) + 1
        self._workers.submit(self._solve, root, generation)

    def set_network(self, told: bool | None) -> None:
        """The ``network`` setting changed (None: not given): every root known is solved again
        with what the network now gives, or without it."""
        if told is not None and told != self.network:
            self.network = told
            for root in list(self.reports):
                self.schedule((root / "main.tf").as_uri())

    def _current(self, root: Path, generation: int) -> bool:
        with self._lock:
            return self._generation.get(root) == generation

    def _documents(self, root: Path) -> dict[Path, Any]:
        """The open ``file`` documents under ``root``, by path, each as the client keys it
        (its own URI, remembered for publishing; issue #70 §3)."""
        out = {}
        for doc in list(self.workspace.text_documents.values()):
            p = uri_path(doc.uri)
            if p is not None and claimed(p) and (p == root or root in p.parents):
                out[p] = doc
                self._uris[p] = doc.uri
        return out

    def _texts(self, root: Path) -> dict[Path, str]:
        """The open buffers under ``root``, by path: what the solve reads instead of the disk."""
        return {p: doc.source for p, doc in self._documents(root).items()}

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

    def _solve(self, root: Path, generation: int) -> None:
        time.sleep(DEBOUNCE)
        if not self._current(root, generation):
            return  # a newer edit follows: it solves
        token = self._progress_begin(f"Solving {root.name}")
        try:
            documents = self._documents(root)
            versions = {_rel(p, root): d.version for p, d in documents.items() if d.version is not None}
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

    def _publish(self, root: Path, report: RootReport) -> None:
        previous = self.reports.get(root)
        findings = list(report.findings)
        if report.read_error and previous is not None:  # keep the last good solve's word on the other files
            bad = {f.file for f in report.findings}
            findings += [f for f in previous.findings if f.file not in bad]
            report.findings = findings
            report.files |= previous.files
            report.lenses, report.hovers, report.fixes = previous.lenses, previous.hovers, previous.fixes
        self.reports[root] = report
        # every open document of the root is answered, an empty list when all is well
        files = report.files | {f.file for f in findings} | {_rel(p, root) for p in self._texts(root)}
        for f in sorted(files | self.published.get(root, set())):
            path = root / f
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=self.uri_of(path), diagnostics=[self.diagnostic(root, x) for x in findings if x.file == f],
                version=report.versions.get(f)))
        self.published[root] = files
        workspace = self.client_capabilities.workspace if self.client_capabilities is not None else None
        lens = workspace.code_lens if workspace is not None else None
        if lens is not None and lens.refresh_support:  # the lenses are pulled: say they changed
            self.workspace_code_lens_refresh(None)

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
            range=self.span(root / f.file, f.line, f.needle), message=f.message, severity=_SEVERITY[f.severity],
            source="tofu-solve", code=f.code,
            related_information=[types.DiagnosticRelatedInformation(
                types.Location(self.uri_of(root / r.file), self.span(root / r.file, r.line, None)), r.message)
                for r in f.related] or None)


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
        report = ls.reports.get(find_root(path))
        if report is None:
            return None
        rel = _rel(path, report.root)
        line = params.position.line + 1
        for h in report.hovers:
            if h.file == rel and h.first <= line <= h.last:
                return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, h.markdown))
        return None

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: SolveServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        path = uri_path(params.text_document.uri)
        if path is None:
            return []
        report = ls.reports.get(find_root(path))
        if report is None:
            return []
        rel = _rel(path, report.root)
        return [types.CodeLens(range=types.Range(types.Position(lens.line - 1, 0), types.Position(lens.line - 1, 0)),
                               command=types.Command(title=lens.title, command=""))
                for lens in report.lenses if lens.file == rel]

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


def _code_actions(ls: SolveServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The verified fixes whose edits touch the requested lines, and the commands of the
    findings there."""
    path = uri_path(params.text_document.uri)
    report = ls.reports.get(find_root(path)) if path is not None else None
    if path is None or report is None:
        return []
    root, rel = report.root, _rel(path, report.root)
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
        target = root / e.file
        if ls.version_of(target) != report.versions.get(e.file):
            return None
        text = ls.line_text(target, e.line)
        if f'"{e.old}"' not in text:
            return None
        per_file.setdefault(e.file, []).append(types.TextEdit(ls.span(target, e.line, e.old), f'"{e.new}"'))
    caps = ls.client_capabilities.workspace if ls.client_capabilities is not None else None
    versioned = caps is not None and caps.workspace_edit is not None and bool(caps.workspace_edit.document_changes)
    if not versioned:
        return types.WorkspaceEdit(changes={ls.uri_of(root / f): edits for f, edits in per_file.items()})
    return types.WorkspaceEdit(document_changes=[
        types.TextDocumentEdit(types.OptionalVersionedTextDocumentIdentifier(ls.uri_of(root / f),
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
    """``tofu-solve lsp``: serve over stdin and stdout until the client exits."""
    build_server(settings).start_io()
    return 0


__all__ = ["CLAIMED_NAMES", "CLAIMED_SUFFIXES", "SolveServer", "build_server", "claimed", "run", "uri_path"]
