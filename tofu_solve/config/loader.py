"""Loading one module directory as OpenTofu does (reference §8).

* Files: ``.tf``, ``.tf.json``, ``.tofu``, ``.tofu.json`` (sorted by name); names starting
  with ``.``, ending with ``~`` or of the form ``#...#`` are ignored; ``X.tofu`` hides
  ``X.tf`` and ``X.tofu.json`` hides ``X.tf.json`` (``filterTfPathsWithTofuAlternatives``).
* Override files (base name ``override`` or ending ``_override``) are loaded after the
  primary files and merged: their arguments replace the primary block's.
* ``source`` and ``version`` of module calls are evaluated statically: literals,
  ``var.NAME`` with a literal default, ``local.NAME`` with a literal value, and string
  templates of those. Anything else is an error with file and line.
* ``version`` on a local source is an error, as in OpenTofu; on git and OCI sources it is
  allowed (the module-locking RFC's proposal); on other remote sources it is an error.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..addrs.module_source import (
    LocalSource,
    OciGetterError,
    OciSource,
    RegistrySource,
    RemoteSource,
    SourceKind,
    is_local,
    parse_registry,
    parse_source,
)
from ..addrs.names import BAD_IDENTIFIER_DETAIL, symbols_segment, valid_identifier
from ..addrs.product import OPENTOFU, Product
from ..addrs.provider import ProviderAddress, ProviderAddressError, parse_provider_part, parse_provider_source
from ..addrs.redact import redact
from ..errors import ConfigurationError, SourceAddressError, SourceRange, TofuSolveError
from ..versions.constraints import module_constraint, provider_constraint
from . import hcl
from .files import ModuleDir, module_dir
from .model import CoreVersionRequirement, ModuleCall, ModuleConfig, RequiredProvider
from .scan import TopBlock
from .variables import InputValue

_EXTENSIONS = (".tofu.json", ".tf.json", ".tofu", ".tf")
_JSON_TEMPLATE_RE = re.compile(r"\$\{\s*([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+)\s*\}")


def _ext(name: str) -> str | None:
    for e in _EXTENSIONS:
        if name.endswith(e) and len(name) > len(e):
            return e
    return None


def _ignored(name: str) -> bool:
    return name.startswith(".") or name.endswith("~") or (name.startswith("#") and name.endswith("#"))


def _is_override(name: str) -> bool:
    base = name[: -len(_ext(name) or "")]
    return base == "override" or base.endswith("_override")


def _filter_tofu_alternatives(names: list[str], product: Product = OPENTOFU) -> list[str]:
    """OpenTofu: a ``.tofu``/``.tofu.json`` file replaces its ``.tf``/``.tf.json`` namesake.
    Terraform: ``.tofu`` files are not configuration at all."""
    if not product.reads_tofu_files:
        return [n for n in names if not n.endswith((".tofu", ".tofu.json"))]
    present = set(names)
    out = []
    for n in names:
        if n.endswith(".tf") and n[:-3] + ".tofu" in present:
            continue
        if n.endswith(".tf.json") and n[:-8] + ".tofu.json" in present:
            continue
        out.append(n)
    return out


OWN_OVERRIDE_FILE = "tofu_solve_override.tf"


def config_file_names(directory: str | os.PathLike | ModuleDir,
                      product: Product = OPENTOFU) -> tuple[list[str], list[str]]:
    """(primary, override) configuration file names of ``directory``, in load order, as
    ``product`` reads them (OpenTofu: ``.tofu`` replaces ``.tf``; Terraform: ``.tf`` and
    ``.tf.json`` only); tofu-solve's own ``tofu_solve_override.tf`` is left out.

    Raises:
        ConfigurationError: the directory cannot be read.
    """
    try:
        entries = module_dir(directory).entries()
    except OSError as e:
        raise ConfigurationError("Failed to read module directory",
                                 f"Module directory {os.fspath(directory)} does not exist or cannot be read "
                                 f"({e.strerror}).") from None
    primary: list[str] = []
    override: list[str] = []
    for name, is_dir in entries:
        if _ignored(name) or _ext(name) is None or is_dir:
            continue
        if name == OWN_OVERRIDE_FILE:
            continue  # tofu-solve's own bridge for tofu (tofu_solve.workdir.overrides): never read back
        (override if _is_override(name) else primary).append(name)
    return _filter_tofu_alternatives(primary, product), _filter_tofu_alternatives(override, product)


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
class _FileItems:
    calls: list[_RawCall] = field(default_factory=list)
    symbol_calls: list[_RawCall] = field(default_factory=list)  # `symbols "name"` blocks, name as labelled
    experiments: list[tuple[str | None, SourceRange]] = field(default_factory=list)  # None: not a keyword
    provider_reqs: list[_RawProviderReq] = field(default_factory=list)
    legacy_provider_versions: list[tuple[str, _Value]] = field(default_factory=list)
    implied_providers: list[tuple[str, SourceRange]] = field(default_factory=list)  # local names in use
    required_providers_blocks: list[SourceRange] = field(default_factory=list)
    required_versions: list[_Value] = field(default_factory=list)
    compat: list[_Value] = field(default_factory=list)
    variables: dict[str, _Value] = field(default_factory=dict)
    const: dict[str, Any] = field(default_factory=dict)  # variable name -> its `const` value, when set
    locals: dict[str, _Value] = field(default_factory=dict)
    unknown_blocks: list[tuple[str, SourceRange]] = field(default_factory=list)  # top-level types no schema has


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
    items = _FileItems()
    lines = text.splitlines()

    def here(line: int, context: str = "") -> SourceRange:
        # the line as written, redacted: a source URL may carry a credential (a snippet is output)
        return SourceRange(display, line, context, redact(lines[line - 1]) if 0 < line <= len(lines) else "")

    a: hcl.Attribute | None  # each branch below binds it afresh
    for attr in body.attributes:
        raise ConfigurationError("Unsupported argument",
                                 f'An argument named "{attr.name}" is not expected here.', here(attr.line))
    for block in body.blocks:
        t = block.type
        if t == "module":
            if len(block.labels) != 1:
                raise ConfigurationError("Missing name for module",
                                         "A module block needs exactly one label: its name.", here(block.line))
            ctx = f'module "{block.labels[0]}"'
            _check_module_name(block.labels[0], here(block.line, ctx))
            call = _RawCall(block.labels[0], here(block.line, ctx))
            for a in block.body.attributes:
                call.args[a.name] = _ArgValue(a, here(a.line, ctx))
            for lb in block.body.blocks_of("lifecycle"):
                a = lb.body.attribute("enabled")
                if a is not None:
                    call.enabled = _ArgValue(a, here(a.line, ctx))
            items.calls.append(call)
        elif t == "terraform":
            for a in block.body.attributes:
                if a.name == "required_version":
                    items.required_versions.append(_ArgValue(a, here(a.line, "terraform")))
            for rp in block.body.blocks_of("required_providers"):
                items.required_providers_blocks.append(here(rp.line, "terraform"))
                for a in rp.body.attributes:
                    keyed = {k: here(e.line, "terraform") for k, e in (a.expr.object_items() or {}).items()}
                    items.provider_reqs.append(_RawProviderReq(a.name, _Value(a.expr, here(a.line, "terraform")),
                                                               keyed))
        elif t == "required_providers":
            raise ConfigurationError(
                "Invalid required_providers block",
                'A "required_providers" block must be nested inside a "terraform" block.', here(block.line))
        elif t == "symbols":
            items.symbol_calls.append(_raw_symbols_call(block, here))
        elif t == "language":
            a = block.body.attribute("experiments")
            if a is not None:
                items.experiments += _experiment_keywords(a.expr.text, here(a.line, "language"))
            for cw in block.body.blocks_of("compatible_with"):
                a = cw.body.attribute("opentofu")
                if a is not None:
                    items.compat.append(_ArgValue(a, here(a.line, "language")))
        elif t == "variable" and len(block.labels) == 1:
            default = items.variables[block.labels[0]] = _VariableDefault(block, here)
            if strict:  # the user's root: its bodies are followed now, as a whole parse would
                default.find()
            # `const` is looked for only where the word is written (most variables are not)
            c = block.body.attribute("const") if _CONST_WORD.search(text, block.start, block.end) else None
            if c is not None:
                try:
                    items.const[block.labels[0]] = c.expr.literal()
                except hcl.NotLiteral:
                    items.const[block.labels[0]] = None
        elif t == "locals":
            for a in block.body.attributes:
                items.locals[a.name] = _ArgValue(a, here(a.line, "locals"))
        elif t == "provider" and len(block.labels) == 1:
            _check_provider_block(block, here)
            items.implied_providers.append((block.labels[0], here(block.line)))
            a = block.body.attribute("version")
            if a is not None:
                items.legacy_provider_versions.append((block.labels[0], _ArgValue(a, here(a.line))))
        elif t in _RESOURCE_BLOCKS and block.labels:
            a = block.body.attribute("provider")
            ref = a.expr.traversal() if a is not None else None
            items.implied_providers.append((ref[0] if ref else _implied_local_name(block.labels[0]),
                                            here(block.line)))
        elif t not in TOP_LEVEL_BLOCKS:
            items.unknown_blocks.append((t, here(block.line)))
    return items


_RESOURCE_BLOCKS = ("resource", "data", "ephemeral")

# The block types a configuration file may hold at its top level, in the order of OpenTofu's
# configFileSchema (internal/configs/parser_config.go), which is the order "Did you mean"
# tries them in; then `symbols` (OpenTofu 1.13's symbol libraries) and Terraform's `action`
# (a Terraform target's configuration may hold one).
TOP_LEVEL_BLOCKS = ("language", "required_providers", "provider", "variable", "locals", "output", "module",
                    "resource", "data", "ephemeral", "moved", "import", "check", "removed", "terraform", "symbols",
                    "action")


def _excludes_newest(merged: _FileItems, scope, product: Product) -> bool:
    """Whether the module's version constraints exclude the newest release of ``product``
    tofu-solve knows: then OpenTofu reports that, not the module's other errors, which may
    be a newer release's syntax (``internal/configs/parser_config.go``)."""
    from ..versions.target import newest_release

    try:
        newest = newest_release(product)
        return any(not c.constraint.allows(newest) for c in _core_reqs(merged, scope, product))
    except TofuSolveError:
        return False


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


def _symbol_calls(raws: list[_RawCall], product: Product, duplicate: tuple[str, str]) -> list[ModuleCall]:
    """The ``symbols`` calls, each read as OpenTofu reads it: as a module call named by its
    label, decoded with an empty static scope (``symbolLoader``'s ``fakeEval``: no variable
    or local can be referred to), then named by its call-path segment ``symbols:name``.

    Raises:
        ConfigurationError: a duplicate (``duplicate``: summary and the detail's last
            sentence), or what a module call's ``source`` and ``version`` are refused for."""
    seen: dict[str, _RawCall] = {}
    out = []
    empty = _Scope({}, {}, None, {})
    for raw in raws:
        if raw.name in seen:
            prev = seen[raw.name].where
            article = "An" if duplicate[0].endswith("definition") else "A"
            raise ConfigurationError(duplicate[0], f"{article} symbols named {json.dumps(raw.name)} was already "
                                     f"defined at {prev.file}:{prev.line}. {duplicate[1]}", raw.where)
        seen[raw.name] = raw
        call = _module_call(raw, empty, product)
        if call.version is not None and not isinstance(call.source, RegistrySource):
            # tofu-solve reads `version` on a git or OCI module call and hands the locked tag
            # over in an override file; OpenTofu merges no `symbols` block from an override
            # file (module.go mergeFile), and with `version` set it reads the source as a
            # registry address (module_call.go decodeStaticSource), which this is not.
            raise _not_a_registry_address(call.source_text, call.source_at, product,
                                          " A symbol library from git or an OCI registry names its version in the "
                                          "source address (?ref= or ?tag=).")
        out.append(replace(call, name=symbols_segment(raw.name), symbols=True))
    return out


def load_symbol_dir(directory: str | os.PathLike | ModuleDir, display_prefix: str = "",
                    product: Product = OPENTOFU) -> tuple[ModuleCall, ...]:
    """The ``symbols`` calls of a symbol library: the ``symbols`` blocks of the directory's
    ``*.sym.hcl`` files, which is all of a library OpenTofu installs or follows
    (``internal/configs/config_build.go`` ``symbolLoader``: ``dirFiles`` then
    ``loadSymbolFiles``; a library's ``.tf`` files are never read). The libraries' other
    blocks (``values``, ``typedef``, ``function``, ``language``) are OpenTofu's to check.

    Raises:
        ConfigurationError: an unreadable directory or file, broken HCL, an invalid or
            duplicate ``symbols`` block, each with file and line.
    """
    d = module_dir(directory)
    try:
        entries = d.entries()
    except OSError as e:
        raise ConfigurationError("Failed to read module directory",
                                 f"Module directory {display_prefix or '.'} could not be read ({e.strerror}).") \
            from None
    raws: list[_RawCall] = []
    for name, is_dir in entries:
        if is_dir or _ignored(name) or not name.endswith(SYMBOL_FILE_SUFFIX):
            continue
        display = display_prefix + name
        text = _read_text(d, name, display)
        lines = text.splitlines()

        def here(line: int, context: str = "", display=display, lines=lines) -> SourceRange:
            return SourceRange(display, line, context, redact(lines[line - 1]) if 0 < line <= len(lines) else "")

        body = hcl.parse_blocks(text, display, lambda block, _text: block.type == "symbols")
        raws += [_raw_symbols_call(b, here) for b in body.blocks if b.type == "symbols"]
    return tuple(_symbol_calls(raws, product, ("Duplicate symbols definition",
                                               "SymbolCall names must be unique within a module.")))


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


def _read_text(d: ModuleDir, name: str, display: str) -> str:
    try:
        return d.read_text(name)
    except UnicodeDecodeError:
        raise ConfigurationError("Invalid file encoding", f"{display} is not valid UTF-8.",
                                 SourceRange(display, 1)) from None
    except OSError as e:
        raise ConfigurationError("Failed to read file", f"{display} could not be read ({e.strerror}).") from None


def _json_line(text: str, key: str, start: int = 0) -> tuple[int, int]:
    """(1-based line, offset) of the first ``"key":`` at or after ``start``."""
    m = re.compile(r'"' + re.escape(key) + r'"\s*:').search(text, start)
    if not m:
        return 1, start
    return text.count("\n", 0, m.start()) + 1, m.start()


def _json_blocks(value: Any) -> list[dict]:
    if isinstance(value, list):
        return [v for v in value if isinstance(v, dict)]
    return [value] if isinstance(value, dict) else []


def _read_json(d: ModuleDir, name: str, display: str) -> _FileItems:
    text = _read_text(d, name, display)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigurationError("Invalid JSON", f"{display} is not valid JSON: {e.msg}.",
                                 SourceRange(display, e.lineno)) from None
    if not isinstance(doc, dict):
        raise ConfigurationError("Invalid JSON", f"{display} must hold a JSON object.", SourceRange(display, 1))
    items = _FileItems()
    at = lambda key, start=0: _json_line(text, key, start)  # noqa: E731
    lines = text.splitlines()

    def here(line: int, context: str = "") -> SourceRange:
        # the line as written, redacted: a source URL may carry a credential (a snippet is output)
        return SourceRange(display, line, context, redact(lines[line - 1]) if 0 < line <= len(lines) else "")

    _, mpos = at("module")
    if "module" in doc and not _json_blocks(doc["module"]) and doc["module"] not in ({}, []):
        raise ConfigurationError("Incorrect JSON value type",
                                 'A JSON object is required here, to define the "module" blocks.',
                                 here(at("module")[0]))
    for blocks in _json_blocks(doc.get("module")):
        for name, body in blocks.items():
            line, pos = at(name, mpos)
            _check_module_name(name, here(line, f'module "{name}"'))
            call = _RawCall(name, here(line, f'module "{name}"'))
            if isinstance(body, list):
                body = body[0] if body and isinstance(body[0], dict) else {}
            if not isinstance(body, dict):
                raise ConfigurationError("Invalid module block", f'Module "{name}" must be a JSON object.',
                                         here(line))
            for k, v in body.items():
                call.args[k] = _Value(v, here(at(k, pos)[0], f'module "{name}"'), True)
            for lb in _json_blocks(body.get("lifecycle")):
                if "enabled" in lb:
                    call.enabled = _Value(lb["enabled"], here(at("enabled", pos)[0], f'module "{name}"'), True)
            call.args.pop("lifecycle", None)
            items.calls.append(call)
    _, spos = at("symbols")
    for blocks in _json_blocks(doc.get("symbols")):
        for name, body in blocks.items():
            line, pos = at(name, spos)
            ctx = f'symbols "{name}"'
            if not valid_identifier(name):
                raise ConfigurationError("Invalid symbol name", BAD_IDENTIFIER_DETAIL, here(line, ctx))
            call = _RawCall(name, here(line, ctx))
            if isinstance(body, list):
                body = body[0] if body and isinstance(body[0], dict) else {}
            if not isinstance(body, dict):
                raise ConfigurationError("Incorrect JSON value type",
                                         'A JSON object is required here, to define the "symbols" block.', here(line))
            for k, v in body.items():
                if k not in _SYMBOLS_ARGS:
                    raise ConfigurationError("Unsupported argument", f'An argument named "{k}" is not expected here.',
                                             here(at(k, pos)[0], ctx))
                call.args[k] = _Value(v, here(at(k, pos)[0], ctx), True)
            if "source" not in call.args:
                raise ConfigurationError("Missing required argument",
                                         'The argument "source" is required, but no definition was found.', call.where)
            items.symbol_calls.append(call)
    _, tpos = at("terraform")
    for tb in _json_blocks(doc.get("terraform")):
        if "required_version" in tb:
            items.required_versions.append(_Value(tb["required_version"], here(at("required_version", tpos)[0]), True))
        rline, rpos = at("required_providers", tpos)
        for rp in _json_blocks(tb.get("required_providers")):
            items.required_providers_blocks.append(here(rline))
            for name, v in rp.items():
                items.provider_reqs.append(_RawProviderReq(name, _Value(v, here(at(name, rpos)[0]), True)))
    _, lpos = at("language")
    for lb in _json_blocks(doc.get("language")):
        if "experiments" in lb:
            where = here(at("experiments", lpos)[0], "language")
            if not isinstance(lb["experiments"], list):
                raise ConfigurationError("Invalid expression", "A static list expression is required.", where)
            items.experiments += [(e if isinstance(e, str) and _KEYWORD.match(e) else None, where)
                                  for e in lb["experiments"]]
        for cw in _json_blocks(lb.get("compatible_with")):
            if "opentofu" in cw:
                items.compat.append(_Value(cw["opentofu"], here(at("opentofu", lpos)[0]), True))
    _, vpos = at("variable")
    for vb in _json_blocks(doc.get("variable")):
        for name, body in vb.items():
            if isinstance(body, dict):
                items.variables[name] = _Value(body.get("default"), here(at(name, vpos)[0]), True)
                if "const" in body:
                    items.const[name] = body["const"]
    _, lopos = at("locals")
    for lb in _json_blocks(doc.get("locals")):
        for name, v in lb.items():
            items.locals[name] = _Value(v, here(at(name, lopos)[0]), True)
    for kind in _RESOURCE_BLOCKS:
        _, rpos = at(kind)
        for rb in _json_blocks(doc.get(kind)):
            for type_, named in rb.items():
                cited = here(at(type_, rpos)[0])
                bodies = [b for v in (named.values() if isinstance(named, dict) else []) for b in _json_blocks(v)]
                for body in bodies or [{}]:
                    ref = body.get("provider")
                    local = ref.split(".")[0] if isinstance(ref, str) and ref else _implied_local_name(type_)
                    items.implied_providers.append((local, cited))
    _, ppos = at("provider")
    for pb in _json_blocks(doc.get("provider")):
        for name in pb:
            _check_provider_name(name, here(at(name, ppos)[0]))
            items.implied_providers.append((name, here(at(name, ppos)[0])))
        for name, body in pb.items():
            for b in _json_blocks(body):
                if "version" in b:
                    items.legacy_provider_versions.append(
                        (name, _Value(b["version"], here(at("version", at(name, ppos)[1])[0]), True)))
    return items


# --------------------------------------------------------------------------- evaluation


class _NotConstant(Exception):
    """A variable not declared ``const = true`` read before init for Terraform; :meth:`_Scope.static`
    reports it at the argument that needed the value, as Terraform does."""


class _Scope:
    def __init__(self, variables: dict[str, _Value], locals_: dict[str, _Value],
                 inputs: Mapping[str, InputValue] | None = None, const: Mapping[str, Any] | None = None,
                 product: Product = OPENTOFU):
        self.const = const or {}
        self.product = product
        self.variables = variables
        self.locals = locals_
        self.inputs = inputs or {}

    def static(self, v: _Value, what: str, depth: int = 0) -> Any:
        """Evaluate ``v`` statically. Raises ConfigurationError naming ``what``."""
        if depth == 0:
            try:
                return self._static(v, what, 0)
            except _NotConstant:  # Terraform: at the argument that needed the value
                kind = re.match(r"The (source|version) of module ", what)
                raise ConfigurationError(f"Unknown module {kind.group(1)}" if kind else "Variables not allowed",
                                         "Only literal values and const variables can be evaluated during init.",
                                         v.where) from None
        return self._static(v, what, depth)

    def _static(self, v: _Value, what: str, depth: int) -> Any:
        if depth > 10:
            raise ConfigurationError("Unsupported expression", f"{what} refers to itself.", v.where)
        if v.is_json:
            if isinstance(v.raw, str) and "${" in v.raw:
                return self._json_template(v, what, depth)
            return v.raw
        if v.raw is None:
            return None
        try:
            return v.raw.literal()
        except hcl.NotLiteral:
            pass
        ref = v.raw.traversal()
        if ref is not None:
            return self._ref(ref, v, what, depth)
        parts = v.raw.template_parts()
        if parts is not None:
            out = []
            for p in parts:
                out.append(p if isinstance(p, str) else self._str(self._ref(p, v, what, depth), v, what))
            return "".join(out)
        raise self._unsupported(v, what)

    def _json_template(self, v: _Value, what: str, depth: int) -> str:
        out, pos = [], 0
        for m in _JSON_TEMPLATE_RE.finditer(v.raw):
            out.append(v.raw[pos:m.start()])
            out.append(self._str(self._ref(tuple(m.group(1).split(".")), v, what, depth), v, what))
            pos = m.end()
        out.append(v.raw[pos:])
        text = "".join(out)
        if "${" in text:
            raise self._unsupported(v, what)
        return text

    @staticmethod
    def _str(value: Any, v: _Value, what: str) -> str:
        if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
            raise ConfigurationError("Invalid value", f"{what} must be a string.", v.where)
        return str(value)

    def _ref(self, ref: tuple[str, ...], v: _Value, what: str, depth: int) -> Any:
        if len(ref) == 2 and ref[0] == "var":
            target = self.variables.get(ref[1])
            if target is None:
                raise ConfigurationError("Reference to undeclared input variable",
                                         f'{what} refers to var.{ref[1]}, which is not declared in this module.',
                                         v.where)
            const = self.const.get(ref[1])
            if self.product.static_needs_const and const is not True:
                raise _NotConstant(ref[1])  # Terraform 1.15: only `const = true` variables
            if const is False:
                # internal/configs/static_scope.go GetInputVariable (PR #3946): OpenTofu refuses
                # only a variable declared `const = false`; one without `const` is read as before
                raise ConfigurationError(
                    "Unable to use variable in static context",
                    f'The variable "{ref[1]}" cannot be used in a static context, because it is declared as '
                    '"const = false".', v.where)
            given = self.inputs.get(ref[1])
            if given is not None:  # TF_VAR_*, *.tfvars, -var: OpenTofu's early evaluation
                return given.value
            if target.raw is None:
                raise ConfigurationError(
                    "Variables not allowed",
                    f"{what} uses var.{ref[1]}, which has no value: give it with -var, TF_VAR_{ref[1]}, "
                    "terraform.tfvars or a *.auto.tfvars file, or a literal default.", v.where)
            return self.static(target, f"The default of var.{ref[1]}", depth + 1)
        if len(ref) == 2 and ref[0] == "local":
            target = self.locals.get(ref[1])
            if target is None:
                raise ConfigurationError("Reference to undeclared local value",
                                         f"{what} refers to local.{ref[1]}, which is not declared in this module.",
                                         v.where)
            return self.static(target, f"local.{ref[1]}", depth + 1)
        raise self._unsupported(v, what)

    @staticmethod
    def _unsupported(v: _Value, what: str) -> ConfigurationError:
        text = v.raw if v.is_json else v.raw.text
        if isinstance(text, str) and not v.is_json and re.match(r"\s*sensitive\s*\(", text):
            # internal/configs/static_evaluator.go: a sensitive value is refused as such
            m = re.fullmatch(r'The (source|version) of module "([^"]+)"', what)
            ident = f"module.{m.group(2)}.{m.group(1)}" if m else what
            return ConfigurationError("Sensitive value not allowed",
                                      f"Sensitive values, or values derived from sensitive values, cannot be used as "
                                      f"{ident}.", v.where)
        return ConfigurationError(
            "Unsupported expression",
            f"{what} must be known before init, but it is {text!r}. Only literal values, var.NAME with a "
            "literal default, local.NAME with a literal value, and strings made of those can be used.",
            v.where)


# --------------------------------------------------------------------------- assembly


def _merge(primary: list[_FileItems], overrides: list[_FileItems]) -> _FileItems:
    merged = _FileItems()
    blocks = [b for f in primary for b in f.required_providers_blocks]
    if len(blocks) > 1:  # internal/configs/module.go: one required_providers per module (overrides aside)
        raise ConfigurationError("Duplicate required providers configuration",
                                 "A module may have only one required providers configuration. The required "
                                 f"providers were previously configured at {blocks[0]}.", blocks[1])
    for f in primary:
        merged.calls += f.calls
        merged.symbol_calls += f.symbol_calls  # an override file's are not read (module.go mergeFile)
        merged.experiments += f.experiments
        merged.provider_reqs += f.provider_reqs
        merged.legacy_provider_versions += f.legacy_provider_versions
        merged.implied_providers += f.implied_providers
        merged.required_versions += f.required_versions
        merged.compat += f.compat
        merged.variables.update(f.variables)
        merged.const.update(f.const)
        merged.locals.update(f.locals)
    for f in overrides:
        for oc in f.calls:
            base = next((c for c in merged.calls if c.name == oc.name), None)
            if base is None:
                raise ConfigurationError("Missing base module block",
                                         f'There is no module block named "{oc.name}" for this override to change.',
                                         oc.where)
            base.args.update(oc.args)
            if oc.enabled is not None:
                base.enabled = oc.enabled
        for op in f.provider_reqs:
            merged.provider_reqs = [p for p in merged.provider_reqs if p.name != op.name] + [op]
        if f.required_versions:
            merged.required_versions = list(f.required_versions)
        if f.compat:
            raise ConfigurationError("Unsupported block type",
                                     "A language block is not allowed in an override file.", f.compat[0].where)
        merged.variables.update(f.variables)
        merged.const.update(f.const)
        merged.locals.update(f.locals)
        merged.legacy_provider_versions += f.legacy_provider_versions
    return merged


def _not_a_registry_address(source_text: str, where: SourceRange, product: Product,
                            hint: str = "") -> ConfigurationError:
    """OpenTofu's error for a call with ``version`` whose source is not a registry address
    (``internal/configs/module_call.go`` decodeStaticSource, the parser's reason from
    ``internal/addrs/module_source.go`` ParseModuleSourceRegistry), cited at ``source``."""
    if is_local(source_text):
        reason = f"can't use local directory {json.dumps(source_text)} as a module registry address"
    else:
        try:
            parse_registry(source_text, product.registry_host)
            reason = f"{json.dumps(source_text)} is not a module registry address"
        except SourceAddressError as e:
            reason = e.detail.rstrip(".")
    return ConfigurationError("Invalid registry module source address",
                              f"Failed to parse module registry address: {reason}.\n\nOpenTofu assumed that you "
                              'intended a module registry source address because you also set the argument "version", '
                              f"which applies only to registry modules.{hint}", where)


def _check_repetition(raw: _RawCall) -> None:
    """At most one of ``count``, ``lifecycle { enabled }`` and ``for_each`` (OpenTofu
    ``internal/configs/module_call.go`` decodeModuleBlock, message from
    ``internal/configs/validation.go`` complainRngAndMsg: the arguments named in that order,
    cited at the first one written).

    Raises:
        ConfigurationError: "Invalid combination of ..."."""
    present = [(name, v) for name, v in (("count", raw.args.get("count")), ("enabled", raw.enabled),
                                         ("for_each", raw.args.get("for_each"))) if v is not None]
    if len(present) < 2:
        return
    names = [f'"{name}"' for name, _ in present]
    if len(names) >= 3:
        names[-1] = "and " + names[-1]
    msg = (", " if len(names) >= 3 else " and ").join(names)
    first = min((v.where for _, v in present), key=lambda w: w.line)
    raise ConfigurationError(f"Invalid combination of {msg}",
                             f"The {msg} meta-arguments are mutually-exclusive. Only one should be used to be "
                             "explicit about the number of module instances to be created.", first)


def _module_call(raw: _RawCall, scope: _Scope, product: Product = OPENTOFU) -> ModuleCall:
    _check_repetition(raw)
    src_v = raw.args.get("source")
    if src_v is None:
        raise ConfigurationError("Missing required argument",
                                 f'The argument "source" is required in module "{raw.name}".', raw.where)
    source_text = scope.static(src_v, f'The source of module "{raw.name}"')
    if not isinstance(source_text, str):
        raise ConfigurationError("Invalid value", f'The source of module "{raw.name}" must be a string.',
                                 src_v.where)
    try:
        source = parse_source(source_text, product.registry_host)
    except OciGetterError as e:  # refused when tofu downloads it: internal/initwd/module_install.go
        raise ConfigurationError("Failed to download module",
                                 f'Could not download module "{raw.name}" ({raw.where.file}:{raw.where.line}) source '
                                 f'code from "{e.package}": {e.getter_error}', raw.where) from None
    except SourceAddressError as e:
        if "version" in raw.args and raw.args["version"].raw is not None:
            # internal/configs/module_call.go decodeStaticSource: with a version argument the
            # source is read as a registry address, and its error is that parser's
            raise _not_a_registry_address(source_text, src_v.where, product) from None
        raise ConfigurationError(e.summary, f'Module "{raw.name}": {e.detail}', src_v.where) from None
    version = None
    ver_v = raw.args.get("version")
    if ver_v is not None:
        text = scope.static(ver_v, f'The version of module "{raw.name}"')
        if text is not None:
            if isinstance(text, (int, float)) and not isinstance(text, bool):
                text = str(text)
            if not isinstance(text, str):
                raise ConfigurationError("Invalid version constraint",
                                         f'The version of module "{raw.name}" must be a string.', ver_v.where)
            try:
                version = module_constraint(text)
            except TofuSolveError as e:
                raise ConfigurationError(e.summary, e.detail, ver_v.where) from None
            if isinstance(source, LocalSource):
                raise _not_a_registry_address(source_text, src_v.where, product)
            if isinstance(source, RemoteSource) and source.kind is not SourceKind.GIT:
                raise ConfigurationError(
                    "Invalid registry module source address",
                    f'Cannot apply a version constraint to module "{raw.name}" (at {raw.where.file}:'
                    f"{raw.where.line}) because it doesn't come from a module registry, a git repository or an "
                    "OCI registry.", ver_v.where)
            if isinstance(source, RemoteSource) and source.git.ref:
                raise ConfigurationError(
                    "Conflicting version selection",
                    f'Module "{raw.name}" sets both ?ref={source.git.ref} and a version constraint; use one: '
                    "the constraint selects a tag, ?ref pins one.", ver_v.where)
            if isinstance(source, OciSource) and (source.tag or source.digest):
                raise ConfigurationError(
                    "Conflicting version selection",
                    f'Module "{raw.name}" sets both a ?tag/?digest and a version constraint; use one.', ver_v.where)
    return ModuleCall(raw.name, source_text, source, version, raw.where,
                      ver_v.where if ver_v is not None and version is not None else None,
                      "count" in raw.args, "for_each" in raw.args, src_v.where)


def _literal(v: _Value, what: str, summary: str, detail: str) -> Any:
    """``v``'s value when it needs no variables, locals or functions (HCL's ``Value(nil)``), else
    ConfigurationError(summary, detail) at ``v``: a provider requirement is decoded without an
    evaluation context (internal/configs/provider_requirements.go decodeRequiredProvidersBlock,
    in OpenTofu and Terraform alike), so ``version = var.v`` there is refused, not evaluated."""
    try:
        return _Scope({}, {}).static(v, what)
    except ConfigurationError:
        raise ConfigurationError(summary, detail, v.where) from None


def _provider_reqs(merged: _FileItems, scope: _Scope, product: Product = OPENTOFU) -> list[RequiredProvider]:
    out: list[RequiredProvider] = []
    sources: dict[str, ProviderAddress] = {}
    for req in merged.provider_reqs:
        v = req.value
        source_text, ver_text, legacy = None, None, False
        obj = None
        if v.is_json:
            if isinstance(v.raw, dict):
                obj = {k: _Value(x, v.where, True) for k, x in v.raw.items()}
            elif isinstance(v.raw, str):
                ver_text, legacy = v.raw, True
            else:
                raise ConfigurationError("Invalid required_providers object",
                                         f'required_providers entry "{req.name}" must be an object.', v.where)
        else:
            obj = {k: _Value(e, req.item_where.get(k, v.where)) for k, e in (v.raw.object_items() or {}).items()} \
                if v.raw.object_items() is not None else None
            if obj is None:
                val = _literal(v, f'The required_providers entry "{req.name}"', "Invalid required_providers object",
                               "required_providers entries must be strings or objects.")
                if not isinstance(val, str):
                    raise ConfigurationError("Invalid required_providers object",
                                             f'required_providers entry "{req.name}" must be an object with '
                                             "source and version.", v.where)
                ver_text, legacy = val, True
        if obj is not None:
            if "source" in obj:
                source_text = _literal(obj["source"], f'The source of provider "{req.name}"', "Invalid source",
                                       "Source must be specified as a string.")
            if "version" in obj:
                ver_text = _literal(obj["version"], f'The version of provider "{req.name}"',
                                    "Invalid version constraint", "Version must be specified as a string.")
        try:
            text = source_text if source_text else req.name
            if isinstance(text, str) and (len(text.split("/")) > 3 or "" in text.split("/")):
                # internal/addrs ParseProviderSourceString's own words for a malformed string
                raise ProviderAddressError("Invalid provider source string",
                                           'The "source" attribute must be in the format "[hostname/][namespace/]name"')
            addr = parse_provider_source(text, product.registry_host)
        except ProviderAddressError as e:  # cited at the source argument (provider_requirements.go)
            at = obj["source"].where if obj is not None and "source" in obj else v.where
            raise ConfigurationError(e.summary, e.detail, at) from None
        sources[req.name] = addr
        constraint = None
        if ver_text is not None:
            try:
                constraint = provider_constraint(str(ver_text))
            except TofuSolveError as e:
                at = obj["version"].where if obj is not None and "version" in obj else v.where
                raise ConfigurationError(e.summary, f'Provider "{req.name}": {e.detail}', at) from None
        # cited at the attribute that imposes the constraint (issue #24: one way to cite a place)
        at = obj["version"].where if obj is not None and "version" in obj and constraint is not None else v.where
        out.append(RequiredProvider(req.name, addr, constraint, at, legacy))
    for name, v in merged.legacy_provider_versions:
        text = scope.static(v, f'The version of provider "{name}"')
        try:
            addr = sources.get(name) or parse_provider_source(name, product.registry_host)
            constraint = provider_constraint(str(text))
        except TofuSolveError as e:
            raise ConfigurationError(e.summary, f'Provider "{name}": {e.detail}', v.where) from None
        out.append(RequiredProvider(name, addr, constraint, v.where, True))
    # Providers used by resources, data sources and provider blocks without a
    # required_providers entry: hashicorp/<local name>, no constraint (OpenTofu
    # internal/configs/config.go ProviderRequirements: implied providers). "terraform" is
    # the built-in provider, which is never installed or locked.
    named = {r.local_name for r in out}
    for name, where in merged.implied_providers:
        if name in named or name == "terraform":
            continue
        named.add(name)
        try:
            addr = parse_provider_source(name, product.registry_host)
        except ProviderAddressError:
            continue  # OpenTofu reports the block itself; nothing to lock
        out.append(RequiredProvider(name, addr, None, where, False))
    return out


def _core_reqs(merged: _FileItems, scope: _Scope, product: Product = OPENTOFU) -> list[CoreVersionRequirement]:
    out = []
    kinds = [("required_version", merged.required_versions)]
    if product.reads_tofu_files:  # Terraform has no language { compatible_with } block
        kinds.append(("compatible_with", merged.compat))
    for kind, values in kinds:
        for v in values:
            text = scope.static(v, f"The {kind} constraint")
            try:
                c = module_constraint(str(text))
            except TofuSolveError as e:
                raise ConfigurationError(e.summary, e.detail, v.where) from None
            if any(item.prerelease for item in c.parsed.items):
                raise ConfigurationError(
                    f"Invalid {product.name} version constraint",
                    f"Prerelease versions cannot be used in {product.name} version constraints: {text!r}.", v.where)
            tofu_file = v.where.file.endswith((".tofu", ".tofu.json"))
            out.append(CoreVersionRequirement(c, v.where, kind, tofu_file))
    return out


def load_module_dir(directory: str | os.PathLike | ModuleDir, display_prefix: str = "",
                    inputs: Mapping[str, InputValue] | None = None, product: Product = OPENTOFU,
                    strict: bool = True) -> ModuleConfig:
    """Read the module in ``directory`` (a path, or a :mod:`~tofu_solve.config.files` directory:
    on disk or of a package held in memory) as ``product`` reads it (which files, the default
    registry host of addresses without one, which version constraints exist:
    :mod:`tofu_solve.addrs.product`).

    ``display_prefix`` is prepended to file names in messages and :class:`SourceRange`
    values (e.g. ``"modules/vpc/"``); by default names are relative to the directory.
    ``inputs``: values given from outside for the module's variables (the root module's,
    :func:`tofu_solve.config.variables.collect_input_values`), used before defaults.
    ``strict`` (the default): every argument of the blocks the solve reads is parsed, so a
    syntax error in any of them is reported as ``tofu`` reports it; without it (a module
    package), only the arguments the solve evaluates are parsed (module calls' ``source``
    and ``version``, the locals and variables they refer to...).

    Raises:
        ConfigurationError: unreadable directory, broken HCL/JSON, invalid argument,
            constraint or source, unsupported expression; each with file and line.
    """
    d = module_dir(directory)
    primary, override = config_file_names(d, product)

    def read(name: str) -> _FileItems:
        display = display_prefix + name
        try:
            return _read_json(d, name, display) if name.endswith(".json") else _read_hcl(d, name, display, strict)
        except RecursionError:
            raise ConfigurationError("Configuration nested too deeply",
                                     f"{display} nests blocks, objects or expressions too deeply to be read.",
                                     SourceRange(display, 1)) from None

    files = [read(n) for n in primary]
    overrides = [read(n) for n in override]
    merged = _merge(files, overrides)
    scope = _Scope(merged.variables, merged.locals, inputs, merged.const, product)
    unknown = [u for f in files + overrides for u in f.unknown_blocks]
    if strict and unknown and not _excludes_newest(merged, scope, product):
        # the user's own module: refused as OpenTofu refuses it, before anything is fetched;
        # OpenTofu reports an unsupported version instead of any other error (parser_config.go)
        raise unsupported_block(unknown[0][0], TOP_LEVEL_BLOCKS, unknown[0][1])
    seen: dict[str, ModuleCall] = {}
    calls = []
    for raw in merged.calls:
        call = _module_call(raw, scope, product)
        if call.name in seen:
            prev = seen[call.name]
            raise ConfigurationError("Duplicate module call",
                                     f'A module call named "{call.name}" was already declared at '
                                     f"{prev.where.file}:{prev.where.line}.", call.where)
        seen[call.name] = call
        calls.append(call)
    if product.reads_tofu_files:  # Terraform has no symbol libraries (nor language block)
        enabled = _check_experiments(merged)
        if merged.symbol_calls and not enabled:  # internal/configs/module.go NewModule
            raise ConfigurationError("Language Experiment not enabled",
                                     "This module depends on features that are not yet stable and are only "
                                     f'available with the "{SYMBOL_LIBRARIES}" experiment enabled',
                                     merged.symbol_calls[0].where)
        calls += _symbol_calls(merged.symbol_calls, product,
                               ("Duplicate symbols", "Symbol calls must have unique names within a module."))
    return ModuleConfig(Path(os.fspath(d)), tuple(primary + override), tuple(calls),
                        tuple(_provider_reqs(merged, scope, product)),
                        tuple(_core_reqs(merged, scope, product)))
