"""A thin reading layer over python-hcl2's parse tree, in three parts: the grammar
(:mod:`.grammar`), the tree walker that reads the parse tree into values with positions
(:mod:`.tree`), and the lazy reader that parses only the bodies asked for (:mod:`.lazy`).

Shapes: :func:`parse` returns a :class:`Body` of :class:`Block` and :class:`Attribute`
items, each with a 1-based ``line`` and character offsets into the source text.
"""

from . import grammar
from .grammar import lalr_parser, use_cache_dir
from .lazy import LazyAttribute, LazyBody, force, parse_blocks, parse_lazily
from .tree import Attribute, Block, Body, Expr, NotLiteral, ObjectValueExpr, ValueExpr, parse

__all__ = ["Attribute", "Block", "Body", "Expr", "LazyAttribute", "LazyBody", "NotLiteral", "ObjectValueExpr",
           "ValueExpr", "force", "grammar", "lalr_parser", "parse", "parse_blocks", "parse_lazily", "use_cache_dir"]
