"""How a monorepo run reads in a CI log (issue #59): the lines ``init -recursive`` prints over
N root modules, stdout and stderr, off a terminal, and the longest line.

    python3 bench/monorepo_output.py [--roots 40] [--handover] [--policy]
    PYTHONPATH=OTHER_CHECKOUT python3 bench/monorepo_output.py ...   # the same for another checkout

The fixture world serves the origins; the roots alternate between vpc ~> 6.0 + eks ~> 20.0 and
kms ~> 3.0 (under ``live/envN/app``). Each is initialised once first; then it reports, for a
no-op ``init -recursive`` (with ``--handover`` the client on PATH runs in each root), a failing
``init -recursive -lockfile=readonly`` (``--policy``: a deny rule makes half the roots' locks
move) and the ``init -recursive`` that lands it: lines on stdout and stderr, and the longest.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.e2e.conftest import VPC6_EKS20, write_root  # noqa: E402
from tofu_solve.world import build_world, default_world_dir, running_world  # noqa: E402

KMS = 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n  version = "~> 3.0"\n}\n'
POLICY = 'deny "module" "terraform-aws-modules/vpc/aws" {\n  versions = "6.6.0"\n  reason   = "a bad release"\n}\n'


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--roots", type=int, default=40)
    ap.add_argument("--handover", action="store_true", help="hand over to the client on PATH")
    ap.add_argument("--policy", action="store_true", help="then a deny rule that moves half the roots' locks")
    args = ap.parse_args()
    world = build_world(REPO.parent / "shared" / "corpus", default_world_dir())
    tmp = Path(tempfile.mkdtemp(prefix="tofu-solve-monorepo-"))
    (tmp / "servers").mkdir()
    with running_world(world, tmp / "servers") as rw:
        env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rw.cli_config), "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache"),
               "PYTHONPATH": os.environ.get("PYTHONPATH", str(REPO)), "CHECKPOINT_DISABLE": "1"}
        base = tmp / "repo"
        for i in range(args.roots):
            write_root(base / f"live/env{i}/app", VPC6_EKS20 if i % 2 else KMS)
        flags = [] if args.handover else ["-handover=false"]

        def run(label: str, *extra: str) -> None:
            done = subprocess.run([sys.executable, "-m", "tofu_solve", "init", "-recursive", *flags, *extra,
                                   f"-chdir={base}"], env=env, capture_output=True, text=True, cwd=tmp)
            out, err = done.stdout.splitlines(), done.stderr.splitlines()
            longest = max((len(line) for line in out + err), default=0)
            print(f"| {label} | {done.returncode} | {len(out)} | {len(err)} | {len(out) + len(err)} | {longest} |")
        run("first init (not counted)")
        print(f"\n{args.roots} roots; handover: {args.handover}\n")
        print("| run | exit | stdout lines | stderr lines | in all | longest line |")
        print("| --- | --- | --- | --- | --- | --- |")
        run("no-op init -recursive")
        if args.policy:
            (base / "tofu-solve-policy.hcl").write_text(POLICY)
            run("init -recursive -lockfile=readonly, a deny rule", "-lockfile=readonly")
            run("init -recursive, the deny rule lands")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
