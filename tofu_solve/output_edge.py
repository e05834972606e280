"""The one edge every line of human output crosses (issue #67 §1).

Text from outside tofu-solve (file and directory names, module sources, policy messages,
registry and store answers, lock values, other programs' errors) can hold control characters:
a newline followed by ``::warning::`` or ``::stop-commands::TOKEN`` that a CI runner reads as a
workflow command, ``##[add-mask]`` (the runner's legacy form, read anywhere in a line), ESC
sequences that write a terminal's clipboard (OSC 52) or move its cursor. So:

* :func:`one_line` is what outside text becomes where a message quotes it: every control
  character escaped (C0 and C1, CR, LF, TAB, ESC, NUL, DEL, U+2028/U+2029, the bidirectional
  overrides), cut at a length; a message is then one line per line tofu-solve wrote.
* :class:`OutputEdge` wraps standard output and standard error (``cli`` installs it for every
  command but ``lsp``): what is written is :func:`printable` (control characters other than
  newline escaped, so no escape sequence from anywhere reaches a terminal), and under GitHub
  Actions (``GITHUB_ACTIONS=true``) the human output runs inside the runner's own guard: a
  ``::stop-commands::TOKEN`` line with a fresh random token first, so the runner executes no
  command until ``::TOKEN::``, which :meth:`OutputEdge.commands` writes just before
  tofu-solve's own annotations; and ``##[`` is broken with a zero-width joiner (in JSON
  output, written ``#\\u0023[``, the same string to a JSON reader).

``rich`` (the live progress line and colours, :mod:`tofu_solve.command.views.human`) writes to
the raw stream, since its own escape sequences must pass; what it is given to print passes
:meth:`OutputEdge.clean` first.
"""

from __future__ import annotations

import contextlib
import io
import re
import secrets
import threading
from collections.abc import Iterable
from typing import TextIO

MAX_QUOTED = 1000
"""How many characters of one piece of outside text a message quotes."""

# every C0 control but LF, DEL, C1, the line and paragraph separators, the bidirectional
# embedding/override/isolate controls (a "Trojan Source" reordering of what a reader sees), and
# the invisible format characters that make two different strings look alike (issue #80 §5:
# soft hyphen, Arabic letter mark, Mongolian vowel separator, zero-width space, non-joiner and
# joiner, left-to-right and right-to-left marks, word joiner and invisible operators, BOM)
_INVISIBLE = "\u00ad\u061c\u180e\u200b-\u200f\u2060-\u2064\ufeff"
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069" + _INVISIBLE + "]")
_CONTROL_OR_NEWLINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069" + _INVISIBLE + "]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character, a newline included (what a name, a source
    address or a lock value never holds)."""
    return _CONTROL_OR_NEWLINE.search(text) is not None


def printable(text: str) -> str:
    """``text`` with every control character but the newline escaped (``\\x1b``,
    ``\\u2028``...), and a tab as ``\\t``: what may reach a terminal or a log."""
    return _CONTROL.sub(_escape, text)


def one_line(text: object, limit: int = MAX_QUOTED) -> str:
    """Outside text as a message quotes it: on one line, every control character (newlines
    included) escaped, at most ``limit`` characters (then ``…`` and how many were left out)."""
    s = _CONTROL_OR_NEWLINE.sub(_escape, str(text))
    if len(s) > limit:
        s = f"{s[:limit]}… ({len(s) - limit} more characters)"
    return s


PROSE_KEYS = frozenset({"detail", "message", "@message", "text", "markdown", "explanation", "help", "label"})
"""Keys of a JSON document whose strings are tofu-solve's own prose (several lines, each
outside piece already one line): :func:`json_safe` keeps their newlines."""
MAX_PROSE = 64 << 10
"""How many characters one prose string of a JSON document may hold."""


def json_safe(value: object, key: str = "") -> object:
    """A JSON document (dicts, lists, strings, numbers...) as every JSON output writes it
    (issue #80 §2): each string one bounded line (:func:`one_line`: a file or directory name,
    a label, a source, a registry's text), but under :data:`PROSE_KEYS`, where its newlines
    stay and every other control character is escaped (:func:`printable`); keys likewise one
    line. So a ``jq -r`` step that prints a field into a workflow command line prints one
    line, whatever a pull request named its files."""
    if isinstance(value, str):
        if key in PROSE_KEYS:
            text = printable(value)
            return text if len(text) <= MAX_PROSE else f"{text[:MAX_PROSE]}… ({len(text) - MAX_PROSE} more characters)"
        return one_line(value)
    if isinstance(value, dict):
        return {one_line(k) if isinstance(k, str) else k: json_safe(v, k if isinstance(k, str) else "")
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v, key) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return json_safe(str(value), key)  # what json.dumps(default=str) would write: a path, a version


_LEGACY_COMMAND = "##["
_ZWJ = "\u200d"


class Guard:
    """The runner's guard region one process writes in (issue #81 §1). GitHub's runner reads
    standard output and standard error as one sequence of lines, so the process has one
    region, opened once (``::stop-commands::TOKEN``, on the first stream that carries human
    text), resumed (``::TOKEN::``) only just before tofu-solve's own annotations, opened again
    (with a fresh token) when more human text follows them, and closed before the process
    exits (:meth:`close`), on success, error, internal error and interrupt alike."""

    def __init__(self, token: str = ""):
        self.token = token or secrets.token_hex(16)
        self.open_on: TextIO | None = None  # the raw stream the region was opened on, while it is open
        self.resumed = False  # tofu-solve's own annotations were written: text after them reopens the region
        self._lock = threading.RLock()

    def open(self, raw: TextIO, fresh: bool = False) -> None:
        """Open the region on ``raw`` unless it is open (``fresh``: with a new token)."""
        with self._lock:
            if self.open_on is not None:
                return
            if fresh:
                self.token = secrets.token_hex(16)
            raw.write(f"::stop-commands::{self.token}\n")
            raw.flush()
            self.open_on = raw

    def resume(self, raw: TextIO) -> None:
        """Resume the runner's commands on ``raw`` (for tofu-solve's own annotations)."""
        with self._lock:
            if self.open_on is not None:
                raw.write(f"::{self.token}::\n")
            self.open_on = None
            self.resumed = True

    def close(self) -> None:
        """Close the region, if open, on the stream it was opened on."""
        with self._lock:
            raw, self.open_on = self.open_on, None
            if raw is not None:
                with contextlib.suppress(OSError, ValueError):
                    raw.write(f"::{self.token}::\n")
                    raw.flush()


class OutputEdge(io.TextIOBase):
    """A text stream over ``raw`` that writes only :meth:`clean` text (see the module
    docstring). ``actions``: running under GitHub Actions; ``json``: the stream carries a
    JSON document or stream (``-json``, ``-format=sarif``), where no guard line may be
    written and ``##[`` is escaped the JSON way; ``guard``: the process's :class:`Guard`,
    shared by its edges (the runner reads standard output and standard error alike);
    ``token``: a new guard's token."""

    def __init__(self, raw: TextIO, actions: bool = False, json: bool = False, token: str = "",
                 guard: Guard | None = None):
        self.raw = raw
        self.actions = actions
        self.json = json
        self.guard = guard or Guard(token)

    @property
    def token(self) -> str:
        return self.guard.token

    @property
    def stopped(self) -> bool:
        return self.guard.open_on is not None

    # io.TextIOBase
    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        if self.actions and not self.json and self.guard.resumed and self.guard.open_on is None and s.strip():
            self.guard.open(self.raw, fresh=True)  # human text after tofu-solve's annotations: inside a region again
        self.raw.write(self.clean(s))
        return len(s)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    @property
    def encoding(self):  # type: ignore[override]
        return getattr(self.raw, "encoding", "utf-8")

    @property
    def errors(self):  # type: ignore[override]
        return getattr(self.raw, "errors", "strict")

    def clean(self, s: str) -> str:
        """``s`` as it may be written: :func:`printable`, and under GitHub Actions with
        ``##[`` broken (in JSON, as ``#\\u0023[``)."""
        s = printable(s)
        if self.actions and _LEGACY_COMMAND in s:
            s = s.replace(_LEGACY_COMMAND, "#\\u0023[" if self.json else "#" + _ZWJ + "#[")
        return s

    def stop_commands(self) -> None:
        """Under GitHub Actions, on a stream that is not JSON: open the process's guard
        region (once for the process: :class:`Guard`), so that the runner executes no
        workflow command from what follows."""
        if self.actions and not self.json:
            self.guard.open(self.raw)

    def commands(self, lines: Iterable[str]) -> None:
        """Write tofu-solve's own workflow commands (annotations, already escaped by their
        maker): the runner's commands resumed first (``::TOKEN::``) when they were stopped."""
        self.flush()
        if self.actions:
            self.guard.resume(self.raw)
        for line in lines:
            self.raw.write(line + "\n")
        self.raw.flush()

    def close_guard(self) -> None:
        """Close the process's guard region (the end of the process: :meth:`Guard.close`)."""
        self.flush()
        self.guard.close()


def workflow_commands(stream: TextIO, lines: Iterable[str]) -> None:
    """Write tofu-solve's own workflow command ``lines`` to ``stream``: through
    :meth:`OutputEdge.commands` when it is an edge, else as they are."""
    if isinstance(stream, OutputEdge):
        stream.commands(lines)
        return
    for line in lines:
        print(line, file=stream)


def raw_stream(stream: TextIO) -> TextIO:
    """The stream under an :class:`OutputEdge` (what ``rich`` writes its own escape
    sequences to), else ``stream``."""
    return stream.raw if isinstance(stream, OutputEdge) else stream


def cleaner(stream: TextIO):
    """How text for ``stream`` is cleaned before ``rich`` prints it: the edge's
    :meth:`OutputEdge.clean`, else :func:`printable`."""
    return stream.clean if isinstance(stream, OutputEdge) else printable


__all__ = ["MAX_PROSE", "MAX_QUOTED", "PROSE_KEYS", "Guard", "OutputEdge", "cleaner", "has_control", "json_safe",
           "one_line", "printable", "raw_stream", "workflow_commands"]
