"""One real root's cold ``init`` behind a given round-trip time (delay proxy on 127.0.0.1).

    python3 bench/one_root_latency.py ROOT_NAME [--rtt-ms 150]

ROOT_NAME is an example root's name (``tofu_solve.world.roots.example_roots``). Prints one
JSON line: seconds, network operations, init stats and the selection, so that two commits
can be compared on the same root (same selection, fewer fetches).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from delay_proxy import DelayProxy  # noqa: E402

from tofu_solve.command.init import InitOptions, run_init  # noqa: E402
from tofu_solve.settings import Settings  # noqa: E402
from tofu_solve.world import (  # noqa: E402
    GitDaemon,
    RegistryServer,
    build_world,
    default_world_dir,
    write_cli_config,
)
from tofu_solve.world.roots import example_roots  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root")
    ap.add_argument("--rtt-ms", type=float, default=150.0)
    args = ap.parse_args()
    corpus = Path(os.environ.get("TOFU_SOLVE_SHARED", REPO.parent / "shared")) / "corpus"
    world = build_world(corpus, default_world_dir())
    root = next(r for r in example_roots(corpus) if r.name == args.root)
    rtt = args.rtt_ms / 1000
    tmp = Path(tempfile.mkdtemp(prefix="tofu-solve-one-root-"))
    with GitDaemon(world.git_dir) as git, DelayProxy(("127.0.0.1", git.port), rtt) as gproxy:
        with RegistryServer(world, f"git://127.0.0.1:{gproxy.port}/") as reg, \
                DelayProxy(("127.0.0.1", reg.port), rtt) as rproxy:
            rc = write_cli_config(tmp / "rc", f"http://127.0.0.1:{rproxy.port}")
            root.write(tmp / "root")
            env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache")}
            started = time.monotonic()
            res = run_init(InitOptions(root=tmp / "root"), Settings.from_environ(env))
            print(json.dumps({"root": root.name, "rtt_ms": args.rtt_ms, "seconds": round(time.monotonic() - started, 1),
                              "network": res.network, "stats": res.stats,
                              "selection": {p: c.version_text for p, c in res.resolution.modules.items()}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
