"""Reading only what is needed: a file's top-level blocks found by a scan (:mod:`..scan`),
each body parsed when first read, plain values read without the parser."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from ..._lazy import load
from ...errors import ConfigurationError, SourceRange, TofuSolveError
from ..scan import BodyArgument, TopBlock, body_items, top_level_blocks
from .body import Attribute, Block, Body, Expr, ObjectValueExpr, ValueExpr


def _parse(text: str, filename: str, error: type[TofuSolveError]) -> Body:
    """The whole text parsed (:func:`.walker.parse`: the parser library is imported now)."""
    load("tofu_solve.config.hcl.walker")
    from .walker import parse

    return parse(text, filename, error)


class LazyBody(Body):
    """The body of a block parsed only when it is first read (:func:`parse_blocks` with
    ``lazy``); ``loaded`` says whether that has happened. A body that does not parse raises
    the whole file's error then, as :func:`parse` would have."""

    def __init__(self, load: Callable[[], Body]):
        self._load = load
        self._items: list | None = None

    @property
    def loaded(self) -> bool:
        return self._items is not None

    @property
    def items(self) -> list:  # type: ignore[override]
        if self._items is None:
            self._items = self._load().items
        return self._items


_CONSTANTS = {"null": None, "true": True, "false": False}


class LazyAttribute(Attribute):
    """An argument found by the body scan (:func:`tofu_solve.config.scan.body_items`): its
    name and line are known; its expression is parsed when ``expr`` is first read (a plain
    string, number, ``true``, ``false`` or ``null`` is read without a parse tree). An
    expression that does not parse raises the whole file's error then, as :func:`parse`
    would have."""

    def __init__(self, name: str, line: int, load: Callable[[], Expr]):
        self.name, self.line = name, line
        self._load = load
        self._expr: Expr | None = None

    @property
    def expr(self) -> Expr:  # type: ignore[override]
        if self._expr is None:
            self._expr = self._load()
        return self._expr

    @property
    def loaded(self) -> bool:
        return self._expr is not None


_PLAIN_VALUE = re.compile(r'"([^"\\$%\n]*)"|(null|true|false)|([0-9]+)')
_OBJECT_OPEN = re.compile(r"\{[ \t]*\r?\n")
# One plain ``key = value`` item: groups name or quoted key; string, keyword or number value.
_ITEM = (r'[ \t]*(?:([A-Za-z_][A-Za-z0-9_-]*)|"([^"\\$%\n]*)")[ \t]*[=:][ \t]*'
         r'(?:"([^"\\$%\n]*)"|(null|true|false)|([0-9]+))[ \t]*')
_OBJECT_ITEM = re.compile(_ITEM + r",?[ \t]*\r?\n")  # one per line
_ONE_LINE_ITEM = re.compile(_ITEM)  # on one line (``{ source = "hashicorp/aws", version = "~> 5.0" }``)
_BLANK_LINE = re.compile(r"[ \t]*\r?\n")
# A list of plain strings on one line (``["a", "b"]``, ``[]``), or one per line as tofu writes
# a lock file's ``hashes``.
_PLAIN_STRING = r'"[^"\\$%\n]*"'
_ONE_LINE_LIST = re.compile(rf'\[[ \t]*(?:{_PLAIN_STRING}(?:[ \t]*,[ \t]*{_PLAIN_STRING})*[ \t]*,?[ \t]*)?\]')
_LIST_OPEN = re.compile(r"\[[ \t]*\r?\n")
_LIST_LINE = re.compile(rf'[ \t]*({_PLAIN_STRING})[ \t]*,?[ \t]*\r?\n')
_LIST_CLOSE = re.compile(r"[ \t]*\]")
_STRING_IN_LIST = re.compile(_PLAIN_STRING)


def _plain_list(text: str, start: int, stop: int, line: int) -> ValueExpr | None:
    """The list ``text[start:stop]`` read without a parse tree when it holds only plain
    strings, on one line or one per line; else None."""
    if _ONE_LINE_LIST.fullmatch(text, start, stop):
        values = [m.group()[1:-1] for m in _STRING_IN_LIST.finditer(text, start, stop)]
        return ValueExpr(None, text[start:stop], line, values)
    opened = _LIST_OPEN.match(text, start, stop)
    if opened is None:
        return None
    pos, values = opened.end(), []
    while True:
        close = _LIST_CLOSE.match(text, pos, stop)
        if close is not None and close.end() == stop:
            return ValueExpr(None, text[start:stop], line, values)
        item = _LIST_LINE.match(text, pos, stop)
        if item is None:
            return None
        values.append(item.group(1)[1:-1])
        pos = item.end()
_OBJECT_CLOSE = re.compile(r"[ \t]*\}")


def _plain_value(string: str | None, constant: str | None, number: str | None):
    return string if string is not None else _CONSTANTS[constant] if constant else int(number or "0")


def _plain_object(text: str, start: int, stop: int, line: int) -> ObjectValueExpr | None:
    """The object constructor ``text[start:stop]`` read without a parse tree, when it is
    written one plain ``key = value`` per line (blank lines allowed, no comments, no
    repeated key), or on one line (:func:`_one_line_object`); else None."""
    m = _OBJECT_OPEN.match(text, start, stop)
    if m is None:
        return _one_line_object(text, start, stop, line)
    pos, at = m.end(), line + 1
    value: dict = {}
    items: dict = {}
    while True:
        close = _OBJECT_CLOSE.match(text, pos, stop)
        if close is not None and close.end() == stop:
            return ObjectValueExpr(None, text[start:stop], line, value, items)
        blank = _BLANK_LINE.match(text, pos, stop)
        if blank is not None:
            pos, at = blank.end(), at + 1
            continue
        m = _OBJECT_ITEM.match(text, pos, stop)
        if m is None or not _take_item(text, m, at, value, items):
            return None
        pos, at = m.end(), at + 1


def _take_item(text: str, m: re.Match, line: int, value: dict, items: dict) -> bool:
    """Add the item ``m`` (of :data:`_ITEM`) at ``line`` to ``value`` and ``items``; False for
    a key already there (a repeated key is the parser's error to report)."""
    name, quoted, string, constant, number = m.groups()
    key = name if name is not None else quoted
    if key in value:
        return False
    value[key] = _plain_value(string, constant, number)
    vstart = m.start(3) - 1 if string is not None else m.start(4) if constant else m.start(5)
    vend = m.end(3) + 1 if string is not None else m.end(4) if constant else m.end(5)
    items[key] = ValueExpr(None, text[vstart:vend], line, value[key])
    return True


def _one_line_object(text: str, start: int, stop: int, line: int) -> ObjectValueExpr | None:
    """The object constructor ``text[start:stop]`` read without a parse tree when it is
    written on one line, plain ``key = value`` items separated by commas (at least one, no
    comma after the last, no repeated key); else None."""
    if start >= stop or text[start] != "{" or "\n" in text[start:stop]:
        return None
    pos = start + 1
    value: dict = {}
    items: dict = {}
    while True:
        m = _ONE_LINE_ITEM.match(text, pos, stop)
        if m is None or not _take_item(text, m, line, value, items):
            return None
        pos = m.end()
        close = _OBJECT_CLOSE.match(text, pos, stop)
        if close is not None and close.end() == stop:
            return ObjectValueExpr(None, text[start:stop], line, value, items)
        if pos >= stop or text[pos] != ",":
            return None
        pos += 1


class _Reader:
    """Reads the blocks of one file on demand (:func:`parse_blocks`): bodies by the scan,
    expressions by the parser, the file's own error when a part does not parse."""

    def __init__(self, text: str, filename: str, error: type[TofuSolveError], whole_text: str | None = None):
        self.text, self.filename, self.error = text, filename, error
        self.whole_text = text if whole_text is None else whole_text  # the file as written
        self._whole: Body | None = None

    def whole(self) -> Body:
        """The whole file parsed (raises its error, as :func:`parse` does)."""
        if self._whole is None:
            self._whole = _parse(self.whole_text, self.filename, self.error)
        return self._whole

    def chunk(self, start: int, stop: int, line: int) -> list[Block | Attribute] | None:
        """The items of ``text[start:stop]`` parsed on their own, with the file's positions;
        None when that slice does not parse."""
        load("lark.exceptions")
        from lark.exceptions import LarkError

        load("tofu_solve.config.hcl.grammar")
        load("tofu_solve.config.hcl.walker")
        from . import grammar, walker

        try:
            parsed = grammar.lalr_parser().parse(self.text[start:stop] + "\n")
            body = walker._tree(parsed.children[0])
            walker._shift(body, line - 1, start)
            return walker._body(body, self.text).items
        except (LarkError, walker._TemplateInLabel):
            return None

    def body(self, top: TopBlock) -> Body:
        """``top``'s body: arguments parsed when read, nested blocks scanned when read; the
        block parsed whole when the scan cannot follow it."""
        found = body_items(self.text, top)
        if found is None:
            parsed = self.chunk(top.start, top.end, top.line)
            if parsed is not None and len(parsed) == 1 and isinstance(parsed[0], Block):
                return parsed[0].body
            return self._in_whole_block(top).body
        return self.items(found)

    def items(self, found: list) -> Body:
        """A body of the arguments and blocks :func:`body_items` found."""
        items: list[Block | Attribute] = []
        for item in found:
            if isinstance(item, BodyArgument):
                items.append(LazyAttribute(item.name, item.line, functools.partial(self.expression, item)))
            else:
                items.append(Block(item.type, list(item.labels), LazyBody(functools.partial(self.body, item)),
                                   item.line, item.start, item.end))
        return Body(items)

    def expression(self, arg: BodyArgument) -> Expr:
        text = self.text
        plain = _PLAIN_VALUE.fullmatch(text, arg.expr_start, arg.stop)
        if plain is not None:
            return ValueExpr(None, text[arg.expr_start:arg.stop], arg.line, _plain_value(*plain.groups()))
        if text.startswith("{", arg.expr_start):
            obj = _plain_object(text, arg.expr_start, arg.stop, arg.line)
            if obj is not None:
                return obj
        if text.startswith("[", arg.expr_start):
            listed = _plain_list(text, arg.expr_start, arg.stop, arg.line)
            if listed is not None:
                return listed
        parsed = self.chunk(arg.start, arg.stop, arg.line)
        if parsed is not None and len(parsed) == 1 and isinstance(parsed[0], Attribute):
            return parsed[0].expr
        return self._in_whole_attribute(arg).expr

    def _in_whole_block(self, top: TopBlock) -> Block:
        found = _find(self.whole(), lambda i: isinstance(i, Block) and i.start == top.start)
        if found is None:  # pragma: no cover - the scan and the parser disagree on valid text
            raise self.error("Invalid syntax", f"{self.filename} could not be read.",
                             SourceRange(self.filename, top.line))
        return found

    def _in_whole_attribute(self, arg: BodyArgument) -> Attribute:
        found = _find(self.whole(), lambda i: isinstance(i, Attribute) and i.name == arg.name and i.line == arg.line)
        if found is None:  # pragma: no cover - the scan and the parser disagree on valid text
            raise self.error("Invalid syntax", f"{self.filename} could not be read.",
                             SourceRange(self.filename, arg.line))
        return found


def _find(body: Body, match: Callable[[Any], bool]):
    for item in body.items:
        if match(item):
            return item
        if isinstance(item, Block):
            inner = _find(item.body, match)
            if inner is not None:
                return inner
    return None


def force(body: Body) -> None:
    """Parse every argument of ``body`` and of its nested blocks now (what a whole parse of
    those blocks would check), so that a syntax error is raised here; lazily read blocks of
    :func:`parse_blocks` are left as they are."""
    for item in body.items:
        if isinstance(item, Block):
            force(item.body)
        else:
            item.expr  # noqa: B018 - reading it parses it


def parse_lazily(text: str, filename: str, error: type[TofuSolveError] = ConfigurationError) -> Body:
    """A whole file (top-level arguments and blocks, as a CLI configuration or a variables
    file holds them) read on demand, as :func:`parse_blocks` reads a block's body: arguments
    parsed when first read (plain values without a parse tree), nested blocks scanned when
    read. A file the scan cannot follow is parsed whole; :func:`force` reads everything, so
    that ``force(parse_lazily(text, name))`` reports exactly what :func:`parse` reports.

    Raises:
        ``error``: as :func:`parse`, when the text is parsed whole.
    """
    framed = text + "\n}"  # the file as the body of a block that ends after it
    found = body_items(framed, TopBlock("", (), 0, len(framed), 1, 0))
    if found is None:
        return _parse(text, filename, error)
    return _Reader(framed, filename, error, whole_text=text).items(found)


def parse_blocks(text: str, filename: str, wanted: Callable[[TopBlock, str], bool],
                 error: type[TofuSolveError] = ConfigurationError) -> Body:
    """The top-level blocks of ``text``, read on demand: the blocks ``wanted(block, text)``
    accepts have bodies whose arguments and nested blocks are found by the scan
    (:func:`tofu_solve.config.scan.body_items`) and whose expressions are parsed when first
    read (:class:`LazyAttribute`); the others are kept as blocks with their type, labels and
    line and an empty body, never parsed. Time is a linear scan plus the parse of what is
    read.

    When the text is not a clean sequence of blocks, the whole text is parsed as
    :func:`parse` does, so the error is reported with its file and line; a part that does not
    parse when read raises the same error then. A syntax error in what is never read is not
    seen (it is ``tofu``'s to report); :func:`force` reads a body whole. Plain values (strings
    without escapes or templates, whole numbers, keywords, lists of plain strings and objects
    of plain values as tofu writes them in lock files and ``required_providers``) are read
    without a parse tree, so a file of them never builds the parser.

    Raises:
        ``error``: as :func:`parse`.
    """
    tops = top_level_blocks(text)
    if tops is None:
        return _parse(text, filename, error)
    reader = _Reader(text, filename, error)
    items: list[Block | Attribute] = []
    for top in tops:
        if not wanted(top, text):
            items.append(Block(top.type, list(top.labels), Body([]), top.line, top.start, top.end))
            continue
        items.append(Block(top.type, list(top.labels), LazyBody(functools.partial(reader.body, top)), top.line,
                           top.start, top.end))
    return Body(items)
