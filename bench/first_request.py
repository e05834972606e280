"""When a cold ``init``'s first request leaves, measured from the process's start (issue #72 §2).

    python3 bench/first_request.py [--repeat 15] [--version-file] [--python PYTHON]
    PYTHONPATH=OTHER_CHECKOUT python3 bench/first_request.py     # another checkout, same machine

A listener on 127.0.0.1 stands for the registry (the CLI configuration's ``host`` block points
``registry.opentofu.org`` at it); it records when its first connection arrives and answers 503.
The root calls one registry module (``terraform-aws-modules/vpc/aws ~> 5.0``) and requires
``hashicorp/aws``: the listings the early start sends first (``tofu_solve/command/early.py``).
Each run is a fresh process with an empty cache; the time is from just before the process is
spawned to the listener's first ``accept``: the interpreter's start, the imports, reading the
root, and the first connection. ``tofu-solve --version`` in the same way is the floor of any
command. ``--version-file`` writes ``.opentofu-version`` beside the root (the product decided
without asking the client). Prints the median and the spread of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = '''terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 5.0"
}
'''


class Listener:
    """A TCP listener recording the time of its first accepted connection (``time.time()``)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.first: float | None = None
        self.reset = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.first is None:
                self.first = time.time()
            try:
                conn.recv(4096)
                conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            except OSError:
                pass
            conn.close()


def cli_config(path: Path, port: int) -> Path:
    base = f"http://127.0.0.1:{port}"
    path.write_text("".join(
        f'host "{h}" {{\n  services = {{\n    "modules.v1"   = "{base}/v1/modules/"\n'
        f'    "providers.v1" = "{base}/v1/providers/"\n  }}\n}}\n'
        for h in ("registry.opentofu.org", "registry.terraform.io")))
    return path


def one(python: str, listener: Listener, tmp: Path, version_file: bool) -> float | None:
    root = tmp / "root"
    root.mkdir(parents=True)
    (root / "main.tf").write_text(ROOT)
    if version_file:
        (root / ".opentofu-version").write_text("1.10.6\n")
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(cli_config(tmp / "rc", listener.port)),
           "TOFU_SOLVE_CACHE_DIR": str(tmp / "cache"), "HOME": str(tmp), "NO_COLOR": "1"}
    listener.first = None
    started = time.time()
    subprocess.run([python, "-m", "tofu_solve", "init", "-handover=false", f"-chdir={root}"], env=env,
                   capture_output=True, text=True, timeout=120)
    return None if listener.first is None else listener.first - started


def floor(python: str) -> float:
    started = time.time()
    subprocess.run([python, "-m", "tofu_solve", "--version"], capture_output=True, check=True)
    return time.time() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--version-file", action="store_true")
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args()
    subprocess.run([a.python, "-c", "import compileall, os, tofu_solve; "
                    "compileall.compile_dir(os.path.dirname(tofu_solve.__file__), quiet=1)"], capture_output=True)
    listener = Listener()
    firsts, floors = [], []
    with tempfile.TemporaryDirectory(prefix="tofu-solve-first-request-") as d:
        one(a.python, listener, Path(d) / "warm-up", a.version_file)  # the disk's caches, the .pyc files
        for i in range(a.repeat):
            t = one(a.python, listener, Path(d) / f"run{i}", a.version_file)
            if t is not None:
                firsts.append(t)
            floors.append(floor(a.python))
    if not firsts:
        print("no request reached the listener")
        return 1
    q = statistics.quantiles(firsts, n=4) if len(firsts) > 1 else [firsts[0]] * 3
    print(f"first request after start: median {statistics.median(firsts) * 1000:.0f} ms "
          f"(quartiles {q[0] * 1000:.0f}-{q[2] * 1000:.0f} ms, {len(firsts)} runs"
          f"{', version file' if a.version_file else ''})")
    print(f"tofu-solve --version: median {statistics.median(floors) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
