"""How long an impossible root takes to explain, cold, behind a given round-trip time.

    python3 bench/explain_time.py [--rtt-ms 0,150] [--pairs 6] [--real-content GIT_DIR ...]

Roots: the three-party root of issue #12 (aws ~> 5.0 with vpc, eks >= 21.0 and rds ~> 7.0),
the eight-call ``-module-versions=shared`` root (kms ~> 3.0 against eks 21's kms 4.0.0), and
assembled pairs under ``aws ~> 5.0`` with no solution (sampled evenly). Each run is a cold
``init`` (empty cache) through delay proxies (``delay_proxy.py``: RTT per round trip, two
more per connection) in front of the fixture registry and git daemon. Prints a Markdown
table: seconds to the explanation, what-if solves, clashes, verified suggestions.
``--real-content`` runs every case twice: in the fixture world and with those real
repositories in place of the generated ones (``real_world.py``); the ``world`` column says
which.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from delay_proxy import DelayProxy  # noqa: E402
from real_world import real_content_world  # noqa: E402

from tests.e2e.test_explanations import AWS5_VPC_EKS_RDS, SHARED_8  # noqa: E402
from tofu_solve.command.init import InitOptions, run_init  # noqa: E402
from tofu_solve.errors import ResolutionError  # noqa: E402
from tofu_solve.settings import Settings  # noqa: E402
from tofu_solve.world import (  # noqa: E402
    GitDaemon,
    RegistryServer,
    build_world,
    default_world_dir,
    write_cli_config,
)
from tofu_solve.world.roots import assembled_roots  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtt-ms", default="0,150")
    ap.add_argument("--pairs", type=int, default=6, help="impossible assembled pairs to sample")
    ap.add_argument("--real-content", nargs="+", type=Path, default=[], metavar="GIT_DIR",
                    help="real repositories: run every case in the fixture world and with these contents")
    args = ap.parse_args()
    corpus = Path(os.environ.get("TOFU_SOLVE_SHARED", REPO.parent / "shared")) / "corpus"
    world = build_world(corpus, default_world_dir())
    worlds = [("fixture", world)]
    if args.real_content:
        worlds.append(("real", real_content_world(world, args.real_content,
                                                  Path(tempfile.mkdtemp(prefix="tofu-solve-real-world-")))[0]))
    cases = [("three parties (issue #12)", AWS5_VPC_EKS_RDS, False),
             ("three parties, vpc ~> 6.1 (issue #24)", AWS5_VPC_EKS_RDS.replace('"~> 6.0"', '"~> 6.1"'), False),
             ("8 calls, shared (issue #12)", SHARED_8, True)]
    pairs = [r for r in assembled_roots(corpus) if r.name.endswith(":aws5")]
    step = max(1, len(pairs) // max(1, args.pairs * 3))
    sampled = pairs[::step]
    print("| root | world | RTT ms | seconds | what-if solves | clashes | suggestions | keep the providers | "
          "keep the modules |")
    print("|---|---|---|---|---|---|---|---|---|")
    for rtt_ms in [float(x) for x in args.rtt_ms.split(",")]:
        rtt = rtt_ms / 1000
        shown = 0
        todo = cases + [(r.name, r.main_tf, False) for r in sampled]
        for (name, main_tf, shared), (label, w) in ((c, w) for c in todo for w in worlds):
            if shown >= (len(cases) + args.pairs) * len(worlds):
                break
            tmp = Path(tempfile.mkdtemp(prefix="tofu-solve-explain-"))
            (tmp / "root").mkdir()
            (tmp / "root" / "main.tf").write_text(main_tf)
            with GitDaemon(w.git_dir) as git, DelayProxy(("127.0.0.1", git.port), rtt) as gproxy:
                with RegistryServer(w, f"git://127.0.0.1:{gproxy.port}/") as reg, \
                        DelayProxy(("127.0.0.1", reg.port), rtt) as rproxy:
                    rc = write_cli_config(tmp / "rc", f"http://127.0.0.1:{rproxy.port}")
                    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache")}
                    started = time.monotonic()
                    try:
                        run_init(InitOptions(root=tmp / "root", shared=shared), Settings.from_environ(env))
                        continue  # resolvable: not an explanation case
                    except ResolutionError as e:
                        seconds = time.monotonic() - started
                        x = e.explanation
            shown += 1
            sgs = x.get("suggestions", [])

            def keeps(what: str, sgs=sgs) -> str:
                found = [s for s in sgs if what in s.get("keeps", ())]
                return f"{len(found[0]['edits'])} edits" if found else "-"
            print(f"| {name} | {label} | {rtt_ms:g} | {seconds:.1f} | {x.get('what_if_solves', 0)} | "
                  f"{len(x.get('clashes', []))} | {len(sgs)} | {keeps('providers')} | {keeps('modules')} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
