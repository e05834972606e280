"""A thin reading layer over python-hcl2's parse tree, in four parts: what it gives
(:mod:`.body`), the grammar (:mod:`.grammar`), the tree walker that reads the parse tree into
values with positions (:mod:`.walker`), and the lazy reader that parses only the bodies asked
for and reads plain values without a parser (:mod:`.lazy`). The parser libraries (lark,
python-hcl2) are imported only when something must be parsed (issue #36): a warm ``init`` or
``check`` of a configuration written in plain values never imports them.

Shapes: :func:`parse` returns a :class:`Body` of :class:`Block` and :class:`Attribute`
items, each with a 1-based ``line`` and character offsets into the source text.
"""

from __future__ import annotations

from ..._lazy import load
from ...errors import ConfigurationError, TofuSolveError
from . import grammar
from .body import Attribute, Block, Body, Expr, NotLiteral, ObjectValueExpr, ValueExpr
from .grammar import lalr_parser, use_cache_dir
from .lazy import LazyAttribute, LazyBody, force, parse_blocks, parse_lazily


def parse(text: str, filename: str, error: type[TofuSolveError] = ConfigurationError) -> Body:
    """The whole text parsed (:func:`.walker.parse`; the parser library is imported now).

    Raises:
        ``error``: the text is not valid HCL (file and line).
    """
    load("tofu_solve.config.hcl.walker")
    from .walker import parse as parse_tree

    return parse_tree(text, filename, error)


__all__ = ["Attribute", "Block", "Body", "Expr", "LazyAttribute", "LazyBody", "NotLiteral", "ObjectValueExpr",
           "ValueExpr", "force", "grammar", "lalr_parser", "parse", "parse_blocks", "parse_lazily", "use_cache_dir"]
