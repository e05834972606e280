"""The language server's engine (issue #61 §2-4): a root module read from the editor's text
and solved with the CLI's code, against the fixture world's servers on 127.0.0.1. The
protocol itself is tested with real clients in ``test_lsp.py``."""

from __future__ import annotations

from tests.e2e.conftest import AWS5_VPC61, write_root
from tofu_solve.lsp.analysis import INIT_COMMAND, UPGRADE_COMMAND, analyse, find_root
from tofu_solve.settings import Settings


def _settings(monkeypatch):
    import os
    return Settings.from_environ(dict(os.environ))


def test_a_conflict_is_an_error_on_each_clashing_line_with_verified_fixes(isolated, tofu_solve, monkeypatch):
    root = write_root(isolated / "root", AWS5_VPC61)
    report = analyse(root, {}, _settings(monkeypatch), network=True)
    errors = [f for f in report.findings if f.severity == "error"]
    assert {(f.file, f.line, f.needle) for f in errors} >= {("main.tf", 5, "~> 5.0"), ("main.tf", 12, "~> 6.1")}
    by_line = {f.line: f for f in errors}
    assert any(r.line == 12 for r in by_line[5].related) and any(r.line == 5 for r in by_line[12].related)
    assert report.fixes and all(e.file == "main.tf" for fix in report.fixes for e in fix.edits)
    assert not report.solved


def test_unsaved_text_is_what_is_solved(isolated, tofu_solve, monkeypatch):
    root = write_root(isolated / "root", AWS5_VPC61)
    fixed = (root / "main.tf").read_text().replace('version = "~> 6.1"', 'version = "~> 5.0"')
    report = analyse(root, {root / "main.tf": fixed}, _settings(monkeypatch), network=True)
    assert report.solved and not [f for f in report.findings if f.severity == "error"]
    assert any(lens.line == 10 and "newer allowed" in lens.title for lens in report.lenses), report.lenses


def test_a_held_back_version_is_a_hint_with_the_upgrade_and_a_moved_lock_a_warning(isolated, tofu_solve, monkeypatch):
    root = write_root(isolated / "root", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                         '  version = "6.5.1"\n}\n')
    assert tofu_solve(root, "init", "-handover=false").code == 0
    assert find_root(root / "main.tf") == root
    relaxed = 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "~> 6.0"\n}\n'
    report = analyse(root, {root / "main.tf": relaxed}, _settings(monkeypatch), network=True)
    hint = next(f for f in report.findings if f.code == "held-back")
    assert (hint.file, hint.line, hint.needle) == ("main.tf", 3, "~> 6.0")
    assert hint.message.startswith('6.5.1 locked; 6.6.0 allowed by "~> 6.0" is held back')
    # 6.6.0's contents were never read (the solve ran from the lock): the upgrade is offered, not promised
    assert hint.command == ("Upgrade vpc (tofu-solve init -upgrade=vpc)", UPGRADE_COMMAND, (str(root), "vpc"))
    hover = next(h for h in report.hovers if h.first == 1)
    assert "6.5.1" in hover.markdown and "6.6.0" in hover.markdown
    narrowed = relaxed.replace('"~> 6.0"', '">= 6.6.0"')
    report = analyse(root, {root / "main.tf": narrowed}, _settings(monkeypatch), network=True)
    moved = next(f for f in report.findings if f.code == "lock")
    assert moved.line == 3 and "tofu-solve init would move it to 6.6.0" in moved.message
    assert moved.command[1] == INIT_COMMAND and moved.related[0].file == ".terraform.lock.hcl"


def test_a_syntax_error_is_at_its_position(isolated, tofu_solve, monkeypatch):
    root = write_root(isolated / "root", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                         '  version = "~> 6.0"\n}\n')
    report = analyse(root, {root / "main.tf": 'module "vpc" {\n  source = \n}\n'}, _settings(monkeypatch), network=True)
    assert report.read_error and report.findings[0].file == "main.tf" and report.findings[0].severity == "error"


def test_one_diagnostic_per_fact_and_line_worded_as_the_cli(isolated, tofu_solve, monkeypatch):
    """Issue #70 §3: an edited constraint the lock no longer meets is one warning at its line
    (the solve's "init would move it"), not that and check's difference beside it."""
    vpc = 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "VERSION"\n}\n'
    root = write_root(isolated / "root", vpc.replace("VERSION", "~> 6.0"))
    assert tofu_solve(root, "init", "-handover=false").code == 0
    (root / "main.tf").write_text(vpc.replace("VERSION", "6.5.1"))
    report = analyse(root, {}, _settings(monkeypatch), network=True)
    at_line = [f for f in report.findings if (f.file, f.line) == ("main.tf", 3)]
    assert len(at_line) == 1, [(f.code, f.message) for f in at_line]
    assert at_line[0].code == "lock"


def test_a_conflict_stays_visible_while_another_call_has_an_unsatisfiable_edit(isolated, tofu_solve, monkeypatch):
    """Issue #70 §3: an unsaved "~> 99.0" on another call is its own error, and the conflict
    between the root's aws "~> 5.0" and vpc "~> 6.1" is still shown at both its lines."""
    root = write_root(isolated / "root", AWS5_VPC61)
    text = (root / "main.tf").read_text() + ('module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                             '  version = "~> 99.0"\n}\n')
    report = analyse(root, {root / "main.tf": text}, _settings(monkeypatch), network=True)
    errors = {(f.line, f.code) for f in report.findings if f.severity == "error"}
    assert (16, "configuration") in errors, errors
    assert {(5, "conflict"), (12, "conflict")} <= errors, errors
