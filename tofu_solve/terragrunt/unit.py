"""A Terragrunt unit as the root the solver takes (issue #73 §2).

A unit's module is what Terragrunt downloads into ``.terragrunt-cache/…`` and runs the
client in, with the unit directory's files copied over it
(``internal/runner/run/download_source.go`` ``DownloadTerraformSource``). tofu-solve solves
it as a root module with one call, :data:`UNIT_CALL`, whose source is the unit's
``terraform.source`` (a ``tfr://`` address read as the registry address it names) and whose
constraint is the unit's ``version`` range, jointly with that module's own calls, its
providers, the providers the unit's ``generate`` blocks require and
``terraform_version_constraint``. A local source is followed instead: its directory is the
root, as in the working copy.

Call paths are therefore ``unit`` and ``unit.NAME`` in the lock, ``why`` and ``graph``
(``NAME`` alone for a local source): in Terragrunt's working copy the module's calls are
root calls named ``NAME``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from dataclasses import replace as with_field
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlsplit

from .. import confined
from ..addrs.module_source import parse_source
from ..addrs.product import OPENTOFU, TERRAFORM, Product
from ..config import CoreVersionRequirement, ModuleCall, load_module_dir
from ..config.files import MemoryDir, PackageFiles
from ..config.tree import ModuleTree, RemoteCall, read_module_tree
from ..errors import ConfigurationError, SourceRange
from ..output_edge import one_line
from ..versions.constraints import module_constraint
from ..versions.target import VERSION_FILES, TargetVersion, newest_release
from . import CONFIG_FILE
from .read import Located, NeedsTerragrunt, UnitConfig, UnitReader, comment_range, marked_as_pin
from .stack import instances_of

UNIT_CALL = "unit"
"""The name of the call that stands for the unit's module in the root tofu-solve solves."""

TG_DEFAULT_HOST_VARIABLE = "TG_TF_DEFAULT_REGISTRY_HOST"
"""The environment variable that names ``tfr:///``'s host (``tf.DefaultRegistryDomain``)."""


class UnitLeftOut(ConfigurationError):
    """A unit whose source or version only Terragrunt's runtime knows: named with the
    reason and left out of the solve (issue #73 §1)."""


@dataclass(frozen=True)
class Unit:
    """One unit, read.

    Attributes:
        config: what was read (:class:`~.read.UnitConfig`).
        source_text: the unit module's source as a module call writes it (``tfr://`` read as
            a registry address; a local source as a path relative to the unit).
        kind: ``registry``, ``git``, ``oci``, ``local`` or ``other``.
        range: the version constraint tofu-solve solves the module with (None: any; for
            ``tfr://`` the newest stable release, as Terragrunt takes it since v1.0.7).
        range_where: where that range is written (the unit's ``source`` line for an inline
            ``?version=``).
        pin: the version tofu-solve pinned in the unit's ``terragrunt.hcl`` (None: no pin).
        pin_at: the ``version`` attribute that holds the pin.
        terragrunt_constraint: what Terragrunt itself resolves the module with: the
            ``version`` attribute as written (pin included), or the inline ``?version=``.
        instances: for a stack's catalog unit, each stack unit generated from it (one lock
            and one set of pins, here, serve them all).
    """

    config: UnitConfig
    source_text: str
    kind: str
    range: str | None
    range_where: SourceRange | None
    pin: str | None = None
    pin_at: Located | None = None
    terragrunt_constraint: str | None = None
    instances: tuple = ()  # a catalog unit's stack units (:class:`.stack.StackInstance`), else empty

    @property
    def dir(self) -> Path:
        return self.config.dir

    @property
    def source_where(self) -> SourceRange:
        assert self.config.source is not None
        return self.config.source.where


def has_unit_file(directory: Path) -> bool:
    return (Path(directory) / CONFIG_FILE).is_file()


def read_unit(directory: Path, environ: Mapping[str, str], display_base: Path | None = None,
              product: Product = OPENTOFU, reads: Callable[[Path], None] | None = None,
              texts: Mapping[Path, str] | None = None) -> Unit | None:
    """The unit at ``directory``, or None when its configuration names no
    ``terraform.source`` (Terragrunt then runs the client in the unit's own directory: a
    plain root module, or an include's parent). ``texts``: an editor's unsaved buffers by
    absolute path, read instead of the disk (the language server, issue #85 §1).

    Raises:
        UnitLeftOut: the source or version needs Terragrunt's runtime (the reason named).
        ConfigurationError: a file of the unit cannot be read or evaluated, with file and line;
            a ``version`` attribute beside a non-``tfr://`` source or an inline ``?version=``
            (Terragrunt's ``ValidateVersion``, ``pkg/config/config.go``).
    """
    reader = UnitReader(directory, environ, display_base, reads=reads, texts=texts)
    shown = reader.shown(reader.config_path)
    try:
        cfg = reader.read()
    except NeedsTerragrunt as e:
        if e.what.startswith("values."):  # a stack's catalog unit: read for each unit generated from it
            return _catalog_unit(Path(directory), environ, display_base, product, reads, e, shown, texts)
        raise _left_out(e, shown) from None
    if cfg.source is None:
        return None
    return unit_of(cfg, environ, product)


def _left_out(e: NeedsTerragrunt, shown: str) -> UnitLeftOut:
    return UnitLeftOut("Unit left out", f"Its configuration reads {e.what}, which only Terragrunt knows when it "
                       "runs; tofu-solve cannot tell which module it installs. Write the source and version as values "
                       "tofu-solve can read (locals, get_env with a default, the path functions).",
                       SourceRange(shown, e.line))


def _catalog_unit(directory: Path, environ: Mapping[str, str], display_base: Path | None, product: Product,
                  reads: Callable[[Path], None] | None, first: NeedsTerragrunt, shown: str,
                  texts: Mapping[Path, str] | None = None) -> Unit | None:
    """A catalog unit, read with the ``values`` of each stack unit generated from it
    (:mod:`.stack`): one lock in the catalog serves them all, so they must agree on the
    module and its range.

    Raises:
        UnitLeftOut: no stack of the repository generates it (``values`` is then unknown).
        ConfigurationError: "Stack units disagree", each instance named with its source and range.
    """
    instances = instances_of(directory, environ, display_base)
    if not instances:
        raise UnitLeftOut("Unit left out", f"Its configuration reads {first.what}, which a stack gives it, and no "
                          "terragrunt.stack.hcl of the repository generates a unit from this directory.",
                          SourceRange(shown, first.line))
    units = []
    for inst in instances:  # each read where stack generate writes it (the path functions answer for there)
        try:
            cfg = UnitReader(inst.generated, environ, display_base, reads=reads, values=inst.values,
                             source_file=Path(directory) / CONFIG_FILE, texts=texts).read()
        except NeedsTerragrunt as e:
            raise _left_out(e, shown) from None
        if cfg.source is None:
            return None
        units.append(unit_of(cfg, environ, product))
    if len({(u.source_text, u.kind, u.range) for u in units}) > 1:
        listed = "; ".join(f'unit "{i.name}" ({i.where}): {u.source_text} "{u.range or "any"}"'
                           for i, u in zip(instances, units, strict=True))
        raise ConfigurationError("Stack units disagree",
                                 f"The stack units generated from {shown} read different modules or ranges: {listed}. "
                                 "stack generate copies this catalog unit's lock and pins into each of them, so they "
                                 "can hold one version: give them one range, or generate them from separate catalog "
                                 "units.", instances[0].where)
    return with_field(units[0], instances=tuple(instances))


def unit_root(root: Path, display_prefix: str, environ: Mapping[str, str], product: Product = OPENTOFU,
              reads: Callable[[Path], None] | None = None, texts: Mapping[Path, str] | None = None) -> Unit | None:
    """The unit whose directory is ``root``, or None when ``root`` is not one (no
    ``terragrunt.hcl``, or one without ``terraform.source``: the client runs in ``root``
    itself, a plain root module). Files are cited as the root's own are
    (``display_prefix``). Raises as :func:`read_unit`."""
    if not has_unit_file(root) and not (texts and Path(os.path.abspath(root)) / CONFIG_FILE in texts):
        return None
    return read_unit(root, environ, display_base(root, display_prefix), product, reads, texts)


def unit_and_target(root: Path, display_prefix: str, environ: Mapping[str, str], target: TargetVersion,
                    reads: Callable[[Path], None] | None = None,
                    texts: Mapping[Path, str] | None = None) -> tuple[Unit | None, TargetVersion]:
    """:func:`unit_root`, and the target the unit is solved for: ``target``, unless it was
    not named (a flag, a version file) and the unit's ``terraform_binary`` names the other
    product (``terraform`` or ``tofu``, as Terragrunt runs it: ``TerraformBinary``), whose
    newest known release it then is; a ``tfr:///`` source takes that product's registry."""
    unit = unit_root(root, display_prefix, environ, target.product, reads, texts)
    named = target.origin.startswith("-") or target.origin.startswith(tuple(f"{n} in " for n in VERSION_FILES))
    if unit is None or unit.config.binary is None or named:
        return unit, target
    name = os.path.basename(unit.config.binary.value).removesuffix(".exe")
    product = {"terraform": TERRAFORM, "tofu": OPENTOFU}.get(name)
    if product is None or product is target.product:
        return unit, target
    chosen = TargetVersion(newest_release(product), f"terraform_binary in {unit.config.binary.where}", product)
    return unit_root(root, display_prefix, environ, product, reads, texts), chosen


def unit_of(cfg: UnitConfig, environ: Mapping[str, str], product: Product = OPENTOFU) -> Unit:
    """:class:`Unit` of ``cfg``: the source read as a module source, the range and the pin
    told apart (:mod:`.pins`: a ``version`` attribute marked ``# tofu-solve pin`` ends in
    ``= VERSION``; what comes before it is the range, else the range is the ``version`` it
    replaces)."""
    assert cfg.source is not None
    raw = cfg.source.value.strip()
    version = cfg.version
    if raw.startswith("tfr://"):
        address, inline = tfr_address(raw, environ, product, cfg.source.where)
        if version is not None and inline is not None:
            raise ConfigurationError("Version set twice", "The unit sets a version attribute and its tfr:// source "
                                     "has a ?version=; Terragrunt refuses both (VersionAttributeSourceConstraint"
                                     "ConflictError). Keep one.", version.where)
        if inline is not None:
            return Unit(cfg, address, "registry", inline, cfg.source.where, terragrunt_constraint=inline)
        if version is None:
            return Unit(cfg, address, "registry", None, None)
        if marked_as_pin(version):
            range_text, pin = split_pin(version.value)
            if pin is not None:
                if range_text:
                    return Unit(cfg, address, "registry", range_text, version.where, pin, version, version.value)
                below = cfg.version_below
                return Unit(cfg, address, "registry", below.value if below else None,
                            below.where if below else None, pin, version, version.value)
        return Unit(cfg, address, "registry", version.value, version.where, terragrunt_constraint=version.value)
    if version is not None:
        raise ConfigurationError("Version attribute on a non-registry source",
                                 "Terragrunt accepts the version attribute only with a tfr:// source "
                                 "(VersionAttributeNonRegistrySourceError); git and OCI sources take an exact ref.",
                                 version.where)
    kind = source_kind(raw)
    if kind == "local":
        path = raw.removeprefix("file://")
        return Unit(cfg, path.replace("//", "/") if "//" in path else path, "local", None, None)
    if kind in ("git", "oci"):
        return _ranged(cfg, kind) or Unit(cfg, raw, kind, None, None)
    return Unit(cfg, raw, kind, None, None)


def ref_key(kind: str) -> str:
    """The query key of a git (``ref``) or OCI (``tag``) source that names its version."""
    return "tag" if kind == "oci" else "ref"


def _ranged(cfg: UnitConfig, kind: str) -> Unit | None:
    """A git or OCI unit with a range (:data:`~.read.RANGE_RE` on its ``source`` line), or
    None. Terragrunt installs the exact ref its source names; the pin is that ref, written
    in the unit's own file: in its ``source`` when the range is written there, else as a
    ``source`` of its own marked ``# tofu-solve pin`` that replaces the include's."""
    assert cfg.source is not None
    top = cfg.source
    pinned = marked_as_pin(top) and cfg.source_below is not None and top.file == cfg.own_file
    base = cfg.source_below if pinned else top
    assert base is not None
    text = comment_range(base)
    if text is None:
        return None
    key = ref_key(kind)
    return Unit(cfg, with_query(base.value.strip(), key, None), kind, text, base.where,
                query_value(top.value, key), top, query_value(top.value, key))


def query_value(raw: str, key: str) -> str | None:
    """The value of ``key`` in a source's query (``ref`` of ``git::…?ref=v1.2.3``)."""
    _, _, query = raw.partition("?")
    for k, v in parse_qsl(query, keep_blank_values=True):
        if k == key:
            return v
    return None


def with_query(raw: str, key: str, value: str | None) -> str:
    """``raw`` with ``key`` set to ``value`` in its query (removed when None); the other
    parameters kept in order."""
    head, _, query = raw.partition("?")
    pairs = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != key]
    if value is not None:
        pairs.append((key, value))
    return head + ("?" + "&".join(f"{quote(k, safe='')}={quote(v, safe='/:@.-_~+')}" for k, v in pairs)
                   if pairs else "")


def source_kind(raw: str) -> str:
    if raw.startswith(("./", "../", "/", "file://")) or raw in (".", ".."):  # file://: go-getter's local copy
        return "local"
    if raw.startswith("oci://"):
        return "oci"
    if raw.startswith(("git::", "github.com/", "bitbucket.org/", "git@")):
        return "git"
    return "other"


def tfr_address(raw: str, environ: Mapping[str, str], product: Product,
                where: SourceRange) -> tuple[str, str | None]:
    """``tfr://HOST/NS/NAME/SYSTEM[//SUBDIR][?version=X]`` as a registry module address
    (the host left out when it is the default one) and the inline version (None when
    absent). ``tfr:///`` takes ``TG_TF_DEFAULT_REGISTRY_HOST``, else the product's registry
    (Terragrunt's ``tf.DefaultRegistryDomain``: ``registry.opentofu.org`` under tofu).

    Raises:
        ConfigurationError: not ``NS/NAME/SYSTEM`` (Terragrunt's
            ``MalformedRegistryURLErr``), or a query other than ``version``.
    """
    parts = urlsplit(raw)
    host = parts.netloc or environ.get(TG_DEFAULT_HOST_VARIABLE, "") or product.registry_host
    path = parts.path.lstrip("/")
    package, _, subdir = path.partition("//")
    segments = package.split("/")
    if len(segments) != 3 or not all(segments):
        raise ConfigurationError("Malformed registry URL", f'The tfr:// source "{raw}" does not name '
                                 "NAMESPACE/NAME/SYSTEM (Terragrunt's MalformedRegistryURLErr).", where)
    query = parse_qsl(parts.query, keep_blank_values=True)
    inline = None
    for key, value in query:
        if key != "version":
            raise ConfigurationError("Unsupported tfr:// query", f'"{key}" is not a query Terragrunt reads on a '
                                     "tfr:// source; only version is.", where)
        inline = value
    address = package if host == product.registry_host else f"{host}/{package}"
    return (f"{address}//{subdir}" if subdir else address), inline


def split_pin(text: str) -> tuple[str, str | None]:
    """``"~> 6.0, = 6.2.1"`` -> (``"~> 6.0"``, ``"6.2.1"``); ``"= 6.2.1"`` -> ("", "6.2.1");
    a text whose last conjunct is not ``= VERSION`` -> (text, None)."""
    conjuncts = [c.strip() for c in text.split(",")]
    last = conjuncts[-1]
    if not last.startswith("=") or last.startswith("=="):
        return text, None
    version = last[1:].strip()
    if not version or any(ch in version for ch in " <>~!"):
        return text, None
    return ", ".join(c for c in conjuncts[:-1] if c), version


def local_module_dir(unit: Unit) -> Path:
    """The directory a local source names, relative to the unit (``..//modules/vpc``: the
    part after ``//`` is the working directory inside the copied tree)."""
    path = Path(os.path.normpath(unit.dir / unit.source_text))
    if unit.config.home != unit.dir and path.is_relative_to(unit.dir):
        # a stack unit: what stack generate will have copied there is its catalog's
        return Path(os.path.normpath(unit.config.home / path.relative_to(unit.dir)))
    return path


def display_base(root: Path, display_prefix: str) -> Path:
    """The directory a root's files are named from: ``root`` less ``display_prefix``
    (``envs/prod/`` under ``-recursive``), as the root's own citations name them."""
    depth = len([p for p in display_prefix.split("/") if p])
    return Path(os.path.normpath(os.path.join(os.path.abspath(root), *([".."] * depth))))


def unit_tree(unit: Unit, product: Product = OPENTOFU, display_prefix: str = ""):
    """The :class:`~tofu_solve.config.tree.ModuleTree` tofu-solve solves for ``unit``: the
    call :data:`UNIT_CALL` (or, for a local source, that directory's own tree), the
    providers its ``generate`` blocks require where their contents are known (cited at
    the ``terragrunt.hcl`` line), and ``terraform_version_constraint``.

    Raises:
        ConfigurationError: the source, the range or a generated file does not parse.
    """
    cfg = unit.config
    providers: list = []
    core: list = []
    for g in cfg.generated:
        providers.extend(((), p) for p in _generated_providers(g, product))
    if cfg.core is not None:
        constraint = _parsed(module_constraint, cfg.core.value, cfg.core.where)
        core.append(((), CoreVersionRequirement(constraint, cfg.core.where, kind="terraform_version_constraint")))
    if unit.kind == "local":
        local = local_module_dir(unit)  # its files named from where the unit's are
        top = confined.boundary(str(unit.dir))
        real = os.path.realpath(local)
        if os.path.lexists(os.path.join(top, ".git")) and not (real == top or real.startswith(top + os.sep)):
            # a pull request's unit must not make init read and copy the machine's files (issue #80 §5)
            raise ConfigurationError("Local source outside the repository",
                                     f"The unit's source names {one_line(unit.source_text)}, outside the repository "
                                     "it is in: tofu-solve reads a unit's local module only from inside it.",
                                     unit.source_where or unit.config.source.where if unit.config.source else None)
        rel = os.path.relpath(local, display_base(unit.config.home, display_prefix)).replace(os.sep, "/")
        tree = read_module_tree(local, confine=False, product=product,
                                display_prefix="" if rel == "." else rel + "/")
        return ModuleTree(tree.remote_calls, tree.local_calls, (*tree.providers, *providers), (*tree.core, *core),
                          tree.variables)
    where = unit.source_where
    try:
        source = parse_source(unit.source_text, product.registry_host)
    except ConfigurationError as e:
        raise ConfigurationError(e.summary, e.detail, where) from None
    version = _parsed(module_constraint, unit.range, unit.range_where or where) if unit.range else None
    call = ModuleCall(UNIT_CALL, unit.source_text, source, version, SourceRange(where.file, where.line, "terraform",
                      where.snippet), unit.range_where, source_where=where, terragrunt=True)
    return ModuleTree((RemoteCall((), call),), (), tuple(providers), tuple(core), ())


def read_root_tree(root: Path, environ: Mapping[str, str], *, product: Product = OPENTOFU,
                   display_prefix: str = "", inputs=None, reads: Callable[[Path], None] | None = None,
                   strict: bool | None = None) -> ModuleTree:
    """The tree of the root at ``root`` as every command reads it: a Terragrunt unit's
    (:func:`unit_tree`), else the root module's (:func:`tofu_solve.config.tree.read_module_tree`,
    with ``inputs`` and ``strict``).

    Raises: as :func:`read_unit` and ``read_module_tree``."""
    unit = unit_root(root, display_prefix, environ, product, reads)
    if unit is not None:
        return unit_tree(unit, product, display_prefix)
    return read_module_tree(root, confine=False, inputs=inputs, product=product, display_prefix=display_prefix,
                            strict=strict)


def _parsed(parse, text: str, where: SourceRange):
    try:
        return parse(text)
    except ConfigurationError as e:
        raise ConfigurationError(e.summary, e.detail, where) from None


def _generated_providers(g, product: Product) -> list:
    """The ``required_providers`` of a generated ``.tf`` file, each cited at the
    ``generate`` block (the file does not exist until Terragrunt writes it)."""
    if g.contents is None or not g.path.endswith((".tf", ".tofu")):
        return []
    name = os.path.basename(g.path)
    package = PackageFiles({name: g.contents.encode("utf-8")}, frozenset({""}))
    try:
        cfg = load_module_dir(MemoryDir(package), product=product)
    except ConfigurationError as e:
        raise ConfigurationError(e.summary, f"In the file generate \"{g.name}\" writes ({g.path}): {e.detail}",
                                 g.where) from None
    return [with_field(r, where=g.at(r.where.line)) for r in cfg.provider_requirements]


__all__ = [
    "UNIT_CALL",
    "Unit",
    "UnitLeftOut",
    "display_base",
    "has_unit_file",
    "local_module_dir",
    "read_root_tree",
    "read_unit",
    "split_pin",
    "tfr_address",
    "unit_and_target",
    "unit_of",
    "unit_root",
    "unit_tree",
]
