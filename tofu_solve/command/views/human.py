"""Text for people: OpenTofu's wording and layout, colour on a terminal, one live progress
line while work is under way (``rich``), plain lines on a pipe.

Colour follows OpenTofu's conventions: errors red, warnings yellow, the final success line
green, bold headings. It is off with ``-no-color``, with ``NO_COLOR`` set to anything
non-empty (https://no-color.org), and whenever the stream is not a terminal.
"""

from __future__ import annotations

import logging
import sys
import threading
import time

from rich.console import Console
from rich.status import Status
from rich.text import Text

from ..._lazy import load
from ...events import InRoot, RootDone
from ...output_edge import cleaner, raw_stream
from .progress import is_fetch, progress_text

log = logging.getLogger("tofu_solve.progress")


def use_color(no_color_flag: bool, no_color_env: bool = False) -> bool:
    """Whether colour may be used at all (a terminal is still required): not with
    ``-no-color``, nor with ``NO_COLOR`` set (:attr:`tofu_solve.settings.Settings.no_color`)."""
    return not no_color_flag and not no_color_env


SLOW_ROOT_SECONDS = 5.0
"""Off a terminal, a root still running this long after it started is a progress line."""


class HumanView:
    """Human output: results on standard output, progress and diagnostics on standard error.

    ``progress(msg)`` on a terminal updates one live status line (counting what was fetched);
    on a pipe, each message is a line of its own. Use as a context manager around the work
    so the live line is cleared before results are printed.
    """

    def __init__(self, color: bool, out=None, err=None, quiet: bool = False):
        self.out_stream = out or sys.stdout
        self.err_stream = err or sys.stderr
        # rich writes its own escape sequences (colour, the live line) to the raw streams; what it
        # is given to print is cleaned as the output edge cleans everything else (issue #67 §1)
        self._clean_out, self._clean_err = cleaner(self.out_stream), cleaner(self.err_stream)
        self.out = Console(file=raw_stream(self.out_stream), no_color=not color, highlight=False, markup=False,
                           emoji=False, soft_wrap=True)
        self.err = Console(file=raw_stream(self.err_stream), no_color=not color, highlight=False, markup=False,
                           emoji=False, soft_wrap=True, stderr=self.err_stream is sys.stderr)
        self.color = color
        self.quiet = quiet  # -quiet: no progress at all
        self.live = self.err.is_terminal and not quiet
        self._status: Status | None = None
        self._lock = threading.Lock()
        self.fetched = 0
        self.roots = 0  # -recursive: the root modules of the run, and how many are done
        self.roots_done = 0
        # off a terminal under -recursive: when each running root started, which were said to be
        # slow, and the watcher that says so (issue #70 §2: a no-op run is a line per root)
        self._started: dict[str, float] = {}
        self._slow: set[str] = set()
        self._watching: threading.Event | None = None

    @property
    def width(self) -> int:
        """How wide a line may be: the terminal's width, or 120 off a terminal (issue #59 §3)."""
        return self.out.width if self.out.is_terminal else 120

    # ------------------------------------------------------------------ progress

    def __enter__(self):
        if self.live:
            status = self._status = self.err.status("Working...", spinner="dots")
            status.__enter__()
        return self

    def __exit__(self, *exc):
        self.stop_progress()
        return False

    def stop_progress(self) -> None:
        with self._lock:
            if self._status is not None:
                self._status.__exit__(None, None, None)
                self._status = None
            if self._watching is not None:
                self._watching.set()

    def _watch_roots(self, stop: threading.Event) -> None:
        """Off a terminal: a line for each root still running :data:`SLOW_ROOT_SECONDS` after
        it started, once, so that a CI log shows what a long run is waiting for."""
        while not stop.wait(0.25):
            now = time.monotonic()
            with self._lock:
                slow = [r for r, t in self._started.items() if r not in self._slow and now - t >= SLOW_ROOT_SECONDS]
                for root in slow:
                    self._slow.add(root)
                    self.err_stream.write(f"- {self._clean_err(root)}: still running after "
                                          f"{int(SLOW_ROOT_SECONDS)} s\n")
                if slow:
                    self.err_stream.flush()

    def _root_event(self, event) -> bool:
        """Off a terminal, a root's start and end: whether its end is a line (only for a root
        said to be slow; every root has its line in the summary)."""
        load("tofu_solve._threads")
        from ..._threads import start_thread

        with self._lock:
            if isinstance(event, InRoot):
                self._started.setdefault(event.root, time.monotonic())
                if self._watching is None:
                    self._watching = threading.Event()
                    start_thread(self._watch_roots, "tofu-solve-progress", (self._watching,))
                return False
            self._started.pop(event.root, None)
            return event.root in self._slow

    def progress(self, event) -> None:
        """A progress event (:mod:`tofu_solve.events`): the live line on a terminal, else a
        line. Under ``-recursive`` (:class:`InRoot`, :class:`RootDone`), the live line counts
        the roots done of all of them; off a terminal a root is a line only when it is still
        running :data:`SLOW_ROOT_SECONDS` after it started (and then its end too), since the
        summary gives every root its line (issue #70 §2: a no-op run over N roots is at most
        N + 5 lines)."""
        if self.quiet:
            return
        msg = progress_text(event)
        with self._lock:
            if is_fetch(event):
                self.fetched += 1
            if isinstance(event, RootDone):
                self.roots_done += 1
                msg = f"{msg} ({self.roots_done} of {self.roots})" if self.roots else msg
            if self._status is not None:
                text = msg.lstrip("- ")
                if isinstance(event, InRoot | RootDone) and self.roots:
                    text = f"{self.roots_done} of {self.roots} root modules done; {text}"
                suffix = f" ({self.fetched} fetched)" if self.fetched else ""
                self._status.update(Text(self._clean_err(text + suffix)))
                return
        if isinstance(event, InRoot | RootDone) and self.roots and not self._root_event(event):
            log.debug("%s", msg)  # a root's phases and end: detail for TF_LOG; the summary has its line
            return
        if isinstance(event, InRoot):
            log.debug("%s", msg)
            return
        if is_fetch(event):
            # off a terminal, one line per phase (PhaseDone), in a stable order; each download
            # is detail for TF_LOG (issue #24: CI logs drown the answer otherwise)
            log.debug("%s", msg.removeprefix("- "))
            return
        self.err_stream.write(msg + "\n")
        self.err_stream.flush()

    # ------------------------------------------------------------------ output

    def line(self, text: str = "", style: str | None = None) -> None:
        text = self._clean_out(text)
        self.out.print(Text(text, style=style) if style and self.color else text)

    def heading(self, text: str) -> None:
        self.line(text, "bold")

    def success(self, text: str) -> None:
        self.line(text, "bold green")

    def warning(self, w, wrap: bool = False) -> None:
        """``Warning: TEXT`` after a blank line; with ``wrap``, each paragraph folded at
        :attr:`width` (``-recursive``'s summary: no line longer than the terminal, or 120)."""
        head = Text("Warning: ", style="bold yellow" if self.color else "")
        text = self._clean_out(str(w))
        if wrap:
            text = self.fold("Warning: " + text)[len("Warning: "):]
        head.append(text)
        self.out.print()
        self.out.print(head)

    def fold(self, text: str, indent: str = "") -> str:
        """``text`` with each of its lines folded at :attr:`width` (words are never broken:
        an address longer than the line stays whole), continuation lines indented by
        ``indent`` beyond the line's own indentation."""
        import re
        import textwrap

        def whole(m: re.Match) -> str:  # a quoted constraint is not folded inside: ">= 6.28.0"
            return m.group(0).replace(" ", "\u00a0")
        out = []
        for line in text.split("\n"):
            if len(line) <= self.width:
                out.append(line)
                continue
            lead = line[:len(line) - len(line.lstrip(" "))]
            kept = re.sub(r'"[^"\n]{1,60}"', whole, line)
            out.append(textwrap.fill(kept, self.width, subsequent_indent=lead + indent, break_long_words=False,
                                     break_on_hyphens=False).replace("\u00a0", " "))
        # a wrapped line never starts with what a CI runner reads as a command (issue #67 §1): a
        # zero-width joiner before "::" keeps the text as it reads
        return re.sub(r"(?m)^(\s*)(::)", "\\1\u200d\\2", "\n".join(out))

    def folded(self, text: str = "", style: str | None = None, indent: str = "") -> None:
        """:meth:`line`, folded as :meth:`fold` folds it."""
        self.line(self.fold(text, indent), style)

    def error_in_root(self, root: str, rendered: str) -> None:
        """``-recursive``: a root's error on standard error, under the root's name there too,
        so that the error is tied to its root in a log whatever the order of the two streams."""
        self.stop_progress()
        self.err.print()
        self.err.print(Text(self._clean_err(f"In {root}:"), style="bold" if self.color else ""))
        first, _, rest = self._clean_err(rendered).partition("\n")
        self.err.print(Text(first, style="bold red" if self.color else ""))
        if rest:
            self.err.print(self.fold(rest, indent="    "))

    def error_text(self, rendered: str) -> None:
        """An error as :meth:`TofuSolveError.render` wrote it, "Error:" in red."""
        self.stop_progress()
        first, _, rest = self._clean_err(rendered).partition("\n")
        head = Text(first, style="bold red" if self.color else "")
        self.err.print()
        self.err.print(head)
        if rest:
            self.err.print(rest)
        self.err.print()


class LineProgress:
    """A progress callback that writes each event as a line on standard error (nothing when
    ``quiet``, as under ``-json``); safe to call from several threads. Standard output is
    flushed first, so a progress line never joins a line of output; after :meth:`close`
    (before the command prints its answer) nothing more is written: a download a worker
    finishes late never lands after the answer (issue #70 §4)."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self._lock = threading.Lock()

    def __call__(self, event) -> None:
        if self.quiet:
            return
        with self._lock:
            if self.quiet:
                return
            sys.stdout.flush()
            sys.stderr.write(progress_text(event) + "\n")
            sys.stderr.flush()

    def close(self) -> None:
        with self._lock:
            self.quiet = True


def line_progress(quiet: bool) -> LineProgress:
    """:class:`LineProgress`."""
    return LineProgress(quiet)
