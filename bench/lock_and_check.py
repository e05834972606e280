"""Provider locking, the override bridge and ``check``, measured behind network latency.

    python3 bench/lock_and_check.py [--rtt-ms 0,50,150] [--roots 8] [--output bench/RESULTS.md]

For real roots (the demo's two solvable roots and example roots from the corpus), at each
round-trip time, through :class:`delay_proxy.DelayProxy` in front of the fixture registry and
``git daemon`` (every new connection pays two round trips, as TCP plus TLS would):

* cold ``init`` (empty cache): total seconds, and how long building provider locks took
  (registry package answers, signed checksums, zips, per target platform), which runs
  alongside the module package fetches;
* warm re-init: seconds, network operations;
* ``check`` on the warm tree: in-process seconds, and as a fresh process (what a CI step
  pays, interpreter start included).

Results replace the "Provider locks and check" section of ``bench/RESULTS.md``. Nothing is
asserted; loopback only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from delay_proxy import DelayProxy  # noqa: E402

from tofu_solve.command.check import check  # noqa: E402
from tofu_solve.command.init import InitOptions, run_init  # noqa: E402
from tofu_solve.errors import TofuSolveError  # noqa: E402
from tofu_solve.settings import Settings  # noqa: E402
from tofu_solve.world import (  # noqa: E402
    GitDaemon,
    RegistryServer,
    build_world,
    default_world_dir,
    write_cli_config,
)
from tofu_solve.world.roots import example_roots  # noqa: E402

SECTION = "## Provider locks and check"


def roots(corpus: Path, n: int) -> list[tuple[str, str]]:
    out = []
    for d in sorted((REPO / "tofu_solve" / "data" / "demo").iterdir()):
        if "impossible" not in d.name:
            out.append((f"demo:{d.name}", (d / "main.tf").read_text()))
    ex = [r for r in example_roots(corpus) if 3 <= r.calls <= 20]
    step = max(1, len(ex) // max(1, n - len(out)))
    out += [(r.name, r.main_tf) for r in ex[::step]][: max(0, n - len(out))]
    return out


def measure(world, rtt: float, sample: list[tuple[str, str]], tmp: Path) -> list[dict]:
    rows = []
    with GitDaemon(world.git_dir) as git, DelayProxy(("127.0.0.1", git.port), rtt) as gproxy:
        with RegistryServer(world, f"git://127.0.0.1:{gproxy.port}/") as reg, \
                DelayProxy(("127.0.0.1", reg.port), rtt) as rproxy:
            rc = write_cli_config(tmp / f"rc-{rtt}", f"http://127.0.0.1:{rproxy.port}")
            for name, text in sample:
                work = tmp / f"{rtt}-{len(rows)}"
                (work / "root").mkdir(parents=True)
                (work / "root" / "main.tf").write_text(text)
                env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(work / "cache")}
                row = {"root": name}
                t0 = time.monotonic()
                try:
                    res = run_init(InitOptions(root=work / "root"), Settings.from_environ(env))
                except TofuSolveError as e:
                    row["error"] = e.summary
                    rows.append(row)
                    continue
                row["cold"] = time.monotonic() - t0
                row["provider_lock"] = res.stats["provider_lock_ms"] / 1000
                row["providers"] = len(res.locks.providers)
                row["provider_ops"] = sum(v for k, v in res.network.items() if k.startswith("provider_") and
                                          k != "provider_versions")
                t0 = time.monotonic()
                warm = run_init(InitOptions(root=work / "root"), Settings.from_environ(env))
                row["warm"] = time.monotonic() - t0
                row["warm_ops"] = sum(warm.network.values())
                t0 = time.monotonic()
                diffs = check(work / "root", Settings.from_environ(env))
                row["check"] = time.monotonic() - t0
                row["check_ok"] = not diffs
                t0 = time.monotonic()
                p = subprocess.run([sys.executable, "-m", "tofu_solve", "check", f"-chdir={work / 'root'}"], env=env,
                                   capture_output=True)
                row["check_process"] = time.monotonic() - t0
                row["check_ok"] = row["check_ok"] and p.returncode == 0
                rows.append(row)
    return rows


def med(rows, key):
    vals = [r[key] for r in rows if key in r]
    return statistics.median(vals) if vals else float("nan")


def report(results: dict[float, list[dict]], command: str, machine: str, n_roots: int) -> str:
    out = [SECTION, "", f"Command: `{command}`. Machine: {machine}.", "",
           f"{n_roots} real roots (the demo's two solvable roots and example roots with 3 to 20 calls), each at "
           "every round-trip time, through a delay proxy on 127.0.0.1 in front of the fixture registry and git "
           "daemon (every new connection pays two extra round trips, as TCP + TLS). Medians; provider locks are "
           "built for this machine's platform (one `h1:`) plus the four signed `zh:`.", "",
           "| RTT ms | roots ok | cold init s | provider locks s (alongside module fetches) | provider requests per root "
           "| warm re-init s | warm network ops | check s (in process) | check s (fresh process) | check clean |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for rtt, rows in results.items():
        ok = [r for r in rows if "cold" in r]
        out.append(f"| {rtt * 1000:.0f} | {len(ok)} of {len(rows)} | {med(ok, 'cold'):.2f} | "
                   f"{med(ok, 'provider_lock'):.2f} | {med(ok, 'provider_ops'):.0f} | {med(ok, 'warm'):.2f} | "
                   f"{sum(r['warm_ops'] for r in ok)} | {med(ok, 'check'):.3f} | {med(ok, 'check_process'):.2f} | "
                   f"{sum(r['check_ok'] for r in ok)} of {len(ok)} |")
    out += ["", "Reading these figures:",
            "- Provider locks cost, per provider, one package answer per target platform, then the checksums, their "
            "signature and the zip at once; they run after the solve, while module packages are fetched and "
            "verified, so the column is not added to the cold time but overlaps it. Behind latency the cost is "
            "connection set-up plus two round trips, paid once: the warm re-init makes no request.",
            "- `check` reads only local files; most of the fresh-process time is the interpreter and imports.",
            ""]
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtt-ms", default="0,50,150")
    ap.add_argument("--roots", type=int, default=8)
    ap.add_argument("--output", default=str(REPO / "bench" / "RESULTS.md"))
    args = ap.parse_args()
    corpus = Path(os.environ.get("TOFU_SOLVE_SHARED", REPO.parent / "shared")) / "corpus"
    world = build_world(corpus, default_world_dir())
    sample = roots(corpus, args.roots)
    results = {}
    tmp = Path(tempfile.mkdtemp(prefix="tofu-solve-bench-"))
    started = time.monotonic()
    try:
        for rtt_ms in (float(x) for x in args.rtt_ms.split(",")):
            results[rtt_ms / 1000] = measure(world, rtt_ms / 1000, sample, tmp)
            print(f"RTT {rtt_ms:.0f} ms done ({time.monotonic() - started:.0f} s)", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    from run import machine  # the same machine line as the main suite
    command = f"python3 bench/lock_and_check.py --rtt-ms {args.rtt_ms} --roots {args.roots}"
    text = report(results, command, machine(), len(sample))
    print(text)
    path = Path(args.output)
    old = path.read_text() if path.exists() else ""
    if SECTION in old:
        head, _, rest = old.partition(SECTION)
        tail = rest.split("\n## ", 1)
        old = head + (("## " + tail[1]) if len(tail) > 1 else "")
    path.write_text(old.rstrip("\n") + "\n\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
