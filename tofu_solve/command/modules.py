"""``tofu-solve modules``: every module the configuration declares, with its source and the
version installed, as ``terraform modules`` prints it (issue #50 §2).

``-json`` is the document ``terraform modules -json`` prints for the same installed root
(Terraform's ``internal/command/views/modules.go``, ``internal/moduleref``):
``{"format_version": "1.0", "modules": [{"key", "source", "version"}]}``, one entry per
module call that ``modules.json`` records, depth first, ``key`` the call's own name,
``source`` the source address as recorded, ``version`` the registry version installed ("" for
any other source). Terraform walks its configuration's children in map order; tofu-solve
walks them by name, so that the document is the same on every run. The text is Terraform's
tree (``"name"[source] version (constraint)``, the constraint left out when it is the
version itself). It works for OpenTofu and Terraform targets alike, which OpenTofu lacks
(opentofu/opentofu#4464). Without ``.terraform``, the document comes from the lock file
alone: its module blocks (remote calls, with the version and constraint they were locked
at) and the root module's own local calls; nothing is fetched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .._lazy import load
from ..addrs.identifiers import valid_call_path
from ..config.variables import collect_input_values
from ..lockfile import LOCK_FILE_NAME, read_lock_file
from ..settings import Settings
from ..terragrunt.unit import read_root_tree
from ..workdir.install import MANIFEST, data_dir, read_manifest
from .arguments.report_flags import ModulesArguments
from .views.report_views import ModulesView

FORMAT_VERSION = "1.0"


@dataclass
class Record:
    """One declared module: its call path, Terraform's ``key`` (the call's name), source,
    installed version ("" when not a registry version), version constraint ("" for none),
    and the calls inside it."""

    path: str
    source: str
    version: str = ""
    constraint: str = ""
    children: list[Record] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.path.rsplit(".", 1)[-1]


def records(root: Path, settings: Settings, cli_vars: tuple = (), unlisted: list[str] | None = None) -> list[Record]:
    """The root's declared modules as a tree (top-level records, each with its children),
    from ``modules.json`` when the working directory has one, else from the lock file, the
    root module's local calls and, with ``unlisted`` (a list to fill), the local modules
    inside each locked package whose contents the download cache holds (issue #59 §6: a
    fresh clone with a warm cache lists what ``terraform modules -json`` lists after an
    init); what could not be listed, and why, goes to ``unlisted``.

    Raises:
        ConfigurationError, LockFileError: the configuration or the lock file is broken.
    """
    locks = read_lock_file(root / LOCK_FILE_NAME)
    manifest = read_manifest(data_dir(root, settings.data_dir) / "modules" / MANIFEST)
    flat: dict[str, Record] = {}
    if manifest:
        for key, m in manifest.items():
            if key and valid_call_path(key) and isinstance(m.get("Source"), str):
                lock = locks.modules.get(key)
                flat[key] = Record(key, m["Source"], str(m.get("Version") or ""),
                                   lock.constraints if lock is not None else "")
    else:
        for path, lock in locks.modules.items():
            flat[path] = Record(path, lock.source, lock.version if _registry(lock.source) else "", lock.constraints)
        tree = read_root_tree(root, settings.environ, inputs=collect_input_values(root, settings.environ, cli_vars))
        for lc in tree.local_calls:
            path = ".".join(lc.path)
            flat.setdefault(path, Record(path, str(lc.call.source)))
        if locks.modules and unlisted is not None:
            unlisted.extend(_package_locals(root, settings, cli_vars, locks, flat))
    top: list[Record] = []
    for path in sorted(flat, key=lambda p: p.split(".")):
        parent = path.rsplit(".", 1)[0] if "." in path else ""
        (flat[parent].children if parent in flat else top).append(flat[path])
    return top


def _package_locals(root: Path, settings: Settings, cli_vars: tuple, locks, flat: dict[str, Record]) -> list[str]:
    """Add to ``flat`` the local module calls inside each locked package (at the locked
    versions, from the download cache, offline: the selection an offline ``init`` makes,
    nothing fetched); returns what could not be listed and why ([] when all was)."""
    load("tofu_solve.errors")
    from ..errors import TofuSolveError
    load("tofu_solve.solver.resolve")
    from ..solver.resolve import solve
    load("tofu_solve.solver.run")
    from ..solver.run import SolveOptions
    load("tofu_solve.solver.wiring")
    from ..solver.wiring import build_context
    load("tofu_solve.versions.target")
    from ..versions.target import configured_client, target_version

    try:  # the target init solves for (its registry host names the lock's registry modules)
        target = target_version(None, root, client=configured_client(settings, None, named=False))
        tree = read_root_tree(root, settings.environ, inputs=collect_input_values(root, settings.environ, cli_vars),
                              product=target.product)
        ctx = build_context(SolveOptions(target, offline=True), locks, settings, None).context
    except TofuSolveError as e:
        return [f"{e.summary}: {e.detail}".rstrip(": ")]
    try:
        res = solve(tree, ctx, root)
        trees = {path: ctx.known_tree(cand) for path, cand in res.modules.items()}
    except TofuSolveError as e:
        return [f"the local modules inside the locked packages: {e.summary}"
                + (" (their contents are not in the download cache; tofu-solve init installs them)"
                   if "offline" in e.summary.lower() else f" ({e.detail.splitlines()[0]})" if e.detail else "")]
    finally:
        ctx.close()
    missing = []
    for path, t in sorted(trees.items()):
        if t is None or isinstance(t, TofuSolveError):
            missing.append(path)
            continue
        for lc in t.local_calls:
            child = f"{path}." + ".".join(lc.path)
            flat.setdefault(child, Record(child, str(lc.call.source)))
    if missing:
        return [f"the local modules inside {', '.join(missing)}: their contents are not in the download cache "
                "(tofu-solve init installs them)"]
    return []


def _registry(source: str) -> bool:
    """Whether a lock's source is a registry address (which Terraform records a version for)."""
    return "::" not in source and not source.startswith(("./", "../", "/")) and source.count("/") >= 2


def document(top: list[Record]) -> dict:
    """The ``terraform modules -json`` document (see the module docstring)."""
    out: list[dict[str, str]] = []

    def walk(rs: list[Record]) -> None:
        for r in rs:
            out.append({"key": r.key, "source": r.source, "version": r.version})
            walk(r.children)
    walk(top)
    return {"format_version": FORMAT_VERSION, "modules": out}


@dataclass(frozen=True)
class _Unlisted:
    """What ``modules`` could not list, as the view's warning says it."""

    detail: str
    summary: str = "Modules not listed"


def run(ns, settings: Settings) -> int:
    """The command: ``ns`` as the parser left it, read once into :class:`ModulesArguments`."""
    args = ModulesArguments.from_namespace(ns)
    if args.recursive:
        load("tofu_solve.command.monorepo")
        from .monorepo import relative_name, walk_roots

        base = Path(args.chdir)
        view = ModulesView(args.json)
        code = 0
        for r in walk_roots(base, settings):
            lacking: list[str] = []
            top = records(r, settings, tuple(args.vars or ()), lacking)
            view.root(relative_name(r, base), document(top), top)
            for what in lacking:
                view.incomplete(_Unlisted(f"{relative_name(r, base)}: {what}"))
                code = 1
        return code
    unlisted: list[str] = []
    top = records(Path(args.chdir), settings, tuple(args.vars or ()), unlisted)
    view = ModulesView(args.json)
    view.result(document(top), top)
    for what in unlisted:  # partial: said, never silent (the document stays valid JSON)
        view.incomplete(_Unlisted(what))
    return 1 if unlisted else 0


__all__ = ["FORMAT_VERSION", "Record", "document", "records"]
