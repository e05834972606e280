"""A pull request's files and a registry's answers tried as an attacker would (issue #67 §1-§3),
with tofu-solve run as its own process, as CI runs it, under ``GITHUB_ACTIONS=true``, its output
read the way GitHub's runner reads it (:func:`runner_commands`).

Each case plants text that a runner would execute as a workflow command (``::warning::``,
``::stop-commands::``, the legacy ``##[add-mask]`` read anywhere in a line), an escape
sequence a terminal would obey (OSC 52 writes the clipboard), a file whose name holds a
newline, a lock value that is not a version, a policy input named after a secret, a link to
the process's environment; and checks that none of it gets through."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.e2e.conftest import write_root

SECRET = "s3cr3t-value-that-must-not-leak"
INJECT = "x\n::warning title=pwned::injected\n::stop-commands::EVIL\n##[add-mask]nothing \x1b]52;c;cHduZWQ=\x07"


def run(args: list[str], cwd: Path, cli_config: Path, cache: Path, **extra: str) -> subprocess.CompletedProcess:
    """``tofu-solve ARGS`` as its own process, under GitHub Actions, with a secret in its
    environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOFU_SOLVE_", "TF_", "GITHUB_"))}
    env.update(GITHUB_ACTIONS="true", TF_CLI_CONFIG_FILE=str(cli_config), TOFU_SOLVE_CACHE_DIR=str(cache),
               TF_TOKEN_app_terraform_io=SECRET, GITHUB_TOKEN=SECRET, NO_COLOR="1")
    env.update(extra)  # a case may run outside GitHub Actions (GITHUB_ACTIONS="false")
    return subprocess.run([sys.executable, "-m", "tofu_solve", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def runner_commands(output: str) -> list[str]:
    """The workflow commands GitHub's runner would execute from ``output``: a line that is
    ``::name ...::...`` once leading whitespace is stripped, unless ``::stop-commands::TOKEN``
    stopped them and ``::TOKEN::`` has not resumed them; and ``##[...]`` anywhere in a line
    (the legacy form), stopped or not."""
    found: list[str] = []
    stopped: str | None = None
    for line in output.splitlines():
        if "##[" in line:
            found.append("legacy: " + line)
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
    return found


def own(commands: list[str]) -> list[str]:
    """The commands that are not tofu-solve's own annotations (``::error file=...``)."""
    return [c for c in commands if not re.match(r"::(error|warning|notice) file=[^,]+,line=\d+", c)]


def assert_safe(p: subprocess.CompletedProcess) -> None:
    for name, text in (("stdout", p.stdout), ("stderr", p.stderr)):
        assert own(runner_commands(text)) == [], (name, text)
        assert "\x1b" not in text and "\x07" not in text, (name, text)
        assert SECRET not in text, (name, text)
        assert "internal error" not in text and "This is a bug" not in text, (name, text)


POLICY = textwrap.dedent('''
    module_policy "*" "advice" {
      enforcement_level = "advisory"
      enforce {
        condition     = false
        error_message = "MESSAGE"
      }
    }
''')


def test_a_policy_message_starts_no_workflow_command(tmp_path, running):
    """Issue #67 §1: a policy's error_message with newlines, ::warning::, ::stop-commands::,
    ##[add-mask] and an OSC 52 sequence, printed by plain init and by -recursive
    -lockfile=readonly, starts no command and reaches no terminal."""
    message = INJECT.replace("\\", "\\\\").replace("\n", "\\n").replace("\x1b", "\\u001b").replace("\x07", "\\u0007")
    for name in ("a", "b"):
        write_root(tmp_path / "repo" / name, 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                              '  version = "~> 6.0"\n}\n')
    (tmp_path / "repo" / "p.policy.hcl").write_text(POLICY.replace("MESSAGE", message))
    first = run(["init", "-handover=false", f"-chdir={tmp_path / 'repo' / 'a'}"], tmp_path, running.cli_config,
                tmp_path / "c")
    assert first.returncode == 0, first.stderr
    assert "::warning title=pwned::injected" in first.stdout + first.stderr  # said, on one line, inert
    assert_safe(first)
    many = run(["init", "-recursive", "-lockfile=readonly", "-handover=false", f"-chdir={tmp_path / 'repo'}"],
               tmp_path, running.cli_config, tmp_path / "c")
    assert_safe(many)


def test_a_huge_policy_message_is_bounded(tmp_path, running):
    root = write_root(tmp_path / "r", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                       '  version = "~> 6.0"\n}\n')
    (root / "p.policy.hcl").write_text(POLICY.replace('"MESSAGE"', '"' + "A" * (4 << 20) + '"'))
    p = run(["init", "-handover=false", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
    assert_safe(p)
    longest = max((p.stdout + p.stderr).splitlines(), key=len)
    assert len(longest) < 5000, longest[:300]


def test_a_file_name_with_a_newline_starts_no_workflow_command(tmp_path, running):
    root = write_root(tmp_path / "r", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                       '  version = "~> 6.0"\n}\n')
    (root / "x\n::warning title=pwned::y.tf").write_text('locals {\n  broken = [\n')
    p = run(["init", "-handover=false", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
    assert p.returncode == 1
    assert "x\\n::warning title=pwned::y.tf" in p.stderr, p.stderr  # named, escaped
    assert_safe(p)


@pytest.mark.parametrize("field,value,summary", [
    ("version", "6.6.0\n::warning title=pwned::x", "Invalid module version"),
    ("constraints", "~> 6.0\n::warning title=pwned::x", "Invalid module version constraints"),
    ("hashes", "h1:abc\n::warning title=pwned::x", "Invalid module hash string"),
])
def test_a_lock_value_that_is_not_one_is_an_error_at_its_line(tmp_path, running, field, value, summary):
    root = write_root(tmp_path / "r", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                       '  version = "~> 6.0"\n}\n')
    made = run(["init", "-handover=false", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
    assert made.returncode == 0, made.stderr
    lock = (root / ".terraform.lock.hcl").read_text()
    escaped = value.replace("\n", "\\n")
    if field == "hashes":
        lock = re.sub(r'hashes = \[\n(\s+)"h1:[^"]+"', lambda m: f'hashes = [\n{m[1]}"{escaped}"', lock, count=1)
    else:
        lock = re.sub(rf'({field}\s+= )"[^"]*"', lambda m: f'{m[1]}"{escaped}"', lock, count=1)
    (root / ".terraform.lock.hcl").write_text(lock)
    for args in (["init", "-lockfile=readonly", "-handover=false"], ["check"]):
        p = run([*args, f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
        assert p.returncode == 1, p.stdout + p.stderr
        assert summary in p.stderr and ".terraform.lock.hcl line" in p.stderr, p.stderr
        assert_safe(p)


def test_a_policy_input_named_after_a_secret_reads_nothing(tmp_path, running):
    """Issue #67 §2: the policy prints its input in a message; the job's token stays out."""
    root = write_root(tmp_path / "r", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                       '  version = "~> 6.0"\n}\n')
    (root / "p.policy.hcl").write_text(textwrap.dedent('''
        input "TF_TOKEN_app_terraform_io" {
          type    = string
          default = "nothing"
        }
        module_policy "*" "leak" {
          enforcement_level = "advisory"
          enforce {
            condition     = false
            error_message = join(" ", regexall(".", input.TF_TOKEN_app_terraform_io))
          }
        }
    '''))
    p = run(["init", "-handover=false", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
    assert p.returncode == 0, p.stderr
    assert "n o t h i n g" in p.stdout + p.stderr
    assert " ".join(SECRET) not in p.stdout + p.stderr
    assert_safe(p)


@pytest.mark.parametrize("name", ["evil.policy.hcl", "main.tf", ".terraform.lock.hcl", "terraform.tfvars",
                                  ".opentofu-version"])
def test_a_link_out_of_the_repository_is_refused_unread(tmp_path, running, name):
    """Issue #67 §3: git keeps symbolic links; one to the process's environment is refused by
    name, and nothing of the environment is printed."""
    repo = tmp_path / "repo"
    root = write_root(repo / "r", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                  '  version = "~> 6.0"\n}\n')
    (repo / ".git").mkdir()
    target = root / name
    if target.exists():
        target.unlink()
    target.symlink_to("/proc/self/environ")
    p = run(["init", "-handover=false", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "File outside the repository" in p.stderr and name in p.stderr, p.stderr
    assert "PATH=" not in p.stdout + p.stderr
    assert_safe(p)


def test_a_link_inside_the_repository_keeps_working(tmp_path, running):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "shared").mkdir()
    (repo / "shared" / "vpc.tf").write_text('module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                            '  version = "~> 6.0"\n}\n')
    root = repo / "r"
    root.mkdir()
    (root / "main.tf").symlink_to(repo / "shared" / "vpc.tf")
    p = run(["init", "-handover=false", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
    assert p.returncode == 0, p.stderr
    assert "- vpc in terraform-aws-modules/vpc/aws 6." in p.stdout


def test_a_fifo_named_like_a_configuration_file_is_refused(tmp_path, running):
    root = write_root(tmp_path / "r", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                       '  version = "~> 6.0"\n}\n')
    os.mkfifo(root / "stuck.tf")
    p = run(["init", "-handover=false", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
    assert p.returncode == 1 and "Not a regular file" in p.stderr, p.stderr


def test_what_the_client_prints_in_the_hand_over_runs_inside_the_guard(tmp_path, running):
    """The client's own output (which quotes configuration: a module's source, a provider's
    error) reaches the log raw; under GitHub Actions it runs inside the stop-commands guard
    and its ##[ is broken. A client stand-in prints what an attacker would make it print."""
    client = tmp_path / "bin" / "terraform"
    client.parent.mkdir()
    client.write_text("#!/bin/sh\n"
                      'if [ "$1" = version ]; then echo "Terraform v1.11.4"; exit 0; fi\n'
                      "printf '::warning title=pwned::from the client\\n##[add-mask]x\\n::stop-commands::EVIL\\n"
                      "::error::after\\n'\n")
    client.chmod(0o755)
    root = write_root(tmp_path / "r", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                       '  version = "~> 6.0"\n}\n')
    (root / ".terraform-version").write_text("1.11.4\n")
    p = run(["init", f"-tf-path={client}", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
    assert "::warning title=pwned::from the client" in p.stdout, p.stdout  # shown, inert
    assert_safe(p)


def test_a_hostile_registrys_lifecycle_answers_reach_no_command_and_revoke_every_version(tmp_path, world, running):
    """Issue #67 §1, §7: a private registry whose deprecation and revocation texts hold
    workflow commands, escape sequences and a javascript: link, that lists 60 revoked versions
    and answers each slowly: the job is bounded by its lifecycle deadline, every listed version
    stays revoked (6.x all revoked: nothing selectable, named as revoked), and nothing it said
    starts a command or reaches a terminal."""
    from tofu_solve.world.servers import RegistryServer, write_cli_config

    reg = RegistryServer(world, running.git.url, hcp=True).start()
    try:
        versions = [v for v in world.modules["terraform-aws-modules/vpc/aws"]["versions"] if v.startswith("6.")]
        reg.revocations["terraform-aws-modules/vpc/aws"] = {
            v: {"message": INJECT, "link": "javascript:alert(document.cookie)"} for v in versions}
        reg.deprecations["terraform-aws-modules/vpc/aws"] = {
            "5.21.0": {"reason": INJECT, "link": "javascript:alert(1)"}}
        reg.revocation_delay = 0.2
        cfg = write_cli_config(tmp_path / "rc", reg.url, hcp=True)
        root = write_root(tmp_path / "r", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                           '  version = ">= 5.21"\n}\n')
        p = run(["init", "-handover=false", f"-chdir={root}"], tmp_path, cfg, tmp_path / "c")
    finally:
        reg.stop()
    assert_safe(p)
    assert "javascript:" not in p.stdout + p.stderr
    assert p.returncode == 0, p.stderr
    assert '"5.21.0"' in (root / ".terraform.lock.hcl").read_text()  # every 6.x revoked: never selected anew


def test_a_policy_file_a_pull_request_drops_beside_a_root_switches_nothing_off(tmp_path, running):
    """Issue #67 §8: the repository's policy at its top denies vpc 6.6.0; a pull request adds a
    tofu-solve-policy.hcl that allows every source and a *.policy.hcl beside the root. All
    three apply: vpc stays below 6.6.0, and init -json lists every file."""
    import json

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "tofu-solve-policy.hcl").write_text(
        'deny "module" "terraform-aws-modules/vpc/aws" {\n  versions = ">= 6.6.0"\n  reason   = "breaks NAT"\n}\n')
    root = write_root(repo / "envs" / "prod", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                              '  version = "~> 6.0"\n}\n')
    (root / "tofu-solve-policy.hcl").write_text('sources {\n  allow = ["*"]\n}\n')
    (root / "pr.policy.hcl").write_text('module_policy "*" "anything" {\n  enforcement_level = "advisory"\n'
                                        '  enforce {\n    condition = true\n  }\n}\n')
    p = run(["init", "-handover=false", "-json", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
    assert p.returncode == 0, p.stderr
    result = next(json.loads(line)["result"] for line in reversed(p.stdout.splitlines())
                  if '"type":"init_result"' in line.replace(" ", ""))
    assert result["policy"]["files"] == ["../../tofu-solve-policy.hcl", "tofu-solve-policy.hcl", "pr.policy.hcl"]
    locked = (root / ".terraform.lock.hcl").read_text()
    assert 'version     = "6.5.1"' in locked or 'version = "6.5.1"' in locked.replace("  ", " "), locked
    assert_safe(p)


def test_a_source_with_an_escaped_newline_is_quoted_on_one_line(tmp_path, running):
    root = write_root(tmp_path / "r", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws\\n'
                                       '::warning title=pwned::x"\n  version = "~> 6.0"\n}\n')
    p = run(["init", "-handover=false", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
    assert p.returncode == 1
    assert "terraform-aws-modules/vpc/aws\\n::warning title=pwned::x" in p.stderr, p.stderr
    assert not any(line.strip().startswith("::warning") for line in p.stderr.splitlines()), p.stderr
    assert_safe(p)
