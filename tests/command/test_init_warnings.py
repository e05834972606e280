"""Issue #83 §4: the conductor builds its warnings as one ordered list in one function.

Each step of ``init``'s conductor returns its warnings; :class:`InitWarnings` holds them by
where they come from and :meth:`InitWarnings.ordered` is the one order a user reads them
in, assigned to the result once."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from tofu_solve.command.views.warnings import InitWarnings
from tofu_solve.errors import WarningText

INIT = Path(__file__).resolve().parents[2] / "tofu_solve" / "command" / "init.py"


def test_the_lock_files_repairs_come_first_and_the_store_last():
    """The order of the attributes is the order shown: what the lock file as read needed
    (a merge's resolution, restored blocks) before the CLI configuration's, the solve's,
    the install's and the package store's."""
    fields = [f.name for f in dataclasses.fields(InitWarnings)]
    said = InitWarnings(**{name: (WarningText(name, name),) for name in fields})
    assert said.ordered() == fields
    assert fields[0] == "first" and fields[-1] == "stored"
    assert fields.index("cli_config") < fields.index("solver") < fields.index("after_solve") < fields.index("installed")


def _writes(tree: ast.AST) -> list[tuple[str, str]]:
    """(function, how) for every write into a ``.warnings`` list in ``tree``: a call of its
    ``append``/``extend``/``insert``, or an assignment to it or a slice of it."""
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("append", "extend", "insert") \
                    and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "warnings":
                out.append((fn.name, node.func.attr))
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    base = t.value if isinstance(t, ast.Subscript) else t
                    if isinstance(base, ast.Attribute) and base.attr == "warnings":
                        out.append((fn.name, "assign"))
    return out


def test_the_conductor_assigns_the_warnings_once_and_no_step_writes_into_them():
    """Every step returns its warnings: the only write in the conductor is the one
    assignment of :meth:`InitWarnings.ordered` (a failure's warnings are put on the error at
    the boundary; the hand-over's own makes a new result: :meth:`HandoverPlan.applied_to`)."""
    writes = _writes(ast.parse(INIT.read_text()))
    assert sorted(writes) == [("_init", "assign"), ("run_init", "assign")]
    assert "InitWarnings(" in INIT.read_text() and ".ordered()" in INIT.read_text()


def test_what_follows_init_makes_a_new_result_its_warning_after_the_conductors():
    """The hand-over returns what follows (:class:`HandoverPlan`); the result the conductor
    made is not written into."""
    import dataclasses
    from pathlib import Path

    from tofu_solve.command.init import HandoverPlan, InitResult
    from tofu_solve.command.views.warnings import WarningText
    from tofu_solve.lockfile import LockFile

    @dataclasses.dataclass
    class Solved:  # what applied_to reads of a Resolution
        warnings: list

    made = InitResult(Solved([WarningText("First", "the conductor's")]), LockFile(), [], False,  # type: ignore[arg-type]
                      Path(".terraform.lock.hcl"))
    plan = HandoverPlan(next_command="tofu plan", warning=WarningText("Not handed over", "the client is Terraform"))
    after = plan.applied_to(made)
    assert [w.summary for w in after.resolution.warnings] == ["First", "Not handed over"]
    assert after.next_command == "tofu plan" and after.handover is None
    assert [w.summary for w in made.resolution.warnings] == ["First"] and made.next_command is None
    assert HandoverPlan().applied_to(made).resolution.warnings == made.resolution.warnings
