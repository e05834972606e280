"""Per-root solve time of corpus roots, each taken as the best of several runs, so that two
trees can be compared root by root (issue #48: the resolve-rate pass of ``bench/run.py``
times each root once, in one shared cache, and a root's time there depends on what the
roots before it left in the cache and on the machine's other work).

Usage (from the repository root; ``--repo`` the tree whose code runs, e.g. a
``git worktree`` of an older commit)::

    python3 bench/root_times.py --repo DIR --names roots.json --mode warm --reps 3 --out F.json
    python3 bench/root_times.py --compare BEFORE.json AFTER.json

``--mode cold``: each run in a fresh cache (every listing and package fetched from the
fixture world's servers on 127.0.0.1); ``--mode warm``: one cache per root, filled by a
first run, then each run without a lock file (what the resolve-rate pass measures for a
root whose packages an earlier root already fetched). ``--names``: a JSON list of root names
(``tofu_solve.world.roots``); without it, every 12th root. Timings are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _run(run_init, InitOptions, Settings, d: Path, env: dict) -> float:
    (d / ".terraform.lock.hcl").unlink(missing_ok=True)
    old = dict(os.environ)
    os.environ.update(env)
    t = time.perf_counter()
    try:
        run_init(InitOptions(root=d, install=False), Settings.from_environ(os.environ))
    except Exception:  # a root that does not resolve is timed to its error
        pass
    finally:
        os.environ.clear()
        os.environ.update(old)
    return time.perf_counter() - t


def measure(repo: Path, names: list[str] | None, mode: str, reps: int, corpus: str) -> dict[str, float]:
    sys.path.insert(0, str(repo))
    from tofu_solve.command.init import InitOptions, run_init
    from tofu_solve.settings import Settings
    from tofu_solve.world import build_world, default_world_dir, running_world
    from tofu_solve.world.roots import assembled_roots, example_roots

    world = build_world(corpus, default_world_dir())
    roots = {r.name: r for r in example_roots(corpus) + assembled_roots(corpus)}
    chosen = names if names is not None else list(roots)[::12]
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="tofu-solve-root-times-") as tmp, running_world(world, Path(tmp)) as rw:
        work = Path(tmp)
        for k, name in enumerate(chosen):
            times = []
            for rep in range(reps + (mode == "warm")):
                cache = work / (f"cache{k}" if mode == "warm" else f"cache{k}-{rep}")
                d = roots[name].write(work / (f"r{k}" if mode == "warm" else f"r{k}-{rep}"))
                times.append(_run(run_init, InitOptions, Settings, d, dict(os.environ, **rw.env(cache))))
            out[name] = min(times[1:] if mode == "warm" else times)
            print(f"{out[name]:.3f}  {name}", file=sys.stderr)
    return out


def compare(before: dict[str, float], after: dict[str, float]) -> None:
    rows = sorted(((after[n] / before[n], n, before[n], after[n]) for n in before if n in after and before[n] > 0),
                  reverse=True)
    ratios = sorted(r[0] for r in rows)
    print(f"{len(rows)} roots: median {statistics.median(ratios):.2f}, "
          f"90th percentile {ratios[int(0.9 * len(ratios))]:.2f}, worst {ratios[-1]:.2f} (after/before)")
    for ratio, name, b, a in rows[:10]:
        print(f"  {ratio:.2f}  {b:.3f} -> {a:.3f} s  {name}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--names")
    ap.add_argument("--mode", choices=("cold", "warm"), default="warm")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out")
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    if args.compare:
        compare(*(json.loads(Path(f).read_text()) for f in args.compare))
        return 0
    names = json.loads(Path(args.names).read_text()) if args.names else None
    result = measure(Path(args.repo).resolve(), names, args.mode, args.reps, args.corpus)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
