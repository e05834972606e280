"""HCL 1, the syntax of the CLI configuration, read as OpenTofu and Terraform read it.

Both clients parse every CLI configuration file with HashiCorp's HCL 1 (``hcl.Parse`` in
OpenTofu's ``internal/command/cliconfig/cliconfig.go`` ``loadConfigFile``; Terraform's
likewise), which takes two syntaxes, chosen by the file's first non-blank character
(``{``: JSON, anything else: native):

* native: ``key = value`` and ``key "label" ... { body }`` items, quoted keys allowed
  (``dev_overrides { "hashicorp/null" = "/path" }``), heredocs, ``#``, ``//`` and
  ``/* */`` comments; values are strings, numbers, booleans, lists and objects, with no
  expressions;
* JSON: one object; an object or an array of objects as a value stands for blocks (HCL 1's
  JSON parser flattens them), so ``{"credentials": {"HOST": {"token": "..."}}}`` is the
  native ``credentials "HOST" { token = "..." }``.

The syntax itself is checked by libraries: native text by pyhcl's parser (``hcl.loads``),
JSON by :mod:`json`. pyhcl's parser gives plain dictionaries, which lose what OpenTofu's
decoder reads from HCL 1's syntax tree: the order of repeated blocks (``provider_installation``
methods are tried in the order written, ``filesystem_mirror`` twice with ``direct`` between)
and each item's line. So the tree is read again from pyhcl's own tokens (its lexer: strings,
heredocs, comments and numbers are its work), into :class:`ObjectList` of :class:`Item`, each
with its line; a JSON file's values come from :mod:`json` and only the lines from the tokens.

Known difference: pyhcl's lexer unescapes only ``\\"`` and ``\\\\`` in a native string (HCL 1
also reads ``\\n``, ``\\t`` and ``\\uXXXX``); such sequences are kept as written.

The CLI configuration holds credentials, so no error raised here quotes the file's text:
each names the file and a line, and what was wrong in words (issue #82 §1).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from .._lazy import load
from ..errors import ConfigurationError, SourceRange
from .hcl.body import Attribute, Block, Body, ObjectValueExpr, ValueExpr

MAX_BYTES = 1 << 20
"""A CLI configuration file larger than this (1 MiB) is refused before it is parsed."""


@dataclass(frozen=True)
class Item:
    """One object item of HCL 1's syntax tree (``hclast.ObjectItem``).

    Attributes:
        keys: the key and the labels, as written (``("credentials", "app.terraform.io")``).
        value: str, int, float, bool, None (JSON's ``null``), a list of values, or an
            :class:`ObjectList`.
        line: 1-based line of the first key.
        assign: written with ``=`` (native) or ``:`` (JSON); False for block syntax.
    """

    keys: tuple[str, ...]
    value: Any
    line: int
    assign: bool


@dataclass(frozen=True)
class ObjectList:
    """The items of a file or of an object, in the order written.

    Attributes:
        items: the items.
        json: the file was written in JSON syntax.
    """

    items: tuple[Item, ...]
    json: bool = False


class SyntaxMemo(Protocol):
    """Where the digests of native texts pyhcl's parser accepted are kept between runs
    (:func:`parse`): building pyhcl's parser costs about 0.1 s a process (its ply tables are
    not cached), which a warm ``init`` handing over to the client pays for nothing when the
    CLI configuration has not changed (issue #81 §6). A digest names the text and the pyhcl
    version, and only accepted texts are kept, so a remembered digest gives the parser's own
    answer; the text itself is never kept (it can hold credentials)."""

    def knows(self, digest: str) -> bool:
        """Whether a text with this digest was accepted before."""
        ...

    def remember(self, digest: str) -> None:
        """Keep this digest as accepted (never raises: a memo that cannot be written is none)."""
        ...


def accepted_digest(text: str) -> str:
    """The memo's name for native ``text`` as the installed pyhcl reads it: SHA-256 of
    pyhcl's version and the text (hex)."""
    load("hcl")
    import hcl as pyhcl_package

    pyhcl = getattr(pyhcl_package, "__version__", "unknown")
    return hashlib.sha256(f"pyhcl {pyhcl}\n".encode() + text.encode("utf-8", "surrogatepass")).hexdigest()


class _Pairs(list):
    """A JSON object as :func:`json.loads` gives it with ``object_pairs_hook``: its (key,
    value) pairs, in order, repeated keys kept (HCL 1's JSON reads every one of them)."""


def _syntax_error(filename: str, line: int | None, what: str) -> ConfigurationError:
    """The error for ``filename`` at ``line`` (cited with no source line: never the text)."""
    detail = f"{what[:1].upper()}{what[1:]}. The file's text is not shown: a CLI configuration can hold credentials."
    if not line:
        return ConfigurationError("Invalid CLI configuration syntax", f"In {filename}: {detail}")
    return ConfigurationError("Invalid CLI configuration syntax", detail, SourceRange(filename, line))


def _pyhcl_line(message: str) -> tuple[int | None, str]:
    """(line, what was wrong) from a pyhcl ``ValueError`` (``Line 2, column 43: unexpected
    EQUAL; expected ...``), keeping only the line and the token kind: the message can carry
    a character of the file (``Illegal character '@'``)."""
    import re

    m = re.match(r"Line (\d+)", message)
    line = int(m.group(1)) if m else None
    kind = re.search(r"unexpected ([A-Z_]+)", message)
    if kind:
        return line, f"unexpected {kind.group(1).lower().replace('_', ' ')}: this is not valid HCL 1 syntax"
    if "closing string quote" in message:
        return line, "a string is not closed"
    if "Unexpected end of file" in message:
        return line, "the file ends inside a block or a list"
    return line, "this is not valid HCL 1 syntax"


def _tokens(text: str) -> list:
    load("hcl.lexer")
    from hcl.lexer import Lexer

    lexer = Lexer()
    lexer.input(text)
    out = []
    while (t := lexer.token()) is not None:
        out.append(t)
    return out


class _Reader:
    """The syntax tree from pyhcl's tokens of a text its parser (or :mod:`json`) already
    accepted; ``values`` is the JSON document for a JSON file (values come from it)."""

    def __init__(self, tokens: list, filename: str):
        self.t = tokens
        self.i = 0
        self.filename = filename

    def peek(self, k: int = 0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else None

    def take(self, *kinds: str):
        tok = self.peek()
        if tok is None or (kinds and tok.type not in kinds):
            raise _syntax_error(self.filename, tok.lineno if tok is not None else None,
                                f"expected {' or '.join(k.lower() for k in kinds)}")
        self.i += 1
        return tok

    # ---- native syntax
    def native_list(self, closing: str | None) -> ObjectList:
        items = []
        while (tok := self.peek()) is not None and tok.type != closing:
            if tok.type == "COMMA":
                self.i += 1
                continue
            items.append(self.native_item())
        if closing is not None:
            self.take(closing)
        return ObjectList(tuple(items))

    def native_item(self) -> Item:
        first = self.take("IDENTIFIER", "STRING")
        keys = [str(first.value)]
        while (tok := self.peek()) is not None and tok.type in ("IDENTIFIER", "STRING"):
            keys.append(str(tok.value))
            self.i += 1
        tok = self.take("EQUAL", "LEFTBRACE")
        if tok.type == "LEFTBRACE":
            return Item(tuple(keys), self.native_list("RIGHTBRACE"), first.lineno, False)
        return Item(tuple(keys), self.native_value(), first.lineno, True)

    def native_value(self) -> Any:
        tok = self.take()
        if tok.type in ("STRING", "NUMBER", "FLOAT", "BOOL"):
            return tok.value
        if tok.type == "MINUS" and (n := self.peek()) is not None and n.type in ("NUMBER", "FLOAT"):
            self.i += 1
            return -n.value
        if tok.type == "LEFTBRACE":
            return self.native_list("RIGHTBRACE")
        if tok.type == "LEFTBRACKET":
            values = []
            while (n := self.peek()) is not None and n.type != "RIGHTBRACKET":
                if n.type == "COMMA":
                    self.i += 1
                    continue
                values.append(self.native_value())
            self.take("RIGHTBRACKET")
            return values
        # pyhcl reads more than HCL 1 (arithmetic, bare names): HCL 1 does not
        raise _syntax_error(self.filename, tok.lineno, "a value must be a string, number, boolean, list or object "
                                                       "(HCL 1 has no expressions)")

    # ---- JSON syntax: structure and lines from the tokens, values from the document
    def json_object(self, pairs: _Pairs) -> ObjectList:
        self.take("LEFTBRACE")
        items = []
        for key, value in pairs:
            tok = self.take("STRING")
            self.take("COLON")
            items.append(Item((key,), self.json_value(value), tok.lineno, True))
            if (n := self.peek()) is not None and n.type == "COMMA":
                self.i += 1
        self.take("RIGHTBRACE")
        return ObjectList(tuple(items), json=True)

    def json_value(self, value: Any) -> Any:
        if isinstance(value, _Pairs):
            return self.json_object(value)
        if isinstance(value, list):
            self.take("LEFTBRACKET")
            out = []
            for v in value:
                out.append(self.json_value(v))
                if (n := self.peek()) is not None and n.type == "COMMA":
                    self.i += 1
            self.take("RIGHTBRACKET")
            return out
        # a scalar: one token, or a few for a number (-1, 1e5)
        self.take()
        while (n := self.peek()) is not None and n.type not in ("COMMA", "RIGHTBRACE", "RIGHTBRACKET"):
            self.i += 1
        return value


def parse(text: str, filename: str, memo: SyntaxMemo | None = None) -> ObjectList:
    """The HCL 1 syntax tree of a CLI configuration file's ``text`` (named ``filename`` in
    errors). A native text whose digest ``memo`` knows (:class:`SyntaxMemo`) is not given to
    pyhcl's parser again; one it accepts is remembered there.

    Raises:
        ConfigurationError: the text is larger than :data:`MAX_BYTES`, or not valid HCL 1
            (native) or JSON: the file and line, never the text.
    """
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise _syntax_error(filename, None, f"the file is larger than {MAX_BYTES >> 20} MiB")
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text, object_pairs_hook=_Pairs)
        except json.JSONDecodeError as e:
            raise _syntax_error(filename, e.lineno, f"not valid JSON ({e.msg.lower()})") from None
        except RecursionError:
            raise _syntax_error(filename, None, "not valid JSON (nested too deeply)") from None
        if not isinstance(doc, _Pairs):
            raise _syntax_error(filename, 1, "a JSON CLI configuration must be one object")
        try:
            return _Reader(_tokens(text), filename).json_object(doc)
        except (ValueError, ConfigurationError, RecursionError):
            # valid JSON that pyhcl's lexer cannot follow (an unclosed "${" in a string):
            # the values stand, without their lines
            return _unlined(doc)
    digest = accepted_digest(text) if memo is not None else ""
    if memo is not None and memo.knows(digest):
        return _Reader(_tokens(text), filename).native_list(None)
    load("hcl")
    import hcl as pyhcl

    try:
        pyhcl.loads(text)
    except ValueError as e:
        line, what = _pyhcl_line(str(e))
        # the end of the file, where pyhcl names no line (HCL 1: "At LINE:COL: ... got: EOF")
        raise _syntax_error(filename, line or text.count("\n") + 1, what) from None
    except RecursionError:
        raise _syntax_error(filename, None, "nested too deeply") from None
    except Exception:
        raise _syntax_error(filename, None, "this is not valid HCL 1 syntax") from None
    tree = _Reader(_tokens(text), filename).native_list(None)
    if memo is not None:
        memo.remember(digest)
    return tree


def _unlined(value: Any) -> Any:
    if isinstance(value, _Pairs):
        return ObjectList(tuple(Item((k,), _unlined(v), 0, True) for k, v in value), json=True)
    if isinstance(value, list):
        return [_unlined(v) for v in value]
    return value


def plain(value: Any) -> Any:
    """A value of the tree as plain Python: an :class:`ObjectList` as a dict (an item with
    labels nests, a repeated key: the last wins, as HCL 1 decodes into a map), lists as lists."""
    if isinstance(value, ObjectList):
        out: dict = {}
        for item in value.items:
            at = out
            for k in item.keys[:-1]:
                nxt = at.get(k)
                at = at.setdefault(k, {}) if isinstance(nxt, dict) or nxt is None else {}
            at[item.keys[-1]] = plain(item.value)
        return out
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def to_body(objects: ObjectList) -> Body:
    """The tree as the reader's :class:`~tofu_solve.config.hcl.body.Body`, so that one
    decoder serves both syntaxes. HCL 1 does not tell a block from an argument: an item whose
    value is an object is both (``services = {...}`` and ``services {...}`` mean the same),
    and a JSON array of objects is one block per object. Expressions carry no text."""
    out: list[Block | Attribute] = []
    for item in objects.items:
        name, labels, v = item.keys[0], list(item.keys[1:]), item.value
        if isinstance(v, ObjectList):
            out.append(Block(name, labels, to_body(v), item.line, 0, 0))
        elif isinstance(v, list) and v and all(isinstance(e, ObjectList) for e in v):
            out.extend(Block(name, labels, to_body(e), item.line, 0, 0) for e in v)
        if not labels:
            value = plain(v)
            expr = ObjectValueExpr(None, "", item.line, value) if isinstance(value, dict) else \
                ValueExpr(None, "", item.line, value)
            out.append(Attribute(name, expr, item.line))
    return Body(out)


def labelled(body: Body, type_: str, count: int) -> Iterator[Block]:
    """The blocks of ``type_`` with ``count`` labels, as HCL 1 decodes a map of blocks: the
    labels written after the key, or the keys of nested objects (JSON's
    ``{"host": {"NAME": {...}}}``, or native ``host { "NAME" { ... } }``). A block with more
    labels than ``count`` is not one of them."""
    def expand(block: Block) -> Iterator[Block]:
        if len(block.labels) == count:
            yield block
        elif len(block.labels) < count:
            for inner in block.body.blocks:
                yield from expand(Block(type_, block.labels + [inner.type] + inner.labels, inner.body, inner.line,
                                        0, 0))
    for b in body.blocks_of(type_):
        yield from expand(b)


# ------------------------------------------------------------------ writing native HCL 1

def _key(k: str) -> str:
    return k if k.replace("_", "a").replace("-", "a").isalnum() and not k[:1].isdigit() else json.dumps(k)


def _value(v: Any, indent: str) -> str | None:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        parts = [p for p in (_value(e, indent) for e in v) if p is not None]
        return "[" + ", ".join(parts) + "]"
    if isinstance(v, ObjectList):
        inner = dump(v, indent + "  ")
        return "{\n" + inner + indent + "}" if inner else "{}"
    return None  # JSON's null: HCL 1's native syntax has none, and the decoder reads it as absent


def dump_item(item: Item, indent: str = "") -> str:
    """One item in native HCL 1 syntax, a line or a block ending in a newline; "" for an
    item whose value native syntax cannot write (JSON's ``null``). An object written with
    ``:`` in JSON is written as a block (OpenTofu's decoder of ``provider_installation``
    refuses ``=`` before a block in native syntax); a JSON array of objects as one block each."""
    keys = " ".join(_key(k) for k in item.keys)
    v = item.value
    if isinstance(v, list) and v and all(isinstance(e, ObjectList) for e in v):
        return "".join(dump_item(Item(item.keys, e, item.line, False), indent) for e in v)
    if isinstance(v, ObjectList) and (not item.assign or v.json):
        inner = dump(v, indent + "  ")
        return f"{indent}{keys} {{\n{inner}{indent}}}\n" if inner else f"{indent}{keys} {{}}\n"
    text = _value(v, indent)
    return "" if text is None else f"{indent}{keys} = {text}\n"


def dump(objects: ObjectList, indent: str = "") -> str:
    """The items in native HCL 1 syntax (:func:`dump_item` each)."""
    return "".join(dump_item(i, indent) for i in objects.items)


__all__ = ["MAX_BYTES", "Item", "ObjectList", "SyntaxMemo", "accepted_digest", "dump", "dump_item", "labelled", "parse",
           "plain", "to_body"]
