"""tofu-solve demo: the README's first command, end to end (real servers it starts itself)."""

from __future__ import annotations

import io

from tests.conftest import SHARED
from tofu_solve.cli import main
from tofu_solve.command.demo import run_demo
from tofu_solve.lockfile import read_lock_file
from tofu_solve.settings import Settings


def test_demo_runs_and_leaves_results(tmp_path, monkeypatch):
    monkeypatch.delenv("TF_CLI_CONFIG_FILE", raising=False)
    out = io.StringIO()
    code = run_demo(tmp_path / "results", str(SHARED / "corpus"), out, Settings.from_environ(__import__("os").environ),
                    main)
    text = out.getvalue()
    assert code == 0, text
    res = tmp_path / "results"
    assert "newest-per-call (tofu init's algorithm) resolves" in text
    assert "newest-per-call (tofu init's algorithm) FAILS" in text
    assert {p: m.version for p, m in read_lock_file(res / "2-needs-solver/.terraform.lock.hcl").modules.items()} == \
        {"eks": "20.37.0", "eks.kms": "2.1.0", "vpc": "6.6.0"}
    assert "Error: No consistent set of versions" in (res / "3-impossible/init.txt").read_text()
    assert not (res / "3-impossible/.terraform.lock.hcl").exists()
    assert "is not the newest version" in (res / "2-needs-solver/why-eks.txt").read_text()
    assert (res / "2-needs-solver/graph.dot").read_text().startswith("strict digraph")
    assert (res / "2-needs-solver/.terraform/modules/modules.json").exists()
    assert "all agree" in (res / "2-needs-solver/check.txt").read_text()
    assert 'provider "registry.opentofu.org/hashicorp/aws"' in (res / "2-needs-solver/.terraform.lock.hcl").read_text()
    # the release cooldown (issue #25): the same root solved afresh holds vpc 6.6.0 back
    cooled = read_lock_file(res / "2-needs-solver-cooldown/.terraform.lock.hcl").modules
    assert cooled["vpc"].version != "6.6.0"
    assert "-min-age=" in (res / "2-needs-solver-cooldown/init.txt").read_text()  # the cooldown's one warning
    assert " held back " in (res / "2-needs-solver-cooldown/init.txt").read_text()
    assert "it is younger than -min-age=" in (res / "2-needs-solver-cooldown/why-vpc.txt").read_text()
    assert all(m.package.startswith("git::") for m in cooled.values())  # every version pinned to its commit
    assert "Servers stopped." in text
