"""What CI shows, in every cell of the matrix CI runs (issue #81 §7): the commands (``init``,
``init -lockfile=readonly``, ``check``, ``outdated``, ``list``) x output modes (text,
``-json``, ``-format=sarif`` and ``-format=markdown`` where the command has them) x
``GITHUB_ACTIONS`` on and off x one root and ``-recursive`` (two plain roots and a
Terragrunt unit) x the hand-over on (a client that prints a workflow command of its own) and
off. tofu-solve runs as its own process, its two streams merged as the runner reads them,
and every cell is held to the same invariants:

* under GitHub Actions the runner executes no workflow command but tofu-solve's own
  annotations, and the guard region is closed when the process ends (the runner's commands
  work again for the job's next step); off GitHub Actions no guard line is written;
* every annotation's ``file=`` and every SARIF ``artifactLocation`` names a file that exists,
  relative to where the command ran;
* a JSON or SARIF standard output is one JSON document or stream, nothing else on it; a
  Markdown one is one report that names every root, appended to ``GITHUB_STEP_SUMMARY`` too
  under GitHub Actions.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import write_root

VPC = 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "~> 6.0"\n}\n'
UNIT = 'terraform {\n  source  = "tfr:///terraform-aws-modules/vpc/aws"\n  version = "~> 6.0"\n}\n'
CLIENT_NOISE = "::warning title=client::a line the client printed"


def runner(output: str) -> tuple[list[str], bool]:
    """(the workflow commands GitHub's runner executes from ``output``, whether a guard
    region is still open at its end): a ``::name ...::`` line once leading whitespace is
    stripped, unless ``::stop-commands::TOKEN`` stopped them and ``::TOKEN::`` has not
    resumed them."""
    found: list[str] = []
    stopped: str | None = None
    for line in output.splitlines():
        s = line.strip()
        if stopped is not None:
            if s == f"::{stopped}::":
                stopped = None
            continue
        if s.startswith("::stop-commands::"):
            stopped = s[len("::stop-commands::"):]
            continue
        if re.match(r"::[a-z-]+( [^:]*)?::", s):
            found.append(s)
    return found, stopped is not None


@pytest.fixture(scope="module")
def repo(tmp_path_factory, running):
    """Two roots and a Terragrunt unit, initialized: ``ok`` as locked, ``drift`` with its
    range edited since, ``unit`` a unit whose range Terragrunt would resolve."""
    base = tmp_path_factory.mktemp("matrix") / "repo"
    env = _env(running, base.parent, actions=False)
    (base / "unit").mkdir(parents=True)
    (base / "unit" / "terragrunt.hcl").write_text(UNIT)
    for name in ("ok", "drift", "unit"):
        if name != "unit":
            write_root(base / name, VPC)
        done = subprocess.run([sys.executable, "-m", "tofu_solve", "init", "-handover=false", f"-chdir={base / name}"],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    (base / "drift" / "main.tf").write_text(VPC.replace("~> 6.0", "~> 5.0"))
    subprocess.run(["git", "init", "-q", str(base)], check=True)
    client = base.parent / "bin" / "tofu"
    client.parent.mkdir()
    # a client as OpenTofu's: its init -json prints JSON lines (the stream follows tofu-solve's
    # own on standard output), its text a line that would be a workflow command outside the guard
    client.write_text('#!/bin/sh\ncase "$1" in\n  version) echo "OpenTofu v1.12.6"; echo "on linux_amd64";;\n'
                      '  init) case " $* " in\n    *" -json "*) echo \'{"@level":"info","@message":"'
                      f'{CLIENT_NOISE}","type":"log"}}\';;\n'
                      f'    *) echo "{CLIENT_NOISE}"; echo "OpenTofu has been successfully initialized!";;\n'
                      '  esac;;\nesac\n')
    client.chmod(client.stat().st_mode | stat.S_IXUSR)
    return base


def _env(running, tmp: Path, actions: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOFU_SOLVE_", "TF_", "GITHUB_"))}
    env.update(TF_CLI_CONFIG_FILE=str(running.cli_config), TOFU_SOLVE_CACHE_DIR=str(tmp / "cache"), NO_COLOR="1",
               GITHUB_ACTIONS="true" if actions else "false")
    return env


COMMANDS = {
    "init": (["init"], ("text", "-json", "-format=markdown")),
    "init-readonly": (["init", "-lockfile=readonly"], ("text", "-json", "-format=sarif", "-format=markdown")),
    "check": (["check"], ("text", "-json", "-format=sarif", "-format=markdown")),
    "outdated": (["outdated"], ("text", "-json")),
    "list": (["list"], ("text", "-json")),
}
CELLS = [(cmd, mode, actions, recursive, handover)
         for cmd, (_, modes) in COMMANDS.items() for mode in modes for actions in (True, False)
         for recursive in (True, False) for handover in ((True, False) if cmd.startswith("init") else (False,))]


@pytest.mark.parametrize("cmd,mode,actions,recursive,handover", CELLS,
                         ids=[f"{c}-{m.lstrip('-')}-{'gha' if a else 'local'}-{'rec' if r else 'one'}-"
                              f"{'ho' if h else 'noho'}" for c, m, a, r, h in CELLS])
def test_every_cell_keeps_the_invariants(repo, running, cmd, mode, actions, recursive, handover):
    args, _ = COMMANDS[cmd]
    where = repo if recursive else repo / "drift"
    argv = [*args, *([] if mode == "text" else [mode]), *(["-recursive"] if recursive else [])]
    if cmd.startswith("init"):
        argv.append(f"-tf-path={repo.parent / 'bin' / 'tofu'}" if handover else "-handover=false")
    env = _env(running, repo.parent, actions)
    summary = repo.parent / f"summary-{os.getpid()}-{len(argv)}-{actions}-{recursive}-{handover}.md"
    summary.unlink(missing_ok=True)
    if actions:
        env["GITHUB_STEP_SUMMARY"] = str(summary)
    merged = subprocess.run([sys.executable, "-m", "tofu_solve", *argv], cwd=where, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=300)
    apart = subprocess.run([sys.executable, "-m", "tofu_solve", *argv], cwd=where, env=env, capture_output=True,
                           text=True, timeout=300)
    assert merged.returncode == apart.returncode and merged.returncode in (0, 1, 2), merged.stdout
    assert "internal error" not in merged.stdout and "Traceback" not in merged.stdout, merged.stdout
    commands, open_at_end = runner(merged.stdout)
    if actions:
        assert not open_at_end, merged.stdout  # the job's next step gets its commands back
        for c in commands:
            assert re.match(r"::(error|warning|notice) file=[^,]+,line=\d+", c), (c, merged.stdout)
            file = re.match(r"::\w+ file=([^,]+),", c)[1]
            assert (where / file).is_file(), (file, where)
        assert CLIENT_NOISE not in commands
    else:
        assert "::stop-commands::" not in merged.stdout, merged.stdout
    if mode == "-format=markdown":  # one report, nothing else on standard output; the job summary gets it too
        report = apart.stdout
        assert report.startswith("### tofu-solve ") and report.count("\n**") >= 1, report
        assert not runner(report)[0] and "::stop-commands::" not in report, report
        assert "drift" in report if recursive else "The root module " in report, report
        if recursive:  # a root with nothing to say is counted and named, not lost
            assert "ok" in report and "unit" in report, report
        if actions:
            written = summary.read_text()  # appended by each of the two runs, the second's last
            assert written.endswith(report) and written.count("### tofu-solve ") == 2, written
        else:
            assert not summary.exists()
    elif mode != "text":
        try:  # one document (check, outdated, list), else a stream of one per line (init)
            docs = [json.loads(apart.stdout)]
        except ValueError:
            docs = [json.loads(line) for line in apart.stdout.splitlines() if line.strip()]
        assert docs, apart.stdout
        if mode == "-format=sarif":
            for run in docs[0]["runs"]:
                for result in run.get("results", []):
                    for loc in result.get("locations", []):
                        uri = loc["physicalLocation"]["artifactLocation"]["uri"]
                        assert (where / uri).is_file(), (uri, where)
