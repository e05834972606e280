"""The solver alone on two synthetic universes (in memory, :mod:`tests.world.memory`):
105 and 1,050 module calls, best of five runs each, per selected call, beside the
interpreter's start-up-and-import time measured in the same run (issue #23's linear-growth
target), with the garbage collector tuned as the command line tunes it. Prints one JSON line.

    python3 bench/solver_scaling.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import json
import subprocess
import time

from synthetic import MemoryContext, make_universe

from tofu_solve.cli import tune_collector
from tofu_solve.solver.resolve import solve


def main() -> None:
    tune_collector()  # as the command line runs a solve
    rows = []
    for args in ((60, 30, 2, 15), (450, 40, 2, 150)):
        best, calls = None, 0
        for _ in range(5):
            u = make_universe(*args)
            ctx = MemoryContext(u)
            t0 = time.perf_counter()
            res = solve(u.root, ctx)
            dt = time.perf_counter() - t0
            ctx.close()
            best, calls = (dt if best is None else min(best, dt)), len(res.modules)
        rows.append({"universe": args, "calls": calls, "seconds": round(best, 3),
                     "ms_per_call": round(best / calls * 1000, 3)})
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import tofu_solve.command.init"], check=True)
    startup = time.perf_counter() - t0
    print(json.dumps({"rows": rows, "per_call_ratio": round(rows[1]["ms_per_call"] / rows[0]["ms_per_call"], 2),
                      "startup_and_import_s": round(startup, 3),
                      "large_over_startup": round(rows[1]["seconds"] / startup, 1)}))


if __name__ == "__main__":
    main()
