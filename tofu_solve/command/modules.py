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

from ..addrs.names import valid_call_path
from ..config.tree import read_module_tree
from ..config.variables import collect_input_values
from ..lockfile import LOCK_FILE_NAME, read_lock_file
from ..settings import Settings
from ..workdir.install import MANIFEST, data_dir, read_manifest
from .arguments import ModulesArguments
from .views.reports import ModulesView

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


def records(root: Path, settings: Settings, cli_vars: tuple = ()) -> list[Record]:
    """The root's declared modules as a tree (top-level records, each with its children),
    from ``modules.json`` when the working directory has one, else from the lock file and
    the root module's local calls.

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
        tree = read_module_tree(root, confine=False, inputs=collect_input_values(root, settings.environ, cli_vars))
        for lc in tree.local_calls:
            path = ".".join(lc.path)
            flat.setdefault(path, Record(path, str(lc.call.source)))
    top: list[Record] = []
    for path in sorted(flat, key=lambda p: p.split(".")):
        parent = path.rsplit(".", 1)[0] if "." in path else ""
        (flat[parent].children if parent in flat else top).append(flat[path])
    return top


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


def run(ns, settings: Settings) -> int:
    """The command: ``ns`` as the parser left it, read once into :class:`ModulesArguments`."""
    args = ModulesArguments.from_namespace(ns)
    if args.recursive:
        from .monorepo import relative_name, walk_roots

        base = Path(args.chdir)
        found = [(relative_name(r, base), records(r, settings, tuple(args.vars or ())))
                 for r in walk_roots(base, settings)]
        view = ModulesView(args.json)
        for name, top in found:
            view.root(name, document(top), top)
        return 0
    top = records(Path(args.chdir), settings, tuple(args.vars or ()))
    ModulesView(args.json).result(document(top), top)
    return 0


__all__ = ["FORMAT_VERSION", "Record", "document", "records"]
