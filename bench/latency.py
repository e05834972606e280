"""Cold and warm init of real roots behind network latency, against the physical floor, a
model of ``tofu init``'s serial installer, and a measured ``terraform get``.

    python3 bench/latency.py [--rtt-ms 0,50,150] [--roots 8] [--root NAME ...] [--real-content GIT_DIR ...]
                              [--repeat N]

Delay proxies (``delay_proxy.py``, asyncio, 127.0.0.1 only) sit in front of the fixture
registry and ``git daemon``: every round trip costs RTT, every new connection two more
(TCP + TLS), each connection carries 20 MB/s. Roots: example roots of the corpus with at
least two remote module calls, sampled evenly, plus two assembled roots that need the
solver to go back (``vpc ~> 6.0`` with ``eks ~> 20.0``, without and with ``aws ~> 5.0``).

For each root and RTT it reports, in seconds:

* **floor**: what no installer can beat. Per level of the deepest chain of remote calls,
  one listing (1 RTT), one download location (1 RTT) and one git fetch (2 RTT connection +
  2 RTT protocol), everything else in parallel; plus the first registry connection (2 RTT)
  and, once the provider versions are known, one provider package chain (download answer,
  SHA256SUMS, signature, zip: 4 RTT). ``2 + 6 x depth + 4`` RTT.
* **tofu model**: ``tofu init``'s installer, one call after another (listing, location,
  ``git clone``: 6 RTT each), then one provider after another (versions, download answer,
  SHA256SUMS, signature, zip: 5 RTT each), after the first connection: ``2 + 6 x calls +
  5 x providers`` RTT.
* **terraform get** and **terraform init**: measured, through the same proxies, when
  ``terraform`` is on PATH, each on a fresh copy of the root with an empty data directory and
  no plugin cache: ``get`` installs the modules only (the installer ``tofu init`` forked, newest
  per call, nothing verified), ``init`` the modules and the providers (listings, package
  answers, checksums, signatures, zips) and writes the lock file.
* **tofu-solve cold** (empty cache) and **warm** (the same root again), measured; with
  ``--repeat N`` the median of N cold runs, each with an empty cache, and their range. One
  more cold run comes first and is not counted: it warms the servers (the git daemon
  reading a real repository's packs from a cold disk took seconds, which no real registry
  or forge charges a client).

Prints a Markdown table and the ratios (cold / floor, cold / tofu model, cold / terraform
get, cold / terraform init), and the warm re-init against the import time of the CLI module. ``read s`` is the time
the cold init spent reading fetched packages' HCL (``stats.tree_read_ms``, summed over threads).

``--real-content GIT_DIR...`` runs every root twice: in the fixture world, whose repositories
hold only each version's calls and ``required_providers``, and in the same world with the
named packages' real repositories (``real_world.py``: every file of every tag, as the search
tool's ``fetch`` brings them), so that the cost of real HCL shows; the ``world`` column says
which. ``--root NAME`` (repeatable) picks roots by name, example or assembled, instead of the
sample.
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
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from delay_proxy import DelayProxy  # noqa: E402
from real_world import real_content_world  # noqa: E402

from tofu_solve.world import (  # noqa: E402
    GitDaemon,
    RegistryServer,
    build_world,
    default_world_dir,
    write_cli_config,
)
from tofu_solve.world.roots import assembled_roots, example_roots  # noqa: E402

SOLVER_ROOTS = ("pair:vpc@6+eks@20:free", "pair:vpc@6+eks@20:aws5")


def pick_roots(corpus: Path, names: list[str], count: int) -> list:
    """The roots named (example or assembled), else ``count`` example roots with at least two
    remote calls, sampled evenly, plus the two roots that need the solver."""
    if names:
        every = {r.name: r for r in example_roots(corpus) + assembled_roots(corpus)}
        return [every[n] for n in names]
    examples = [r for r in example_roots(corpus) if r.calls >= 2]
    step = max(1, len(examples) // count)
    return examples[::step][:count] + [r for r in assembled_roots(corpus) if r.name in SOLVER_ROOTS]


def _depth(paths: list[str]) -> int:
    remote = set(paths)
    return max((sum(1 for i in range(1, len(p.split(".")) + 1) if ".".join(p.split(".")[:i]) in remote)
                for p in paths), default=0)


def _run_cli(args: list[str], env: dict) -> tuple[float, int, str]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "tofu_solve.cli", *args], env=env, capture_output=True, text=True)
    return time.monotonic() - started, done.returncode, done.stdout


def _client_time(client: str, verb: str, root, work: Path, env: dict) -> float | None:
    """Seconds of ``CLIENT get`` or ``CLIENT init -input=false`` on a fresh copy of ``root`` in
    ``work`` (the same CLI configuration, so the same servers and proxies; its own data
    directory; no plugin cache), or None when it fails (no newest-per-call solution)."""
    work.mkdir()
    root.write(work)
    started = time.monotonic()
    done = subprocess.run([client, verb, "-no-color", *(["-input=false"] if verb == "init" else [])], cwd=work,
                          capture_output=True, env={**env, "TF_DATA_DIR": str(work / ".terraform"),
                                                    "CHECKPOINT_DISABLE": "1", "TF_PLUGIN_CACHE_DIR": ""})
    return time.monotonic() - started if done.returncode == 0 else None


def _import_time() -> float:
    xs = []
    for _ in range(5):
        t = time.monotonic()
        subprocess.run([sys.executable, "-c", "import tofu_solve.cli"], check=True)
        xs.append(time.monotonic() - t)
    return statistics.median(xs)


def _run_world(label: str, world, roots, rtt_ms: float, terraform: str | None, repeat: int = 1) -> list[tuple]:
    """Each root cold (empty cache; ``repeat`` times, the median kept) and warm in ``world``
    behind proxies of ``rtt_ms``; prints a table row per root and returns the rows."""
    rtt = rtt_ms / 1000
    rows = []
    spent: list[Path] = []
    try:
        return _run_roots(world, roots, rtt, rtt_ms, label, terraform, repeat, rows, spent)
    finally:
        for d in spent:
            shutil.rmtree(d, ignore_errors=True)


def _run_roots(world, roots, rtt, rtt_ms, label, terraform, repeat, rows, spent) -> list[tuple]:
    import json

    with GitDaemon(world.git_dir) as git, DelayProxy(("127.0.0.1", git.port), rtt) as gproxy:
        with RegistryServer(world, f"git://127.0.0.1:{gproxy.port}/") as reg, \
                DelayProxy(("127.0.0.1", reg.port), rtt) as rproxy:
            for root in roots:
                colds, tmp = [], None
                for attempt in range(repeat + 1):  # the first run only warms the servers
                    if attempt == 1:
                        colds = []
                    if tmp is not None:
                        spent.append(tmp)
                    # the disk idle at the start of every run: the last run's writes are not
                    # still going out (removing trees of files is left to the end, as the
                    # discards it causes slowed this machine's writes by seconds)
                    os.sync()
                    tmp = Path(tempfile.mkdtemp(prefix="tofu-solve-latency-"))
                    rc = write_cli_config(tmp / "rc", f"http://127.0.0.1:{rproxy.port}")
                    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache"),
                           "HOME": str(tmp), "NO_COLOR": "1"}
                    root.write(tmp / "root")
                    once, code, out = _run_cli(["init", "-json", "-handover=false", f"-chdir={tmp / 'root'}"], env)
                    colds.append(once)
                    if code != 0:
                        break
                cold = statistics.median(colds)
                spread = f" ({min(colds):.2f}-{max(colds):.2f})" if len(colds) > 1 else ""
                if code != 0:
                    print(f"| {root.name} | {label} | failed ({cold:.2f} s) |", flush=True)
                    spent.append(tmp)
                    continue  # a data gap or a conflict: not a latency case
                result = json.loads(out.strip().splitlines()[-1])["result"]
                read = result["stats"].get("tree_read_ms", 0) / 1000
                paths = [m["path"] for m in result["modules"]]
                depth, calls, providers = _depth(paths), len(paths), len(result["providers"])
                warm, _, wout = _run_cli(["init", "-json", "-handover=false", f"-chdir={tmp / 'root'}"], env)
                wres = json.loads(wout.strip().splitlines()[-1])["result"]
                warm_ops = sum(wres["network_operations"].values())
                floor = rtt * (2 + 6 * depth + 4)
                model = rtt * (2 + 6 * calls + 5 * providers)
                tg = ti = None
                if terraform:
                    tg = _client_time(terraform, "get", root, tmp / "tf-get", env)
                    ti = _client_time(terraform, "init", root, tmp / "tf-init", env)
                rows.append((rtt_ms, cold, floor, model, tg, warm, warm_ops, label, read,
                             tuple(sorted((m["path"], m["version"]) for m in result["modules"])), root.name, ti))
                r = lambda a, b: f"{a / b:.2f}" if b else "-"  # noqa: E731
                f = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
                print(f"| {root.name} | {label} | {calls} | {depth} | {rtt_ms:g} | {floor:.2f} | {model:.2f} | "
                      f"{f(tg)} | {f(ti)} | {cold:.2f}{spread} | {read:.2f} | {r(cold, floor)} | "
                      f"{r(cold, model)} | {'-' if tg is None else r(cold, tg)} | {'-' if ti is None else r(cold, ti)} | "
                      f"{warm:.2f} | {warm_ops} |", flush=True)
                spent.append(tmp)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtt-ms", default="0,50,150")
    ap.add_argument("--roots", type=int, default=8, help="example roots to sample (plus the two solver roots)")
    ap.add_argument("--root", action="append", default=[], metavar="NAME", help="a root by name (repeatable)")
    ap.add_argument("--real-content", nargs="+", type=Path, default=[], metavar="GIT_DIR",
                    help="real repositories: run every root in the fixture world and with these contents")
    ap.add_argument("--repeat", type=int, default=1, help="cold runs per root; the median is reported")
    args = ap.parse_args()
    corpus = Path(os.environ.get("TOFU_SOLVE_SHARED", REPO.parent / "shared")) / "corpus"
    world = build_world(corpus, default_world_dir())
    worlds = [("fixture", world)]
    scratch = Path(tempfile.mkdtemp(prefix="tofu-solve-real-world-"))
    if args.real_content:
        real, missing = real_content_world(world, args.real_content, scratch / "world")
        os.sync()  # the clones' pages are written back now, not during the runs measured
        worlds.append(("real", real))
        print(f"real contents: {', '.join(f'{r} ({m} tags missing)' for r, m in missing.items())}\n")
    roots = pick_roots(corpus, args.root, args.roots)
    terraform = shutil.which("terraform")
    # As installed by pip (which compiles bytecode), not as run from a source tree under
    # PYTHONDONTWRITEBYTECODE: every run here would otherwise compile tofu_solve afresh.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "tofu_solve")], check=True,
                   capture_output=True)
    imp = _import_time()
    rows = []
    print("| root | world | calls | depth | RTT ms | floor s | tofu model s | terraform get s | terraform init s | "
          "tofu-solve cold s | read s | cold/floor | cold/tofu model | cold/terraform get | cold/terraform init | "
          "warm s | warm net ops |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for rtt_ms in [float(x) for x in args.rtt_ms.split(",")]:
        for label, w in worlds:
            rows += _run_world(label, w, roots, rtt_ms, terraform, args.repeat)
    shutil.rmtree(scratch, ignore_errors=True)
    print()
    for rtt_ms, label in sorted({(x[0], x[7]) for x in rows}):
        sel = [x for x in rows if x[0] == rtt_ms and x[7] == label]
        print(f"- {label} world, ", end="")
        if rtt_ms == 0:
            print(f"RTT 0: median cold {statistics.median(x[1] for x in sel):.2f} s, "
                  f"median warm {statistics.median(x[5] for x in sel):.2f} s, "
                  f"read {sum(x[8] for x in sel):.2f} s of {sum(x[1] for x in sel):.2f} s cold")
            continue
        fl = [x[1] / x[2] for x in sel]
        tm = [x[1] / x[3] for x in sel]
        tg = [x[1] / x[4] for x in sel if x[4]]
        ti = [x[1] / x[11] for x in sel if x[11]]
        print(f"RTT {rtt_ms:g} ms: cold/floor median {statistics.median(fl):.2f}, max {max(fl):.2f}; "
              f"cold/tofu model median {statistics.median(tm):.2f}; "
              + (f"cold/terraform get median {statistics.median(tg):.2f}, max {max(tg):.2f}; " if tg else "")
              + (f"cold/terraform init median {statistics.median(ti):.2f}, max {max(ti):.2f}; " if ti else "")
              + f"warm median {statistics.median(x[5] for x in sel):.2f} s, warm network operations "
                f"{sum(x[6] for x in sel)}")
    if len(worlds) > 1:
        by = {}
        for x in rows:
            by.setdefault((x[0], x[10]), {})[x[7]] = x[9]
        differ = [k for k, v in by.items() if len(set(v.values())) > 1]
        print(f"- selections identical in both worlds: {len(by) - len(differ)} of {len(by)} root runs"
              + (f"; differ: {', '.join(f'{n} at RTT {r:g}' for r, n in differ)}" if differ else ""))
    print(f"- CLI import time (python3 -c 'import tofu_solve.cli', median of 5): {imp:.3f} s; warm re-init "
          f"median / import: {statistics.median(x[5] for x in rows) / imp:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
