"""What a module policy costs in solve time (issue #39), on the largest example roots of the
corpus, in the fixture world, in process.

    python3 bench/policy_cost.py [--roots 6] [--repeat 5] [--hcl]

For each root (the ``--roots`` example roots with the most module calls): one init to fill
the cache (and one solve under the policy, which fetches the older versions it needs), then
``--repeat`` solves each (as ``init -upgrade`` solves: every call chosen afresh, from the
cache; listings from the loopback registry) without a policy, and with a policy of the usual shape: a
``sources { allow }`` list covering the root's packages plus ten patterns that match
nothing, and a ``deny`` rule for the newest version of every package the root calls
directly (so that every call must go back one version, the policy's worst case short of a
conflict). Prints a Markdown table of medians (seconds) and the ratio.

With ``--hcl`` (issue #62), the same policy written as HashiCorp's ``*.policy.hcl``: one
``module_policy "*"`` whose conditions are evaluated on every candidate (the same allow-list,
as source prefixes walked with ``anytrue([for ...])``, a ``core::semverconstraint`` floor, no
prerelease, and the newest version of each directly called package refused through a map
local), so the two rows compare the evaluator against the ``deny`` blocks' constraint checks.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tofu_solve.cli import main as cli_main  # noqa: E402
from tofu_solve.cli import tune_collector  # noqa: E402
from tofu_solve.config.policy import load_policy, package_address, read_policy  # noqa: E402
from tofu_solve.config.tree import read_module_tree  # noqa: E402
from tofu_solve.errors import TofuSolveError  # noqa: E402
from tofu_solve.lockfile import LockFile  # noqa: E402
from tofu_solve.settings import Settings  # noqa: E402
from tofu_solve.solver.context import SolveOptions  # noqa: E402
from tofu_solve.solver.resolve import solve  # noqa: E402
from tofu_solve.solver.wiring import build_context  # noqa: E402
from tofu_solve.versions.target import target_version  # noqa: E402
from tofu_solve.world import GitDaemon, RegistryServer, build_world, default_world_dir, write_cli_config  # noqa: E402
from tofu_solve.world.roots import example_roots  # noqa: E402


def timed_solve(root: Path, settings: Settings, policy) -> tuple[float, dict]:
    target = target_version(None, root)
    tree = read_module_tree(root, confine=False, product=target.product)
    ctx = build_context(SolveOptions(target, upgrade=True, policy=policy), LockFile(), settings, None).context
    t = time.perf_counter()
    try:
        res = solve(tree, ctx, root)
        return time.perf_counter() - t, {p: c.version_text for p, c in res.modules.items()}
    except TofuSolveError:  # no compliant solution: the time to find that out (the explanation not included)
        return time.perf_counter() - t, {}
    finally:
        ctx.close()


def _hcl_policy(tree, newest: dict[str, str]) -> str:
    """The same policy as a ``*.policy.hcl`` file: sources allowed by prefix, a floor, no
    prerelease, the newest version of each directly called package refused."""
    sources = {package_address(c.call.source): c.call.source_text for c in tree.remote_calls}
    refused = {sources[p]: v for p, v in newest.items() if p in sources}
    prefixes = sorted({s.split("?")[0] for s in sources.values()}) + [f"nothing-{i}/" for i in range(10)]
    return "\n".join([
        "locals {",
        "  prefixes = [" + ", ".join(f'"{p}"' for p in prefixes) + "]",
        "  refused  = {" + ", ".join(f'"{s}" = "{v}"' for s, v in sorted(refused.items())) + "}",
        "}",
        'module_policy "*" "bench" {',
        "  filter = meta.version != null",
        "  enforce {",
        # as the deny run's allow list: the root's packages, ten that match nothing, then any
        # registry address or git URL (its "*/*/*/*" and "git::*")
        "    condition     = anytrue([for p in local.prefixes : startswith(meta.source, p)]) ||",
        '                    length(split("/", meta.source)) >= 3 || startswith(meta.source, "git::")',
        '    error_message = "${meta.source} is not an approved source"',
        "  }",
        "  enforce {",
        '    condition     = core::semverconstraint(meta.version, ">= 0.0.1") && !can(regex("-", meta.version))',
        '    error_message = "no prerelease, no 0.0.0"',
        "  }",
        "  enforce {",
        '    condition     = try(local.refused[meta.source], "") != meta.version',
        '    error_message = "bench"',
        "  }",
        "}", ""])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--roots", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--hcl", action="store_true", help="the policy as a *.policy.hcl file (issue #62)")
    args = ap.parse_args()
    tune_collector()
    corpus = Path(os.environ.get("TOFU_SOLVE_SHARED", REPO.parent / "shared")) / "corpus"
    world = build_world(corpus, default_world_dir())
    roots = sorted(example_roots(corpus), key=lambda r: -r.calls)[:args.roots]
    tmp = Path(tempfile.mkdtemp(prefix="tofu-solve-policy-"))
    print("| root | calls | solved calls | no policy s | policy s | ratio | versions moved by the policy |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    with GitDaemon(world.git_dir) as git, RegistryServer(world, f"git://127.0.0.1:{git.port}/") as reg:
        rc = write_cli_config(tmp / "rc", f"http://127.0.0.1:{reg.port}")
        env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache"),
               "HOME": str(tmp)}
        settings = Settings.from_environ(env)
        os.environ.update({"TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache")})
        for r in roots:
            d = tmp / r.name.replace(":", "_").replace("@", "_")
            r.write(d)
            if cli_main(["init", "-handover=false", "-policy=none", f"-chdir={d}"]) != 0:  # fills the cache
                print(f"| {r.name} | {r.calls} | init failed | | | | |")
                continue
            _, free = timed_solve(d, settings, None)
            target = target_version(None, d)
            tree = read_module_tree(d, confine=False, product=target.product)
            addresses = {".".join(c.rel_path): package_address(c.call.source) for c in tree.remote_calls}
            packages = sorted({a for a in addresses.values() if a})
            newest = {addresses[p]: v for p, v in free.items() if addresses.get(p)
                      and any(c.call.version is not None and ".".join(c.rel_path) == p for c in tree.remote_calls)}
            lines = ["sources {", "  allow = [" + ", ".join(
                [f'"{p}"' for p in packages] + [f'"nothing-{i}/*/*"' for i in range(10)]
                + ['"git::*"', '"*/*/*/*"']) + "]", "}"]
            for p, v in newest.items():
                lines += [f'deny "module" "{p}" {{', f'  versions = "{v}"', '  reason = "bench"', "}"]
            (d / "policy.hcl").write_text("\n".join(lines) + "\n")
            policy = read_policy(d / "policy.hcl", registry_host=target.product.registry_host)
            if args.hcl:
                (d / "bench.policy.hcl").write_text(_hcl_policy(tree, newest))
                policy = load_policy(d, str(d / "bench.policy.hcl"), {}, target.product.registry_host)
            timed_solve(d, settings, policy)  # the older versions the policy needs, fetched once into the cache
            plain = statistics.median(timed_solve(d, settings, None)[0] for _ in range(args.repeat))
            runs = [timed_solve(d, settings, policy) for _ in range(args.repeat)]
            with_policy = statistics.median(t for t, _ in runs)
            moved = sum(1 for p, v in runs[0][1].items() if free.get(p) != v) if runs[0][1] else "no compliant solution"
            ratios.append(with_policy / plain)
            print(f"| {r.name} | {r.calls} | {len(free)} | {plain:.3f} | {with_policy:.3f} | "
                  f"{with_policy / plain:.2f} | {moved} |", flush=True)
    if ratios:
        print(f"\nmedian ratio {statistics.median(ratios):.2f}, worst {max(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
