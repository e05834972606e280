"""The items of one configuration file before evaluation (module calls, provider requirements,
values), and the structural checks HCL and JSON files share."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..addrs.identifiers import BAD_IDENTIFIER_DETAIL, valid_identifier
from ..addrs.provider import parse_provider_part
from ..errors import ConfigurationError, SourceRange
from . import hcl

# --------------------------------------------------------------------------- raw items


@dataclass
class _Value:
    """An unevaluated argument: an HCL expression or a JSON value, and where it was."""

    raw: Any
    where: SourceRange
    is_json: bool = False


@dataclass
class _RawCall:
    name: str
    where: SourceRange
    args: dict[str, _Value] = field(default_factory=dict)
    enabled: _Value | None = None  # `lifecycle { enabled = ... }` (OpenTofu 1.11)


@dataclass
class _RawProviderReq:
    name: str
    value: _Value
    item_where: dict[str, SourceRange] = field(default_factory=dict)  # "version" -> its own line


@dataclass
class _RawProviderBlock:
    """A ``provider`` block as written: its local name, its body (an HCL body, or a JSON
    object) and where it starts."""

    name: str
    body: Any
    where: SourceRange
    is_json: bool = False


@dataclass
class _FileItems:
    calls: list[_RawCall] = field(default_factory=list)
    symbol_calls: list[_RawCall] = field(default_factory=list)  # `symbols "name"` blocks, name as labelled
    experiments: list[tuple[str | None, SourceRange]] = field(default_factory=list)  # None: not a keyword
    provider_reqs: list[_RawProviderReq] = field(default_factory=list)
    legacy_provider_versions: list[tuple[str, _Value]] = field(default_factory=list)
    implied_providers: list[tuple[str, SourceRange]] = field(default_factory=list)  # local names in use
    provider_blocks: list[_RawProviderBlock] = field(default_factory=list)
    required_providers_blocks: list[SourceRange] = field(default_factory=list)
    required_versions: list[_Value] = field(default_factory=list)
    compat: list[_Value] = field(default_factory=list)
    variables: dict[str, _Value] = field(default_factory=dict)
    const: dict[str, Any] = field(default_factory=dict)  # variable name -> its `const` value, when set
    locals: dict[str, _Value] = field(default_factory=dict)
    unknown_blocks: list[tuple[str, SourceRange]] = field(default_factory=list)  # top-level types no schema has


class _ArgValue(_Value):
    """An argument whose expression is parsed when first evaluated (``hcl.LazyAttribute``)."""

    def __init__(self, attr: hcl.Attribute, where: SourceRange):
        self._attr, self.where, self.is_json = attr, where, False

    @property
    def raw(self):
        return self._attr.expr


class _VariableDefault(_Value):
    """A variable's ``default`` (None when it has none) and where it is, found when first
    read: a variable block's body is scanned only when an expression refers to the
    variable, which most of a package's variables never are."""

    def __init__(self, block: hcl.Block, here: Callable[..., SourceRange]):
        self._block, self._here, self.is_json = block, here, False
        self._found: tuple[hcl.Attribute | None, SourceRange] | None = None

    def find(self) -> tuple[hcl.Attribute | None, SourceRange]:
        """The ``default`` argument (None: none) and where it is (else the block's line).

        Raises:
            ConfigurationError: the block's body does not read (the whole file's error).
        """
        if self._found is None:
            a = self._block.body.attribute("default")
            ctx = f'variable "{self._block.labels[0]}"'
            self._found = (a, self._here(a.line if a else self._block.line, ctx))
        return self._found

    @property
    def raw(self):
        a = self.find()[0]
        return a.expr if a is not None else None

    @property
    def where(self) -> SourceRange:  # type: ignore[override]
        return self.find()[1]


_RESOURCE_BLOCKS = ("resource", "data", "ephemeral")

# The block types a configuration file may hold at its top level, in the order of OpenTofu's
# configFileSchema (internal/configs/parser_config.go), which is the order "Did you mean"
# tries them in; then `symbols` (OpenTofu 1.13's symbol libraries) and Terraform's `action`
# (a Terraform target's configuration may hold one).
TOP_LEVEL_BLOCKS = ("language", "required_providers", "provider", "variable", "locals", "output", "module",
                    "resource", "data", "ephemeral", "moved", "import", "check", "removed", "terraform", "symbols",
                    "action")


def unsupported_block(block_type: str, expected: tuple[str, ...], where: SourceRange) -> ConfigurationError:
    """HCL's "Unsupported block type" for a block of ``block_type`` where only ``expected``
    may stand (``hcl/v2`` ``Body.Content``): ``Blocks of type "varyable" are not expected
    here. Did you mean "variable"?``, the suggestion being the first expected type within
    an edit distance of 3 (``hcl/v2/ext/didyoumean`` ``NameSuggestion``)."""
    near = next((e for e in expected if _edit_distance(block_type, e) < 3), None)
    hint = f' Did you mean "{near}"?' if near else ""
    return ConfigurationError("Unsupported block type", f'Blocks of type "{block_type}" are not expected here.{hint}',
                              where)


def _edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions and substitutions each cost one)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _check_provider_name(name: str, where: SourceRange) -> None:
    """A ``provider`` block's label, normalized (``internal/configs/provider.go``
    checkProviderNameNormalized), in HCL and JSON alike.

    Raises:
        ConfigurationError: "Invalid provider local name"."""
    try:
        normalized = parse_provider_part(name)
    except ValueError as e:
        raise ConfigurationError("Invalid provider local name", f"{name} is an invalid provider local name: {e}",
                                 where) from None
    if normalized != name:
        raise ConfigurationError("Invalid provider local name",
                                 f'Provider names must be normalized. Replace "{name}" with "{normalized}" to fix '
                                 "this error.", where)


def _check_provider_block(block: hcl.Block, here) -> None:
    """A ``provider`` block as OpenTofu decodes it (``internal/configs/provider.go``
    decodeProviderBlock): its local name normalized (checkProviderNameNormalized), no
    reserved argument (``count``, ``depends_on``, ``source``) or block (``lifecycle``,
    ``locals``).

    Raises:
        ConfigurationError: "Invalid provider local name", "Reserved argument name in
            provider block", "Reserved block type name in provider block"."""
    name = block.labels[0]
    _check_provider_name(name, here(block.line))
    for a in block.body.attributes:
        if a.name in ("count", "depends_on", "source"):
            raise ConfigurationError("Reserved argument name in provider block",
                                     f'The provider argument name "{a.name}" is reserved for use by OpenTofu in a '
                                     "future version.", here(a.line, f'provider "{name}"'))
    for b in block.body.blocks:
        if b.type in ("lifecycle", "locals"):
            raise ConfigurationError("Reserved block type name in provider block",
                                     f'The block type name "{b.type}" is reserved for use by OpenTofu in a future '
                                     "version.", here(b.line, f'provider "{name}"'))


def _implied_local_name(resource_type: str) -> str:
    """The provider local name a resource type implies: the part before the first ``_``
    (OpenTofu ``addrs.Resource.ImpliedProvider``)."""
    return resource_type.split("_", 1)[0]


def _check_module_name(name: str, where: SourceRange) -> None:
    """Refuse a module name that is not an identifier, as OpenTofu does
    (``internal/configs/module_call.go``); the name becomes a call path and a directory."""
    if not valid_identifier(name):
        raise ConfigurationError("Invalid module instance name",
                                 f"{BAD_IDENTIFIER_DETAIL} (module {json.dumps(name)})", where)
