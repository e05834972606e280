"""Reading one HCL configuration file into its raw items: only the blocks the solve reads are
looked into (config/scan.py finds the others without parsing them)."""

from __future__ import annotations

import re

from ..addrs.redact import redact
from ..errors import ConfigurationError, SourceRange
from . import hcl
from .file_selection import _read_text
from .files import ModuleDir
from .raw import (
    _RESOURCE_BLOCKS,
    TOP_LEVEL_BLOCKS,
    _ArgValue,
    _check_module_name,
    _check_provider_block,
    _FileItems,
    _implied_local_name,
    _RawCall,
    _RawProviderBlock,
    _RawProviderReq,
    _Value,
    _VariableDefault,
)
from .scan import TopBlock
from .symbols import _experiment_keywords, _raw_symbols_call

# The top-level blocks the solve reads (of resource, data and ephemeral blocks, only the
# type label and a `provider` argument); every other block is found, never parsed
# (config/scan.py), so that a file's size costs a scan, not a parse tree.
_READ_BLOCKS = frozenset({"terraform", "module", "provider", "variable", "locals", "language", "symbols"})
_PROVIDER_WORD = re.compile(r"\bprovider\b")


def _wanted(block: TopBlock, text: str) -> bool:
    if block.type in _READ_BLOCKS:
        return True
    if block.type in _RESOURCE_BLOCKS:
        return _PROVIDER_WORD.search(text, block.start + len(block.type), block.end) is not None
    return False


_CONST_WORD = re.compile(r"\bconst\b")


def _checked_whole(block: hcl.Block, text: str) -> bool:
    """In the user's own root module, the blocks whose every expression is parsed when the
    file is read, so that a syntax error in them is reported as ``tofu`` reports it: every
    block the solve reads, but a variable that cannot set ``const`` (its default is parsed
    when an expression refers to it)."""
    return block.type != "variable" or _CONST_WORD.search(text, block.start, block.end) is not None


def _read_hcl(d: ModuleDir, name: str, display: str, strict: bool = False) -> _FileItems:
    """The items of one HCL file. Only the blocks the solve reads are looked into, and of
    them only the arguments it evaluates are parsed (:func:`hcl.parse_blocks`); ``strict``
    (the user's own root module) parses every argument of those blocks now, as a whole parse
    would, but lazily read variables (:func:`_checked_whole`)."""
    text = _read_text(d, name, display)
    body = hcl.parse_blocks(text, display, _wanted)
    if strict:
        for block in body.blocks:
            if _checked_whole(block, text):
                hcl.force(block.body)
    f = _HclFile(text, display, strict)
    for attr in body.attributes:
        raise ConfigurationError("Unsupported argument",
                                 f'An argument named "{attr.name}" is not expected here.', f.here(attr.line))
    for block in body.blocks:
        f.block(block)
    return f.items


class _HclFile:
    """One HCL file's items as its blocks are read, a method per block kind (as
    :mod:`.read_json` reads a JSON file)."""

    def __init__(self, text: str, display: str, strict: bool):
        self.text, self.display, self.strict = text, display, strict
        self.lines = text.splitlines()
        self.items = _FileItems()

    def here(self, line: int, context: str = "") -> SourceRange:
        # the line as written, redacted: a source URL may carry a credential (a snippet is output)
        return SourceRange(self.display, line, context,
                           redact(self.lines[line - 1]) if 0 < line <= len(self.lines) else "")

    def block(self, block: hcl.Block) -> None:
        t = block.type
        if t == "module":
            self.module(block)
        elif t == "terraform":
            self.terraform(block)
        elif t == "required_providers":
            raise ConfigurationError(
                "Invalid required_providers block",
                'A "required_providers" block must be nested inside a "terraform" block.', self.here(block.line))
        elif t == "symbols":
            self.items.symbol_calls.append(_raw_symbols_call(block, self.here))
        elif t == "language":
            self.language(block)
        elif t == "variable" and len(block.labels) == 1:
            self.variable(block)
        elif t == "locals":
            for a in block.body.attributes:
                self.items.locals[a.name] = _ArgValue(a, self.here(a.line, "locals"))
        elif t == "provider" and len(block.labels) == 1:
            self.provider(block)
        elif t in _RESOURCE_BLOCKS and block.labels:
            given = block.body.attribute("provider")
            ref = given.expr.traversal() if given is not None else None
            self.items.implied_providers.append((ref[0] if ref else _implied_local_name(block.labels[0]),
                                                 self.here(block.line)))
        elif t not in TOP_LEVEL_BLOCKS:
            self.items.unknown_blocks.append((t, self.here(block.line)))

    def module(self, block: hcl.Block) -> None:
        here = self.here
        if len(block.labels) != 1:
            raise ConfigurationError("Missing name for module",
                                     "A module block needs exactly one label: its name.", here(block.line))
        ctx = f'module "{block.labels[0]}"'
        _check_module_name(block.labels[0], here(block.line, ctx))
        call = _RawCall(block.labels[0], here(block.line, ctx))
        for a in block.body.attributes:
            call.args[a.name] = _ArgValue(a, here(a.line, ctx))
        for lb in block.body.blocks_of("lifecycle"):
            enabled = lb.body.attribute("enabled")
            if enabled is not None:
                call.enabled = _ArgValue(enabled, here(enabled.line, ctx))
        self.items.calls.append(call)

    def terraform(self, block: hcl.Block) -> None:
        here, items = self.here, self.items
        for a in block.body.attributes:
            if a.name == "required_version":
                items.required_versions.append(_ArgValue(a, here(a.line, "terraform")))
        for rp in block.body.blocks_of("required_providers"):
            items.required_providers_blocks.append(here(rp.line, "terraform"))
            for a in rp.body.attributes:
                keyed = {k: here(e.line, "terraform") for k, e in (a.expr.object_items() or {}).items()}
                items.provider_reqs.append(_RawProviderReq(a.name, _Value(a.expr, here(a.line, "terraform")), keyed))

    def language(self, block: hcl.Block) -> None:
        a = block.body.attribute("experiments")
        if a is not None:
            self.items.experiments += _experiment_keywords(a.expr.text, self.here(a.line, "language"))
        for cw in block.body.blocks_of("compatible_with"):
            tofu = cw.body.attribute("opentofu")
            if tofu is not None:
                self.items.compat.append(_ArgValue(tofu, self.here(tofu.line, "language")))

    def variable(self, block: hcl.Block) -> None:
        name = block.labels[0]
        default = self.items.variables[name] = _VariableDefault(block, self.here)
        if self.strict:  # the user's root: its bodies are followed now, as a whole parse would
            default.find()
        # `const` is looked for only where the word is written (most variables are not)
        c = block.body.attribute("const") if _CONST_WORD.search(self.text, block.start, block.end) else None
        if c is not None:
            try:
                self.items.const[name] = c.expr.literal()
            except hcl.NotLiteral:
                self.items.const[name] = None

    def provider(self, block: hcl.Block) -> None:
        _check_provider_block(block, self.here)
        self.items.provider_blocks.append(_RawProviderBlock(block.labels[0], block.body, self.here(block.line)))
        self.items.implied_providers.append((block.labels[0], self.here(block.line)))
        a = block.body.attribute("version")
        if a is not None:
            self.items.legacy_provider_versions.append((block.labels[0], _ArgValue(a, self.here(a.line))))
