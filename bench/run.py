"""The tofu-solve benchmark suite. Usage (from the repository root):

    python3 bench/run.py [--sample N] [--output bench/RESULTS.md]

1. Real roots (``example_roots.json`` made standalone, see ``tofu_solve.world.roots``):
   for a sample, a cold ``init`` (empty cache, fresh process) and a warm re-init (lock and
   cache full): wall time, peak memory, network operations against the minimum.
2. Every real root: does tofu-solve resolve it, and does newest-per-call (OpenTofu's
   algorithm)?
3. Solver time against tree size: synthetic in-memory universes up to ten times the largest
   real root.

Everything runs against the fixture world's servers on 127.0.0.1. Results are printed and
written as Markdown; timings are never asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tofu_solve.command.init import InitOptions, run_init  # noqa: E402
from tofu_solve.config.tree import read_module_tree  # noqa: E402
from tofu_solve.errors import TofuSolveError  # noqa: E402
from tofu_solve.lockfile import LockFile  # noqa: E402
from tofu_solve.settings import Settings  # noqa: E402
from tofu_solve.solver.baseline import newest_per_call  # noqa: E402
from tofu_solve.solver.context import SolveOptions  # noqa: E402
from tofu_solve.solver.wiring import build_context  # noqa: E402
from tofu_solve.versions.target import target_version  # noqa: E402
from tofu_solve.world import build_world, default_world_dir, running_world  # noqa: E402
from tofu_solve.world.roots import assembled_roots, example_roots  # noqa: E402


def machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kib / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), {mem} RAM, "
            f"Python {platform.python_version()}, git {subprocess.run(['git', '--version'], capture_output=True, text=True).stdout.split()[-1]}")


def one(root: Path, env: dict, *extra: str) -> dict:
    r = subprocess.run([sys.executable, str(REPO / "bench" / "one_init.py"), str(root), *extra], env=env,
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0 or not r.stdout.strip():
        return {"ok": False, "error": r.stderr[-300:], "seconds": 0, "peak_rss_kib": 0}
    return json.loads(r.stdout.strip().splitlines()[-1])


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0


def bench_real(roots, rw, work: Path, sample: int) -> dict:
    step = max(1, len(roots) // sample)
    chosen = roots[::step][:sample]
    cold, warm = [], []
    for i, root in enumerate(chosen):
        d = root.write(work / "cold" / f"r{i}")
        cache = work / "caches" / f"c{i}"
        env = dict(os.environ, PYTHONPATH=str(REPO), **rw.env(cache))
        c = one(d, env)
        c["calls"] = root.calls
        cold.append(c)
        if c.get("ok"):
            w = one(d, env)
            warm.append(w)
        shutil.rmtree(cache, ignore_errors=True)
    return {"sample": len(chosen), "cold": cold, "warm": warm}


def bench_resolve_rate(roots, rw, work: Path) -> dict:
    env = dict(os.environ, **rw.env(work / "shared-cache"))
    results = []
    for i, root in enumerate(roots):
        d = root.write(work / "rate" / f"r{i}")
        ctx = build_context(SolveOptions(target_version(None)), LockFile(), Settings.from_environ(env), None).context
        try:
            base = newest_per_call(read_module_tree(d, confine=False), ctx)
            base_ok, base_why = base.ok, base.failure
        except TofuSolveError as e:
            base_ok, base_why = False, f"{type(e).__name__}: {e.summary}"
        finally:
            ctx.close()
        t0 = time.perf_counter()
        old = dict(os.environ)
        os.environ.update(env)
        try:
            res = run_init(InitOptions(root=d, install=False), Settings.from_environ(os.environ))
            ok, why, mods = True, "", {p: c.version_text for p, c in res.resolution.modules.items()}
        except TofuSolveError as e:
            ok, why, mods = False, f"{type(e).__name__}: {e.summary}", {}
        finally:
            os.environ.clear()
            os.environ.update(old)
        same = None
        if ok and base_ok:
            same = mods == base.modules
        gap = "Provider not found" in why or "Module not found" in why or \
            "Provider not found" in base_why or "Module not found" in base_why
        results.append({"name": root.name, "calls": root.calls, "tofu_solve": ok, "baseline": base_ok, "data_gap": gap,
                        "same_as_baseline": same, "error": why, "baseline_failure": base_why,
                        "seconds": time.perf_counter() - t0})
    return {"roots": results}


def bench_scaling() -> list[dict]:
    sys.path.insert(0, str(REPO / "bench"))
    from synthetic import MemoryContext, make_universe

    from tofu_solve.solver.resolve import solve
    rows = []
    for packages, versions, fanout, root_calls in ((9, 10, 2, 3), (30, 20, 2, 5), (60, 30, 2, 15),
                                                  (120, 40, 2, 45), (240, 40, 2, 90), (450, 40, 2, 150)):
        u = make_universe(packages, versions, fanout, root_calls)
        ctx = MemoryContext(u)
        t0 = time.perf_counter()
        try:
            res = solve(u.root, ctx)
            outcome, calls, rounds = "resolved", len(res.modules), res.rounds
        except TofuSolveError as e:
            outcome, calls, rounds = e.summary, 0, 0
        rows.append({"packages": packages, "versions": versions, "fanout": fanout, "root_calls": root_calls,
                     "calls_selected": calls, "candidate_versions": packages * versions,
                     "trees_read": ctx.stats.trees_read, "rounds": rounds, "outcome": outcome,
                     "seconds": round(time.perf_counter() - t0, 3)})
        ctx.close()
    return rows


KEPT_FROM = "## Provider locks and check"  # sections other benchmarks append: kept as they are


def _kept_sections(path: Path) -> str:
    """The sections other benchmark scripts recorded after this one's, unchanged."""
    try:
        old = path.read_text()
    except OSError:
        return ""
    i = old.find(KEPT_FROM)
    return "\n" + old[i:] if i >= 0 else ""


def report(real, rate, scaling, args, elapsed) -> str:
    cold = [c for c in real["cold"] if c.get("ok")]
    warm = [w for w in real["warm"] if w.get("ok")]
    lines = ["# tofu-solve benchmark results", "",
             f"Command: `python3 bench/run.py --sample {args.sample}` (from the repository root); "
             f"total {elapsed:.0f} s.", "", f"Machine: {machine()}.", "",
             "Servers: the fixture world's HTTP registry and `git daemon` on 127.0.0.1 (see `tofu_solve/world`).", ""]
    lines += ["## Cold init and warm re-init (real roots)", "",
              f"{real['sample']} roots sampled evenly from the standalone example roots; each "
              "run is a fresh process. Cold: empty cache. Warm: the same root again, lock and cache full.", "",
              "| | runs | median s | p90 s | max s | median peak RSS MiB | max peak RSS MiB |", "|---|---|---|---|---|---|---|"]
    for label, xs in (("cold init", cold), ("warm re-init", warm)):
        secs = [x["seconds"] for x in xs]
        mem = [x["peak_rss_kib"] / 1024 for x in xs]
        if xs:
            lines.append(f"| {label} | {len(xs)} | {statistics.median(secs):.2f} | {pct(secs, .9):.2f} | "
                         f"{max(secs):.2f} | {statistics.median(mem):.0f} | {max(mem):.0f} |")
    failed = [c for c in real["cold"] if not c.get("ok")]
    lines += ["", f"Cold runs that ended in an error (conflict or data gap, reported, not a crash): {len(failed)}.", ""]
    kinds = ["module_versions", "module_download", "git_ls_remote", "git_fetch", "provider_versions", "discovery",
             "provider_download", "provider_checksums", "http_download"]
    tot_cold = {k: sum(c.get("network", {}).get(k, 0) for c in cold) for k in kinds}
    tot_warm = {k: sum(w.get("network", {}).get(k, 0) for w in warm) for k in kinds}
    lines += ["### Network operations", "",
              "Totals over the sampled runs. The minimum for a cold run is one listing per registry package or git "
              "remote involved and one fetch per (package, version) explored; a registry module's fetch costs a "
              "`/download` location request plus the git fetch it points to. Each provider lock costs one package "
              "answer (`provider_download`), the checksums and their signature (`provider_checksums`, two) and "
              "the zip (`http_download`) per target platform. A warm re-init needs none.", "",
              "| operation | cold total | cold per run | warm total |", "|---|---|---|---|"]
    for k in kinds:
        lines.append(f"| {k} | {tot_cold[k]} | {tot_cold[k] / max(1, len(cold)):.1f} | {tot_warm[k]} |")
    lines.append("")
    fetched = sum(c.get("stats", {}).get("packages_fetched", 0) for c in cold)
    listed = sum(c.get("stats", {}).get("sources_listed", 0) for c in cold)
    lines.append(f"Cold: {tot_cold['module_versions']} registry version listings for {listed} distinct module sources "
                 f"(one each) plus {tot_cold['git_ls_remote']} `git ls-remote` (one per git remote behind them, to "
                 f"turn tags into commits); {tot_cold['git_fetch']} git fetches and {tot_cold['module_download']} "
                 f"download-location requests for {fetched} (package, version) pairs explored (a fetch is skipped "
                 f"when the mirror already holds the commit). Warm re-inits made {sum(tot_warm.values())} network "
                 "operations in total.")
    lines += ["", "## Resolved roots: tofu-solve against newest-per-call", "",
              f"OpenTofu {target_version(None).version}. Two sets: the maintainers' own example roots made standalone, "
              "and every pair of widely used modules at `~> MAJOR.0` of their two newest majors, without and with a "
              "root `hashicorp/aws ~> 5.0`. A root is a *data gap* when it needs a provider or module the corpus has "
              "no data for (the fixture registry answers 404, as a real one would for an unknown address); those are "
              "counted apart.", "",
              "| roots | total | data gaps | newest-per-call resolves | tofu-solve resolves | only tofu-solve | same selection where both resolve |",
              "|---|---|---|---|---|---|---|"]
    for label, rs in (("example roots", [r for r in rate["roots"] if not r["name"].startswith("pair:")]),
                      ("assembled pairs", [r for r in rate["roots"] if r["name"].startswith("pair:")])):
        ok_rs = [r for r in rs if not r["data_gap"]]
        bl = sum(r["baseline"] for r in ok_rs)
        ts = sum(r["tofu_solve"] for r in ok_rs)
        only = sum(1 for r in ok_rs if r["tofu_solve"] and not r["baseline"])
        both = sum(1 for r in ok_rs if r["tofu_solve"] and r["baseline"])
        same = sum(1 for r in ok_rs if r["same_as_baseline"])
        lines.append(f"| {label} | {len(rs)} | {len(rs) - len(ok_rs)} | {bl} | {ts} | {only} | {same} of {both} |")
    lines.append("")
    rs = [r for r in rate["roots"] if not r["data_gap"]]
    fails = {}
    for r in rs:
        if not r["tofu_solve"]:
            fails[r["error"]] = fails.get(r["error"], 0) + 1
    if fails:
        lines += ["Outside data gaps, tofu-solve reports no solution for (each with its explanation of the conflict):", ""]
        lines += [f"- {k}: {v}" for k, v in sorted(fails.items(), key=lambda kv: -kv[1])]
        lines.append("")
    only_ts = [r for r in rs if r["tofu_solve"] and not r["baseline"]]
    if only_ts:
        lines += ["Examples resolved only by tofu-solve: " + ", ".join(f"`{r['name']}`" for r in only_ts[:10]), ""]
    lines += ["## Solver time against tree size (synthetic, in memory)", "",
              "Largest real root: 45 module calls. Synthetic universes: packages in three layers, each version "
              "calling two packages of the next layer (`~> MAJOR.0`) and requiring one provider whose lower bound "
              "rises with the version, one version in eight also fencing it off above. The last row has 150 root "
              "calls and 1050 module calls in all, over twenty times the largest real tree; metadata in memory, so "
              "this is the solver alone.", "",
              "| packages | versions each | fan-out | root calls | calls selected | trees read | rounds | outcome | seconds |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in scaling:
        lines.append(f"| {r['packages']} | {r['versions']} | {r['fanout']} | {r['root_calls']} | {r['calls_selected']} | "
                     f"{r['trees_read']} | {r['rounds']} | {r['outcome']} | {r['seconds']} |")
    lines.append("")
    lines += ["## Reading these figures"] + READING.strip("\n").splitlines() + [""]
    return "\n".join(lines)


READING = """

- Cold init is dominated by git fetches over loopback (each ~50-150 ms); a real network adds
  round-trip time per listing and fetch, which the thread pool overlaps.
- Warm re-init builds every locked candidate from the lock alone and reads module metadata
  from the cache: no listing, no fetch, no download-location request.
- The resolve-rate table counts what each algorithm can do on the same data: where both
  succeed, tofu-solve's answer is newest-per-call's answer (the `tofu init` pick); the extra
  roots it resolves are the provider splits (aws 6.0 against `~> 5.0` roots or against
  modules that fenced 6.x off). The 120 assembled pairs without any solution get a full
  explanation each.
- Peak RSS is the whole Python process (interpreter, resolvelib, GitPython, requests, oras).
- "Trees read" in the synthetic table counts reads ahead of need too: when a candidate is
  rejected, the older versions of the module versions on the other side of the conflict are
  read (issue #13), about twice the trees the search itself asks for on these universes;
  in memory that costs little, on a network it is what lets the search go back without
  waiting. Rounds, selections and outcomes are those of the search alone.
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=60, help="real roots for cold/warm runs (default 60)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N roots for the resolve rate (0: all)")
    ap.add_argument("--output", default=str(REPO / "bench" / "RESULTS.md"))
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpus"))
    ap.add_argument("--report-only", action="store_true", help="re-render RESULTS.md from RESULTS.json")
    args = ap.parse_args()
    if args.report_only:
        saved = json.loads(Path(args.output).with_suffix(".json").read_text())
        elapsed = float(Path(args.output).read_text().split("total ", 1)[1].split(" s", 1)[0])
        text = report(saved["real"], saved["rate"], saved["scaling"], args, elapsed)
        Path(args.output).write_text(text + _kept_sections(Path(args.output)))
        print(text)
        return 0
    t0 = time.perf_counter()
    world = build_world(args.corpus, default_world_dir())
    roots = example_roots(args.corpus)
    pairs = assembled_roots(args.corpus)
    if args.limit:
        roots, pairs = roots[:args.limit], pairs[:args.limit]
    with tempfile.TemporaryDirectory(prefix="tofu-solve-bench-") as tmp, running_world(world, Path(tmp)) as rw:
        work = Path(tmp)
        print(f"real roots: {len(roots)}; cold/warm sample {args.sample}", file=sys.stderr)
        real = bench_real(roots, rw, work, args.sample)
        print("resolve rate...", file=sys.stderr)
        rate = bench_resolve_rate(roots + pairs, rw, work)
    print("scaling...", file=sys.stderr)
    scaling = bench_scaling()
    text = report(real, rate, scaling, args, time.perf_counter() - t0)
    Path(args.output).write_text(text + _kept_sections(Path(args.output)))
    Path(args.output).with_suffix(".json").write_text(json.dumps({"real": real, "rate": rate, "scaling": scaling},
                                                                 indent=1))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
