"""Where one cold ``init`` spends its time: the run's ``TF_LOG=TRACE`` lines, each with the
milliseconds since the process started, behind delay proxies.

    python3 bench/timeline.py ROOT_NAME [--rtt-ms 150] [--real-content GIT_DIR ...] [--grep TEXT]
                              [--repeat N] [--client terraform]

The registry and ``git daemon`` of the fixture world sit behind ``delay_proxy.py`` (as in
``latency.py``); with ``--real-content`` the named packages' real repositories serve in place of
the generated ones (``real_world.py``). One unmeasured cold run warms the servers first; then
each of ``--repeat`` cold runs (empty cache, fresh process) prints its total seconds and, for the
last, every log line (or those containing ``--grep``) as ``+MS message``. ``--client`` times the
same root with ``terraform get`` and ``terraform init`` too (the same servers and proxies).
"""

from __future__ import annotations

import argparse
import os
import shutil
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


def _stamp(line: str) -> float | None:
    """Seconds since the epoch of a ``TF_LOG`` line (``2026-11-22T17:00:00.000Z [DEBUG] ...``)."""
    import calendar
    try:
        head = line.split(" ", 1)[0]
        whole, ms = head.rstrip("Z").split(".")
        return calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")) + int(ms) / 1000
    except (ValueError, IndexError):
        return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root")
    ap.add_argument("--rtt-ms", type=float, default=150.0)
    ap.add_argument("--real-content", nargs="+", type=Path, default=[], metavar="GIT_DIR")
    ap.add_argument("--grep", default="")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--client", help="also time CLIENT get and CLIENT init on the same root")
    ap.add_argument("--args", default="", help="more init arguments, space-separated")
    a = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="tofu-solve-timeline-"))
    world, every = bench_world(REPO.parent / "shared", a.real_content, scratch)
    root = every[a.root]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "tofu_solve")], check=True,
                   capture_output=True)
    rtt = a.rtt_ms / 1000
    try:
        with GitDaemon(world.git_dir) as git, DelayProxy(("127.0.0.1", git.port), rtt) as gproxy:
            with RegistryServer(world, f"git://127.0.0.1:{gproxy.port}/") as reg, \
                    DelayProxy(("127.0.0.1", reg.port), rtt) as rproxy:
                for attempt in range(a.repeat + 1):
                    tmp = scratch / f"run{attempt}"
                    tmp.mkdir()
                    rc = write_cli_config(tmp / "rc", f"http://127.0.0.1:{rproxy.port}")
                    root.write(tmp / "root")
                    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache"),
                           "HOME": str(tmp), "NO_COLOR": "1", "TF_LOG": "TRACE", "TF_LOG_PATH": str(tmp / "log")}
                    os.sync()
                    started = time.time()
                    done = subprocess.run([sys.executable, "-m", "tofu_solve", "init", "-handover=false",
                                           *a.args.split(), f"-chdir={tmp / 'root'}"], env=env,
                                          capture_output=True, text=True)
                    took = time.time() - started
                    if attempt == 0:
                        continue
                    print(f"run {attempt}: {took:.2f} s, exit {done.returncode}")
                    if done.returncode:
                        print(done.stderr[-2000:])
                    if attempt == a.repeat:
                        for line in (tmp / "log").read_text().splitlines():
                            t = _stamp(line)
                            if t is not None and a.grep in line:
                                print(f"+{(t - started) * 1000:6.0f} {line.split(' ', 2)[-1][:220]}")
                if a.client:
                    for verb in ("get", "init"):
                        tmp = scratch / f"client-{verb}"
                        tmp.mkdir()
                        root.write(tmp / "root")
                        env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "HOME": str(tmp),
                               "CHECKPOINT_DISABLE": "1", "TF_DATA_DIR": str(tmp / "root" / ".terraform")}
                        started = time.time()
                        done = subprocess.run([a.client, verb, "-no-color", *(["-input=false"] if verb == "init"
                                                                              else [])],
                                              cwd=tmp / "root", env=env, capture_output=True, text=True)
                        print(f"{a.client} {verb}: {time.time() - started:.2f} s, exit {done.returncode}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
