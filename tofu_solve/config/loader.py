"""Loading one module directory as OpenTofu does (reference §8): the assembly of the
stages beside it, in the order a directory is read.

1. :mod:`.file_selection`: which files are configuration (``.tf``, ``.tf.json``, ``.tofu``,
   ``.tofu.json`` sorted by name; hidden and backup names ignored; ``X.tofu`` hides
   ``X.tf``), override files apart.
2. :mod:`.read_hcl` and :mod:`.read_json`: each file's raw items (:mod:`.raw`), with
   :mod:`.symbols` for OpenTofu 1.13's ``symbols`` blocks.
3. :func:`_merge` here: override files merged into the primary blocks (their arguments
   replace the primary block's).
4. :mod:`.scope`: ``source`` and ``version`` evaluated statically (literals, ``var.NAME``
   with a literal default, ``local.NAME`` with a literal value, string templates of those);
   anything else is an error with file and line.
5. Here: module calls, provider requirements and OpenTofu version constraints built and
   checked. ``version`` on a local source is an error, as in OpenTofu; on git and OCI
   sources it is allowed (the module-locking RFC's proposal); on other remote sources it
   is an error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from .._lazy import load
from ..addrs.identifiers import symbols_segment
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
from ..addrs.product import OPENTOFU, Product
from ..addrs.provider import ProviderAddress, ProviderAddressError, parse_provider_part, parse_provider_source
from ..addrs.redact import redact
from ..errors import ConfigurationError, SourceAddressError, SourceRange, TofuSolveError
from ..versions.constraints import module_constraint, provider_constraint
from . import hcl
from .file_selection import _ignored, _read_text, config_file_names
from .files import ModuleDir, module_dir
from .module_dir import UNKNOWN, CoreVersionRequirement, ModuleCall, ModuleConfig, ProviderConfig, RequiredProvider
from .raw import TOP_LEVEL_BLOCKS, _check_provider_name, _FileItems, _RawCall, _Value, unsupported_block
from .read_hcl import _read_hcl
from .read_json import _read_json
from .scope import _Scope
from .symbols import SYMBOL_FILE_SUFFIX, SYMBOL_LIBRARIES, _check_experiments, _raw_symbols_call
from .variables import InputValue


def _excludes_newest(merged: _FileItems, scope, product: Product) -> bool:
    """Whether the module's version constraints exclude the newest release of ``product``
    tofu-solve knows: then OpenTofu reports that, not the module's other errors, which may
    be a newer release's syntax (``internal/configs/parser_config.go``)."""
    load("tofu_solve.versions.target")
    from ..versions.target import newest_release

    try:
        newest = newest_release(product)
        return any(not c.constraint.allows(newest) for c in _core_reqs(merged, scope, product))
    except TofuSolveError:
        return False


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
        merged.provider_blocks += f.provider_blocks
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
        merged.provider_blocks += f.provider_blocks  # merged by name and alias in _provider_configs
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
            if isinstance(source, LocalSource):
                # before the constraint is read: with "version" the source is read as a registry
                # address first (internal/configs/module_call.go decodeStaticSource), so an
                # invalid constraint on a local source is this error too
                # (internal/initwd TestModuleInstaller_invalidVersionConstraintLocal)
                raise _not_a_registry_address(source_text, src_v.where, product)
            if not isinstance(text, str):
                raise ConfigurationError("Invalid version constraint",
                                         f'The version of module "{raw.name}" must be a string.', ver_v.where)
            try:
                version = module_constraint(text)
            except TofuSolveError as e:
                raise ConfigurationError(e.summary, e.detail, ver_v.where) from None
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
                      "count" in raw.args, "for_each" in raw.args, src_v.where,
                      arguments=tuple((n, v.where) for n, v in raw.args.items()))


def _literal(v: _Value, what: str, summary: str, detail: str) -> Any:
    """``v``'s value when it needs no variables, locals or functions (HCL's ``Value(nil)``), else
    ConfigurationError(summary, detail) at ``v``: a provider requirement is decoded without an
    evaluation context (internal/configs/provider_requirements.go decodeRequiredProvidersBlock,
    in OpenTofu and Terraform alike), so ``version = var.v`` there is refused, not evaluated."""
    try:
        return _Scope({}, {}).static(v, what)
    except ConfigurationError:
        raise ConfigurationError(summary, detail, v.where) from None


def _requirement_value(v: _Value, what: str, summary: str, detail: str, scope: _Scope,
                       product: Product) -> tuple[Any, str]:
    """A ``required_providers`` entry's ``source`` or ``version``, and what it read when it
    is not a literal ("" when it is). Terraform 1.17 evaluates const variables and locals
    there as it evaluates a module's ``source`` and ``version`` since 1.15
    (hashicorp/terraform#39153): for Terraform, a non-literal value is evaluated statically
    (:meth:`_Scope.static`, with its errors for a variable not declared ``const = true``),
    and a target before 1.17 refuses it later, where the target is known
    (:func:`tofu_solve.workdir.overrides.refuse_unloadable`). OpenTofu refuses it here, as
    :func:`_literal` says.

    Raises:
        ConfigurationError: as :func:`_literal` (OpenTofu), or as :meth:`_Scope.static`.
    """
    try:
        return _literal(v, what, summary, detail), ""
    except ConfigurationError:
        if not product.static_needs_const:  # OpenTofu: no evaluation context in required_providers
            raise
    return scope.static(v, what), scope.provenance(v)


def _check_entry(name: str, obj: dict | None, where: SourceRange) -> None:
    """A ``required_providers`` entry's name and keys, as decodeRequiredProvidersBlock
    checks them (``internal/configs/provider_requirements.go``): a plain version string's
    name is the provider type (ParseProviderPart: "Invalid provider name"); an object's is a
    normalized local name (checkProviderNameNormalized), and it holds only ``version``,
    ``source`` and ``configuration_aliases``.

    Raises:
        ConfigurationError: in OpenTofu's words, at the entry (an extra key: at the key).
    """
    if obj is None:
        try:
            parse_provider_part(name)
        except ValueError as e:
            raise ConfigurationError("Invalid provider name", str(e), where) from None
        return
    _check_provider_name(name, where)
    extra = next((k for k in obj if k not in ("version", "source", "configuration_aliases")), None)
    if extra is not None:
        raise ConfigurationError(
            "Invalid required_providers object",
            'required_providers objects can only contain "version", "source" and "configuration_aliases" '
            'attributes. To configure a provider, use a "provider" block.', obj[extra].where)


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
        via = ""
        if obj is not None:
            _check_entry(req.name, obj, v.where)
            if "source" in obj:
                source_text, read = _requirement_value(obj["source"], f'The source of provider "{req.name}"',
                                                       "Invalid source", "Source must be specified as a string.",
                                                       scope, product)
                via = f"source = {read}" if read else ""
            if "version" in obj:
                ver_text, read = _requirement_value(obj["version"], f'The version of provider "{req.name}"',
                                                    "Invalid version constraint",
                                                    "Version must be specified as a string.", scope, product)
                via = ", ".join(x for x in (via, f"version = {read}" if read else "") if x)
        if legacy:
            _check_entry(req.name, None, v.where)
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
        out.append(RequiredProvider(req.name, addr, constraint, at, legacy, via))
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
    reqs = tuple(_provider_reqs(merged, scope, product))
    return ModuleConfig(Path(os.fspath(d)), tuple(primary + override), tuple(calls), reqs,
                        tuple(_core_reqs(merged, scope, product)), tuple(merged.variables),
                        _provider_configs(merged, scope, reqs, product))


def _provider_configs(merged: _FileItems, scope: _Scope, reqs: tuple[RequiredProvider, ...],
                      product: Product) -> tuple[ProviderConfig, ...]:
    """The module's ``provider`` blocks as policies bind them (issue #69 §1): each argument's
    value where it is known without a plan (:meth:`_Scope.static`: literals, variables with a
    value, templates of those), else :data:`UNKNOWN`; a block of an override file merges into
    the one of the same name and alias (OpenTofu's ``mergeProvider``: its arguments win)."""
    by_name = {r.local_name: str(r.address) for r in reqs}
    out: dict[tuple[str, str | None], ProviderConfig] = {}
    for b in merged.provider_blocks:
        attrs = _static_body(b.body, b.is_json, scope, f'provider "{b.name}"', b.where, 0)
        alias = attrs.get("alias") if isinstance(attrs.get("alias"), str) else None
        try:
            address = by_name.get(b.name) or str(parse_provider_source(b.name, product.registry_host))
        except TofuSolveError:
            continue
        key = (b.name, alias)
        if key in out:
            attrs = {**out[key].attrs, **attrs}
        out[key] = ProviderConfig(b.name, address, alias, attrs, out[key].where if key in out else b.where)
    return tuple(out.values())


def _static_body(body: Any, is_json: bool, scope: _Scope, what: str, where: SourceRange, depth: int) -> dict:
    if depth > 8:
        return {}
    out: dict[str, Any] = {}
    if is_json:
        for k, v in (body.items() if isinstance(body, dict) else []):
            if k != "//":
                out[k] = UNKNOWN if isinstance(v, str) and "${" in v else v
        return out
    for a in body.attributes:
        try:
            out[a.name] = scope.static(_Value(a.expr, where), f"{what}: {a.name}")
        except TofuSolveError:
            out[a.name] = UNKNOWN
    for nested in body.blocks:
        out.setdefault(nested.type, []).append(_static_body(nested.body, False, scope, what, where, depth + 1))
    return out
