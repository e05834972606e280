"""Reading real module HCL: the whole-file parse against the pre-scan that parses only the
blocks the solve reads (``tofu_solve.config.scan``), on real repositories and their tags.

    python3 bench/real_hcl.py GIT_DIR [GIT_DIR...] [--every N] [--big FILE...] [--generate-big FILE]

For every N-th tag of each repository (bare git directories, such as the search tool's
``fetch`` brings), every ``.tf``/``.tofu`` file of the release is read both ways and compared:
the blocks the pre-scan parses must equal the whole-file parse's (type, labels, lines,
offsets, every attribute with its expression text and line, nested blocks alike), and the
blocks it skips must have the same type, labels, line and offsets. Files the whole-file parse
refuses are counted apart (with whether the pre-scan read them). Prints the totals and the
time each way; ``--big`` files are also timed with their peak memory, in a child process.
Nothing here is asserted as a timing: it is a measurement.
"""

from __future__ import annotations

import argparse
import io
import resource
import subprocess
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tofu_solve.config import hcl  # noqa: E402
from tofu_solve.config.loader import _lazy, _wanted  # noqa: E402
from tofu_solve.errors import TofuSolveError  # noqa: E402


def shape(item) -> tuple:
    if isinstance(item, hcl.Block):
        return ("block", item.type, tuple(item.labels), item.line, item.start, item.end,
                tuple(shape(i) for i in item.body.items))
    return ("attr", item.name, item.line, item.expr.text, item.expr.line)


def files_at(git_dir: Path, tag: str) -> dict[str, str]:
    data = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "--format=tar", tag], capture_output=True,
                          check=True).stdout
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        for m in tf:
            if m.isfile() and m.name.endswith((".tf", ".tofu")):
                try:
                    out[m.name] = tf.extractfile(m).read().decode("utf-8")
                except UnicodeDecodeError:
                    pass
    return out


def compare(text: str, name: str, totals: dict) -> None:
    totals["files"] += 1
    totals["bytes"] += len(text)
    t0 = time.perf_counter()
    try:
        whole = hcl.parse(text, name)
    except TofuSolveError:
        whole = None
    t1 = time.perf_counter()
    try:
        part = hcl.parse_blocks(text, name, _wanted, lazy=_lazy)
    except TofuSolveError:
        part = None
    t2 = time.perf_counter()
    totals["whole_s"] += t1 - t0
    totals["scan_s"] += t2 - t1
    if whole is None:
        totals["refused_whole"] += 1
        if part is not None:
            totals["read_by_scan_only"] += 1
        return
    if part is None:
        totals["differ"] += 1
        totals["examples"].append(f"{name}: the pre-scan path refused a file the whole parse reads")
        return
    if len(whole.items) != len(part.items):
        totals["differ"] += 1
        totals["examples"].append(f"{name}: {len(whole.items)} items against {len(part.items)}")
        return
    for w, p in zip(whole.items, part.items):
        if isinstance(p, hcl.Block) and isinstance(p.body, hcl.LazyBody):
            totals["lazy_blocks"] += 1  # read here only to compare (the loader reads it when referred to)
            same = shape(w) == shape(p)
        elif isinstance(p, hcl.Block) and not p.body.items and isinstance(w, hcl.Block) and w.body.items:
            same = (w.type, w.labels, w.line, w.start, w.end) == (p.type, p.labels, p.line, p.start, p.end)
            totals["skipped_blocks"] += 1
        else:
            same = shape(w) == shape(p)
            totals["parsed_blocks"] += 1
        if not same:
            totals["differ"] += 1
            totals["examples"].append(f"{name}: line {w.line} differs")
            return


def generate_big(path: Path, resources: int = 110_000) -> None:
    """A generated root as large as the ones issue #22 measured (25 MiB): a
    ``required_providers`` block, one module call and ``resources`` resource blocks."""
    parts = ['terraform {\n  required_providers {\n    aws = {\n      source = "hashicorp/aws"\n'
             '      version = ">= 5.0"\n    }\n  }\n}\n',
             'module "vpc" {\n  source = "terraform-aws-modules/vpc/aws"\n  version = "~> 6.0"\n}\n']
    parts += [f'resource "aws_instance" "r{i}" {{\n  ami = "ami-{i:08d}"\n  instance_type = "t3.micro"\n  tags = {{\n'
              f'    Name = "n{i}"\n    Team = "{"x" * 100}"\n  }}\n}}\n' for i in range(resources)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(parts))


def big(path: Path) -> None:
    code = ("import sys, time, resource; sys.path.insert(0, %r)\n"
            "from tofu_solve.config import hcl\nfrom tofu_solve.config.loader import _lazy, _wanted\n"
            "t = open(%r).read(); s = time.perf_counter(); b = hcl.parse_blocks(t, 'big.tf', _wanted, lazy=_lazy)\n"
            "print(f'{len(t) / 2**20:.1f} MiB: {time.perf_counter() - s:.2f} s, {len(b.items)} blocks, peak '"
            "f'{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB')") % (str(REPO), str(path))
    print(f"--big {path}: " + subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dirs", nargs="*", type=Path)
    ap.add_argument("--every", type=int, default=10, help="every N-th tag (default 10)")
    ap.add_argument("--big", nargs="*", type=Path, default=[], help="large files to time on their own")
    ap.add_argument("--generate-big", type=Path, metavar="FILE", help="first write the generated 25 MiB root there")
    args = ap.parse_args()
    if args.generate_big:
        generate_big(args.generate_big)
    hcl._parser()  # the grammar is built once, before any timing
    for git_dir in args.git_dirs:
        tags = subprocess.run(["git", "--git-dir", str(git_dir), "tag", "--sort=version:refname"], capture_output=True,
                              text=True, check=True).stdout.split()
        totals = {"files": 0, "bytes": 0, "whole_s": 0.0, "scan_s": 0.0, "refused_whole": 0, "read_by_scan_only": 0,
                  "differ": 0, "parsed_blocks": 0, "skipped_blocks": 0, "lazy_blocks": 0, "examples": []}
        chosen = tags[::args.every] + ([tags[-1]] if tags and (len(tags) - 1) % args.every else [])
        for tag in chosen:
            for name, text in files_at(git_dir, tag).items():
                compare(text, f"{tag}:{name}", totals)
        print(f"{git_dir.parent.name}: {len(chosen)} of {len(tags)} tags, {totals['files']} files, "
              f"{totals['bytes'] / 2**20:.1f} MiB; whole-file parse {totals['whole_s']:.1f} s, pre-scan "
              f"{totals['scan_s']:.1f} s ({totals['whole_s'] / max(totals['scan_s'], 1e-9):.1f}x); blocks parsed "
              f"{totals['parsed_blocks']}, read when referred to {totals['lazy_blocks']}, skipped {totals['skipped_blocks']}; differ {totals['differ']}; refused by "
              f"the whole parse {totals['refused_whole']} (read by the pre-scan path: {totals['read_by_scan_only']})")
        for e in totals["examples"][:5]:
            print("   ", e)
    for path in args.big:
        big(path)
    print(f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
