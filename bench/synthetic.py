"""Synthetic module universes, in memory, to time the solver alone (no network, no disk):
``packages`` packages with ``versions`` versions each; each version calls ``fanout``
other packages (deeper in a layered order) with ``~> MAJOR.0`` constraints and requires
one provider whose lower bound rises with the version, so some combinations clash and the
solver must go back. Deterministic (seeded)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from tofu_solve.config import ModuleCall, ProviderRequirement
from tofu_solve.errors import SourceRange
from tofu_solve.lockfile import LockFile
from tofu_solve.config.tree import ModuleTree, RemoteCall
from tofu_solve.addrs.provider import parse_provider_source
from tofu_solve.providers.base import AvailableVersion
from tofu_solve.solver.context import Context, SolveOptions
from tofu_solve.addrs.module_source import parse_source
from tofu_solve.versions.target import target_version
from tofu_solve.versions import goversions as gvs
from tofu_solve.versions.constraints import module_constraint, provider_constraint
from tofu_solve.versions.goversion import GoVersion

PROVIDER = parse_provider_source("example/synthetic")


@dataclass
class Universe:
    versions: dict[str, list[str]]  # package -> version labels
    trees: dict[tuple[str, str], ModuleTree]
    root: ModuleTree
    calls: int


def make_universe(packages: int, versions: int, fanout: int, root_calls: int, seed: int = 1,
                  depth: int = 3) -> Universe:
    """Packages in ``depth`` layers; a version of a layer-i package calls ``fanout`` packages
    of layer i+1 (so the per-call tree has ``root_calls * (1 + fanout + ... )`` calls, like
    real trees: wide, shallow)."""
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
                                                       module_constraint(f"~> {major}.0"), SourceRange("main.tf", 1 + j))))
            lo = k // 4
            # about one version in eight fences the provider off above (like eks 20.37.1's aws < 6.0.0)
            text = f">= {lo}.0, < {lo + 3}.0" if rnd.random() < 0.125 else f">= {lo}.0"
            prov = ProviderRequirement("synthetic", PROVIDER, provider_constraint(text), SourceRange("versions.tf", 5))
            trees[(n, v)] = ModuleTree(tuple(calls), (), (((), prov),), ())
    root_calls_list = []
    for j in range(root_calls):
        n = layers[0][j % len(layers[0])]
        root_calls_list.append(RemoteCall((), ModuleCall(f"r{j}", n, parse_source(n), module_constraint(">= 1.0"),
                                                         SourceRange("main.tf", 1 + 4 * j))))
    root = ModuleTree(tuple(root_calls_list), (), (), ())
    return Universe(vers, trees, root, 0)


class _NothingInFlight:
    """No fetcher: nothing in flight to stop when the context closes."""

    def abort(self) -> None:
        pass


class _Names:
    fetcher = _NothingInFlight()

    def package_address(self, source):
        return str(source.package)


class MemoryContext(Context):
    """A :class:`Context` answering from a :class:`Universe` (benchmarks only)."""

    def __init__(self, u: Universe, max_rounds: int = 200000):
        names = _Names()
        super().__init__(SolveOptions(target_version("1.12.6"), max_rounds=max_rounds, workers=1), LockFile(),
                         names, names, names, None, None)
        self.u = u
        self.provider_list = [gvs.Version(m, n, 0) for m in range(0, 60) for n in range(0, 3)]

    def provider_for(self, source):
        return self.registry

    def available(self, req):
        pkg = req.call.source.package.for_display
        return [AvailableVersion(v, GoVersion.parse(v)) for v in self.u.versions[pkg]]

    def prefetch_available(self, req):
        pass

    def prefetch_tree(self, cand):
        pass

    def prefetch_provider(self, address):
        pass

    def tree_known(self, cand):
        return True  # the whole universe is in memory

    def tree(self, cand):
        self.stats.trees_read += 1
        return self.u.trees[(cand.package.removeprefix("registry.opentofu.org/"), cand.available.label)]

    def provider_versions(self, address):
        return self.provider_list
