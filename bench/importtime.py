"""What each command pays to import, and which libraries it loads (issue #36 §1).

    python3 bench/importtime.py [--repeat N]
    PYTHONPATH=OTHER_CHECKOUT python3 bench/importtime.py    # the same for another checkout

For every command module (``tofu_solve.command.<name>``), in a fresh interpreter each time:
the cumulative import time ``python -X importtime`` reports for the module (median of N,
default 5), the whole process's wall time for ``python -c "import ..."``, and which of the
heavy third-party libraries the import loads (HTTP, OCI, graphs, the HCL grammar, IDNA,
OpenPGP, the terminal UI, resolvelib). A command imports what it needs when it runs; this
measures what it pays before it starts. The test that a warm ``init`` and ``check`` import
none of the network, OCI, graph or grammar libraries is ``tests/e2e/test_warm_path.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

COMMANDS = ("init", "check", "outdated", "why", "graph", "inspect", "version", "completion", "demo")
HEAVY = ("requests", "urllib3", "oras", "networkx", "pydot", "lark", "hcl2", "idna", "pysequoia", "rich",
         "resolvelib")


def measure(module: str, repeat: int) -> dict:
    cumulative, wall, loaded = [], [], []
    probe = f"import {module}, sys, json; print(json.dumps(sorted(set(sys.modules) & set({list(HEAVY)!r}))))"
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", probe], capture_output=True, text=True)
        if done.returncode != 0:  # a command this checkout does not have (comparing with an older one)
            return {"module": module, "import_ms": "-", "process_ms": "-", "loads": ["(absent)"]}
        wall.append(time.perf_counter() - started)
        for line in done.stderr.splitlines():
            parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
            if len(parts) == 3 and parts[2] == module:
                cumulative.append(int(parts[1]) / 1000)
        loaded = json.loads(done.stdout)
    return {"module": module, "import_ms": round(statistics.median(cumulative), 1),
            "process_ms": round(statistics.median(wall) * 1000, 1), "loads": loaded}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    ns = parser.parse_args()
    rows = [measure("tofu_solve.cli", ns.repeat)] + [measure(f"tofu_solve.command.{c}", ns.repeat) for c in COMMANDS]
    print("| module | import (ms) | process (ms) | heavy libraries loaded |")
    print("| --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['module']} | {r['import_ms']} | {r['process_ms']} | {', '.join(r['loads']) or '-'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
