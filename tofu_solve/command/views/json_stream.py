"""OpenTofu's machine-readable UI: one JSON object per line.

The shape is that of ``tofu init -json`` (``internal/command/views/json_view.go`` and
``views/json/diagnostic.go``; UI version 1.2): every message has ``@level`` (``info``,
``warn``, ``error``), ``@message``, ``@module``, ``@timestamp`` (RFC 3339, UTC, with
microseconds) and ``type``. The first message is ``type: "version"``; diagnostics carry
``diagnostic: {severity, summary, detail, range?, snippet?}`` with ``range`` as
``{filename, start: {line, column, byte}, end: {...}}``. tofu-solve adds, inside its own
messages, what it promises elsewhere: an error diagnostic keeps ``error`` (the error as data,
its ``explanation`` included), and the last message of a command that succeeded is
``type: "<command>_result"`` with the command's result document in ``result``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from ..._version import __version__
from ...errors import SourceRange, TofuSolveError
from ...output_edge import json_safe
from .progress import message_code, progress_text

JSON_UI_VERSION = "1.2"
MODULE = "tofu-solve.ui"


def _timestamp() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def warning_data(w) -> dict:
    """A warning as data: ``{"summary", "detail"}`` (a plain string warning is its own detail)."""
    return {"summary": getattr(w, "summary", "Warning"), "detail": str(w)}


def _range(where: SourceRange | None, root: Path | None) -> tuple[dict | None, dict | None]:
    """``range`` and ``snippet`` of a diagnostic, as OpenTofu writes them: the highlighted
    text is the line's non-blank part; ``byte`` offsets are counted in the file when it can
    be read (else 0)."""
    if where is None or not where.file:
        return None, None
    code = where.snippet.rstrip("\n") if where.snippet else ""
    if not code and root is not None:
        try:
            lines = (root / where.file).read_text(encoding="utf-8").splitlines()
            code = lines[where.line - 1] if 0 < where.line <= len(lines) else ""
        except (OSError, UnicodeDecodeError):
            code = ""
    start_col = len(code) - len(code.lstrip()) + 1
    end_col = len(code.rstrip()) + 1
    line_start = 0
    if root is not None:
        try:
            data = (root / where.file).read_bytes()
            for _ in range(where.line - 1):
                nl = data.find(b"\n", line_start)
                if nl < 0:
                    break
                line_start = nl + 1
        except OSError:
            line_start = 0
    start_byte = line_start + len(code[:start_col - 1].encode())
    end_byte = line_start + len(code[:end_col - 1].encode())
    rng = {"filename": where.file, "start": {"line": where.line, "column": start_col, "byte": start_byte},
           "end": {"line": where.line, "column": end_col, "byte": end_byte}}
    snippet: dict | None = None
    if code.strip():
        snippet = {"context": where.context or None, "code": code, "start_line": where.line,
                   "highlight_start_offset": start_col - 1, "highlight_end_offset": end_col - 1, "values": []}
    return rng, snippet


class JsonStream:
    """Writes the stream to each of ``outs`` (standard output for ``-json``, a file for
    ``-json-into=FILE``), one flushed line per message. Thread-safe enough for progress
    from worker threads: each message is one ``write`` call."""

    def __init__(self, *outs: IO[str], root: Path | None = None):
        import threading
        self.outs = outs
        self.root = root
        self._lock = threading.Lock()
        self.errors = 0

    def emit(self, level: str, message: str, type_: str, **fields) -> None:
        doc = {"@level": level, "@message": message, "@module": MODULE, "@timestamp": _timestamp(), **fields,
               "type": type_}
        line = json.dumps(json_safe(doc), separators=(",", ":"), default=str) + "\n"
        with self._lock:
            for out in self.outs:
                out.write(line)
                out.flush()

    def version(self) -> None:
        self.emit("info", f"tofu-solve {__version__}", "version", tofu_solve=__version__, ui=JSON_UI_VERSION)

    def log(self, message: str, level: str = "info") -> None:
        self.emit(level, message, "log")

    def progress(self, event) -> None:
        """A progress event (:mod:`tofu_solve.events`) as a ``log`` message with its
        ``message_code``."""
        self.emit("info", progress_text(event), "log", message_code=message_code(event))

    def init_output(self, message: str, code: str) -> None:
        self.emit("info", message, "init_output", message_code=code)

    def diagnostic(self, severity: str, summary: str, detail: str = "", where: SourceRange | None = None,
                   **extra) -> None:
        diag: dict[str, object] = {"severity": severity, "summary": summary, "detail": detail}
        rng, snippet = _range(where, self.root)
        if rng is not None:
            diag["range"] = rng
        if snippet is not None:
            diag["snippet"] = snippet
        level = "error" if severity == "error" else "warn"
        prefix = "Error" if severity == "error" else "Warning"
        self.emit(level, f"{prefix}: {summary}", "diagnostic", diagnostic=diag, **extra)

    def warning(self, w) -> None:
        d = warning_data(w)
        self.diagnostic("warning", d["summary"], d["detail"])

    def error(self, e: TofuSolveError, **extra) -> None:
        self.errors += 1
        self.diagnostic("error", e.summary, e.detail, e.where, error=e.to_dict(), **extra)

    def result(self, command: str, message: str, doc: dict) -> None:
        self.emit("info", message, f"{command}_result", result=doc)
