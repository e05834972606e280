"""Policy files as the editor shows them (issue #85 §2): a ``*.policy.hcl``, ``*.policytest.hcl``
or ``tofu-solve-policy.hcl`` file read by the readers ``init`` and ``policy test`` use (from
the open buffer, when there is one), its errors as diagnostics at their lines, and a lens on
each rule saying which roots of the workspace it refuses today, from their lock files
(offline: ``tofu-solve list``'s verdicts, :func:`tofu_solve.command.inventory.inventory`).

Nothing here is a second reader: the errors are the readers' own (syntax, an unknown
function or attribute with "Did you mean", a wrong enforcement level, an input's type), and
a rule refuses a root's locked version exactly when ``list`` says so.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from .._lazy import load
from ..errors import TofuSolveError
from ..settings import Settings
from .analysis import Finding, Lens, RootReport, _done

TEST_SUFFIX = ".policytest.hcl"
POLICY_SUFFIX = ".policy.hcl"
TEAM_FILE = "tofu-solve-policy.hcl"
LENS_ROOTS = 3
"""Roots a lens names before "and N more"."""


def is_policy_file(path: Path) -> bool:
    """Whether ``path`` is a policy or policy test file the server reads as one."""
    return path.name == TEAM_FILE or path.name.endswith((POLICY_SUFFIX, TEST_SUFFIX))


def analyse_policy_file(path: Path, texts: Mapping[Path, str], settings: Settings,
                        workspace: Path | None) -> RootReport:
    """What the editor shows of the policy file at ``path``: a report whose root is the
    file's directory (its findings and lenses name the file by its name). Never raises for
    what the file says: that is a finding; a root whose lock file does not read is passed
    over by the lenses."""
    report = RootReport(path.parent)
    report.files.add(path.name)
    now = lambda: datetime.now(UTC)  # noqa: E731 (the clock a policy's timestamp() reads)
    try:
        if path.name.endswith(TEST_SUFFIX):
            load("tofu_solve.config.policy_test")
            from ..config.policy_test import read_policy_test

            read_policy_test(path, path.name, None, now, texts.get(path))
            return _done(report)
        load("tofu_solve.config.policy")
        from ..config.policy import policy_inputs, policy_of_files

        policy = policy_of_files([path], lambda p: p.name, policy_inputs(settings.environ), "registry.opentofu.org",
                                 now, texts)
    except TofuSolveError as e:
        where = e.where
        report.read_error = True
        report.findings.append(Finding(path.name, max(1, where.line if where is not None and where.line else 1),
                                       "error", f"{e.summary}: {e.detail}", "policy file"))
        return _done(report)
    if workspace is not None:
        report.lenses.extend(_rule_lenses(path, policy, settings, workspace))
    return _done(report)


def _rule_lenses(path: Path, policy, settings: Settings, workspace: Path) -> list[Lens]:
    """A lens on each rule of ``policy`` (read from ``path`` alone): the roots of
    ``workspace`` whose lock files hold a version it refuses today, among the roots it applies
    to (those below the file's directory: the files from a repository's top down to a root
    apply, :func:`tofu_solve.config.policy.find_policies`)."""
    load("tofu_solve.command.inventory")
    from ..command.inventory import inventory

    rules = [*policy.rules, *policy.hcl_rules]
    if not rules:
        return []
    here = path.parent.resolve()
    try:
        _names, items = inventory(workspace, True, policy, policy.registry_host, None, settings)
    except TofuSolveError:
        return []
    applies = {name for item in items for name, _ in item.uses if _under(workspace / name, here)}
    out = []
    for rule in rules:
        cited = str(rule.where)
        refused: dict[str, list[str]] = {}
        for item in items:
            if item.verdict is None or item.verdict == "allowed" or cited not in item.verdict:
                continue
            for name, call in item.uses:
                if name in applies:
                    refused.setdefault(name, []).append(f"{call or item.name} {item.version}")
        if not applies:
            title = "applies to no root of the workspace: not on any root's path (name it with -policy)"
        elif not refused:
            title = f"refuses no locked version today ({len(applies)} root{'s' if len(applies) != 1 else ''})"
        else:
            shown = [f"{name} ({', '.join(what[:2])})" for name, what in sorted(refused.items())[:LENS_ROOTS]]
            more = len(refused) - LENS_ROOTS
            title = "refuses today: " + "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
        out.append(Lens(path.name, rule.where.line, title))
    return out


def _under(root: Path, directory: Path) -> bool:
    r = Path(os.path.abspath(root)).resolve()
    return r == directory or directory in r.parents


__all__ = ["analyse_policy_file", "is_policy_file"]
