"""What the HCL reader gives: bodies of blocks and attributes with lines and offsets, and
expressions, with or without a parse tree. Imports no parser library: a file whose values
are all plain (:mod:`.lazy`) is read without one; an expression with a parse tree asks
:mod:`.walker`, which imports it, when first evaluated."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class NotLiteral(Exception):
    """The expression is not a constant: it refers to something or calls a function."""

    def __init__(self, expr: Expr):
        self.expr = expr
        super().__init__(expr.text)


@dataclass(frozen=True)
class Expr:
    """An expression as written: its tree, text and line. Two kinds answer the questions
    below: :class:`ValueExpr` (read without a parser) and ``tree.TreeExpr`` (with a parse
    tree, evaluated by the tree walker, which imports the parser library)."""

    tree: Any = field(repr=False)
    text: str
    line: int

    def literal(self) -> Any:
        """The constant value (str, int, float, bool, None, list, dict).

        Raises:
            NotLiteral: the expression needs evaluation (references, templates with
                interpolation, function calls...).
        """
        raise NotImplementedError  # an expression with a parse tree is a tree.TreeExpr

    def traversal(self) -> tuple[str, ...] | None:
        """For a plain reference like ``var.region`` or ``local.x.y``: its names;
        otherwise None."""
        raise NotImplementedError  # an expression with a parse tree is a tree.TreeExpr

    def template_parts(self) -> list[str | tuple[str, ...]] | None:
        """For a quoted string template whose interpolations are plain references
        (``"${var.a}-x"``): literal text and reference parts in order; otherwise None."""
        raise NotImplementedError  # an expression with a parse tree is a tree.TreeExpr

    def object_items(self) -> dict[str, Expr] | None:
        """For an object constructor ``{ a = x, "b" = y }``: each key's expression;
        otherwise None."""
        raise NotImplementedError  # an expression with a parse tree is a tree.TreeExpr


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
