"""Every reader of a file outside the root module registers every place it looked, found or
not (issue #58 §3; the warm stamp is made of that record, issue #47 §2): the policy file and
the version files searched for in each parent directory, the CLI configuration, its
``.terraform.d`` directory and the credentials file. A reader that forgets a place makes the
stamp answer after that place changed; these tests fail then, without an end-to-end run."""

from __future__ import annotations

from pathlib import Path

from tofu_solve.config.cliconfig import load_cli_config
from tofu_solve.config.policy import POLICY_FILE, find_policy
from tofu_solve.settings import ReadLog
from tofu_solve.versions.target import VERSION_FILES, version_file


def _parents(root: Path) -> list[Path]:
    return [root.resolve(), *root.resolve().parents]


def test_the_policy_search_registers_each_parent_found_or_not(tmp_path):
    root = tmp_path / "repo" / "live" / "prod"
    root.mkdir(parents=True)
    reads = ReadLog()
    assert find_policy(root, None, {}, reads) is None
    assert set(reads.paths) >= {str(d / POLICY_FILE) for d in _parents(root)}
    # found above the root: every place up to it, none beyond
    (tmp_path / "repo" / POLICY_FILE).write_text("")
    reads = ReadLog()
    assert find_policy(root, None, {}, reads) == (tmp_path / "repo" / POLICY_FILE).resolve()
    assert set(reads.paths) == {str(d / POLICY_FILE) for d in _parents(root)[:3]}
    # named: that file
    named = tmp_path / "team.hcl"
    named.write_text("")
    reads = ReadLog()
    assert find_policy(root, str(named), {}, reads) == named
    assert reads.paths == (str(named),)


def test_the_version_file_search_registers_each_name_in_each_parent(tmp_path):
    root = tmp_path / "repo" / "app"
    root.mkdir(parents=True)
    reads = ReadLog()
    assert version_file(root, reads) is None
    assert set(reads.paths) >= {str(d / name) for d in [root, *root.parents] for name in VERSION_FILES}
    (tmp_path / "repo" / ".terraform-version").write_text("1.15.5\n")
    reads = ReadLog()
    assert version_file(root, reads) == (tmp_path / "repo" / ".terraform-version", "1.15.5")
    looked = {str(d / name) for d in (root, tmp_path / "repo") for name in VERSION_FILES}
    assert set(reads.paths) == looked  # the nearer names of the same directory too, nothing above it


def test_the_cli_configuration_registers_its_files_and_directory(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    reads = ReadLog()
    load_cli_config({"HOME": str(home)}, reads)
    assert {str(home / ".tofurc"), str(home / ".terraformrc")} <= set(reads.paths)
    # the directory whose *.tfrc and *.tfrc.json files are merged (credentials.tfrc.json among them)
    assert str(home / ".terraform.d") in reads.dirs
    (home / ".terraform.d").mkdir()
    (home / ".terraform.d" / "credentials.tfrc.json").write_text("{}")
    reads = ReadLog()
    load_cli_config({"HOME": str(home)}, reads)
    assert str(home / ".terraform.d" / "credentials.tfrc.json") in reads.paths
    named = tmp_path / "ci.tfrc"
    named.write_text("")
    reads = ReadLog()
    load_cli_config({"HOME": str(home), "TF_CLI_CONFIG_FILE": str(named)}, reads)
    assert str(named) in reads.paths and str(home / ".tofurc") not in reads.paths
