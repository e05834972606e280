"""``tofu-solve demo -serve`` (issue #37 §4): the fixture world kept running for your own
roots. The environment line it prints points tofu-solve and the real client at it: a root
is solved, locked and handed over to Terraform through that line alone; SIGINT (Ctrl-C)
and SIGTERM stop the servers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import CLIENT_PATHS, require_tool
from tofu_solve.world import default_world_dir


def _serve(tmp_path, world=None, output: Path | None = None) -> tuple[subprocess.Popen, list[str]]:
    """``tofu-solve demo -serve -output=OUTPUT`` (default ``tmp_path/out``) as its own
    process, once it is up: (the process, the lines it printed)."""
    env = {**os.environ, "TOFU_SOLVE_WORLD_DIR": str(default_world_dir()), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "c")}
    env.pop("TF_CLI_CONFIG_FILE", None)
    proc = subprocess.Popen([sys.executable, "-m", "tofu_solve", "demo", "-serve",
                             f"-output={output or tmp_path / 'out'}"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    deadline = time.monotonic() + 300
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith("Ctrl-C stops the servers."):
            return proc, lines
    proc.kill()
    pytest.fail("demo -serve did not come up:\n" + "\n".join(lines))


def _stopped(proc: subprocess.Popen, sig: int) -> str:
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    return out


def _port_open(url: str) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=2):
            return True
    except OSError:
        return False


def test_the_printed_line_points_tofu_solve_and_the_client_at_the_world(tmp_path, world):
    client = require_tool(CLIENT_PATHS["tofu"] or CLIENT_PATHS["terraform"], "tofu or terraform",
                          "tofu (or terraform)")
    proc, lines = _serve(tmp_path, world)
    try:
        export = next(x.strip() for x in lines if x.strip().startswith("export TF_CLI_CONFIG_FILE="))
        config = export.split("=", 1)[1]
        assert (tmp_path / "out" / "world.env").read_text().strip() == export
        registry = next(x for x in lines if x.startswith("Registry at ")).split()[2].rstrip(",")
        assert _port_open(registry)
        root = tmp_path / "out" / "roots" / "2-needs-solver"
        env = {**os.environ, "TF_CLI_CONFIG_FILE": config, "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache"),
               "TOFU_SOLVE_TF_PATH": client}
        done = subprocess.run([sys.executable, "-m", "tofu_solve", "init", f"-chdir={root}"], env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "has been successfully initialized!" in done.stdout.replace("tofu-solve has", "")  # the client too
        assert (root / ".terraform.lock.hcl").is_file()
        installed = [p for p in (root / ".terraform" / "providers").glob("*/hashicorp/aws/*/*") if any(p.iterdir())]
        assert installed, "the client installed no provider from the world's registry"
        # issue #50 §5: the world's git addresses, and a ready root with a versioned git source
        assert any(x.strip().startswith("git::git://127.0.0.1:") and "tags up to" in x for x in lines), lines
        git_root = Path(next(x for x in lines if "# a git source with a version" in x).split("-chdir=", 1)[1]
                        .split()[0])
        done = subprocess.run([sys.executable, "-m", "tofu_solve", "init", "-handover=false", "-tofu-version=1.10.0",
                               f"-chdir={git_root}"], env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        assert '  package = "git::git://127.0.0.1:' in (git_root / ".terraform.lock.hcl").read_text()
    finally:
        out = _stopped(proc, signal.SIGINT)
    assert out.rstrip().endswith("Servers stopped.")
    assert not _port_open(registry)


def test_sigterm_stops_the_servers(tmp_path, world):
    proc, lines = _serve(tmp_path, world)
    registry = next(x for x in lines if x.startswith("Registry at ")).split()[2].rstrip(",")
    assert _port_open(registry)
    assert _stopped(proc, signal.SIGTERM).rstrip().endswith("Servers stopped.")
    assert not _port_open(registry)
