"""Record what tofu-solve does on a fixed set of roots, to compare two commits.

    python3 bench/snapshot.py --repo DIR --out FILE [--examples N] [--pairs N] [--real-content GIT_DIR ...]
    python3 bench/snapshot.py --compare A.json B.json [--ignore-pins]

For each root (the first N example roots of ``../shared/corpus`` and the first N assembled
pairs, among them impossible ones), in a fixed order over one cache, it runs the CLI of the
checkout at ``--repo`` in a fresh process (``init``, then ``check``, ``why`` of the first
call, ``graph -json`` and ``outdated -json``; then the lock's day two, :func:`day_two`)
and records each exit status, the lock file, standard output and standard error. Progress lines (whose order depends on thread timing), server ports and
temporary paths are normalized away; everything else must be identical for a change that
promises "behaviour does not change". The fixture world is built and served by this
checkout's ``tofu_solve.world``; with ``--real-content``, with those real repositories in
place of the generated ones (``real_world.py``), so that real HCL is read. ``init`` runs with
``-handover=false``: what is recorded is tofu-solve's own work, not a client's.

``--ignore-pins`` compares lock files without what pins a module package beyond its content:
the ``package``/``floating`` lines of issue #25 and the ``git:``/``sha256:`` entries that
held the same pins among the hashes before it, so that a record made before issue #25 can be
compared with one made after.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from real_world import real_content_world  # noqa: E402

from tofu_solve.world import build_world, default_world_dir, running_world  # noqa: E402
from tofu_solve.world.roots import assembled_roots, example_roots  # noqa: E402

_TIMES = re.compile(r'"([a-z_]*seconds|[a-z_]*_ms)": [0-9.]+')  # durations, and outdated's age_seconds
_PROGRESS = re.compile(r"^\s*- (Fetching|Listing|Reading|Looking|Downloading|Verifying|Solving)\b")


def normalize(text: str, tmp: Path) -> str:
    text = text.replace(str(tmp), "<TMP>")
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<PORT>", text)
    text = re.sub(r"localhost:\d+", "localhost:<PORT>", text)
    text = re.sub(r'"@timestamp": ?"[^"]*"', '"@timestamp": "<T>"', text)
    text = _TIMES.sub(r'"\1": 0', text)
    return "\n".join(line for line in text.splitlines() if not _PROGRESS.match(line))


def run(repo: Path, env: dict, args: list[str], tmp: Path) -> dict:
    r = subprocess.run([sys.executable, "-m", "tofu_solve", *args], cwd=tmp, env=env, capture_output=True,
                       text=True, timeout=600)
    return {"args": [normalize(a, tmp) for a in args], "code": r.returncode,
            "out": normalize(r.stdout, tmp), "err": normalize(r.stderr, tmp)}


def record(repo: Path, examples: int, pairs: int, real: list[Path]) -> list[dict]:
    corpus = REPO.parent / "shared" / "corpus"
    world = build_world(corpus, default_world_dir())
    roots = example_roots(corpus)[:examples] + assembled_roots(corpus)[:pairs]
    out = []
    with tempfile.TemporaryDirectory(prefix="tofu-solve-snapshot-") as t:
        tmp = Path(t)
        if real:
            world, _ = real_content_world(world, real, tmp / "world")
        (tmp / "servers").mkdir()
        with running_world(world, tmp / "servers") as rw:
            env = {**os.environ, **rw.env(tmp / "cache"), "PYTHONPATH": str(repo), "NO_COLOR": "1"}
            env.pop("TF_LOG", None)
            for i, root in enumerate(roots):
                d = root.write(tmp / f"r{i}")
                entry = {"root": root.name if hasattr(root, "name") else str(i), "runs": []}
                entry["runs"].append(run(repo, env, ["init", "-handover=false", f"-chdir={d}"], tmp))
                lock = d / ".terraform.lock.hcl"
                entry["lock"] = normalize(lock.read_text(), tmp) if lock.exists() else None
                entry["runs"].append(run(repo, env, ["check", f"-chdir={d}"], tmp))
                entry["runs"].append(run(repo, env, ["init", "-lockfile=readonly", "-handover=false", f"-chdir={d}"],
                                          tmp))
                calls = re.findall(r'^module "([^"]+)"', (d / "main.tf").read_text(), re.M)
                if calls and entry["lock"]:
                    entry["runs"].append(run(repo, env, ["why", calls[0], f"-chdir={d}"], tmp))
                    entry["runs"].append(run(repo, env, ["graph", "-json", f"-chdir={d}"], tmp))
                    entry["runs"].append(run(repo, env, ["outdated", "-json", f"-chdir={d}"], tmp))
                moving = [c for c in calls if not _exact(d / "main.tf", c)] + calls  # a call that can move first
                if lock.exists() and calls and locked_version(lock.read_text(), moving[0]):
                    entry["day2"] = day_two(repo, env, d, tmp, moving[0])
                out.append(entry)
                print(f"{i + 1}/{len(roots)} {entry['root']}: init exit {entry['runs'][0]['code']}", file=sys.stderr)
    return out


def locked_version(lock_text: str, call: str) -> str | None:
    """The version the lock file's ``module "CALL"`` block records, or None."""
    m = re.search(r'^module "' + re.escape(call) + r'" \{[^}]*?^\s*version\s*=\s*"([^"]+)"', lock_text, re.M | re.S)
    return m.group(1) if m else None


def _call_block(text: str, call: str) -> re.Match | None:
    return re.search(r'^module "' + re.escape(call) + r'" \{.*?^\}', text, re.M | re.S)


def _exact(main: Path, call: str) -> bool:
    """Whether ``call``'s ``version`` in ``main`` is one exact version (or absent)."""
    block = _call_block(main.read_text(), call)
    constraint = re.search(r'^\s*version\s*=\s*"([^"]*)"', block.group(0), re.M) if block else None
    return constraint is None or constraint.group(1)[:1].isdigit()


def day_two(repo: Path, env: dict, d: Path, tmp: Path, call: str) -> dict:
    """The lock's day two on a root whose first call is locked (issue #83 §2, §3): the call
    held below its locked version then freed (``init``, ``outdated -json``,
    ``init -upgrade=CALL``); a provider upgraded by name; the call's checksum changed in
    the lock (``init``, then ``init -accept-checksum=CALL``); a policy that denies the locked
    version (the lock moves), then every version (the conflict names the rule)."""
    main, lock = d / "main.tf", d / ".terraform.lock.hcl"
    text, runs = main.read_text(), []
    step = lambda *a: runs.append(run(repo, env, [*a, f"-chdir={d}"], tmp))  # noqa: E731
    version = locked_version(lock.read_text(), call)
    block = _call_block(text, call)
    constraint = re.search(r'^\s*version\s*=\s*"([^"]*)"', block.group(0), re.M) if block else None
    if block is not None and constraint is not None:
        held = block.group(0).replace(constraint.group(0), constraint.group(0).replace(
            f'"{constraint.group(1)}"', f'"{constraint.group(1)}, < {version}"'))
        main.write_text(text.replace(block.group(0), held))
        step("init", "-handover=false")
        main.write_text(text)
        step("init", "-handover=false")
        step("outdated", "-json")
        step("init", "-handover=false", f"-upgrade={call}")
    providers = re.findall(r'^provider "([^"]+)"', lock.read_text(), re.M)
    if providers:
        step("init", "-handover=false", f"-upgrade={providers[0]}")
    locked = lock.read_text()
    mblock = _call_block(locked, call)
    h1 = re.search(r'"h1:[A-Za-z0-9+/=]+"', mblock.group(0)) if mblock else None
    if h1 is not None:
        lock.write_text(locked.replace(mblock.group(0), mblock.group(0).replace(
            h1.group(0), '"h1:' + "A" * 43 + '="')))
        step("init", "-handover=false")
        step("init", "-handover=false", f"-accept-checksum={call}")
    source = re.search(r'^\s*source\s*=\s*"([^"]+)"', block.group(0), re.M) if block else None
    if source is not None and "::" not in source.group(1) and not source.group(1).startswith("."):
        now = locked_version(lock.read_text(), call) or version
        policy = d / "tofu-solve-policy.hcl"
        package = source.group(1)
        policy.write_text(f'deny "module" "{package}" {{\n  versions = "{now}"\n  reason   = "snapshot"\n}}\n')
        step("init", "-handover=false")
        step("outdated", "-json")
        policy.write_text(f'deny "module" "{package}" {{\n  versions = ">= 0.0.0"\n  reason   = "snapshot"\n}}\n')
        step("init", "-handover=false")
        step("check")
        policy.unlink()
    return {"runs": runs, "lock": normalize(lock.read_text(), tmp) if lock.exists() else None}


_PIN_LINE = re.compile(r'^\s*(package = "[^"]*"|floating = true|"(git|sha256):[0-9a-f]+",)$')


def without_pins(entry: dict) -> dict:
    """``entry`` with its lock file's package pins left out (see ``--ignore-pins``)."""
    lock = entry.get("lock")
    if lock is None:
        return entry
    return {**entry, "lock": "\n".join(line for line in lock.splitlines() if not _PIN_LINE.match(line))}


def _again(value):
    """A record's strings normalized again (a record made before a normalization was added)."""
    if isinstance(value, str):
        return _TIMES.sub(r'"\1": 0', value)
    if isinstance(value, list):
        return [_again(v) for v in value]
    if isinstance(value, dict):
        return {k: _again(v) for k, v in value.items()}
    return value


def compare(a: Path, b: Path, ignore_pins: bool = False) -> int:
    x, y = _again(json.loads(a.read_text())), _again(json.loads(b.read_text()))
    if ignore_pins:
        x, y = [without_pins(e) for e in x], [without_pins(e) for e in y]
    diffs = 0
    if len(x) != len(y):
        print(f"different root counts: {len(x)} and {len(y)}")
        return 1
    for ea, eb in zip(x, y, strict=False):
        if ea != eb:
            diffs += 1
            print(f"== {ea['root']}")
            if ea["lock"] != eb["lock"]:
                print("  lock files differ")
            if (ea.get("day2") or {}).get("lock") != (eb.get("day2") or {}).get("lock"):
                print("  day-two lock files differ")
            day2 = list(zip((ea.get("day2") or {}).get("runs", []), (eb.get("day2") or {}).get("runs", []),
                            strict=False))
            for ra, rb in [*zip(ea["runs"], eb["runs"], strict=False), *day2]:
                for k in ("code", "out", "err"):
                    if ra[k] != rb[k]:
                        print(f"  {' '.join(ra['args'][:1])} {k} differs:\n    A: {str(ra[k])[:600]!r}\n"
                              f"    B: {str(rb[k])[:600]!r}")
    print(f"{len(x)} roots, {diffs} differ")
    return 1 if diffs else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default=str(REPO), help="the checkout whose tofu_solve runs (default: this one)")
    ap.add_argument("--out", help="where to write the record (JSON)")
    ap.add_argument("--examples", type=int, default=40)
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--real-content", nargs="+", type=Path, default=[], metavar="GIT_DIR",
                    help="real repositories in place of the fixture world's (bench/real_world.py)")
    ap.add_argument("--compare", nargs=2, metavar="FILE", help="compare two records; exit 1 when they differ")
    ap.add_argument("--ignore-pins", action="store_true",
                    help="with --compare: leave module package pins out of the lock files")
    args = ap.parse_args()
    if args.compare:
        return compare(Path(args.compare[0]), Path(args.compare[1]), args.ignore_pins)
    if not args.out:
        ap.error("--out is required")
    data = record(Path(args.repo).resolve(), args.examples, args.pairs, args.real_content)
    Path(args.out).write_text(json.dumps(data, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
