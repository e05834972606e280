"""A fresh CI machine installing from a committed lock file, behind network latency: with the
``package`` pins of issue #25 against the same lock written without them.

    python3 bench/locked_install.py [--rtt-ms 150] [--roots 8] [--root NAME ...] [--real-content GIT_DIR ...]

For each root (the sample ``latency.py`` takes) and RTT, behind the same delay proxies
(``delay_proxy.py``: every round trip costs RTT, every new connection two more):

1. ``init`` once, to write the lock file (not timed);
2. **pinned**: ``init -lockfile=readonly`` with an empty cache and that lock file, as a CI
   job runs it: each locked version comes straight from its ``package`` (a git commit
   fetched by id), with no version listing, no download-location request, no ``ls-remote``;
3. **unpinned**: the same with the lock's ``package``/``floating`` lines removed, the form
   tofu-solve wrote before issue #25: each registry version asks for its download location,
   each git tag is listed and fetched by name, then checked against the lock.

Reports both times, their ratio and the network operations each made (``-json`` stats).
Both runs install the same files and leave the lock unchanged (checked).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from delay_proxy import DelayProxy  # noqa: E402
from latency import _run_cli, pick_roots  # noqa: E402
from real_world import real_content_world  # noqa: E402

from tofu_solve.world import (  # noqa: E402
    GitDaemon,
    RegistryServer,
    build_world,
    default_world_dir,
    write_cli_config,
)

UNPINNED = re.compile(r"\n  (package = \"[^\"]*\"|floating = true)(?=\n)")


def _files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def _ci_init(root: Path, env: dict, cache: Path) -> tuple[float, dict, dict]:
    shutil.rmtree(root / ".terraform", ignore_errors=True)
    took, code, out = _run_cli(["init", "-json", "-handover=false", "-lockfile=readonly", f"-chdir={root}"],
                               {**env, "TOFU_SOLVE_CACHE_DIR": str(cache)})
    if code != 0:
        raise SystemExit(f"{root}: CI init failed:\n{out[-2000:]}")
    result = json.loads(out.strip().splitlines()[-1])["result"]
    return took, result["network_operations"], _files(root / ".terraform" / "modules")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtt-ms", default="150")
    ap.add_argument("--roots", type=int, default=8)
    ap.add_argument("--root", action="append", default=[], metavar="NAME")
    ap.add_argument("--real-content", nargs="+", type=Path, default=[], metavar="GIT_DIR")
    args = ap.parse_args()
    corpus = Path(os.environ.get("TOFU_SOLVE_SHARED", REPO.parent / "shared")) / "corpus"
    world = build_world(corpus, default_world_dir())
    scratch = Path(tempfile.mkdtemp(prefix="tofu-solve-locked-install-"))
    label = "fixture"
    if args.real_content:
        world, _ = real_content_world(world, args.real_content, scratch / "world")
        label = "real"
    roots = pick_roots(corpus, args.root, args.roots)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "tofu_solve")], check=True,
                   capture_output=True)
    print(f"world: {label}\n")
    print("| root | calls | RTT ms | pinned s | unpinned s | unpinned/pinned | pinned network ops | "
          "unpinned network ops |")
    print("|---|---|---|---|---|---|---|---|")
    ratios: dict[float, list[float]] = {}
    for rtt_ms in [float(x) for x in args.rtt_ms.split(",")]:
        rtt = rtt_ms / 1000
        with GitDaemon(world.git_dir) as git, DelayProxy(("127.0.0.1", git.port), rtt) as gproxy, \
                RegistryServer(world, f"git://127.0.0.1:{gproxy.port}/") as reg, \
                DelayProxy(("127.0.0.1", reg.port), rtt) as rproxy:
            for root in roots:
                tmp = Path(tempfile.mkdtemp(prefix="r-", dir=scratch))
                rc = write_cli_config(tmp / "rc", f"http://127.0.0.1:{rproxy.port}")
                env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "HOME": str(tmp), "NO_COLOR": "1"}
                root.write(tmp / "root")
                _, code, _out = _run_cli(["init", "-json", "-handover=false", f"-chdir={tmp / 'root'}"],
                                        {**env, "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache0")})
                if code != 0:
                    print(f"| {root.name} | failed |", flush=True)
                    continue
                lock_path = tmp / "root" / ".terraform.lock.hcl"
                pinned_lock = lock_path.read_text()
                calls = pinned_lock.count('\nmodule "')
                p_time, p_ops, p_files = _ci_init(tmp / "root", env, tmp / "cache1")
                lock_path.write_text(UNPINNED.sub("", pinned_lock))
                u_time, u_ops, u_files = _ci_init(tmp / "root", env, tmp / "cache2")
                assert p_files == u_files, f"{root.name}: the two installs differ"
                assert lock_path.read_text() == UNPINNED.sub("", pinned_lock), "readonly must not write"
                ratios.setdefault(rtt_ms, []).append(u_time / p_time)
                fmt = lambda ops: ", ".join(f"{k} {v}" for k, v in sorted(ops.items()))  # noqa: E731
                print(f"| {root.name} | {calls} | {rtt_ms:g} | {p_time:.2f} | {u_time:.2f} | {u_time / p_time:.2f} | "
                      f"{fmt(p_ops)} | {fmt(u_ops)} |", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    print()
    for rtt_ms, xs in sorted(ratios.items()):
        print(f"- RTT {rtt_ms:g} ms: unpinned/pinned median {statistics.median(xs):.2f}, "
              f"min {min(xs):.2f}, max {max(xs):.2f} over {len(xs)} roots")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
