"""The warm path beside the client's own: a locked, installed root re-initialised and checked,
timed in one run against ``terraform init -lockfile=readonly`` on the same root (issue #36 §2).

    python3 bench/warm.py [--repeat 9] [--root NAME ...] [--roots 3] [--real-content GIT_DIR ...]

For each root (the issue's vpc + eks + s3 root, plus example roots of the corpus), in the
fixture world and, with ``--real-content``, with the real repositories' contents: a cold
``tofu-solve init -handover=false``, then ``terraform init -lockfile=readonly`` (which installs
the providers), then warm runs until one is stamped, then ``--repeat`` runs of each, in
turn, of:

* **terraform**: ``terraform init -lockfile=readonly`` (providers installed, nothing to do);
* **init**: ``tofu-solve init -handover=false``, answered from the stamp (workdir/stamp.py);
* **init full**: the same with ``TOFU_SOLVE_FULL_CHECK=1``: configuration read, solved,
  every package and installed copy hashed;
* **init edited**: the full path after an edited ``version`` constraint (the first ``~>``
  of the root made ``>=``, and back, in turn): what "hashes only where they changed" saves;
* **check** (from the stamp) and **check full**;
* **handover** and **handover bc**: ``tofu-solve init`` with the default hand-over to the
  client, answered from the stamp, without and with ``-backend-config=path=...`` (a
  ``backend "local"`` block is added to every root), each against the client's own
  ``init -lockfile=readonly`` with the same flags (issue #47 §2: at most 0.1 s more).

Every process is a fresh ``python -m tofu_solve`` with compiled bytecode, as an installed
tofu-solve runs. Medians in seconds, and each against terraform's.
"""

from __future__ import annotations

import argparse
import json
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

from latency import pick_roots  # noqa: E402
from real_world import real_content_world  # noqa: E402

from tofu_solve.world import GitDaemon, RegistryServer, build_world, default_world_dir, write_cli_config  # noqa: E402

ISSUE_ROOT = '''module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 21.0"
}
module "s3" {
  source  = "terraform-aws-modules/s3-bucket/aws"
  version = "~> 5.0"
}
'''


def timed(cmd: list[str], cwd: Path, env: dict) -> tuple[float, int, str]:
    t = time.monotonic()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    return time.monotonic() - t, done.returncode, done.stdout + done.stderr


def measure(name: str, label: str, root: Path, env: dict, terraform: str, repeat: int) -> dict | None:
    ts = [sys.executable, "-m", "tofu_solve"]
    init = [*ts, "init", "-handover=false", f"-tf-path={terraform}"]  # one target origin for every run
    _, code, out = timed(init, root, env)
    if code != 0:
        print(f"| {name} | {label} | cold init failed |")
        return None
    _, code, out = timed([terraform, "init", "-lockfile=readonly", "-no-color"], root, env)
    if code != 0:
        print(f"| {name} | {label} | terraform init failed: {out.strip().splitlines()[-1:]} |")
        return None
    stamp = root / ".terraform" / "tofu-solve-stamp.json"
    for _ in range(4):  # settle: a warm run that changed nothing, 2 s after the last write
        time.sleep(2.1)
        timed(init, root, env)
        if stamp.exists():
            break
    timed([*ts, "check"], root, env)
    runs: dict[str, list[float]] = {k: [] for k in ("terraform", "init", "init full", "init edited", "check",
                                                      "check full", "handover", "terraform bc", "handover bc")}
    full = {**env, "TOFU_SOLVE_FULL_CHECK": "1"}
    # the default hand-over, and with partial backend configuration passed on (issue #47 §2),
    # the latter in a copy of the root (a backend configured two ways needs -reconfigure)
    handover = [*ts, "init", f"-tf-path={terraform}"]
    bc = "-backend-config=path=bench.tfstate"
    bc_root = root.parent / "root-bc"
    shutil.copytree(root, bc_root, symlinks=True)
    (bc_root / ".terraform" / "terraform.tfstate").unlink(missing_ok=True)  # its backend is configured afresh
    for d, flags in ((root, ()), (bc_root, (bc,))):
        for _ in range(2):  # verified, then stamped
            t, code, out = timed([*handover, *flags], d, env)
            assert code == 0, out
    for _ in range(repeat):  # the client's own init, then tofu-solve's, in turn: neither disturbs the other
        runs["terraform"].append(timed([terraform, "init", "-lockfile=readonly", "-no-color"], root, env)[0])
        t, code, out = timed(init, root, env)
        assert code == 0 and "sizes and modification times" in out, out
        runs["init"].append(t)
        runs["terraform bc"].append(timed([terraform, "init", "-lockfile=readonly", "-no-color", bc], bc_root,
                                          env)[0])
        for key, d, flags in (("handover", root, ()), ("handover bc", bc_root, (bc,))):
            t, code, out = timed([*handover, *flags], d, env)
            assert code == 0 and "sizes and modification times" in out, out
            runs[key].append(t)
        runs["init full"].append(timed(init, root, full)[0])
        t, code, out = timed([*ts, "check"], root, env)
        assert code == 0 and "as the last check found them" in out, out
        runs["check"].append(t)
        runs["check full"].append(timed([*ts, "check"], root, full)[0])
    main_tf = root / "main.tf"
    text = main_tf.read_text()
    stats: dict = {}
    for i in range(repeat):  # an edited constraint that selects the same versions, and back
        main_tf.write_text(text.replace('"~> ', '">= ', 1) if i % 2 == 0 else text)
        t, code, out = timed([*init, "-json"], root, env)
        runs["init edited"].append(t)
        if code == 0:
            stats = json.loads(out.strip().splitlines()[-1])["result"]["stats"]
    main_tf.write_text(text)
    med = {k: statistics.median(v) for k, v in runs.items()}
    tf = med["terraform"]
    cells = " | ".join(f"{med[k]:.3f} ({med[k] / tf:.2f}x)" if k != "terraform" else f"{tf:.3f}" for k in runs
                       if k not in ("handover", "terraform bc", "handover bc"))
    files = sum(1 for _ in (root / ".terraform" / "modules").rglob("*") if _.is_file())
    print(f"| {name} | {label} | {files} | {cells} | {stats.get('hashes_remembered', '-')} |", flush=True)
    HANDOVER_ROWS.append(f"| {name} | {label} | {tf:.3f} | {med['handover']:.3f} | {med['handover'] - tf:+.3f} | "
                         f"{med['terraform bc']:.3f} | {med['handover bc']:.3f} | "
                         f"{med['handover bc'] - med['terraform bc']:+.3f} |")
    return med


HANDOVER_ROWS: list[str] = []
BACKEND = 'terraform {\n  backend "local" {}\n}\n'  # so that -backend-config has something to configure


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--roots", type=int, default=3, help="example roots of the corpus besides the issue's root")
    ap.add_argument("--root", action="append", default=[], metavar="NAME")
    ap.add_argument("--real-content", nargs="+", type=Path, default=[], metavar="GIT_DIR")
    args = ap.parse_args()
    terraform = shutil.which("terraform")
    if terraform is None:
        print("terraform is not on PATH: nothing to compare with", file=sys.stderr)
        return 1
    corpus = Path(os.environ.get("TOFU_SOLVE_SHARED", REPO.parent / "shared")) / "corpus"
    world = build_world(corpus, default_world_dir())
    scratch = Path(tempfile.mkdtemp(prefix="tofu-solve-warm-"))
    worlds = [("fixture", world)]
    if args.real_content:
        real, _ = real_content_world(world, args.real_content, scratch / "world")
        worlds.append(("real", real))
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "tofu_solve")], check=True,
                   capture_output=True)
    roots = [("vpc+eks+s3", ISSUE_ROOT)] + [(r.name, r) for r in (pick_roots(corpus, args.root, args.roots)
                                                                 if args.roots or args.root else [])
                                            if not r.name.startswith("pair:")]
    print(f"terraform: {subprocess.run([terraform, 'version'], capture_output=True, text=True).stdout.split()[1]}; "
          f"{args.repeat} runs each, medians in seconds (x terraform's)\n")
    print("| root | world | installed files | terraform init -lockfile=readonly | init | init full | init edited | "
          "check | check full | hashes remembered (edited) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    meds = []
    try:
        for label, w in worlds:
            with GitDaemon(w.git_dir) as git, RegistryServer(w, f"git://127.0.0.1:{git.port}/") as reg:
                for name, root in roots:
                    tmp = Path(tempfile.mkdtemp(prefix="w-", dir=scratch))
                    rc = write_cli_config(tmp / "rc", f"http://127.0.0.1:{reg.port}")
                    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache"),
                           "HOME": str(tmp), "NO_COLOR": "1", "CHECKPOINT_DISABLE": "1",
                           "TF_PLUGIN_CACHE_DIR": str(tmp / "plugins")}
                    (tmp / "plugins").mkdir()
                    d = tmp / "root"
                    if isinstance(root, str):
                        d.mkdir()
                        (d / "main.tf").write_text(root)
                    else:
                        root.write(d)
                    (d / "bench_backend.tf").write_text(BACKEND)
                    med = measure(name, label, d, env, terraform, args.repeat)
                    if med:
                        meds.append(med)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if meds:
        print()
        for k in ("init", "check", "init full", "check full", "init edited"):
            ratios = [m[k] / m["terraform"] for m in meds]
            print(f"- {k}: median {statistics.median(ratios):.2f}x terraform init -lockfile=readonly, "
                  f"worst {max(ratios):.2f}x")
        print("\nWith the default hand-over (the client's own init run after tofu-solve's, issue #47 §2), without "
              "and with a passed-on -backend-config; seconds over the client's own init with the same flags:\n")
        print("| root | world | terraform init -lockfile=readonly | tofu-solve init | over | with -backend-config: "
              "terraform | tofu-solve | over |")
        print("|---|---|---|---|---|---|---|---|")
        print("\n".join(HANDOVER_ROWS))
        for k, tf in (("handover", "terraform"), ("handover bc", "terraform bc")):
            over = [m[k] - m[tf] for m in meds]
            print(f"- {k}: median {statistics.median(over):+.3f} s over the client's own, worst {max(over):+.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
