"""Cold ``init`` of two (or more) source trees of tofu-solve, alternated on the same roots,
world and delay proxies: what one change is worth, with the machine's drift spread evenly.

    python3 bench/ab.py --tree A_DIR --tree B_DIR --root NAME [--root NAME ...] [--repeat 4]
                        [--rtt-ms 150] [--real-content GIT_DIR ...]

Each tree is a checkout (``git worktree add /tmp/base COMMIT``); each run is a fresh process
``python -S -m tofu_solve init -handover=false`` with ``PYTHONPATH=TREE:site-packages`` and the
tree as working directory (so that neither an editable install nor the current directory
decides which code runs), on a fresh copy of the root with an empty cache. Runs alternate
A, B, B, A, ... after one unmeasured round that warms the servers. Prints the median and every
run per tree and root. The registry and ``git daemon`` sit behind ``delay_proxy.py`` as in
``latency.py``; ``--real-content`` serves the named real repositories (``real_world.py``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import site
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from delay_proxy import DelayProxy  # noqa: E402
from real_world import bench_world  # noqa: E402

from tofu_solve.world import GitDaemon, RegistryServer, write_cli_config  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, type=Path, help="a source tree (repeatable)")
    ap.add_argument("--root", action="append", required=True, help="a root by name (repeatable)")
    ap.add_argument("--repeat", type=int, default=4)
    ap.add_argument("--rtt-ms", type=float, default=150.0)
    ap.add_argument("--real-content", nargs="+", type=Path, default=[], metavar="GIT_DIR")
    a = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="tofu-solve-ab-"))
    world, every = bench_world(REPO.parent / "shared", a.real_content, scratch)
    packages = os.pathsep.join(site.getsitepackages())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for tree in a.tree:  # as pip installs it: compiled once, not on every run
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "tofu_solve")], env=env,
                       capture_output=True, check=True)
    rtt = a.rtt_ms / 1000
    times: dict[tuple[str, Path], list[float]] = {}
    try:
        with GitDaemon(world.git_dir) as git, DelayProxy(("127.0.0.1", git.port), rtt) as gproxy:
            with RegistryServer(world, f"git://127.0.0.1:{gproxy.port}/") as reg, \
                    DelayProxy(("127.0.0.1", reg.port), rtt) as rproxy:
                n = 0
                for name in a.root:
                    root = every[name]
                    for i in range(a.repeat + 1):
                        for tree in a.tree if i % 2 else a.tree[::-1]:
                            n += 1
                            tmp = scratch / f"run{n}"
                            tmp.mkdir()
                            rc = write_cli_config(tmp / "rc", f"http://127.0.0.1:{rproxy.port}")
                            root.write(tmp / "root")
                            run_env = {**env, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache"),
                                       "HOME": str(tmp), "NO_COLOR": "1",
                                       "PYTHONPATH": os.pathsep.join([str(tree.resolve()), packages])}
                            os.sync()
                            started = time.monotonic()
                            done = subprocess.run([sys.executable, "-S", "-m", "tofu_solve", "init", "-handover=false",
                                                   f"-chdir={tmp / 'root'}"], env=run_env, cwd=tree,
                                                  capture_output=True, text=True)
                            took = time.monotonic() - started
                            if done.returncode:
                                print(f"{name} {tree}: exit {done.returncode}\n{done.stderr[-800:]}")
                            elif i:
                                times.setdefault((name, tree), []).append(took)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for (name, tree), xs in times.items():
        print(f"| {name} | {tree} | {statistics.median(xs):.2f} | {' '.join(f'{x:.2f}' for x in xs)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
