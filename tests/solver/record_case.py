"""Record a server-backed scenario as a data case (``cases/*.json``), resolvelib's functional
test style: the index the solve saw and the answer it gave, replayed without servers.

    python -m tests.solver.record_case NAME ROOT.tf "what the case is about" [--shared]

The root module is solved against the fixture world (real registry, real git, the corpus's
data) with explanations; then every version listed for a module package the solve met is
read, so that the index holds the whole universe the solve could have walked (modules with
their calls, provider requirements and OpenTofu constraints; provider versions; the target).
The case's ``expect`` is what the solver answers on that index in memory; the recorder
refuses to write a case whose in-memory answer (error summary, explanation text,
suggestions; or selection) differs from the server-backed one.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from tests.conftest import SHARED
from tests.solver.test_cases import CASES, run_case
from tests.world.memory import Universe, index_of
from tofu_solve.config.tree import ModuleTree, read_module_tree
from tofu_solve.errors import TofuSolveError
from tofu_solve.explain import solve
from tofu_solve.lockfile import LockFile
from tofu_solve.settings import Settings
from tofu_solve.solver.context import SolveOptions
from tofu_solve.solver.model import ModuleCandidate, ModuleRequirement, Origin
from tofu_solve.solver.wiring import build_context
from tofu_solve.versions.target import target_version
from tofu_solve.world import build_world, default_world_dir, running_world

TARGET = "1.10.0"
DEFAULT_HOST = "registry.opentofu.org/"


def _name(package: str) -> str:
    return package.removeprefix(DEFAULT_HOST)


def record(root_text: str, shared: bool = False) -> tuple[dict, dict]:
    """(index, server-backed answer) of ``root_text`` solved against the fixture world."""
    world = build_world(SHARED / "corpus", default_world_dir())
    with tempfile.TemporaryDirectory() as tmp, running_world(world, Path(tmp)) as rw:
        root = Path(tmp) / "root"
        root.mkdir()
        (root / "main.tf").write_text(root_text)
        settings = Settings.from_environ({**os.environ, **rw.env(Path(tmp) / "cache")})
        tree = read_module_tree(root, confine=False)
        if not tree.remote_calls:
            raise SystemExit("the root module calls no remote module: nothing to record")
        ctx = build_context(SolveOptions(target_version(TARGET), shared=shared), LockFile(), settings, None).context
        try:
            try:
                res = solve(tree, ctx, root)
                answer: dict = {"modules": {p: c.version_text for p, c in res.modules.items()},
                                "providers": {a: str(c.version) for a, c in res.providers.items()},
                                "opentofu": str(res.tofu.version)}
            except TofuSolveError as e:
                answer = {"error": e.summary, "detail": e.detail.split("\n"),
                          "suggestions": [s["summary"] for s in (getattr(e, "explanation", None) or {})
                                          .get("suggestions", [])]}
            versions: dict[str, list[str]] = {}
            trees: dict[tuple[str, str], ModuleTree] = {}
            seen: set[str] = set()
            queue = list(ctx.calls.values())
            while queue:
                req = queue.pop()
                if not isinstance(req, ModuleRequirement) or not req.versioned:
                    continue
                package = _name(ctx.package_address(req.call.source))
                if package in seen:
                    continue
                seen.add(package)
                listed = ctx.available(req)
                versions[package] = [a.label for a in listed]
                for cand in _all_candidates(ctx, req, listed):
                    t = ctx.tree(cand)
                    if isinstance(t, ModuleTree):
                        trees[(package, cand.version_text)] = t
                        queue.extend(_calls_of(t, req.call_path))
            providers: dict[str, list[str]] = {}
            for t in list(trees.values()) + [tree]:
                for _, p in t.providers:
                    if p.address.is_builtin or str(p.address) in providers:
                        continue
                    try:
                        providers[str(p.address)] = [str(v) for v in ctx.provider_versions(p.address)]
                    except TofuSolveError:
                        providers[str(p.address)] = []  # not published: no version of it exists
        finally:
            ctx.close()
    versions = {p: [v for v in vs if (p, v) in trees] for p, vs in versions.items()}
    u = Universe(versions, trees, tree, providers, TARGET, shared)
    return index_of(u), answer


def _all_candidates(ctx, req, listed) -> list[ModuleCandidate]:
    """Every released version listed (not only those the call's constraint admits: an
    explanation's what-if solves relax it)."""
    pkg = ctx.package_address(req.call.source)
    return [ModuleCandidate(req.call_path, req.call.source, a, pkg) for a in listed if a.version is not None]


def _calls_of(tree: ModuleTree, at: str) -> list[ModuleRequirement]:
    return [ModuleRequirement(f"{at}.{'.'.join(rc.rel_path)}", rc.call, Origin(at, None, None), str(rc.call.source))
            for rc in tree.remote_calls]


def main(argv: list[str]) -> int:
    shared = "--shared" in argv
    name, root_file, about = [a for a in argv if a != "--shared"]
    index, answer = record(Path(root_file).read_text(), shared)
    replayed, _, _ = run_case(index)
    if replayed != answer:
        print("the in-memory answer differs from the server-backed one:", file=sys.stderr)
        print(json.dumps({"server": answer, "memory": replayed}, indent=1), file=sys.stderr)
        return 1
    path = Path(CASES[0]).parent / f"{name}.json"
    # compact: a recorded universe holds every version of each package the solve met
    path.write_text(json.dumps({"about": about, "recorded": True, "index": index, "expect": replayed},
                               separators=(",", ":")) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
