"""Every string from outside is one bounded line in every output format (issue #80 §2), with
tofu-solve as its own process and its output read as CI reads it: GitHub's runner
(:func:`tests.e2e.test_hostile_edges.runner_commands`), and the usual workflow step that
pipes ``-json`` through ``jq -r`` into annotations (which the JSON stream's own guard cannot
cover: it is the step's output, not tofu-solve's).

The hostile names: a configuration file whose name holds a newline and a workflow command (a
pull request can add one), a directory of such a name under ``-recursive``, a ``policy test``
mock whose label holds one, and the invisible format characters that make two strings look
alike (U+200B, U+FEFF, U+202E's neighbours)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.conftest import require_tool
from tests.e2e.conftest import write_root
from tests.e2e.test_hostile_edges import assert_safe, own, run, runner_commands

NAME = "x\n::warning title=pwned::y"
JQ_STEP = '.roots[] | "::error file=\\(.error.file // .root),line=\\(.error.line // 1)::\\(.error.summary // "ok") in \\(.root)"'


def _jq(filter_: str, text: str) -> str:
    jq = shutil.which("jq")
    require_tool(jq is not None, "jq (the workflow step that reads -json)", "jq")
    done = subprocess.run([jq, "-r", filter_], input=text, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _repo(tmp_path):
    repo = tmp_path / "repo"
    good = 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "~> 6.0"\n}\n'
    write_root(repo / "live" / "ok", good)
    bad_file = repo / "live" / "file"
    write_root(bad_file, good)
    (bad_file / f"{NAME}.tf").write_text('module "x" {\n  source = "nowhere"\n}\n')
    write_root(repo / "live" / NAME, good)  # a directory of that name: a root of its own
    return repo


def test_check_recursive_json_through_jq_starts_no_command(tmp_path, running):
    repo = _repo(tmp_path)
    p = run(["check", "-recursive", "-json", f"-chdir={repo}"], tmp_path, running.cli_config, tmp_path / "c")
    assert_safe(p)
    annotations = _jq(JQ_STEP, p.stdout)
    assert len(annotations.splitlines()) == 3, annotations  # one line per root, whatever the names
    assert own(runner_commands(annotations)) == [], annotations
    assert "Invalid file name" in annotations and "x\\n::warning title=pwned::y" in annotations


@pytest.mark.parametrize("fmt", ["-json", "-format=sarif", ""])
def test_every_format_names_the_hostile_root_on_one_line(tmp_path, running, fmt):
    repo = _repo(tmp_path)
    p = run(["init", "-recursive", "-lockfile=readonly", "-handover=false", *([fmt] if fmt else []),
             f"-chdir={repo}"], tmp_path, running.cli_config, tmp_path / "c")
    assert_safe(p)
    shown = "x\\n::warning title=pwned::y"
    assert shown in p.stdout + p.stderr or shown.replace("\\", "\\\\") in p.stdout  # named, escaped (JSON: twice)
    for line in (p.stdout + p.stderr).splitlines():
        assert not line.lstrip().startswith("::warning title=pwned"), line


LABEL = "a\\n::warning title=pwned::b\\u200bc\\ufeff"


def test_policy_test_labels_are_one_line_in_text_and_json(tmp_path, running):
    root = tmp_path / "p"
    (root / "tests").mkdir(parents=True)
    (root / "m.policy.hcl").write_text('module_policy "*" "any" {\n  enforce {\n    condition = true\n'
                                       '    error_message = "never"\n  }\n}\n')
    (root / "tests" / "m.policytest.hcl").write_text(
        'policytest {\n  targets = ["../m.policy.hcl"]\n}\n\n'
        f'module "terraform-aws-modules/vpc/aws" "{LABEL}" {{\n  meta = {{\n'
        '    source  = "terraform-aws-modules/vpc/aws"\n    version = "1.0.0"\n  }\n}\n')
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for actions in ("true", "false"):  # outside GitHub Actions too (a container step that does not pass it)
        text = run(["policy", "test", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c",
                   GITHUB_ACTIONS=actions)
        assert text.returncode == 0, text.stderr
        assert own(runner_commands(text.stdout)) == [] and "\u200b" not in text.stdout and "\ufeff" not in text.stdout
        assert "\\u200b" in text.stdout and "\\ufeff" in text.stdout  # shown, escaped
        assert text.stdout.count("Success!") == 1
    js = run(["policy", "test", "-json", f"-chdir={root}"], tmp_path, running.cli_config, tmp_path / "c")
    out = _jq('.results[] | "::notice::\\(.mock)"', js.stdout)
    # one line, one command: the step's own notice, the label inert inside it
    assert len(out.splitlines()) == 1 and runner_commands(out) == [out.strip()], out
    assert "\u200b" not in out and "\\u200b" in out
