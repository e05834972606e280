"""A fleet of CI jobs with and without a package store (issue #49 §5).

    python3 bench/fleet.py [--jobs 16] [--rtt-ms 150] [--store-rtt-ms 20] [--roots 4] [--root NAME ...] [--python PY]
                           [--real-content GIT_DIR ...] [--parallel 1] [--handover]

Origins (the fixture registry, its provider files and ``git daemon``) sit behind delay
proxies of ``--rtt-ms``; the store, Debian's ``docker-registry`` on 127.0.0.1, behind one of
``--store-rtt-ms`` (``delay_proxy.py``: every round trip costs RTT, a new connection two
more). The roots are those of ``bench/latency.py`` (``--roots``, ``--root``). Each root is
locked once first (not measured), as a team's repository holds its lock file. Then
``--jobs`` jobs, spread over the roots, each a fresh clone with an empty cache running
``tofu-solve init -handover=false``, in three fleets:

* **no store**: every job fetches from the origins;
* **cold store**: the store starts empty; jobs read what earlier jobs pushed;
* **warm store**: the store holds every locked package (filled by the cold fleet).

For each fleet and root it reports the median wall time per job, the requests each job made
to the origins (registry requests, from the server's log, plus git connections, from the
git proxy), and the bytes each job read from the origins and from the store (what the
proxies carried down). Jobs run one after another (``--parallel 1``) so that each job's
requests are its own; ``--parallel N`` runs N at once and reports the fleet's totals.

Beside them, ``terraform get`` on each root through the same origin proxies (fresh copy,
no cache), when ``terraform`` is on PATH: the target is a warm-store job in at most half
its time.

``--handover`` (issue #68 §5; needs ``terraform`` on PATH, which the jobs then solve for)
adds two fleets whose jobs hand over to ``terraform init`` as ``tofu-solve init`` does by
default, so that a job ends with the directory ready for ``plan``:

* **hand-over, origins up, no store**: every package from the origins;
* **hand-over, every origin down, warm store**: the origins' proxies and servers stopped, every
  package from the store, the providers given to the client from what tofu-solve verified.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from delay_proxy import DelayProxy  # noqa: E402
from latency import _client_time, pick_roots  # noqa: E402
from real_world import real_content_world  # noqa: E402

from tests.e2e.oci_fixtures import run_registry  # noqa: E402
from tofu_solve.world import GitDaemon, RegistryServer, build_world, default_world_dir, write_cli_config  # noqa: E402

PYTHON = [sys.executable]  # the interpreter jobs run tofu-solve with (--python)


def _init(root: Path, env: dict, handover: str | None = None) -> tuple[float, int, dict]:
    """One job's ``init -json`` (``handover``: the client to hand over to; else none)."""
    started = time.monotonic()
    flags = [f"-tf-path={handover}"] if handover else ["-handover=false"]
    done = subprocess.run([PYTHON[0], "-m", "tofu_solve", "init", "-json", *flags, f"-chdir={root}"],
                          env=env, capture_output=True, text=True)
    took = time.monotonic() - started
    result = {}
    for line in reversed(done.stdout.strip().splitlines()):
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("type") == "init_result":
            result = msg["result"]
            break
    return took, done.returncode, result


class Origins:
    """The origins behind their proxies, and what they served so far."""

    def __init__(self, reg: RegistryServer, rproxy: DelayProxy, gproxy: DelayProxy):
        self.reg, self.rproxy, self.gproxy = reg, rproxy, gproxy

    def mark(self) -> tuple[int, int, int]:
        return len(self.reg.log.requests), self.gproxy.connections, self.rproxy.bytes_down + self.gproxy.bytes_down


def _fleet(name: str, store: str | None, roots, locks: dict, origins: Origins, sproxy: DelayProxy | None,
           rc: Path, jobs: int, parallel: int, work: Path, handover: str | None = None) -> list[dict]:
    out: list[dict] = []

    def one(i: int) -> dict:
        root = roots[i % len(roots)]
        tmp = work / f"{name}-{i}"
        root.write(tmp / "root")
        (tmp / "root" / ".terraform.lock.hcl").write_text(locks[root.name])
        env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache"),
               "HOME": str(tmp), "NO_COLOR": "1", "TOFU_SOLVE_PACKAGE_STORE": store or "",
               "TOFU_SOLVE_PACKAGE_STORE_GRACE": "60"}
        before, sbefore = origins.mark(), sproxy.bytes_down if sproxy else 0
        took, code, result = _init(tmp / "root", env, handover)
        after, safter = origins.mark(), sproxy.bytes_down if sproxy else 0
        if handover and code == 0:  # the client's init installed the providers: ready for plan
            code = 0 if list((tmp / "root" / ".terraform" / "providers").glob("*/*/*/*/*")) else 3
        same = (tmp / "root" / ".terraform.lock.hcl").read_text() == locks[root.name]
        ps = result.get("package_store") or {}
        return {"root": root.name, "seconds": took, "code": code, "lock_unchanged": same,
                "origin_requests": (after[0] - before[0]) + (after[1] - before[1]),
                "origin_bytes": after[2] - before[2], "store_bytes": safter - sbefore,
                "read": len(ps.get("read", [])), "pushed": len(ps.get("pushed", [])),
                "rejected": len(ps.get("rejected", []))}
    if parallel > 1:
        before, sbefore = origins.mark(), sproxy.bytes_down if sproxy else 0
        started = time.monotonic()
        with ThreadPoolExecutor(parallel) as pool:
            out = list(pool.map(one, range(jobs)))
        wall = time.monotonic() - started
        after, safter = origins.mark(), sproxy.bytes_down if sproxy else 0
        print(f"  {name}: {jobs} jobs, {parallel} at once: {wall:.1f} s; origins {after[0] - before[0]} requests + "
              f"{after[1] - before[1]} git connections, {(after[2] - before[2]) / 1e6:.1f} MB; store "
              f"{(safter - sbefore) / 1e6:.1f} MB", flush=True)
    else:
        out = [one(i) for i in range(jobs)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--rtt-ms", type=float, default=150)
    ap.add_argument("--store-rtt-ms", type=float, default=20)
    ap.add_argument("--roots", type=int, default=4)
    ap.add_argument("--root", action="append", default=[])
    ap.add_argument("--real-content", nargs="*", default=[])
    ap.add_argument("--parallel", type=int, default=1)
    ap.add_argument("--handover", action="store_true", help="add the hand-over fleets (origins up without a store; "
                                                           "every origin down with a warm store)")
    ap.add_argument("--python", default=sys.executable,
                    help="the interpreter of the jobs: a virtual environment with tofu-solve installed as users "
                         "install it (this repository's test extras make oras's import take a second longer)")
    args = ap.parse_args()
    PYTHON[0] = args.python
    corpus = Path(os.environ.get("TOFU_SOLVE_CORPUS", REPO.parent / "shared" / "corpus"))
    world = build_world(corpus, default_world_dir())
    roots = pick_roots(corpus, args.root, args.roots)
    work = Path(tempfile.mkdtemp(prefix="tofu-solve-fleet-"))
    terraform = shutil.which("terraform")
    rtt, srtt = args.rtt_ms / 1000, args.store_rtt_ms / 1000
    if args.real_content:
        world, _ = real_content_world(world, [Path(p) for p in args.real_content], work / "real")
    if args.handover and not terraform:
        ap.error("--handover needs terraform on PATH")
    handover = terraform if args.handover else None
    try:
        with run_registry(work / "store") as oci, \
                DelayProxy(("127.0.0.1", int(oci.host.rsplit(":", 1)[1])), srtt) as sproxy:
            with contextlib.ExitStack() as up:  # the origins: leaving the block stops them
                git = up.enter_context(GitDaemon(world.git_dir))
                gproxy = up.enter_context(DelayProxy(("127.0.0.1", git.port), rtt))
                reg = up.enter_context(RegistryServer(world, f"git://127.0.0.1:{gproxy.port}/"))
                rproxy = up.enter_context(DelayProxy(("127.0.0.1", reg.port), rtt))
                rc = write_cli_config(work / "rc", f"http://127.0.0.1:{rproxy.port}")
                origins = Origins(reg, rproxy, gproxy)
                locks, tg = {}, {}
                for root in roots:  # the repository's lock file, written once
                    root.write(work / "lock" / root.name)
                    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc),
                           "TOFU_SOLVE_CACHE_DIR": str(work / "lock-cache"), "HOME": str(work),
                           "TOFU_SOLVE_PACKAGE_STORE": ""}
                    _, code, _ = _init(work / "lock" / root.name, env)
                    if code == 0:
                        locks[root.name] = (work / "lock" / root.name / ".terraform.lock.hcl").read_text()
                        if terraform:
                            tg[root.name] = _client_time(terraform, "get", root, work / f"tf-get-{root.name}", env)
                roots = [r for r in roots if r.name in locks]
                store = f"oci://127.0.0.1:{sproxy.port}/fleet"
                fleets = {}
                for name, addr in (("no store", None), ("cold store", store), ("warm store", store)):
                    fleets[name] = _fleet(name.replace(" ", "-"), addr, roots, locks, origins, sproxy, rc,
                                          args.jobs, args.parallel, work)
                if handover:
                    fleets["hand-over, origins up, no store"] = _fleet(
                        "handover-up", None, roots, locks, origins, sproxy, rc, args.jobs, args.parallel, work,
                        handover)
            if handover:  # every origin stopped (servers and proxies); the store stays
                fleets["hand-over, every origin down, warm store"] = _fleet(
                    "handover-down", store, roots, locks, origins, sproxy, rc, args.jobs, args.parallel, work,
                    handover)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{args.jobs} jobs over {len(roots)} roots; origins at RTT {args.rtt_ms:g} ms, store at "
          f"{args.store_rtt_ms:g} ms; medians per job\n")
    print("| root | terraform get s | fleet | job s | job / get | origin requests | origin MB | store MB | "
          "read | pushed | rejected | lock unchanged |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for root in roots:
        for name, rows in fleets.items():
            mine = [r for r in rows if r["root"] == root.name]
            if not mine:
                continue
            med = lambda k, rows=mine: statistics.median(r[k] for r in rows)  # noqa: E731
            get = tg.get(root.name)
            ratio = "-" if not get else f"{med('seconds') / get:.2f}"
            ok = all(r["code"] == 0 and r["lock_unchanged"] for r in mine)
            print(f"| {root.name} | {'-' if get is None else f'{get:.2f}'} | {name} | {med('seconds'):.2f} | "
                  f"{ratio} | "
                  f"{med('origin_requests'):g} | {med('origin_bytes') / 1e6:.2f} | {med('store_bytes') / 1e6:.2f} | "
                  f"{med('read'):g} | {med('pushed'):g} | {sum(r['rejected'] for r in mine)} | "
                  f"{'yes' if ok else 'NO'} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
