"""The requirements of one module version: what its content asks for.

A module version's requirements are read from the module directory it names (its subdir)
and from every local module it calls, recursively (OpenTofu merges the provider
requirements of every module in the tree, whatever its ``count``):

* remote module calls, each with the path of local call names leading to it
  (``("eks_managed_node_group", "user_data")``) so call paths come out as OpenTofu keys
  them (``eks.eks_managed_node_group.user_data``);
* provider requirements and OpenTofu version constraints of every directory.

File names in these values are relative to the package root (``modules/x/versions.tf``).
:class:`tofu_solve.store.metadata.MetadataStore` caches them on disk by (package, version,
subdir), so a second run needs no network to know them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .._threads import NOTHING, start_thread
from ..addrs.module_source import LocalSource, go_path_clean, parse_source
from ..addrs.product import OPENTOFU, Product
from ..addrs.provider import parse_provider_source
from ..errors import ConfigurationError, SourceRange
from ..versions.constraints import module_constraint, provider_constraint
from . import CoreVersionRequirement, ModuleCall, RequiredProvider, load_module_dir
from .files import ModuleDir, module_dir
from .loader import load_symbol_dir
from .variables import InputValue

SCHEMA = 5  # 2: a provider requirement is cited at its version attribute; 3: a call at its source too;
# 4: symbol libraries (a call's "symbols" flag); 5: a call's arguments and a module's variables


@dataclass(frozen=True)
class RemoteCall:
    """A remote module call inside a module tree.

    Attributes:
        local_path: names of the local calls leading to the module that makes this call.
        call: the call (``where`` relative to the tree's root directory).
    """

    local_path: tuple[str, ...]
    call: ModuleCall

    @property
    def rel_path(self) -> tuple[str, ...]:
        return self.local_path + (self.call.name,)


@dataclass(frozen=True)
class LocalCall:
    """A local module call inside a tree: its path and where it was written."""

    path: tuple[str, ...]
    call: ModuleCall
    dir: str  # directory relative to the tree root ("" for the root)


@dataclass(frozen=True)
class ModuleTree:
    """Everything a module directory and its local modules require.

    Attributes:
        remote_calls: remote calls, in file order, depth first.
        local_calls: local calls followed (for modules.json and ``why``).
        providers: (local path, requirement).
        core: (local path, OpenTofu version constraint).
        variables: the variables the top module directory declares (what a call of this
            module may set), in file order.
    """

    remote_calls: tuple[RemoteCall, ...] = ()
    local_calls: tuple[LocalCall, ...] = ()
    providers: tuple[tuple[tuple[str, ...], RequiredProvider], ...] = ()
    core: tuple[tuple[tuple[str, ...], CoreVersionRequirement], ...] = ()
    variables: tuple[str, ...] = ()


def read_module_tree(root: Path | ModuleDir, subdir: str = "", *, confine: bool = True,
                     inputs: Mapping[str, InputValue] | None = None, product: Product = OPENTOFU,
                     display_prefix: str = "", strict: bool | None = None, symbols: bool = False) -> ModuleTree:
    """Read the module at ``root/subdir`` and its local modules, as ``product`` reads them
    (:func:`tofu_solve.config.loader.load_module_dir`); ``root`` is a directory on disk or
    a package's files held in memory (:class:`tofu_solve.config.files.MemoryDir`).

    Symbol libraries (``symbols`` blocks) are followed as OpenTofu follows them: a local
    one's directory, and a remote one's package, is read for its ``*.sym.hcl`` files only
    (:func:`tofu_solve.config.loader.load_symbol_dir`), whose own ``symbols`` blocks are
    followed in turn, under the path segment ``symbols:name``. With ``symbols``, the
    directory at ``root/subdir`` is itself a symbol library (a library package's tree).

    ``confine``: local paths must stay inside ``root`` (true for packages; the user's own
    root module may call ``../`` anywhere). ``strict`` (by default ``not confine``): every
    argument of the blocks the solve reads is parsed, so that the user's syntax errors are
    reported (:func:`tofu_solve.config.loader.load_module_dir`); without it only the
    arguments the solve evaluates are. ``inputs``: the top module's variable values
    given from outside (``-var``, ``TF_VAR_*``, ``*.tfvars``). ``display_prefix`` is prepended
    to every file name cited (``envs/prod/`` under ``init -recursive``: files are named
    relative to the directory the user ran in).

    Raises:
        ConfigurationError: a directory fails to load (with file and line), a local call
            escapes the package, or local calls form a cycle.
    """
    remote: list[RemoteCall] = []
    local: list[LocalCall] = []
    providers: list = []
    core: list = []
    top_variables: list[tuple[str, ...]] = []
    base = module_dir(root)

    def follow(calls, rel_dir: str, path: tuple[str, ...], seen: tuple[str, ...]) -> None:
        for call in calls:
            if isinstance(call.source, LocalSource):
                target = go_path_clean(f"{rel_dir}/{call.source.path}" if rel_dir else call.source.path)
                if target == ".":
                    target = ""
                if confine and (target == ".." or target.startswith("../")):
                    raise ConfigurationError(
                        "Local module outside its package",
                        f'Module "{call.name}" calls {call.source.path}, which is outside the module package.',
                        call.where)
                if target in seen:
                    raise ConfigurationError("Module call cycle",
                                             f'Module "{call.name}" calls {call.source.path}, which is already '
                                             "being loaded: local module calls form a cycle.", call.where)
                local.append(LocalCall(path + (call.name,), call, target))
                if not base.child(target).exists():
                    raise ConfigurationError("Unreadable module directory",
                                             f'Module "{call.name}" calls {call.source.path}, which does not exist.',
                                             call.where)
                (visit_symbols if call.symbols else visit)(target, path + (call.name,), seen + (target,))
            else:
                remote.append(RemoteCall(path, call))

    def visit(rel_dir: str, path: tuple[str, ...], seen: tuple[str, ...]) -> None:
        prefix = display_prefix + (f"{rel_dir}/" if rel_dir else "")
        cfg = load_module_dir(base.child(rel_dir), display_prefix=prefix,
                              inputs=inputs if not path else None, product=product,
                              strict=(not confine) if strict is None else strict)
        for p in cfg.provider_requirements:
            providers.append((path, p))
        for c in cfg.core_requirements:
            core.append((path, c))
        if not path:
            top_variables.append(cfg.variables)
        follow(cfg.module_calls, rel_dir, path, seen)

    def visit_symbols(rel_dir: str, path: tuple[str, ...], seen: tuple[str, ...]) -> None:
        prefix = display_prefix + (f"{rel_dir}/" if rel_dir else "")
        follow(load_symbol_dir(base.child(rel_dir), display_prefix=prefix, product=product), rel_dir, path, seen)

    start = go_path_clean(subdir) if subdir else ""
    if start == ".":
        start = ""
    (visit_symbols if symbols else visit)(start, (), (start,))
    return ModuleTree(tuple(remote), tuple(local), tuple(providers), tuple(core),
                      top_variables[0] if top_variables else ())


# --------------------------------------------------------------------------- cache


def _call_to_dict(c: ModuleCall) -> dict:
    return {"name": c.name, "source": c.source_text, "version": c.version.text if c.version else None,
            "file": c.where.file, "line": c.where.line,
            "vfile": c.version_where.file if c.version_where else None,
            "vline": c.version_where.line if c.version_where else None,
            "sfile": c.source_where.file if c.source_where else None,
            "sline": c.source_where.line if c.source_where else None,
            "count": c.has_count, "for_each": c.has_for_each, "symbols": c.symbols,
            "arguments": [[n, w.file, w.line] for n, w in c.arguments]}


def _call_from_dict(d: dict, host: str) -> ModuleCall:
    return ModuleCall(d["name"], d["source"], parse_source(d["source"], host),
                      module_constraint(d["version"]) if d["version"] is not None else None,
                      SourceRange(d["file"], d["line"]),
                      SourceRange(d["vfile"], d["vline"]) if d.get("vfile") else None,
                      d["count"], d["for_each"],
                      SourceRange(d["sfile"], d["sline"]) if d.get("sfile") else None, d.get("symbols", False),
                      tuple((n, SourceRange(f, ln)) for n, f, ln in d.get("arguments", ())))


def tree_to_dict(t: ModuleTree) -> dict:
    return {
        "schema": SCHEMA,
        "remote": [{"path": list(r.local_path), "call": _call_to_dict(r.call)} for r in t.remote_calls],
        "local": [{"path": list(lc.path), "call": _call_to_dict(lc.call), "dir": lc.dir} for lc in t.local_calls],
        "providers": [{"path": list(p), "name": r.local_name, "address": str(r.address),
                       "version": r.constraint.text if r.constraint else None, "file": r.where.file,
                       "line": r.where.line, "legacy": r.legacy, **({"via": r.via} if r.via else {})}
                      for p, r in t.providers],
        "core": [{"path": list(p), "constraint": c.constraint.text, "file": c.where.file, "line": c.where.line,
                  "kind": c.kind, "tofu_file": c.tofu_file} for p, c in t.core],
        "variables": list(t.variables),
    }


def tree_from_dict(d: dict, product: Product = OPENTOFU) -> ModuleTree:
    """The tree :func:`tree_to_dict` gave, read back for ``product`` (whose registry host
    addresses without one are on, as when it was read)."""
    host = product.registry_host
    return ModuleTree(
        tuple(RemoteCall(tuple(r["path"]), _call_from_dict(r["call"], host)) for r in d["remote"]),
        tuple(LocalCall(tuple(lc["path"]), _call_from_dict(lc["call"], host), lc["dir"]) for lc in d["local"]),
        tuple((tuple(p["path"]), RequiredProvider(
            p["name"], parse_provider_source(p["address"], host),
            provider_constraint(p["version"]) if p["version"] is not None else None,
            SourceRange(p["file"], p["line"]), p["legacy"], str(p.get("via", "")))) for p in d["providers"]),
        tuple((tuple(c["path"]), CoreVersionRequirement(module_constraint(c["constraint"]),
                                                         SourceRange(c["file"], c["line"]), c["kind"],
                                                         c["tofu_file"])) for c in d["core"]),
        tuple(str(v) for v in d.get("variables", ())),
    )


class RootSyntaxCheck:
    """The user's root module read whole (``strict``) in a background thread, while the
    solve goes on with what it needs of it: parsing every argument of the blocks the solve
    reads (and, on a fresh cache, building the HCL parser, about 2 s) is then off the critical
    path. :meth:`raise_error` waits for it and raises what the read raised (the syntax error
    ``tofu`` would report, with file and line), so that an init writes nothing and reports it
    first.
    """

    def __init__(self, read: Callable[[], object]):
        self._error: BaseException | None = None
        self._thread = start_thread(self._run, "tofu-solve-root-syntax", (read,), needs=NOTHING)

    def _run(self, read: Callable[[], object]) -> None:
        try:
            read()
        except BaseException as e:  # re-raised in the caller's thread by raise_error
            self._error = e

    def raise_error(self) -> None:
        """Wait for the read; raise its exception, if any (every call raises it again)."""
        self._thread.join()
        if self._error is not None:
            raise self._error


def read_root_tree_checked(root: Path, inputs: Mapping[str, InputValue], product: Product,
                           display_prefix: str, checks: list[RootSyntaxCheck]) -> ModuleTree:
    """What a solve needs of the user's root module now; every argument of the blocks it
    reads is parsed meanwhile, in the background (a :class:`RootSyntaxCheck` appended to
    ``checks``), and its syntax errors come first.

    Raises:
        ConfigurationError: the first error a whole read reports (an earlier file's syntax error).
    """
    def read_root(strict: bool) -> ModuleTree:
        return read_module_tree(root, confine=False, strict=strict, inputs=inputs, product=product,
                                display_prefix=display_prefix)
    try:
        tree = read_root(False)
    except ConfigurationError:
        read_root(True)  # the error a whole read reports first (an earlier file's syntax error)
        raise
    checks.append(RootSyntaxCheck(lambda: read_root(True)))
    return tree
