"""Monorepos: find the root modules of a directory tree, run a command on each in parallel
over one shared cache, and report which roots use which versions.

A **root module**, as a user of a ``live/ENV/SERVICE`` tree (Terragrunt style or plain)
means it: a directory holding configuration files (``.tf``, ``.tf.json``, ``.tofu``,
``.tofu.json``) that no other directory of the tree calls as a local module
(``source = "./..."`` or ``"../..."``). Hidden directories, ``.terraform``,
``.terragrunt-cache`` and ``node_modules`` are never entered, nor the download cache (a CI
cache step may put ``TOFU_SOLVE_CACHE_DIR`` inside the repository: its packages are not
roots), nor what the repository's git ignores (issue #59 §4). A directory whose
configuration cannot be read is still a root (its error is reported for it); its local
calls are then unknown.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from .._lazy import load
from .._threads import worker_pool
from ..addrs.module_source import LocalSource, RegistrySource
from ..addrs.redact import redact
from ..config import config_file_names, load_module_dir
from ..errors import TofuSolveError
from ..output_edge import one_line
from ..terragrunt import CONFIG_FILE as UNIT_FILE
from ..terragrunt.unit import local_module_dir, read_unit
from .exclusions import LeftOut, read_exclusions

SKIPPED_DIRS = {".terraform", ".terragrunt-cache", "node_modules"}
MAX_PARALLEL = 4  # roots solved at once (each has its own network pool)


def git_ignored(base: Path, environ: Mapping[str, str]) -> set[str]:
    """The directories under ``base`` that its repository's git ignores (paths relative to
    ``base``, ``/``-separated, with a trailing ``/``), as ``git ls-files --others --ignored
    --exclude-standard --directory`` lists them (``.gitignore`` files, ``.git/info/exclude``,
    ``core.excludesFile``); empty outside a git work tree, or where git is missing or slow
    (30 s)."""
    load("tofu_solve.remote.gitcmd")
    from ..remote.gitcmd import GitError, run

    try:
        out = run(["-C", str(base), "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
                  environ, timeout=30)
    except (GitError, OSError):
        return set()
    return {p for p in out.decode("utf-8", "replace").split("\0") if p.endswith("/")}


def find_roots(base: Path, skip: Iterable[Path] = (), environ: Mapping[str, str] | None = None) -> list[Path]:
    """The root modules under ``base`` (``base`` itself included), and the Terragrunt units
    (a ``terragrunt.hcl`` that names a ``terraform.source``; the directory of a unit's local
    source is not a root of its own), sorted by path in natural order (:func:`natural_key`).
    Never entered: hidden directories (``.terragrunt-cache`` and ``.terragrunt-stack``
    among them), :data:`SKIPPED_DIRS`, the directories in ``skip`` (the download cache),
    and, with ``environ`` (the run's environment, for git), what the repository's git
    ignores (:func:`git_ignored`).

    Raises: ConfigurationError when ``base`` cannot be read; unreadable subdirectories
    are skipped.
    """
    base = Path(base)
    entered = _entered(base, skip, environ)
    module_dirs: list[Path] = []
    called: set[Path] = set()
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if entered(dirpath, d))
        if UNIT_FILE in filenames:  # a Terragrunt unit (issue #73 §1), else an include's parent
            unit = _unit_at(Path(dirpath), environ)
            if unit is not False:
                module_dirs.append(Path(dirpath))
                if unit is not None and unit.kind == "local" and local_module_dir(unit) != unit.dir:
                    called.add(Path(os.path.normpath(local_module_dir(unit))))
                continue
        try:
            primary, overrides = config_file_names(dirpath)
        except TofuSolveError as e:
            if e.summary == "Invalid file name":  # a root all the same: its run fails, naming the file (#80 §2)
                module_dirs.append(Path(dirpath))
            continue
        if primary or overrides:
            module_dirs.append(Path(dirpath))
    for d in module_dirs:
        if (d / UNIT_FILE).is_file():
            continue
        try:
            cfg = load_module_dir(d)
        except TofuSolveError:
            continue
        for call in cfg.module_calls:
            if isinstance(call.source, LocalSource):
                called.add(Path(os.path.normpath(d / call.source.path)))
    return sorted((d for d in module_dirs if Path(os.path.normpath(d)) not in called), key=natural_key)


def _entered(base: Path, skip: Iterable[Path], environ: Mapping[str, str] | None) -> Callable[[str, str], bool]:
    """Whether a walk of ``base`` enters ``d`` under ``dirpath``: never a hidden directory,
    :data:`SKIPPED_DIRS`, one of ``skip``, or (with ``environ``) what git ignores."""
    skipped = {os.path.realpath(p) for p in skip}
    ignored = git_ignored(base, environ) if environ is not None else set()

    def entered(dirpath: str, d: str) -> bool:
        full = os.path.join(dirpath, d)
        if d.startswith(".") or d in SKIPPED_DIRS or os.path.realpath(full) in skipped:
            return False
        return not ignored or os.path.relpath(full, base).replace(os.sep, "/") + "/" not in ignored
    return entered


def passed_over_policies(base: Path, roots: Sequence[Path], flag: str | None, settings) -> list[str]:
    """The policy files under ``base`` (``tofu-solve-policy.hcl``, ``*.policy.hcl``, found
    as :func:`find_roots` walks) that apply to none of ``roots``, as each root's policy is
    found (:func:`tofu_solve.config.policy.find_policies` with ``-policy`` ``flag`` and the
    run's environment): named from ``base``, in walk order (issue #84 §1: a policy set in
    ``policies/`` was passed over in silence). A root whose policy cannot be found (its
    error is its own) applies nothing."""
    load("tofu_solve.config.policy")
    from ..config.policy import find_policies, policy_files

    applied: set[str] = set()
    for root in roots:
        try:
            applied |= {os.path.realpath(p) for p in find_policies(root, flag, settings.environ)}
        except TofuSolveError:
            continue
    entered = _entered(base, (settings.cache_dir,), settings.environ)
    out = []
    for dirpath, dirnames, _ in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if entered(dirpath, d))
        try:
            found = policy_files(Path(dirpath))
        except TofuSolveError:
            continue
        out += [relative_name(p, base) for p in found if os.path.realpath(p) not in applied]
    return out


def _unit_at(directory: Path, environ: Mapping[str, str] | None):
    """The Terragrunt unit at ``directory``; None when it is one that cannot be read (its
    root reports why); False when its ``terragrunt.hcl`` names no ``terraform.source`` (an
    include's parent, or a root module Terragrunt runs in place: then its own files decide)."""
    try:
        unit = read_unit(directory, environ or {})
    except TofuSolveError:
        return None
    return unit if unit is not None else False


def natural_key(path: Path) -> tuple:
    """A path's sort key in natural order, each run of digits as its number (``env2``
    before ``env10``, issue #50 §1), part by part."""
    return tuple(tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", part) if t)
                 for part in Path(path).parts)


T = TypeVar("T")


@dataclass
class RootOutcome(Generic[T]):
    """One root's result: ``value`` (the command's result) or ``error``; or, never read,
    ``left_out`` (why ``-recursive`` left it out: :class:`~tofu_solve.command.exclusions.LeftOut`,
    issue #81 §5). A left-out root is ``ok`` (not a failure) with no ``value``."""

    root: Path
    value: T | None = None
    error: TofuSolveError | None = None
    left_out: LeftOut | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def ran(self) -> bool:
        """Whether the command ran in this root (it was not left out)."""
        return self.left_out is None


def run_each(roots: list[Path], fn: Callable[[Path], T], workers: int = MAX_PARALLEL) -> list[RootOutcome[T]]:
    """``fn(root)`` for every root, at most ``workers`` at a time; a TofuSolveError is that
    root's outcome, never the end of the others. Results in ``roots`` order."""
    def one(root: Path) -> RootOutcome[T]:
        try:
            return RootOutcome(root, fn(root))
        except TofuSolveError as e:
            return RootOutcome(root, error=e)
    with worker_pool(min(workers, len(roots)), "tofu-solve-root") as pool:
        return list(pool.map(one, roots))


@dataclass
class CrossRootReport:
    """Which roots use which version: ``modules[package][version]`` and
    ``providers[address][version]`` are lists of ``root:call path`` / root names."""

    modules: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    providers: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def as_data(self) -> dict:
        return {"modules": self.modules, "providers": self.providers}

    def several_lines(self) -> list[str]:
        """Text, what matters across roots: each package or provider at more than one
        version, one line, with how many roots use each version (``-verbose``: :meth:`lines`)."""
        out = []
        for title, table in (("Module packages", self.modules), ("Providers", self.providers)):
            several = {name: versions for name, versions in sorted(table.items()) if len(versions) > 1}
            if not several:
                continue
            out.append(f"{title} at several versions across roots (-verbose lists who uses each):")
            for name, versions in several.items():
                counts = ", ".join(f"{v} in {n} {'root' if n == 1 else 'roots'}"
                                   for v, users in sorted(versions.items())
                                   for n in [len({u.split(':', 1)[0] for u in users})])
                out.append(f"  {name.removeprefix('registry.opentofu.org/')}: {counts}")
        return out

    def lines(self) -> list[str]:
        """Text: one block per package or provider, its versions and who uses each; a
        package or provider at more than one version is marked."""
        out = []
        for title, table in (("Module packages", self.modules), ("Providers", self.providers)):
            if not table:
                continue
            out.append(f"{title}:")
            for name, versions in sorted(table.items()):
                mark = "  (several versions)" if len(versions) > 1 else ""
                out.append(f"  {name.removeprefix('registry.opentofu.org/')}{mark}")
                for version, users in sorted(versions.items()):
                    out.append(f"    {version}: {', '.join(sorted(users, key=lambda u: natural_key(Path(u))))}")
        return out


def cross_root_report(outcomes: list[RootOutcome], base: Path) -> CrossRootReport:
    """Built from each successful ``init`` result (``InitResult``)."""
    modules: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    providers: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for o in outcomes:
        if o.value is None:
            continue
        name = relative_name(o.root, base)
        res = o.value.resolution
        for path, cand in res.modules.items():
            pkg = cand.source.package.for_display if isinstance(cand.source, RegistrySource) else \
                redact(cand.package)
            modules[pkg][cand.version_text].append(f"{name}:{path}")
        for addr, pc in res.providers.items():
            providers[addr][str(pc.version)].append(name)
    return CrossRootReport({k: dict(v) for k, v in modules.items()}, {k: dict(v) for k, v in providers.items()})


def relative_name(root: Path, base: Path) -> str:
    """How ``-recursive`` names ``root`` from ``base``: its relative path, on one line (a
    directory's name is a repository's text: :func:`tofu_solve.output_edge.one_line`)."""
    rel = os.path.relpath(root, base)
    return "." if rel == "." else one_line(rel)


def display_prefix(root: Path, base: Path) -> str:
    """What file names in ``root`` are prefixed with to name them from ``base``, the
    directory ``-recursive`` ran in (``envs/prod/``; empty for ``base`` itself)."""
    rel = relative_name(root, base)
    return "" if rel == "." else rel.replace(os.sep, "/") + "/"


__all__ = ["CrossRootReport", "RootOutcome", "cross_root_report", "display_prefix", "find_roots", "git_ignored",
           "passed_over_notice", "passed_over_policies", "read_shared_inputs", "relative_name", "run_each",
           "select_roots", "walk_roots"]


def read_shared_inputs(base: Path, settings, policy: str | None = None, tofu_version: str | None = None,
                       terraform_version: str | None = None, policy_input: tuple[str, ...] = ()) -> None:
    """Read, once and before any root is touched, what every root under ``base`` shares:
    the CLI configuration, a version file in ``base`` or above (or the version flags), and
    the policy file that applies from ``base`` (``-policy``, ``TOFU_SOLVE_POLICY``, or the
    first ``tofu-solve-policy.hcl`` from ``base`` upward), named relative to ``base``, as
    the user ran the command (issue #59 §3: an error in them is said once, with its file and
    line, and the run stops without blaming a root or a lock file).

    Raises:
        ConfigurationError: the first of them that cannot be read.
    """
    load("tofu_solve.config.cliconfig")
    from ..config.cliconfig import load_cli_config
    load("tofu_solve.config.policy")
    from ..config.policy import load_policy
    load("tofu_solve.versions.target")
    from ..versions.target import target_version

    load_cli_config(settings.environ)
    target = target_version(tofu_version, base, terraform=terraform_version)
    load_policy(base, policy, settings.environ, target.product.registry_host, inputs=policy_input)


def each_root(chdir: str, fn, settings=None, exclude_dir: Sequence[str] = ()) -> list:
    """``-recursive``: ``fn(root)`` for every root module under ``chdir`` (found as
    :func:`walk_roots` finds them for ``settings``) that is not left out
    (:func:`select_roots`), in parallel. Returns [(relative name, outcome)] for every root
    found, in order, a left-out one with its reason and no value."""
    base = Path(chdir)
    roots, left = select_roots(base, settings, exclude_dir)
    ran = {o.root: o for o in run_each(roots, fn)}
    return [(relative_name(r, base), ran[r] if r in ran else RootOutcome(r, left_out=left[r]))
            for r in sorted([*roots, *left], key=natural_key)]


def select_roots(base: Path, settings=None, exclude_dir: Sequence[str] = ()) -> tuple[list[Path], dict[Path, LeftOut]]:
    """The roots :func:`walk_roots` finds under ``base``, split into those the run reads and
    those a ``.tofu-solve-exclude`` pattern or ``exclude_dir`` (``-exclude-dir``) leaves out,
    each with why (:mod:`tofu_solve.command.exclusions`).

    Raises:
        ConfigurationError: an exclude pattern that does not read (its file and line).
    """
    exclusions = read_exclusions(base, exclude_dir)
    found = walk_roots(base, settings)
    if not exclusions:
        return found, {}
    left = {r: why for r in found for why in [exclusions.left_out(r)] if why is not None}
    return [r for r in found if r not in left], left


def walk_roots(base: Path, settings=None) -> list[Path]:
    """:func:`find_roots` for a run with ``settings`` (a :class:`~tofu_solve.settings.Settings`):
    the download cache is not entered, and what git ignores is left out."""
    if settings is None:
        return find_roots(base)
    return find_roots(base, skip=(settings.cache_dir,), environ=settings.environ)


def passed_over_notice(args, settings, results: Sequence[tuple[str, RootOutcome]]) -> list:
    """The warning (a list of none or one ``WarningText``) for the policy files of the tree
    under ``args.chdir`` that applied to none of the roots that ran in ``results``
    (:func:`passed_over_policies`), for ``check`` and ``outdated -recursive``."""
    named = getattr(args, "policy", None)
    files = passed_over_policies(Path(args.chdir), [o.root for _, o in results if o.ran], named, settings)
    if not files:
        return []
    load("tofu_solve.command.views.warnings")
    from .views.warnings import passed_over_policies_warning
    return [passed_over_policies_warning(files, named or settings.environ.get("TOFU_SOLVE_POLICY"))]


def each_root_for_its_target(args, settings, fn: Callable) -> list:
    """``-recursive`` for a command that reads each root for its own target (``check``,
    ``outdated``): the client named once (``args``: ``tf_path``, ``tofu_version``,
    ``terraform_version``, ``policy``, ``chdir``), then, for every root, ``fn(root,
    target, display prefix, policy)``. Returns [(relative name, outcome)] as
    :func:`each_root`."""
    load("tofu_solve.config.policy")
    from ..config.policy import load_policy
    load("tofu_solve.versions.target")
    from ..versions.target import configured_client, target_version

    client = configured_client(settings, args.tf_path, named=bool(args.tofu_version or args.terraform_version))
    base = Path(args.chdir)
    read_shared_inputs(base, settings, args.policy, args.tofu_version, args.terraform_version,
                       getattr(args, "policy_input", ()))

    def one(root: Path):
        target = target_version(args.tofu_version, Path(root), terraform=args.terraform_version, client=client)
        prefix = display_prefix(root, base)
        # the policy's files named from where the command ran, as the root's own are (issue #81 §2: a finding
        # was placed at ../../policies, one directory above the repository)
        policy = load_policy(root, args.policy, settings.environ, target.product.registry_host,
                             display_prefix=prefix, overrides=frozenset(getattr(args, "policy_override", ())),
                             inputs=getattr(args, "policy_input", ()))
        return fn(root, target, prefix, policy)
    return each_root(args.chdir, one, settings, getattr(args, "exclude_dir", ()))
