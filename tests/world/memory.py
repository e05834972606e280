"""Module universes in memory: the solver and its explanations without any server.

A universe is an *index* (plain JSON-able data: every module package with its versions and,
per version, the module calls, provider requirements and OpenTofu constraints it holds; every
provider with its published versions; a root module) and a :class:`MemoryContext` that
answers the solver's questions from it. The data-driven solver tests
(``tests/solver/cases/*.json``: an index in, the expected selection or explanation text out)
and the solver benchmarks (``bench/synthetic.py``) use it.

Index shape::

    {"target": "1.12.6",
     "providers": {"hashicorp/aws": ["5.0.0", "6.0.0"]},
     "modules": {"acme/net/aws": {"1.0.0": {"calls": [CALL...], "providers": [PROV...],
                                          "opentofu": [CORE...]}}},
     "root": {"calls": [CALL...], "providers": [PROV...], "opentofu": [CORE...]},
     "module_versions": "per-call" | "shared"}

    CALL = {"name": "vpc", "source": "acme/net/aws", "version": "~> 1.0", "file": "main.tf",
            "line": 1, "version_line": 3}
    PROV = {"name": "aws", "source": "hashicorp/aws", "version": ">= 5.0", "file": "versions.tf",
            "line": 5}
    CORE = {"constraint": ">= 1.6", "file": "versions.tofu", "line": 2}

``version``, ``version_line`` and ``opentofu`` are optional; a ``file`` defaults to
``main.tf`` (``versions.tofu`` for OpenTofu constraints, which OpenTofu 1.12 and later reads
from ``.tofu`` files only).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from tofu_solve.addrs.module_source import ModuleSource, RegistrySource, parse_source
from tofu_solve.addrs.provider import parse_provider_source
from tofu_solve.config import CoreVersionRequirement, ModuleCall, RequiredProvider
from tofu_solve.config.tree import ModuleTree, RemoteCall
from tofu_solve.errors import SourceRange
from tofu_solve.lockfile import LockFile
from tofu_solve.providers.base import AvailableVersion
from tofu_solve.solver.context import Context, SolveOptions
from tofu_solve.solver.lock_terms import LockTerms
from tofu_solve.solver.model import ModuleCandidate, ModuleRequirement
from tofu_solve.versions import apparentlymart_go_versions as gvs
from tofu_solve.versions.constraints import module_constraint, provider_constraint
from tofu_solve.versions.hashicorp_go_version import GoVersion
from tofu_solve.versions.target import target_version


@dataclass
class Universe:
    """Module packages (display address -> version labels), their trees by (package,
    version), provider versions (address -> labels, any order) and the root's tree."""

    versions: dict[str, list[str]]
    trees: dict[tuple[str, str], ModuleTree]
    root: ModuleTree
    providers: dict[str, list[str]] = field(default_factory=dict)
    target: str = "1.12.6"
    shared: bool = False


# --------------------------------------------------------------------------- from an index


def _call(d: dict) -> RemoteCall:
    file = d.get("file", "main.tf")
    version = d.get("version")
    vline = d.get("version_line")
    return RemoteCall((), ModuleCall(d["name"], d["source"], parse_source(d["source"]),
                                     module_constraint(version) if version is not None else None,
                                     SourceRange(file, d.get("line", 1)),
                                     SourceRange(file, vline) if vline else None))


def _provider(d: dict) -> tuple[tuple[str, ...], RequiredProvider]:
    addr = parse_provider_source(d["source"])
    version = d.get("version")
    return (), RequiredProvider(d.get("name", addr.type), addr,
                                   provider_constraint(version) if version is not None else None,
                                   SourceRange(d.get("file", "versions.tf"), d.get("line", 1)))


def _core(d: dict) -> tuple[tuple[str, ...], CoreVersionRequirement]:
    file = d.get("file", "versions.tofu")
    return (), CoreVersionRequirement(module_constraint(d["constraint"]), SourceRange(file, d.get("line", 1)),
                                      "required_version", file.endswith((".tofu", ".tofu.json")))


def _tree(d: dict) -> ModuleTree:
    return ModuleTree(tuple(_call(c) for c in d.get("calls", ())), (),
                      tuple(_provider(p) for p in d.get("providers", ())),
                      tuple(_core(c) for c in d.get("opentofu", ())))


def universe_from_index(index: dict) -> Universe:
    """The universe an index describes (see the module docstring).

    Raises:
        TofuSolveError: a source address, provider address or constraint that does not parse.
        KeyError: an index without ``root``.
    """
    versions, trees = {}, {}
    for package, by_version in index.get("modules", {}).items():
        versions[package] = list(by_version)
        for version, tree in by_version.items():
            trees[(package, version)] = _tree(tree)
    providers = {str(parse_provider_source(a)): list(vs) for a, vs in index.get("providers", {}).items()}
    return Universe(versions, trees, _tree(index["root"]), providers, index.get("target", "1.12.6"),
                    index.get("module_versions", "per-call") == "shared")


# --------------------------------------------------------------------------- the context


class _MemoryProviders:
    """The universe's provider listings (:class:`~tofu_solve.providers.base.ProviderVersionSource`)."""

    def __init__(self, u: Universe):
        self.u = u

    def provider_versions(self, address) -> list[str]:
        return list(self.u.providers.get(str(address), SYNTHETIC_PROVIDER_LABELS))

    relist = provider_versions  # nothing is kept between runs: asking again is asking


class UniverseIndex:
    """The universe as a :class:`~tofu_solve.solver.index.ModuleIndex`: every listing and
    tree in memory, nothing fetched; a module package is named by its display address
    (``acme/net/aws``)."""

    def __init__(self, u: Universe):
        self.u = u
        self._listed: dict[str, list[AvailableVersion]] = {}

    def package_address(self, source: ModuleSource) -> str:
        if not isinstance(source, RegistrySource):
            raise KeyError(f"a universe holds registry packages only: {source}")
        return str(source.package)

    def versions(self, req: ModuleRequirement) -> list[AvailableVersion]:
        """The package's versions (none for a package the universe does not hold)."""
        source = req.call.source
        if not isinstance(source, RegistrySource):
            raise KeyError(f"a universe holds registry packages only: {source}")
        pkg = source.package.for_display
        listed = self._listed.get(pkg)
        if listed is None:
            listed = self._listed[pkg] = [AvailableVersion(v, GoVersion.parse(v)) for v in self.u.versions.get(pkg, [])]
        return list(listed)

    def held(self, cand: ModuleCandidate) -> ModuleTree | None:
        """Every tree the universe holds, known without reading."""
        try:
            return self.tree(cand)
        except KeyError:
            return None

    def tree(self, cand: ModuleCandidate) -> ModuleTree:
        """Raises KeyError for a version the universe does not hold."""
        return self.u.trees[(cand.package.removeprefix("registry.opentofu.org/"), cand.available.label)]

    def release_time(self, cand: ModuleCandidate) -> float | None:
        return None  # a universe has no release dates

    def abort(self) -> None:
        pass  # nothing in flight


class MemoryContext(Context):
    """A :class:`~tofu_solve.solver.context.Context` over a :class:`UniverseIndex`: listings,
    trees and provider versions from memory, nothing fetched, nothing cached. ``u`` is the
    universe."""

    def __init__(self, u: Universe, max_rounds: int = 200000, locks: LockFile | LockTerms | None = None, *,
                 upgrade_targets: tuple[str, ...] = (), policy=None):
        super().__init__(SolveOptions(target_version(u.target), shared=u.shared, max_rounds=max_rounds, workers=1,
                                      upgrade_targets=upgrade_targets, policy=policy),
                         locks or LockFile(), UniverseIndex(u), None, provider_source=_MemoryProviders(u),
                         prefetch=False)  # nothing to read ahead
        self.u = u


# --------------------------------------------------------------------------- generated universes


SYNTHETIC_PROVIDER = parse_provider_source("example/synthetic")
SYNTHETIC_PROVIDER_VERSIONS = [gvs.Version(m, n, 0) for m in range(60) for n in range(3)]
SYNTHETIC_PROVIDER_LABELS = [str(v) for v in SYNTHETIC_PROVIDER_VERSIONS]


def make_universe(packages: int, versions: int, fanout: int, root_calls: int, seed: int = 1,
                  depth: int = 3) -> Universe:
    """A generated universe: ``packages`` packages in ``depth`` layers with ``versions``
    versions each; a version of a layer-i package calls ``fanout`` packages of layer i+1
    with ``~> MAJOR.0`` constraints and requires one provider whose lower bound rises with
    the version (about one version in eight also fences it off above, like eks 20.37.1's
    ``aws < 6.0.0``), so some combinations clash and the solver must go back. Wide and
    shallow, like real trees. Deterministic (seeded)."""
    rnd = random.Random(seed)
    names = [f"synth/p{i:04d}/null" for i in range(packages)]
    layers = [names[i::depth] for i in range(depth)]
    layer_of = {n: i for i, layer in enumerate(layers) for n in layer}
    vers = {n: [f"{1 + v // 5}.{v % 5}.0" for v in range(versions)] for n in names}
    trees = {}
    for n in names:
        below = layers[layer_of[n] + 1] if layer_of[n] + 1 < depth else []
        for k, v in enumerate(vers[n]):
            calls = []
            for j, child in enumerate(rnd.sample(below, min(fanout, len(below)))):
                major = rnd.choice(sorted({x.split(".")[0] for x in vers[child]}))
                calls.append(RemoteCall((), ModuleCall(f"c{j}", child, parse_source(child),
                                                       module_constraint(f"~> {major}.0"),
                                                       SourceRange("main.tf", 1 + j))))
            lo = k // 4
            text = f">= {lo}.0, < {lo + 3}.0" if rnd.random() < 0.125 else f">= {lo}.0"
            prov = RequiredProvider("synthetic", SYNTHETIC_PROVIDER, provider_constraint(text),
                                       SourceRange("versions.tf", 5))
            trees[(n, v)] = ModuleTree(tuple(calls), (), (((), prov),), ())
    root_calls_list = []
    for j in range(root_calls):
        n = layers[0][j % len(layers[0])]
        root_calls_list.append(RemoteCall((), ModuleCall(f"r{j}", n, parse_source(n), module_constraint(">= 1.0"),
                                                         SourceRange("main.tf", 1 + 4 * j))))
    return Universe(vers, trees, ModuleTree(tuple(root_calls_list), (), (), ()))


def index_of(u: Universe) -> dict:
    """The index of a universe (the inverse of :func:`universe_from_index`), for writing a
    generated universe out as a test case."""
    def call(rc: RemoteCall) -> dict:
        c = rc.call
        d = {"name": c.name, "source": c.source_text, "file": c.where.file, "line": c.where.line}
        if c.version is not None:
            d["version"] = c.version.text
        if c.version_where is not None:
            d["version_line"] = c.version_where.line
        return d

    def prov(p: RequiredProvider) -> dict:
        d = {"name": p.local_name, "source": p.address.for_display, "file": p.where.file, "line": p.where.line}
        if p.constraint is not None:
            d["version"] = p.constraint.text
        return d

    def core(c: CoreVersionRequirement) -> dict:
        return {"constraint": c.constraint.text, "file": c.where.file, "line": c.where.line}

    def tree(t: ModuleTree) -> dict:
        d: dict = {"calls": [call(rc) for rc in t.remote_calls]}
        if t.providers:
            d["providers"] = [prov(p) for _, p in t.providers]
        if t.core:
            d["opentofu"] = [core(c) for _, c in t.core]
        return d

    providers = dict(u.providers) or {SYNTHETIC_PROVIDER.for_display: list(SYNTHETIC_PROVIDER_LABELS)}
    return {"target": u.target, "providers": providers,
            "modules": {p: {v: tree(u.trees[(p, v)]) for v in vs} for p, vs in u.versions.items()},
            "root": tree(u.root), "module_versions": "shared" if u.shared else "per-call"}
