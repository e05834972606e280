"""What the last ``init`` decided, kept for ``why`` and ``graph``.

``init`` writes ``<data dir>/tofu-solve.json`` (``.terraform/tofu-solve.json``) beside
``modules.json``: for every module call, the metadata-cache key of its selected version and
of the newer versions its constraint allowed but the solver did not take; the provider
versions selected (and the next newer one available); the OpenTofu version solved for.
:func:`load_solved` joins it with the lock file and the cached module trees into a
:class:`Solved` tree. No network, no second resolution.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .._lazy import load
from ..addrs.identifiers import valid_call_path
from ..addrs.immutable import package_problem
from ..addrs.module_source import LocalSource
from ..addrs.product import OPENTOFU, Product, product_named
from ..addrs.redact import redact
from ..config import ModuleCall, RequiredProvider
from ..config.tree import ModuleTree, read_module_tree
from ..config.variables import collect_input_values
from ..errors import ConfigurationError, TofuSolveError
from ..lockfile import LOCK_FILE_NAME, ModuleLock, read_lock_file
from ..lockfile.replacefile import write_atomic
from ..settings import Settings
from ..store.cache import Cache
from ..store.metadata import MetadataStore
from .install import data_dir, inside, read_manifest

if TYPE_CHECKING:  # init's early start reads recorded_module_locks before the solver is imported
    from ..explain.holdback import HoldBack

STATE_FILE = "tofu-solve.json"
SCHEMA = 2  # 2: each newer version with its hold-back (issue #47 §3)


class StateError(TofuSolveError):
    """No usable record of the last init (never run, or the lock changed since)."""


# --------------------------------------------------------------------------- writing


def snapshot(res, ctx, result_locks) -> dict:
    """The state document for a resolution (see the module docstring). Every newer version
    of a call or provider carries its hold-back (:mod:`tofu_solve.explain.holdback`), the one
    analysis ``why``, ``graph`` and ``outdated`` show, computed here once."""
    load("tofu_solve.explain.holdback")
    from ..explain.holdback import cooldown_reason, module_hold_backs, provider_hold_backs
    load("tofu_solve.solver.fenced")
    from ..solver.fenced import newest_fence

    modules = {}
    for path, cand in res.modules.items():
        req = res.module_requirements.get(path)
        locked = req is not None and ctx.locked_candidate(req) == cand
        listed = ctx.listed(req) if req is not None else None
        listed_at = None
        if listed is None and locked:
            # held by the lock, not listed this run: what an earlier run's listing says the
            # constraint allows, and when it was read (issue #24: why names what it takes)
            listed = ctx.known_candidates(req)
            listed_at = ctx.listing_time(req) if listed is not None else None
        newer = [h.as_data() for h in module_hold_backs(res, ctx, path)] if listed else []
        modules[path] = {"version": cand.version_text, "key": _state_key(ctx.tree_key(cand)),
                         "package": redact(cand.package), "newer": newer, "locked": locked,
                         "listed": listed is not None, "listed_at": listed_at,
                         "fenced_off": newest_fence(cand, req, res.providers, ctx) if req is not None else None,
                         "deprecated": d.as_data() if (d := ctx.deprecation(cand)) is not None else None}
    providers = {}
    for addr, pc in res.providers.items():
        held = provider_hold_backs(res, ctx, addr)
        nxt = None
        try:
            later = [v for v in ctx.provider_versions(pc.address) if v.greater_than(pc.version) and not v.prerelease]
            nxt = str(later[0]) if later else None
        except TofuSolveError:
            pass
        providers[addr] = {"version": str(pc.version), "next": nxt,
                           "newer": [h.as_data() for h in held],
                           "cooldown": {h.version: cooldown_reason(ctx, ctx.cooldown.held_back[(addr, h.version)])
                                        for h in held if h.kind == "cooldown"}}
    return {"schema": SCHEMA, "opentofu": str(res.tofu.version), "target_origin": res.target_origin,
            "product": res.product.command,
            "modules": modules, "providers": providers,
            "lock": {p: m.version for p, m in result_locks.modules.items()},
            # the module blocks as written, so that a lock file another tool rewrote without
            # them (tofu providers lock, tofu init -upgrade) is noticed and mended
            "module_locks": {p: {"version": m.version, "source": m.source, "constraints": m.constraints,
                                 "hashes": list(m.hashes), "package": m.package, "floating": m.floating}
                             for p, m in result_locks.modules.items()}}


def recorded_module_locks(root: Path, settings: Settings) -> dict[str, ModuleLock]:
    """The module lock entries the last ``init`` wrote, as it recorded them in
    ``.terraform/tofu-solve.json``; empty when there is no such record (or it cannot be
    read: it is only a record, never an error)."""
    try:
        doc = json.loads((data_dir(root, settings.data_dir) / STATE_FILE).read_text(encoding="utf-8"))
        out = {}
        for path, m in (doc.get("module_locks") or {}).items():
            if valid_call_path(path) and isinstance(m, dict) and isinstance(m.get("version"), str) and \
                    isinstance(m.get("source"), str):
                package = m["package"] if isinstance(m.get("package"), str) else ""
                if package and package_problem(package):
                    package = ""  # a damaged record pins nothing: the version is resolved again
                out[path] = ModuleLock(path, m["version"], m["source"], str(m.get("constraints") or ""),
                                       tuple(str(h) for h in m.get("hashes") or ()), package,
                                       m.get("floating") is True and not package)
        return out
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def _state_key(key: tuple[str, str, str]) -> list[str]:
    """A tree key as the state file holds it: the package address redacted (the metadata
    cache is keyed by the redacted form too, so it still finds the tree)."""
    return [redact(key[0]), key[1], key[2]]


def write_state(root: Path, settings: Settings, doc: dict) -> Path:
    d = data_dir(root, settings.data_dir)
    d.mkdir(parents=True, exist_ok=True)
    path = d / STATE_FILE
    text = json.dumps(doc, indent=1)
    try:
        if path.read_text(encoding="utf-8") == text:
            return path  # a warm re-init writes nothing (issue #36: the stamp sees no change)
    except (OSError, UnicodeDecodeError):
        pass
    write_atomic(path, text)
    return path


# --------------------------------------------------------------------------- reading


@dataclass
class CallNode:
    """A module call in the solved tree.

    Attributes:
        path: call path (``eks.kms``).
        parent: the parent call path ("" for the root module).
        call: the call as written (source, constraint, file and line in its module).
        version: the selected version.
        tree: the selected version's requirements (None when neither the cache nor the
            installed copy holds them: :attr:`Solved.missing`).
        newer: each newer version the constraint allowed, newest first, with what held it
            back (:class:`~tofu_solve.explain.holdback.HoldBack`, computed by that init).
        package: the package address.
        fenced_off: a newer release of the selected version's line that fences it off.
        deprecated: what its registry says of the selected version when it deprecates it
            (``reason``, ``link``; issue #70 §4), else None.
    """

    path: str
    parent: str
    call: ModuleCall
    version: str
    tree: ModuleTree | None
    newer: list[HoldBack] = field(default_factory=list)
    package: str = ""
    locked: bool = False  # the lock file, not a constraint, chose this version
    listed: bool = True  # the source's versions were listed by that init (or an earlier one: listed_at)
    listed_at: float | None = None  # when an earlier run's listing was read (a locked call), seconds since the epoch
    fenced_off: str | None = None
    deprecated: dict | None = None  # the selected version's deprecation by its registry: {reason, link}

    @property
    def display_source(self) -> str:
        src = self.call.source
        return src.for_display if hasattr(src, "for_display") else redact(str(src))


@dataclass
class ProviderConstraintUse:
    """One constraint on a provider, and who imposed it."""

    requirement: RequiredProvider
    imposed_by: str  # call path ("" for root; may go through local modules)
    module_version: str | None
    owner: str  # the remote call owning it ("" for root)


@dataclass
class Solved:
    """What the last ``init`` decided, joined with the lock and the modules' contents: the
    root module's tree, every module call (:class:`CallNode`), the providers selected with
    their hold-backs, every constraint on each provider and on the OpenTofu version with who
    imposed it, the version solved for and why, and the call paths whose contents could not
    be had (:attr:`missing`)."""

    root_tree: ModuleTree
    calls: dict[str, CallNode]
    providers: dict[str, dict]
    provider_uses: dict[str, list[ProviderConstraintUse]]
    core_uses: list
    opentofu: str
    target_origin: str
    product: Product = OPENTOFU
    # call paths whose selected version's contents neither the metadata cache nor the
    # installed copy holds: what they call and require is unknown (issue #47 §4)
    missing: list[str] = field(default_factory=list)

    def missing_error(self) -> TofuSolveError | None:
        """The warning a command that reads this tree gives, and exits non-zero with, when
        contents are missing (:attr:`missing`); None when nothing is."""
        if not self.missing:
            return None
        names = ", ".join(self.missing[:8]) + (f" and {len(self.missing) - 8} more" if len(self.missing) > 8 else "")
        return StateError("Module contents not available",
                          f"The contents of {names} are neither in the download cache nor installed in "
                          ".terraform/modules at the locked version, so what they call and require is missing from "
                          "this answer. Run tofu-solve init (it reinstalls them from the lock), or point "
                          "TOFU_SOLVE_CACHE_DIR at the cache that init used.")

    def chain(self, path: str) -> list[CallNode]:
        out = []
        while path:
            node = self.calls.get(path)
            if node is None:
                break
            out.append(node)
            path = node.parent
        return list(reversed(out))


def _parent_of(path: str, calls: set[str]) -> str:
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        p = ".".join(parts[:i])
        if p in calls:
            return p
    return ""


def load_solved(root: Path, settings: Settings, cli_vars: tuple[tuple[str, str], ...] = ()) -> Solved:
    """Join the state file, the lock and the cached trees.

    Raises:
        StateError: no state file, or the lock no longer matches it.
        ConfigurationError, LockFileError: the configuration or lock is broken.
    """
    root = Path(root)
    doc = _state(root, settings)
    product = product_named(doc.get("product", "tofu")) or OPENTOFU
    load("tofu_solve.terragrunt.unit")  # not on init's early path, which reads only the recorded locks
    from ..terragrunt.unit import read_root_tree

    root_tree = read_root_tree(root, settings.environ, inputs=collect_input_values(root, settings.environ, cli_vars),
                               product=product)
    trees = _SelectedTrees(root, settings, product)
    calls, missing = _call_nodes(doc, root_tree, trees)
    uses: dict[str, list[ProviderConstraintUse]] = {}
    core = []

    def add(tree: ModuleTree, owner: str, version: str | None):
        for lp, r in tree.providers:
            imposed = ".".join(([owner] if owner else []) + list(lp))
            uses.setdefault(str(r.address), []).append(ProviderConstraintUse(r, imposed, version, owner))
        for lp, c in tree.core:
            core.append((c, ".".join(([owner] if owner else []) + list(lp)), version, owner))
    add(root_tree, "", None)
    for p, node in calls.items():
        if node.tree is not None:
            add(node.tree, p, node.version)
    return Solved(root_tree, calls, doc["providers"], uses, core, doc["opentofu"], doc.get("target_origin", ""),
                  product, missing)


def _state(root: Path, settings: Settings) -> dict:
    """The state file the last init wrote, checked against the lock file.

    Raises:
        StateError: no state file (or another tofu-solve's), or the lock no longer matches it.
        LockFileError: the lock file is broken.
    """
    path = data_dir(root, settings.data_dir) / STATE_FILE
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        raise StateError("No solved configuration",
                         f"{path} was not found: run tofu-solve init in {root} first.") from None
    if doc.get("schema") != SCHEMA:
        raise StateError("No solved configuration", f"{path} was written by another tofu-solve; run init again.")
    locks = read_lock_file(root / LOCK_FILE_NAME)
    if {p: m.version for p, m in locks.modules.items()} != doc.get("lock"):
        raise StateError("The lock file changed since the last init",
                         f"{LOCK_FILE_NAME} no longer matches what tofu-solve init selected; run tofu-solve init "
                         "again before asking why.")
    return doc


class _SelectedTrees:
    """Where the tree of a selected version comes from (issue #47 §4: a command that reads
    the lock does not need the download cache): the metadata cache, else the installed copy
    that ``modules.json`` names at that version (read as the solver reads a package)."""

    def __init__(self, root: Path, settings: Settings, product: Product):
        self.product = product
        self.store = MetadataStore(Cache(settings.cache_dir), product)
        self.modules_dir = data_dir(root, settings.data_dir) / "modules"
        self.manifest = read_manifest(self.modules_dir / "modules.json")

    def tree(self, key, path: str, call: ModuleCall, version: str) -> ModuleTree | None:
        """The tree cached at ``key``, else the installed copy's at ``path``, else None."""
        t = self.store.get(*key)
        return t if isinstance(t, ModuleTree) else self._installed(path, call, version)

    def _installed(self, path: str, call: ModuleCall, version: str) -> ModuleTree | None:
        record = self.manifest.get(path)
        if record is None or record.get("Version", "") != version:
            return None
        try:
            installed = inside(self.modules_dir, path)
            subdir = "" if isinstance(call.source, LocalSource) else call.source.subdir
            return read_module_tree(installed, subdir, product=self.product, symbols=call.symbols) \
                if installed.is_dir() else None
        except TofuSolveError:
            return None


def _call_nodes(doc: dict, root_tree: ModuleTree, trees: _SelectedTrees) -> tuple[dict[str, CallNode], list[str]]:
    """Each selected call as the state file records it, with its tree, and the calls whose
    tree is not at hand (``missing``: listed, never silently left out)."""
    load("tofu_solve.explain.holdback")
    from ..explain.holdback import HoldBack

    calls: dict[str, CallNode] = {}
    missing: list[str] = []
    names = set(doc["modules"])
    call_defs: dict[str, ModuleCall] = {}
    for rc in root_tree.remote_calls:
        call_defs[".".join(rc.rel_path)] = rc.call
    for p, m in sorted(doc["modules"].items()):  # a parent sorts before the calls inside it
        call = call_defs.get(p)
        if call is None:
            if _parent_of(p, names) in missing:
                missing.append(p)  # inside a package whose contents are not at hand
            continue
        tree = trees.tree(m["key"], p, call, m["version"])
        if tree is None:
            missing.append(p)
        else:
            for rc in tree.remote_calls:
                call_defs[f"{p}." + ".".join(rc.rel_path)] = rc.call
        newer = [h for h in (HoldBack.from_data(n) for n in m.get("newer") or []) if h is not None]
        fenced = m.get("fenced_off")
        deprecated = m.get("deprecated")
        calls[p] = CallNode(p, _parent_of(p, names), call, m["version"], tree, newer, m.get("package", ""),
                            bool(m.get("locked", False)), bool(m.get("listed", True)), m.get("listed_at"),
                            fenced if isinstance(fenced, str) else None,
                            deprecated if isinstance(deprecated, dict) else None)
    return calls, missing


__all__ = ["CallNode", "ConfigurationError", "Solved", "StateError", "load_solved", "snapshot", "write_state"]


def cited_from_root(doc: dict, display_prefix: str, root: Path, policy_files: list[Path]) -> dict:
    """The state record of a root solved under ``-recursive`` with each policy file
    (``policy_files``: :func:`~tofu_solve.config.policy.find_policies`) named as from the
    root (``why`` and ``graph`` run there read it), not as the recursive run's messages name
    it (after ``display_prefix``, from where that run was started; issue #59 §3: one path
    convention, relative to where the command is run)."""
    renamed = {}
    for found in policy_files:
        own = os.path.relpath(found, root)
        shown = os.path.normpath(os.path.join(display_prefix, own))
        if own != shown:
            renamed[shown] = own
    if not renamed:
        return doc
    text = json.dumps(doc)
    for shown, own in renamed.items():
        text = text.replace(json.dumps(f"{shown}")[1:-1] + ":", json.dumps(own)[1:-1] + ":")
    out = json.loads(text)

    def files(node):
        if isinstance(node, dict):
            return {k: (renamed[v] if k == "file" and v in renamed else files(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [files(v) for v in node]
        return node
    return files(out)
