"""What OpenTofu 1.12's registry hashes change in a cold ``init`` with ``-platform`` (issue #82 §2).

    python3 bench/registry_hashes.py [--repeat 5] [--providers 3]

The fixture world's registry serves the ``packages`` field on registry.opentofu.org's host.
A root requiring ``--providers`` providers is initialised cold (an empty cache each run, no
hand-over) for the four platforms the world publishes (``-platform`` four times), once for an
OpenTofu 1.11 target (each platform's package downloaded to learn its ``h1:``) and once for
1.12 (this machine's package downloaded and checked against the field, the other platforms'
``h1:`` taken from it). Prints, per target: the median wall time, the provider packages
downloaded (``network_operations.provider_package``), their bytes, and the ``h1:`` lines the
lock gets. Every process is a fresh ``python -m tofu_solve``. Also the CLI configuration's
read: ``load_cli_config`` of the world's file, in a fresh interpreter (pyhcl imported), median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tofu_solve.world import build_world, default_world_dir, running_world  # noqa: E402
from tofu_solve.world.provider_files import PLATFORMS  # noqa: E402

PROVIDERS = ("aws", "random", "null", "tls", "kubernetes")


def root_text(n: int, world) -> str:
    names = [p for p in PROVIDERS if f"hashicorp/{p}" in world.providers][:n]
    entries = "".join(f'    {p} = {{\n      source = "hashicorp/{p}"\n    }}\n' for p in names)
    return f"terraform {{\n  required_providers {{\n{entries}  }}\n}}\n"


def one_init(root: Path, env: dict, version: str) -> tuple[float, int, int]:
    """(seconds, packages downloaded, h1: lines in the lock) of one cold init."""
    args = [sys.executable, "-m", "tofu_solve", "init", "-json", "-handover=false", f"-tofu-version={version}",
            *(f"-platform={p}" for p in PLATFORMS), f"-chdir={root}"]
    (root / ".terraform.lock.hcl").unlink(missing_ok=True)
    started = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    # the -json stream's last document is the result (progress lines come before it)
    data = json.loads(done.stdout.strip().splitlines()[-1])["result"]
    lock = (root / ".terraform.lock.hcl").read_text()
    return took, int(data.get("network_operations", {}).get("provider_package", 0)), lock.count('"h1:')


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--providers", type=int, default=3)
    a = ap.parse_args()
    world = build_world(REPO.parent / "shared" / "corpus", default_world_dir())
    with tempfile.TemporaryDirectory() as tmp, running_world(world, Path(tmp)) as rw:
        root = Path(tmp) / "root"
        root.mkdir()
        (root / "main.tf").write_text(root_text(a.providers, world))
        files = rw.registry.provider_files
        size = sum(len(files.package(f"hashicorp/{p}", world.providers[f"hashicorp/{p}"][-1], plat))
                   for p in PROVIDERS[:a.providers] for plat in PLATFORMS) // len(PLATFORMS)
        for version in ("1.11.4", "1.12.6"):
            times, downloads, h1s = [], set(), set()
            for i in range(a.repeat):
                env = {**os.environ, **rw.env(Path(tmp) / f"cache-{version}-{i}"), "HOME": tmp,
                       "PYTHONPATH": str(REPO)}
                took, n, h1 = one_init(root, env, version)
                times.append(took)
                downloads.add(n)
                h1s.add(h1)
            print(f"OpenTofu {version}: init {statistics.median(times):.2f} s (median of {a.repeat}, "
                  f"{min(times):.2f}-{max(times):.2f}), provider packages downloaded {sorted(downloads)}, "
                  f"h1: lines locked {sorted(h1s)}")
        print(f"(one platform's packages of these providers: {size} bytes in the fixture world; "
              "a real hashicorp/aws zip is about 150 MB)")
        code = (f"import time; t=time.perf_counter(); from tofu_solve.config.cliconfig import load_cli_config; "
                f"load_cli_config({{'TF_CLI_CONFIG_FILE': {str(rw.cli_config)!r}, 'HOME': '/nonexistent'}}); "
                "print(time.perf_counter()-t)")
        reads = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                      env={**os.environ, "PYTHONPATH": str(REPO)}).stdout) for _ in range(a.repeat)]
        print(f"load_cli_config of the world's CLI configuration, fresh interpreter: "
              f"{statistics.median(reads) * 1000:.1f} ms (median of {a.repeat})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
