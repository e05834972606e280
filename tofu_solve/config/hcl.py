"""A thin reading layer over python-hcl2's parse tree.

python-hcl2 8.x gives no line numbers through its dict API (python-hcl2 issue #291), so
tofu-solve reads the Lark tree it produces (``hcl2.parses_to_tree``), which carries
positions, and evaluates literal expressions itself. The parser stays python-hcl2's; this
module only walks its output.

Shapes: :func:`parse` returns a :class:`Body` of :class:`Block` and :class:`Attribute`
items, each with a 1-based ``line`` and character offsets into the source text.
"""

from __future__ import annotations

import functools
import importlib.metadata
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import lark
from hcl2.parser import parser as hcl2_parser
from hcl2.postlexer import PostLexer
from lark import Lark, Token, Tree
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
)

from ..addrs.redact import redact
from ..errors import ConfigurationError, SourceRange, TofuSolveError
from .scan import BodyArgument, TopBlock, body_items, top_level_blocks


class NotLiteral(Exception):
    """The expression is not a constant: it refers to something or calls a function."""

    def __init__(self, expr: Expr):
        self.expr = expr
        super().__init__(expr.text)


@dataclass(frozen=True)
class Expr:
    """An expression as written: its tree, text and line."""

    tree: Any = field(repr=False)
    text: str
    line: int

    def literal(self) -> Any:
        """The constant value (str, int, float, bool, None, list, dict).

        Raises:
            NotLiteral: the expression needs evaluation (references, templates with
                interpolation, function calls...).
        """
        return _literal(self.tree, self)

    def traversal(self) -> tuple[str, ...] | None:
        """For a plain reference like ``var.region`` or ``local.x.y``: its names;
        otherwise None."""
        return _traversal(self.tree)

    def template_parts(self) -> list[str | tuple[str, ...]] | None:
        """For a quoted string template whose interpolations are plain references
        (``"${var.a}-x"``): literal text and reference parts in order; otherwise None."""
        t = _unwrap(self.tree)
        if not (isinstance(t, Tree) and t.data == "string"):
            return None
        out: list[str | tuple[str, ...]] = []
        for part in t.children:
            if not (isinstance(part, Tree) and part.data == "string_part"):
                continue
            for c in part.children:
                if isinstance(c, Token):
                    out.append(_unescape(str(c)))
                    continue
                inner = [k for k in c.children if isinstance(k, Tree) and k.data != "new_line_or_comment"]
                ref = _traversal(inner[0]) if c.data == "interpolation" and len(inner) == 1 else None
                if ref is None:
                    return None
                out.append(ref)
        return out

    def object_items(self) -> dict[str, Expr] | None:
        """For an object constructor ``{ a = x, "b" = y }``: each key's expression;
        otherwise None."""
        t = _unwrap(self.tree)
        if not (isinstance(t, Tree) and t.data == "object"):
            return None
        out: dict[str, Expr] = {}
        for elem in t.children:
            if not (isinstance(elem, Tree) and elem.data == "object_elem"):
                continue
            ek = [c for c in elem.children if isinstance(c, Tree)]
            key_t, val_t = ek[0], ek[-1]
            try:
                key = _object_key(key_t, self)
            except NotLiteral:
                return None
            text = self.text  # element text is not needed by callers; keep the whole
            out[str(key)] = Expr(val_t, text, val_t.meta.line if not val_t.meta.empty else self.line)
        return out


@dataclass(frozen=True)
class ValueExpr(Expr):
    """An expression read without a parse tree (:func:`parse_blocks`): a quoted string with
    no escape or template sequence, a list of such strings, a whole number, ``true``,
    ``false`` or ``null``; ``value`` is what it means."""

    value: Any = None

    def literal(self) -> Any:
        return self.value

    def traversal(self) -> tuple[str, ...] | None:
        return None

    def template_parts(self) -> list[str | tuple[str, ...]] | None:
        return [self.value] if isinstance(self.value, str) else None

    def object_items(self) -> dict[str, Expr] | None:
        return None


@dataclass(frozen=True)
class ObjectValueExpr(ValueExpr):
    """An object constructor read without a parse tree (:func:`parse_blocks`): one
    ``key = value`` per line, each key a plain name or string and each value as
    :class:`ValueExpr` reads it (``required_providers`` entries as they are written);
    ``items`` holds each key's expression, with its own line."""

    items: dict = field(default_factory=dict)

    def object_items(self) -> dict[str, Expr] | None:
        return dict(self.items)


@dataclass
class Attribute:
    name: str
    expr: Expr
    line: int


@dataclass
class Block:
    type: str
    labels: list[str]
    body: Body
    line: int
    start: int
    end: int


@dataclass
class Body:
    items: list[Block | Attribute]

    @property
    def blocks(self) -> list[Block]:
        return [i for i in self.items if isinstance(i, Block)]

    @property
    def attributes(self) -> list[Attribute]:
        return [i for i in self.items if isinstance(i, Attribute)]

    def blocks_of(self, type_: str) -> list[Block]:
        return [b for b in self.blocks if b.type == type_]

    def attribute(self, name: str) -> Attribute | None:
        for a in self.attributes:
            if a.name == name:
                return a
        return None


_ASCII_NAME = "NAME : /[a-zA-Z_][a-zA-Z0-9_-]*/"
# HCL's identifiers are Unicode: ID_Start (or "_") then ID_Continue or "-" (hclsyntax
# scan_tokens.rl; OpenTofu accepts `locals { π = 3.14 }`). python-hcl2's grammar allows ASCII
# only, so tofu-solve builds the same LALR parser from the same grammar with that one
# terminal widened: [^\W\d] is a Unicode letter or "_", \w a Unicode letter, digit or "_".
_UNICODE_NAME = r"NAME : /(?:[^\W\d]|_)[\w-]*/"
# Newlines and comments inside a template's ``${ }`` are not significant in HCL (hclsyntax
# parseTemplateInterp reads the expression with newlines ignored; OpenTofu reads
# ``"${\n  var.x\n}"``, as 65 of 3,476 real module versions write it, e.g. cloudposse/
# dynamic-subnets 0.2.3 outputs.tf); python-hcl2's grammar refuses them, so tofu-solve's allows
# them on either side of the expression, as its other rules do around operators.
_PLAIN_INTERPOLATION = "interpolation: INTERP_START expression RBRACE"
_SPACED_INTERPOLATION = "interpolation: INTERP_START new_line_or_comment? expression new_line_or_comment? RBRACE"


_grammar_cache: list[Path | None] = [None]


def use_cache_dir(directory: Path | None) -> None:
    """Keep the compiled grammar (Lark's LALR tables, 1.4 s to build, 0.09 s to load) in
    ``directory``, the tofu-solve cache (``Settings.cache_dir``), set once by the command line
    at the edge. Without it, nothing is written anywhere and each process builds the grammar
    afresh (never Lark's default, a file in the system's temporary directory)."""
    _grammar_cache[0] = directory


def _cache_file() -> str | None:
    directory = _grammar_cache[0]
    if directory is None:
        return None
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # an unwritable cache: build in memory, as without one
    versions = (f"lark{lark.__version__}-hcl2{importlib.metadata.version('python-hcl2')}"
                f"-py{sys.version_info[0]}{sys.version_info[1]}")
    return str(directory / f"hcl2-tofu-solve-{versions}.lark")


_built: list[Lark] = []
_build_lock = threading.Lock()


def _parser() -> Lark:
    """The parser, built once per process (the grammar cache file is read or written only
    then: every later parse in the process, whatever the cache directory, reuses it)."""
    if not _built:
        with _build_lock:
            if not _built:
                _built.append(_build(_cache_file()))
    return _built[0]


def _build(cache_file: str | None) -> Lark:
    """python-hcl2's parser (its grammar, LALR, positions, post-lexer) with Unicode
    identifiers and newlines inside ``${ }``; its analysis kept in ``cache_file`` when given
    (Lark checks the file against the grammar and options before using it)."""
    grammar = resources.files("hcl2").joinpath("hcl2.lark").read_text(encoding="utf-8")
    if _ASCII_NAME not in grammar or _PLAIN_INTERPOLATION not in grammar:
        return hcl2_parser()  # a python-hcl2 whose grammar changed: use it as it is
    grammar = grammar.replace(_ASCII_NAME, _UNICODE_NAME).replace(_PLAIN_INTERPOLATION, _SPACED_INTERPOLATION)
    return Lark(grammar, parser="lalr", propagate_positions=True, postlex=PostLexer(), cache=cache_file or False)


def parse(text: str, filename: str, error: type[TofuSolveError] = ConfigurationError) -> Body:
    """Parse HCL native syntax.

    Raises:
        ``error`` (ConfigurationError by default): the text is not valid HCL; the message
            names ``filename`` and the line python-hcl2 stopped at.
    """
    try:
        tree = _parser().parse(text + "\n")  # the newline: python-hcl2's workaround for lark#237
    except UnexpectedInput as e:
        line: int = getattr(e, "line", None) or 0
        at_end = isinstance(e, UnexpectedEOF) or line < 1 or line > _last_line(text)
        if at_end or not _line_text(text, line):
            open_at = _unclosed_brace_line(text)
            line = open_at or min(line or _last_line(text), _last_line(text))
            # hclsyntax reports the block whose brace is never closed, at that brace
            raise error("Unclosed configuration block",
                        "There is no closing brace for this block before the end of the file. This may be caused "
                        f"by incorrect brace nesting elsewhere in {filename}.",
                        SourceRange(filename, line, "", _line_text(text, line))) from None
        what = "Invalid character" if isinstance(e, UnexpectedCharacters) else "Invalid syntax"
        near = _line_text(text, line)
        raise error(what, f"{filename} is not valid HCL: unexpected input near {near!r}.",
                    SourceRange(filename, line)) from None
    except LarkError as e:  # pragma: no cover - other parser failures
        raise error("Invalid syntax", f"{filename} is not valid HCL: {e}",
                    SourceRange(filename, 1)) from None
    try:
        return _body(_tree(tree.children[0]), text)
    except _TemplateInLabel as e:  # hclsyntax parseQuotedStringLiteral
        raise error("Invalid string literal",
                    'Template sequences are not allowed in this string. To include a literal "$", double it (as '
                    '"$$") to escape it.', SourceRange(filename, e.line, "", _line_text(text, e.line))) from None


def _unclosed_brace_line(text: str) -> int | None:
    """The line of the innermost ``{`` left open at the end of ``text`` (strings, comments
    and heredocs skipped), or None when every brace is closed."""
    stack: list[int] = []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c == "#" or text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            line += text.count("\n", i, n if j < 0 else j)
            i = n if j < 0 else j + 2
            continue
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                elif text[i] == "\n":
                    line += 1
                i += 1
        elif text.startswith("<<", i):
            m = re.match(r"<<-?([A-Za-z_][A-Za-z0-9_-]*)\r?\n", text[i:])
            if m:
                end = re.search(rf"^\s*{re.escape(m.group(1))}\s*$", text[i + m.end():], re.M)
                stop = n if end is None else i + m.end() + end.end()
                line += text.count("\n", i, stop)
                i = stop
                continue
        elif c == "{":
            stack.append(line)
        elif c == "}" and stack:
            stack.pop()
        i += 1
    return stack[-1] if stack else None


def _last_line(text: str) -> int:
    return max(1, text.count("\n") + (0 if text.endswith("\n") else 1))


def _line_text(text: str, line: int) -> str:
    lines = text.splitlines()
    return redact(lines[line - 1].strip()) if 0 < line <= len(lines) else ""  # output: no credential


def _body(tree: Tree, text: str) -> Body:
    items: list[Block | Attribute] = []
    for child in tree.children:
        if not isinstance(child, Tree):
            continue
        if child.data == "block":
            parts = [c for c in child.children if isinstance(c, Tree)]
            ident = _ident(parts[0])
            labels = []
            inner = None
            for p in parts[1:]:
                if p.data == "string":
                    labels.append(_string_value(p, None))
                elif p.data == "identifier":
                    labels.append(_ident(p))
                elif p.data == "body":
                    inner = p
            body = _body(inner, text) if inner is not None else Body([])
            items.append(Block(ident, labels, body, child.meta.line, child.meta.start_pos, child.meta.end_pos))
        elif child.data == "attribute":
            parts = [c for c in child.children if isinstance(c, Tree)]
            name = _ident(parts[0])
            expr_tree = parts[-1]
            etext = text[expr_tree.meta.start_pos:_end_pos(expr_tree)].rstrip() if not expr_tree.meta.empty else ""
            items.append(Attribute(name, Expr(expr_tree, etext, expr_tree.meta.line if not expr_tree.meta.empty
                                               else child.meta.line), child.meta.line))
    return Body(items)


def _end_pos(t: Tree) -> int:
    """Where the expression ``t`` ends in the text: python-hcl2's trees of some operators
    run on over the newline, comments and the next line's indentation that follow them; the
    expression as written stops before those."""
    while True:
        kids = [c for c in t.children if not (isinstance(c, Tree) and c.data == "new_line_or_comment")]
        last = kids[-1] if kids else None
        if isinstance(last, Token) and last.end_pos is not None:
            return last.end_pos
        if not isinstance(last, Tree) or last.meta.empty:
            return t.meta.end_pos
        t = last


def _ident(t: Tree) -> str:
    return "".join(str(tok) for tok in t.scan_values(lambda v: isinstance(v, Token)))


_ESCAPE_RE = re.compile(r'\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))|\$\$\{|%%\{', re.S)
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def _unescape(s: str) -> str:
    def rep(m: re.Match) -> str:
        whole = m.group(0)
        if whole == "$${":
            return "${"
        if whole == "%%{":
            return "%{"
        if m.group(1):
            return chr(int(m.group(1), 16))
        if m.group(2):
            return chr(int(m.group(2), 16))
        return _SIMPLE_ESCAPES.get(m.group(3), "\\" + m.group(3))
    return _ESCAPE_RE.sub(rep, s)


class _TemplateInLabel(Exception):
    """A block label with ``${...}`` in it (labels must be literal strings)."""

    def __init__(self, line: int):
        self.line = line
        super().__init__(line)


def _string_value(t: Tree, expr: Expr | None) -> str:
    out = []
    for part in t.children:
        if isinstance(part, Token):
            continue  # quotes
        if isinstance(part, Tree) and part.data == "string_part":
            for c in part.children:
                if isinstance(c, Token):
                    out.append(_unescape(str(c)))
                else:
                    if expr is None:
                        raise _TemplateInLabel(getattr(getattr(t, "meta", None), "line", 1))
                    raise NotLiteral(expr)
    return "".join(out)


def _literal(t: Any, expr: Expr) -> Any:
    if isinstance(t, Token):
        raise NotLiteral(expr)
    d = t.data
    kids = [c for c in t.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]
    if d in ("expr_term", "expression") and len(kids) == 1:
        return _literal(kids[0], expr)
    if d == "string":
        return _string_value(t, expr)
    if d == "literal_value":
        v = str(t.children[0])
        return {"null": None, "true": True, "false": False}.get(v, v)
    if d == "int_lit":
        return int(str(t.children[0]))
    if d == "float_lit":
        return float(str(t.children[0]))
    if d == "tuple":
        return [_literal(k, expr) for k in kids]
    if d == "object":
        out = {}
        for elem in kids:
            ek = [c for c in elem.children if isinstance(c, Tree)]
            key_t, val_t = ek[0], ek[-1]
            out[str(_object_key(key_t, expr))] = _literal(val_t, expr)
        return out
    if d == "identifier":
        raise NotLiteral(expr)
    raise NotLiteral(expr)


def _unwrap(t: Any) -> Any:
    while isinstance(t, Tree) and t.data in ("expr_term", "expression"):
        kids = [c for c in t.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]
        if len(kids) != 1:
            return t
        t = kids[0]
    return t


def _object_key(key_t: Tree, expr: Expr) -> Any:
    key_kids = [c for c in key_t.children if isinstance(c, Tree)]
    k = _unwrap(key_kids[0] if key_kids else key_t)
    if isinstance(k, Tree) and k.data == "identifier":
        return _ident(k)
    return _literal(k, expr)


def _traversal(t: Any) -> tuple[str, ...] | None:
    if not isinstance(t, Tree):
        return None
    kids = [c for c in t.children if isinstance(c, Tree)]
    if t.data in ("expr_term", "expression") and len(kids) == 1:
        return _traversal(kids[0])
    if t.data == "identifier":
        return (_ident(t),)
    if t.data == "get_attr_expr_term" and len(kids) == 2:
        head = _traversal(kids[0])
        attr = [c for c in kids[1].children if isinstance(c, Tree) and c.data == "identifier"]
        if head is None or not attr:
            return None
        return head + (_ident(attr[0]),)
    return None


# --------------------------------------------------------------------------- reading only what is needed


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
_OBJECT_ITEM = re.compile(r'[ \t]*(?:([A-Za-z_][A-Za-z0-9_-]*)|"([^"\\$%\n]*)")[ \t]*[=:][ \t]*'
                          r'(?:"([^"\\$%\n]*)"|(null|true|false)|([0-9]+))[ \t]*,?[ \t]*\r?\n')
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
    repeated key); else None."""
    m = _OBJECT_OPEN.match(text, start, stop)
    if m is None:
        return None
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
        if m is None:
            return None
        name, quoted, string, constant, number = m.groups()
        key = name if name is not None else quoted
        if key in value:
            return None
        value[key] = _plain_value(string, constant, number)
        vstart = m.start(3) - 1 if string is not None else m.start(4) if constant else m.start(5)
        vend = m.end(3) + 1 if string is not None else m.end(4) if constant else m.end(5)
        items[key] = ValueExpr(None, text[vstart:vend], at, value[key])
        pos, at = m.end(), at + 1


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
            self._whole = parse(self.whole_text, self.filename, self.error)
        return self._whole

    def chunk(self, start: int, stop: int, line: int) -> list[Block | Attribute] | None:
        """The items of ``text[start:stop]`` parsed on their own, with the file's positions;
        None when that slice does not parse."""
        try:
            tree = _parser().parse(self.text[start:stop] + "\n")
            body = _tree(tree.children[0])
            _shift(body, line - 1, start)
            return _body(body, self.text).items
        except (LarkError, _TemplateInLabel):
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
        return parse(text, filename, error)
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
        return parse(text, filename, error)
    reader = _Reader(text, filename, error)
    items: list[Block | Attribute] = []
    for top in tops:
        if not wanted(top, text):
            items.append(Block(top.type, list(top.labels), Body([]), top.line, top.start, top.end))
            continue
        items.append(Block(top.type, list(top.labels), LazyBody(functools.partial(reader.body, top)), top.line,
                           top.start, top.end))
    return Body(items)


def _tree(node: Tree | Token) -> Tree:
    """A parse tree's child that the grammar makes a tree (a body), never a token."""
    if not isinstance(node, Tree):
        raise LarkError(f"expected a body, found {node!r}")
    return node


def _shift(tree: Tree, lines: int, chars: int) -> None:
    """Move every position in ``tree`` (parsed from a slice of the file) by ``lines`` lines
    and ``chars`` characters, to where the slice stands in the file."""
    stack = [tree]
    while stack:
        t = stack.pop()
        meta = t.meta
        if not meta.empty:
            meta.line += lines
            meta.end_line += lines
            meta.start_pos += chars
            meta.end_pos += chars
        for c in t.children:
            if isinstance(c, Tree):
                stack.append(c)
            elif isinstance(c, Token) and c.line is not None:
                c.line += lines
                c.end_line = (c.end_line or 0) + lines
                c.start_pos = (c.start_pos or 0) + chars
                c.end_pos = (c.end_pos or 0) + chars
