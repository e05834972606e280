"""``-format=markdown``: one report a reviewer reads on one screen, as a pull request
comment or GitHub's job summary (issue #81 §3).

The report: a heading naming the command, one **count line** (what moves, what fails, what
was left out, how many roots had nothing to say), then, for one root, its lines, or under
``-recursive`` a table of the roots with something to say and a section for each: what moves
and why, with the line that causes it; what fails and where; the policy's findings. Roots
with nothing to say are one count, never a row each; a section over :data:`OPEN_LINES`
lines is collapsed (``<details>``). The whole report is at most :data:`MAX_BYTES` (GitHub's
limit for one step's summary): what does not fit is counted in a last line, never cut
mid-way. Atlantis' and Terramate's pull request comments are the model for the shape.

Every piece of outside text (a root's or file's name, a label, a registry's message) is
written by :func:`text`: on one line, with every character Markdown or HTML reads escaped, so
a name cannot open a link, an image, a tag, a table cell or a mention.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...output_edge import one_line

MAX_BYTES = 1 << 20
"""GitHub's limit for one step's job summary (1 MiB): the report never exceeds it."""
OPEN_LINES = 8
"""A root's section with more lines than this is collapsed."""
_RESERVE = 2048  # kept for the last line that counts what did not fit

_ESCAPED = re.compile(r"([\\`*_\[\]!|<~:#$&])")


def text(value: object, limit: int = 500) -> str:
    """Outside text as Markdown that shows it as written and does nothing else: on one line
    (:func:`tofu_solve.output_edge.one_line`, at most ``limit`` characters), every ASCII
    punctuation character that opens something inline escaped with a backslash (CommonMark:
    any ASCII punctuation may be): emphasis and code, links and images (``[``, ``!``; a
    ``(`` then opens nothing), table cells (``|``), HTML and entities (``<``, ``&``),
    strikethrough (``~``), autolinks and emoji (``:``), issue references (``#``) and math
    (``$``); ``@`` written as an entity so that no one is mentioned. Never written at a
    line's start (where ``-``, ``>``, ``.`` and ``=`` would count)."""
    return _ESCAPED.sub(r"\\\1", one_line(value, limit)).replace("@", "&#64;")


@dataclass(frozen=True)
class Line:
    """One thing said of a root: ``subject`` (a call, a provider, a file), ``detail`` (what
    and why), ``where`` (``file:line`` named from where the command ran, or "")."""

    subject: str
    detail: str
    where: str = ""

    def render(self) -> str:
        at = f" ({text(self.where)})" if self.where and self.where not in self.detail else ""
        return f"- **{text(self.subject, 200)}**: {text(self.detail, 2000)}{at}"


@dataclass
class RootReport:
    """What one root has to say: ``moves`` (lock changes, or what would change, or the
    differences from its lock), ``failures`` (errors), ``findings`` (the policy's), or
    ``left_out`` (why ``-recursive`` left it out, issue #81 §5)."""

    name: str
    moves: list[Line] = field(default_factory=list)
    failures: list[Line] = field(default_factory=list)
    findings: list[Line] = field(default_factory=list)
    left_out: str = ""

    @property
    def quiet(self) -> bool:
        return not (self.moves or self.failures or self.findings or self.left_out)


@dataclass(frozen=True)
class Words:
    """How a command names its counts, of several roots and of one: ``moves``
    (``"would change their lock files"``, ``"would change its lock file"``), ``quiet``
    (``"are up to date"``, ``"is up to date"``), and the heading for moves (``"Lock changes"``)."""

    moves: str
    moves_one: str
    quiet: str
    quiet_one: str
    column: str


@dataclass(frozen=True)
class Report:
    """A whole report: the ``command`` as run, each root's :class:`RootReport` in order
    (one, named ``"."``, without ``-recursive``), the command's :class:`Words`, and
    ``notes`` the run says once (shown as GitHub alerts under the count line)."""

    command: str
    roots: Sequence[RootReport]
    words: Words
    notes: Sequence[str] = ()  # what the run says once (a warning that concerns no one root)
    # the policy files the roots were judged by (issue #84 §1): (file, how many roots), in order
    policies: Sequence[tuple[str, int]] = ()

    def count_line(self) -> str:
        """One line: how many roots move, fail, have policy findings, were left out, said nothing."""
        ran = [r for r in self.roots if not r.left_out]
        n = len(ran)
        if len(self.roots) == 1 and self.roots[0].name == ".":  # one root: a sentence about it
            r = self.roots[0]
            noun = self.words.column.lower() if len(r.moves) != 1 else self.words.column.lower()[:-1]
            said = "failed" if r.failures else f"{self.words.moves_one} ({len(r.moves)} {noun})" if r.moves \
                else self.words.quiet_one
            found = f"; {len(r.findings)} policy finding{'s' if len(r.findings) != 1 else ''}" if r.findings else ""
            return f"The root module {said}{found}."
        parts = []
        moving = sum(1 for r in ran if r.moves)
        failing = sum(1 for r in ran if r.failures)
        finding = sum(1 for r in ran if r.findings)
        quiet = sum(1 for r in ran if r.quiet)
        left = len(self.roots) - n
        if moving:
            parts.append(f"{moving} of {n} root module{'s' if n != 1 else ''} "
                         f"{self.words.moves if moving != 1 else self.words.moves_one}")
        if failing:
            parts.append(f"{failing} failed")
        if finding:
            parts.append(f"{finding} with policy findings")
        if quiet:
            verb = self.words.quiet if quiet != 1 else self.words.quiet_one
            parts.append(f"{quiet} {verb}" if parts or quiet != n else
                         f"all {n} root modules {verb}" if n > 1 else f"1 root module {verb}")
        if left:
            parts.append(f"{left} left out")
        text_ = "; ".join(parts) + "."
        return text_[:1].upper() + text_[1:]


def render(report: Report, limit: int = MAX_BYTES) -> str:
    """``report`` as GitHub-flavoured Markdown of at most ``limit`` bytes (UTF-8), ending in
    a newline. Pieces are added whole in order (heading, count line, table rows, sections);
    once the next would pass ``limit``, the rest is counted in a last line instead."""
    one = len(report.roots) == 1 and report.roots[0].name == "."
    pieces: list[tuple[str, str]] = [("head", f"### {text(report.command, 300)}\n\n**{report.count_line()}**\n")]
    pieces += [("head", f"\n> [!WARNING]\n> {text(note, 4000)}\n") for note in report.notes]
    if report.policies:
        judged = ", ".join(text(f, 300) if one else f"{text(f, 300)} ({n} root{'s' if n != 1 else ''})"
                           for f, n in report.policies)
        pieces.append(("head", f"\nJudged by the policy files: {judged}.\n"))
    loud = [r for r in report.roots if not r.quiet]
    if one:
        pieces += [("section", _lines(r)) for r in loud]
    elif loud:
        pieces.append(("head", f"\n| Root | {report.words.column} | Failures | Policy findings |\n| --- | ---: | ---: "
                               "| ---: |\n"))
        pieces += [("row", f"| {text(r.name, 300)} | {len(r.moves)} | {len(r.failures)} | {len(r.findings)} |\n"
                    if not r.left_out else f"| {text(r.name, 300)} | left out | | |\n") for r in loud]
        pieces += [("section", _section(r)) for r in loud if not r.left_out]
    quiet = [r.name for r in report.roots if r.quiet]
    if quiet and not one:
        names = ", ".join(text(n, 300) for n in quiet)
        verb = report.words.quiet if len(quiet) != 1 else report.words.quiet_one
        pieces.append(("section", f"\n<details><summary>{len(quiet)} {verb}</summary>\n\n{names}\n\n</details>\n"))
    out: list[str] = []
    size = 0
    for i, (kind, piece) in enumerate(pieces):
        n = len(piece.encode("utf-8"))
        if size + n > limit - _RESERVE and kind != "head":
            rest = pieces[i:]
            rows = sum(1 for k, _ in rest if k == "row")
            sections = sum(1 for k, _ in rest if k == "section")
            what = ", ".join(x for x in (f"{rows} table rows" if rows else "",
                                         f"{sections} sections" if sections else "") if x)
            out.append(f"\n_{what} more, not shown: a job summary holds at most {limit >> 10} KiB. The command's "
                       "text or -json output has every line._\n")
            break
        out.append(piece)
        size += n
    return "".join(out)


def _lines(r: RootReport) -> str:
    out = []
    for title, lines in (("Failures", r.failures), (None, r.moves), ("Policy findings", r.findings)):
        if lines:
            out.append(("\n" + f"**{title}**\n" if title else "\n") + "\n".join(line.render() for line in lines) + "\n")
    return "".join(out)


def _section(r: RootReport) -> str:
    count = len(r.moves) + len(r.failures) + len(r.findings)
    said = ", ".join(x for x in (f"{len(r.moves)} {'change' if len(r.moves) == 1 else 'changes'}" if r.moves else "",
                                 f"{len(r.failures)} failed" if r.failures else "",
                                 f"{len(r.findings)} policy" if r.findings else "") if x)
    state = " open" if count <= OPEN_LINES else ""
    return f"\n<details{state}><summary>{text(r.name, 300)}: {said}</summary>\n{_lines(r)}\n</details>\n"


def append_to_step_summary(markdown: str, environ: Mapping[str, str]) -> str | None:
    """Append ``markdown`` to the file ``GITHUB_STEP_SUMMARY`` names (GitHub's job summary:
    the runner sets it for each step), in one write. Returns a warning's text when it
    cannot be written (the report on standard output stands), else None; nothing when the
    variable is unset or empty."""
    path = environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return None
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, markdown.encode("utf-8"))
        finally:
            os.close(fd)
    except OSError as e:
        return f"The job summary (GITHUB_STEP_SUMMARY) could not be written: {one_line(e.strerror or str(e))}."
    return None


__all__ = ["MAX_BYTES", "Line", "Report", "RootReport", "Words", "append_to_step_summary", "render", "text"]
