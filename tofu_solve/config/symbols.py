"""OpenTofu 1.13's symbol libraries: the ``symbols`` block's raw call and the experiment that
enables it."""

from __future__ import annotations

import json
import re

from ..addrs.identifiers import BAD_IDENTIFIER_DETAIL, valid_identifier
from ..errors import ConfigurationError, SourceRange
from . import hcl
from .raw import _ArgValue, _FileItems, _RawCall

# --------------------------------------------------------------------------- symbol libraries
#
# OpenTofu 1.13's symbol_libraries experiment (RFC opentofu/opentofu#4052, implemented in
# PR #4474; branch symbol_libraries_experiment_2 of opentofu/opentofu): `symbols "name" {
# source, version }` in configuration files and in a library's `*.sym.hcl` files
# (internal/configs/symlib/symbols.go DecodeSymbolsBlock, symbolBlockSchema).

SYMBOL_LIBRARIES = "symbol_libraries"
SYMBOL_FILE_SUFFIX = ".sym.hcl"  # internal/configs/parser_config_dir.go symbolFileExt
_SYMBOLS_ARGS = ("source", "version")
_KEYWORD = re.compile(r"[^\W\d][\w-]*\Z")


def _raw_symbols_call(block: hcl.Block, here) -> _RawCall:
    """A ``symbols`` block's name and arguments, checked as OpenTofu's schema checks them:
    one label, an identifier; ``source`` required; ``version`` optional; nothing else."""
    if len(block.labels) != 1:
        if not block.labels:
            raise ConfigurationError("Missing name for symbols", "All symbols blocks must have 1 labels (name).",
                                     here(block.line))
        raise ConfigurationError("Extraneous label for symbols",
                                 "Only 1 labels (name) are expected for symbols blocks.", here(block.line))
    name = block.labels[0]
    ctx = f'symbols "{name}"'
    if not valid_identifier(name):
        raise ConfigurationError("Invalid symbol name", BAD_IDENTIFIER_DETAIL, here(block.line, ctx))
    call = _RawCall(name, here(block.line, ctx))
    for a in block.body.attributes:
        if a.name not in _SYMBOLS_ARGS:
            raise ConfigurationError("Unsupported argument", f'An argument named "{a.name}" is not expected here.',
                                     here(a.line, ctx))
        call.args[a.name] = _ArgValue(a, here(a.line, ctx))
    for b in block.body.blocks:
        raise ConfigurationError("Unsupported block type", f'Blocks of type "{b.type}" are not expected here.',
                                 here(b.line, ctx))
    if "source" not in call.args:
        raise ConfigurationError("Missing required argument",
                                 'The argument "source" is required, but no definition was found.', call.where)
    return call


def _experiment_keywords(text: str, where: SourceRange) -> list[tuple[str | None, SourceRange]]:
    """The keywords of ``experiments = [a, b]`` as written (hcl.ExprList, then
    hcl.ExprAsKeyword: None for an element that is not a bare keyword).

    Raises:
        ConfigurationError: the value is not a list (hcl's "Invalid expression")."""
    text = re.sub(r"(#|//)[^\n]*", "", text).strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise ConfigurationError("Invalid expression", "A static list expression is required.", where)
    inner = [e.strip() for e in text[1:-1].split(",")]
    if inner and not inner[-1]:
        inner.pop()  # a trailing comma
    return [(e if _KEYWORD.match(e) else None, where) for e in inner]


def _check_experiments(merged: _FileItems) -> bool:
    """Whether the module enables ``symbol_libraries``; an unknown keyword is refused as
    OpenTofu refuses it (``internal/configs/language.go`` decodeReservedExperimentsAttr).

    Raises:
        ConfigurationError: "Invalid experiment keyword", "Unknown experiment keyword"."""
    enabled = False
    for kw, where in merged.experiments:
        if kw is None:
            raise ConfigurationError("Invalid experiment keyword",
                                     'Elements of "experiments" must all be keywords representing active '
                                     "experiments.", where)
        if kw != SYMBOL_LIBRARIES:
            raise ConfigurationError("Unknown experiment keyword",
                                     f"There is no current experiment with the keyword {json.dumps(kw)}.", where)
        enabled = True
    return enabled
