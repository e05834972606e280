"""The tree walker: python-hcl2's Lark tree (which carries positions) read into
:class:`~.body.Body`, :class:`~.body.Block` and :class:`~.body.Attribute` values with
1-based lines and character offsets, and literal expressions evaluated (python-hcl2 8.x gives
no line numbers through its dict API, python-hcl2 issue #291). The only module of the
reader that imports the parser library: it is imported when something must be parsed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from lark import Token, Tree
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
)

from ...addrs.redact import redact
from ...errors import ConfigurationError, SourceRange, TofuSolveError
from . import grammar
from .body import Attribute, Block, Body, Expr, NotLiteral


@dataclass(frozen=True)
class TreeExpr(Expr):
    """An expression with a parse tree, evaluated by the walker below."""

    def literal(self) -> Any:
        return _literal(self.tree, self)

    def traversal(self) -> tuple[str, ...] | None:
        return _traversal(self.tree)

    def template_parts(self) -> list[str | tuple[str, ...]] | None:
        return template_parts(self)

    def object_items(self) -> dict[str, Expr] | None:
        return object_items(self)


def template_parts(expr: Expr) -> list[str | tuple[str, ...]] | None:
    """:meth:`.body.Expr.template_parts` of an expression with a parse tree."""
    t = _unwrap(expr.tree)
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


def object_items(expr: Expr) -> dict[str, Expr] | None:
    """:meth:`.body.Expr.object_items` of an expression with a parse tree."""
    t = _unwrap(expr.tree)
    if not (isinstance(t, Tree) and t.data == "object"):
        return None
    out: dict[str, Expr] = {}
    for elem in t.children:
        if not (isinstance(elem, Tree) and elem.data == "object_elem"):
            continue
        ek = [c for c in elem.children if isinstance(c, Tree)]
        key_t, val_t = ek[0], ek[-1]
        try:
            key = _object_key(key_t, expr)
        except NotLiteral:
            return None
        text = expr.text  # element text is not needed by callers; keep the whole
        out[str(key)] = TreeExpr(val_t, text, val_t.meta.line if not val_t.meta.empty else expr.line)
    return out


def parse(text: str, filename: str, error: type[TofuSolveError] = ConfigurationError) -> Body:
    """Parse HCL native syntax.

    Raises:
        ``error`` (ConfigurationError by default): the text is not valid HCL; the message
            names ``filename`` and the line python-hcl2 stopped at.
    """
    try:
        tree = grammar.lalr_parser().parse(text + "\n")  # the newline: python-hcl2's workaround for lark#237
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
        split = _quoted_newline_line(text)
        if split is not None and split <= line:  # hclsyntax's token check: a quoted string split over lines
            raise error("Invalid multi-line string",
                        "Quoted strings may not be split over multiple lines. To produce a multi-line string, either "
                        'use the \\n escape to represent a newline character or use the "heredoc" multi-line template '
                        "syntax.", SourceRange(filename, split, "", _line_text(text, split))) from None
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


def _outside_comments(text: str) -> Iterator[tuple[str, int, int]]:
    """What a scan of HCL native syntax sees outside comments and heredocs: ``("char", i,
    line)`` for each character of code, and ``("string", line, split)`` for each quoted
    string (``split``: the line where a newline ends it before its closing quote, outside
    ``${ }`` and ``%{ }``, where newlines are allowed; 0 when none does)."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "#" or text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            line += text.count("\n", i, n if j < 0 else j)
            i = n if j < 0 else j + 2
            continue
        if text.startswith("<<", i):
            m = re.match(r"<<-?([A-Za-z_][A-Za-z0-9_-]*)\r?\n", text[i:])
            if m:
                end = re.search(rf"^\s*{re.escape(m.group(1))}\s*$", text[i + m.end():], re.M)
                stop = n if end is None else i + m.end() + end.end()
                line += text.count("\n", i, stop)
                i = stop
                continue
        if c == '"':
            start, split, depth = line, 0, 0  # inside ${ }: newlines allowed, quotes nest
            i += 1
            while i < n and (text[i] != '"' or depth):
                if text[i] == "\\":
                    i += 1
                elif text.startswith("${", i) or text.startswith("%{", i):
                    depth += 1
                    i += 1
                elif text[i] == "}" and depth:
                    depth -= 1
                elif text[i] == "\n":
                    split = split or (line if not depth else 0)
                    line += 1
                i += 1
            yield "string", start, split
            i += 1
            continue
        yield "char", i, line
        if c == "\n":
            line += 1
        i += 1


def _quoted_newline_line(text: str) -> int | None:
    """The line of the first quoted string that a newline ends before its closing quote
    (outside ``${ }``, comments and heredocs), which hclsyntax reports as "Invalid
    multi-line string" at that line (``hclsyntax/token.go``, ``TokenQuotedNewline``); None
    when there is none."""
    return next((split for kind, _, split in _outside_comments(text) if kind == "string" and split), None)


def _unclosed_brace_line(text: str) -> int | None:
    """The line of the innermost ``{`` left open at the end of ``text`` (strings, comments
    and heredocs skipped), or None when every brace is closed."""
    stack: list[int] = []
    for kind, i, line in _outside_comments(text):
        if kind != "char":
            continue
        if text[i] == "{":
            stack.append(line)
        elif text[i] == "}" and stack:
            stack.pop()
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
            items.append(Attribute(name, TreeExpr(expr_tree, etext, expr_tree.meta.line if not expr_tree.meta.empty
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
