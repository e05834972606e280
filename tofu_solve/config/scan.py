"""A bounded pre-scan of HCL native syntax: where each top-level block starts and ends.

The solve reads a few block types of a configuration (``terraform``, ``module``,
``provider``, ``variable``, ``locals``, ``language``, and of ``resource``/``data``/
``ephemeral`` only the type label and a ``provider`` argument). Real files are mostly other
blocks: under 1% of a vpc release's HCL, a 27 MiB generated root almost entirely. This
scanner finds the top-level blocks without building a parse tree, so that only the blocks
the solve needs go to the full parser (:mod:`.hcl`).

It follows HCL's lexical structure (``hclsyntax`` ``scan_tokens.rl``): quoted templates with
their escapes and ``${ }``/``%{ }`` sequences (which may hold braces, strings and newlines),
heredoc templates (``<<EOT``, ``<<-EOT``) with the same sequences, and ``#``, ``//`` and
``/* */`` comments. It only has to be right on valid input: whenever what it sees is not a
well-formed sequence of top-level blocks (an unbalanced brace, an unterminated string, a
top-level argument, a header it cannot read), it returns None and the caller parses the whole
file as before, which reports the error exactly as OpenTofu would.

Time is linear in the file's size and the work per byte is done by the regular-expression
engine, so a 27 MiB file is scanned in about a second, in memory proportional to the number
of blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# In code: what can open or close something the scanner must follow.
_CODE = re.compile(r'[{}"]|#|//|/\*|<<')
# In a quoted template: the end, an escape, or a template sequence.
_QUOTED = re.compile(r'"|\\|\$\{|%\{|\n')
_HEREDOC_START = re.compile(r"<<(-?)([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\r?\n")
_HEADER = re.compile(r'[ \t]*([A-Za-z_][A-Za-z0-9_-]*)((?:[ \t]+(?:[A-Za-z_][A-Za-z0-9_-]*|"[^"\\$%\n]*"))*)[ \t]*\{')
_LABEL = re.compile(r'"([^"]*)"|([A-Za-z_][A-Za-z0-9_-]*)')
_GAP = re.compile(r"(?:\s+|#[^\n]*|//[^\n]*|/\*.*?\*/)*", re.S)


@dataclass(frozen=True)
class TopBlock:
    """A top-level block: its type and labels as written in its header (labels that are
    plain identifiers or quoted strings without escapes or template sequences), its
    character offsets (``start`` at the type, ``open`` after its ``{``, ``end`` after the
    closing brace) and the 1-based line it starts on."""

    type: str
    labels: tuple[str, ...]
    start: int
    end: int
    line: int
    open: int = 0  # just after the header's "{"


class _Unfollowable(Exception):
    """The text is not a sequence of top-level blocks this scanner can follow."""


def top_level_blocks(text: str) -> list[TopBlock] | None:
    """The top-level blocks of ``text``, in order, or None when the text is not a clean
    sequence of blocks (the caller then parses it whole, and reports its errors)."""
    try:
        return list(_blocks(text))
    except _Unfollowable:
        return None


def _blocks(text: str):
    n = len(text)
    pos = 0
    line = 1
    while True:
        gap_end = _end(_GAP.match(text, pos), pos)
        line += text.count("\n", pos, gap_end)
        pos = gap_end
        if pos >= n:
            return
        header = _HEADER.match(text, pos)
        if header is None:
            raise _Unfollowable()  # a top-level argument, or a header with escapes or templates
        labels = tuple(m.group(1) if m.group(1) is not None else m.group(2)
                       for m in _LABEL.finditer(header.group(2)))
        end = _close(text, header.end())
        yield TopBlock(header.group(1), labels, pos, end, line, header.end())
        line += text.count("\n", pos, end)
        pos = end


def _close(text: str, pos: int) -> int:
    """The offset just after the ``}`` that closes the brace before ``pos``."""
    depth = 1
    n = len(text)
    while True:
        m = _CODE.search(text, pos)
        if m is None:
            raise _Unfollowable()
        tok = m.group()
        pos = m.end()
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
            if depth == 0:
                return pos
        elif tok == '"':
            pos = _quoted(text, pos)
        elif tok in ("#", "//"):
            nl = text.find("\n", pos)
            pos = n if nl < 0 else nl
        elif tok == "/*":
            end = text.find("*/", pos)
            if end < 0:
                raise _Unfollowable()
            pos = end + 2
        else:  # "<<": a heredoc, or a shift-looking sequence that is not one (left to the parser)
            h = _HEREDOC_START.match(text, m.start())
            if h is not None:
                pos = _heredoc(text, h.end(), h.group(2))


def _quoted(text: str, pos: int) -> int:
    """The offset after the ``"`` that ends the quoted template starting at ``pos``."""
    while True:
        m = _QUOTED.search(text, pos)
        if m is None:
            raise _Unfollowable()
        tok = m.group()
        if tok == '"':
            return m.end()
        if tok == "\\":
            pos = m.end() + 1
        elif tok == "\n":
            raise _Unfollowable()  # a quoted template cannot span lines outside a sequence
        elif _escaped_sequence(text, m.start()):
            pos = m.end()  # "$${" and "%%{" are literal text
        else:
            pos = _close(text, m.end())


def _escaped_sequence(text: str, at: int) -> bool:
    """Whether the ``${``/``%{`` at ``at`` is preceded by an odd run of its own sigil (``$${``
    is a literal ``${``; ``$$${`` is a ``$`` and then a sequence)."""
    sigil = text[at]
    i = at - 1
    while i >= 0 and text[i] == sigil:
        i -= 1
    return (at - 1 - i) % 2 == 1


def _heredoc(text: str, pos: int, marker: str) -> int:
    """The offset after the closing marker line of a heredoc whose body starts at ``pos``;
    template sequences in the body are followed."""
    end_line = re.compile(rf"^[ \t]*{re.escape(marker)}[ \t]*\r?$", re.M)
    seq = re.compile(r"\$\{|%\{")
    while True:
        closing = end_line.search(text, pos)
        if closing is None:
            raise _Unfollowable()
        opening = seq.search(text, pos, closing.start())
        if opening is None:
            return closing.end()
        if _escaped_sequence(text, opening.start()):
            pos = opening.end()
            continue
        pos = _close(text, opening.end())


# --------------------------------------------------------------------------- inside a block

# In an expression: what nests, what ends it, and what it must follow through.
_EXPR = re.compile(r'[\n(){}\[\]"]|#|//|/\*|<<')
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_SPACES = re.compile(r"[ \t]*")


def _end(match: re.Match[str] | None, pos: int) -> int:
    """Where a pattern that may match nothing (``_GAP``, ``_SPACES``) stops: it always
    matches, so ``None`` cannot happen; ``pos`` stands for it all the same."""
    return match.end() if match is not None else pos

# What may follow an argument's expression or a nested block's "}" on its line.
_LINE_END = re.compile(r"[ \t]*(?:\r?\n|#|//|\}|$)")


@dataclass(frozen=True)
class BodyArgument:
    """An argument (``name = expression``) in a block's body, found without parsing it:
    ``start`` at its name, ``expr_start``/``stop`` around its expression (``stop`` at the
    newline, comment or closing brace that ends it, trailing blanks excluded), the 1-based
    ``line`` of its name."""

    name: str
    start: int
    expr_start: int
    stop: int
    line: int


def body_items(text: str, block: TopBlock) -> list[BodyArgument | TopBlock] | None:
    """The arguments and nested blocks of ``block``'s body, in order (nested blocks as
    :class:`TopBlock` values: their own bodies are not looked into), or None when the body
    is not a clean sequence of them (Unicode names, a comment inside an argument's line,
    an argument without a value or followed by more on its line...): the caller then parses
    the block, which reports what is wrong.

    An argument's expression ends at the first newline, ``#``/``//`` comment or unmatched
    ``}`` outside brackets, parentheses, braces, quoted templates and heredocs (hclsyntax:
    newlines inside those are not significant)."""
    try:
        return list(_body_items(text, block))
    except _Unfollowable:
        return None


def _body_items(text: str, block: TopBlock):
    pos, line, last = block.open, block.line, block.end - 1  # `last`: the block's closing "}"
    while True:
        gap_end = _end(_GAP.match(text, pos, last), pos)
        line += text.count("\n", pos, gap_end)
        pos = gap_end
        if pos == last:
            return
        name = _NAME.match(text, pos, last)
        if name is None:
            raise _Unfollowable()
        after = _end(_SPACES.match(text, name.end(), last), name.end())
        if text.startswith("=", after) and not text.startswith("==", after):
            expr_start = _end(_SPACES.match(text, after + 1, last), after + 1)
            stop = _expression_end(text, expr_start, last)
            while stop > expr_start and text[stop - 1] in " \t\r":
                stop -= 1
            if stop == expr_start:
                raise _Unfollowable()  # no value: the parser's error
            yield BodyArgument(name.group(), pos, expr_start, stop, line)
            end = stop
        else:
            header = _HEADER.match(text, pos, last)
            if header is None:
                raise _Unfollowable()
            labels = tuple(m.group(1) if m.group(1) is not None else m.group(2)
                           for m in _LABEL.finditer(header.group(2)))
            end = _close(text, header.end())
            if end > last:
                raise _Unfollowable()
            yield TopBlock(header.group(1), labels, pos, end, line, header.end())
        tail = _LINE_END.match(text, end, last + 1)
        if tail is None or (tail.group().endswith("}") and tail.end() - 1 != last):
            raise _Unfollowable()  # more on the same line: the parser's error
        line += text.count("\n", pos, end)
        pos = end


def _expression_end(text: str, pos: int, last: int) -> int:
    """Where the expression starting at ``pos`` ends (see :func:`body_items`)."""
    depth = 0
    while True:
        m = _EXPR.search(text, pos, last + 1)
        if m is None:
            raise _Unfollowable()
        tok = m.group()
        if tok == "\n" or tok in ("#", "//"):
            if depth == 0:
                return m.start()
            if tok == "\n":
                pos = m.end()
            else:
                nl = text.find("\n", m.end(), last)
                if nl < 0:
                    raise _Unfollowable()
                pos = nl
        elif tok in "([{":
            depth += 1
            pos = m.end()
        elif tok in ")]}":
            if depth == 0:
                if tok == "}" and m.start() == last:
                    return m.start()  # a one-line block: `{ a = 1 }`
                raise _Unfollowable()
            depth -= 1
            pos = m.end()
        elif tok == '"':
            pos = _quoted(text, m.end())
        elif tok == "/*":
            if depth == 0:
                raise _Unfollowable()  # a comment inside the line: left to the parser
            end = text.find("*/", m.end(), last)
            if end < 0:
                raise _Unfollowable()
            pos = end + 2
        else:  # "<<"
            h = _HEREDOC_START.match(text, m.start())
            if h is None:
                raise _Unfollowable()
            pos = _heredoc(text, h.end(), h.group(2))
        if pos > last:
            raise _Unfollowable()
