"""python-hcl2's grammar, widened where OpenTofu's reader is wider (Unicode identifiers,
newlines and strip markers inside ``${ }``, ``core::`` function namespaces), built into one LALR parser per
process and kept in the cache."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from ..._lazy import load

if TYPE_CHECKING:
    from lark import Lark

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
# A strip marker may stand inside either brace of an interpolation (``${~ x ~}``), as in a
# directive (hclsyntax scan_tokens.rl: TemplateInterp then an optional "~"); python-hcl2
# allows it in directives only.
_SPACED_INTERPOLATION = ("interpolation: INTERP_START STRIP_MARKER? new_line_or_comment? expression "
                         "new_line_or_comment? STRIP_MARKER? RBRACE")
# A function name may carry any number of ``::`` namespaces (hclsyntax parseExpressionTerm
# reads ``ident ("::" ident)*``): ``core::startswith`` as Terraform 1.8+ and OpenTofu write
# the built-in functions, ``core::semverconstraint`` as HashiCorp's policy files do (issue
# #62). python-hcl2 takes exactly zero or two (``provider::aws::fn``).
_THREE_PART_CALL = "function_call : identifier (COLONS identifier COLONS identifier)? LPAR"
_NAMESPACED_CALL = "function_call : identifier (COLONS identifier)* LPAR"


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
    import importlib.metadata

    load("lark")
    import lark

    versions = (f"lark{lark.__version__}-hcl2{importlib.metadata.version('python-hcl2')}"
                f"-py{sys.version_info[0]}{sys.version_info[1]}")
    return str(directory / f"hcl2-tofu-solve-{versions}.lark")


_built: list[Lark] = []
_build_lock = threading.Lock()


def lalr_parser() -> Lark:
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
    (Lark checks the file against the grammar and options before using it). The parser
    libraries are imported here, when the first parse needs them."""
    from importlib import resources

    load("hcl2.parser")
    from hcl2.parser import parser as hcl2_parser
    load("hcl2.postlexer")
    from hcl2.postlexer import PostLexer
    load("lark")
    from lark import Lark

    grammar = resources.files("hcl2").joinpath("hcl2.lark").read_text(encoding="utf-8")
    if _ASCII_NAME not in grammar or _PLAIN_INTERPOLATION not in grammar or _THREE_PART_CALL not in grammar:
        return hcl2_parser()  # a python-hcl2 whose grammar changed: use it as it is
    grammar = (grammar.replace(_ASCII_NAME, _UNICODE_NAME).replace(_PLAIN_INTERPOLATION, _SPACED_INTERPOLATION)
               .replace(_THREE_PART_CALL, _NAMESPACED_CALL))
    return Lark(grammar, parser="lalr", propagate_positions=True, postlex=PostLexer(), cache=cache_file or False)
