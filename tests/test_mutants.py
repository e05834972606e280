"""The mutation script (``scripts/mutants.py``, issue #58 §3) stays runnable: each mutant's
text is in the tree exactly once, so switching its rule off changes the rule, not nothing.
The script itself (a few minutes) is run by hand; its last results are in the issue's note
and ``docs/architecture.md``."""

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _mutants():
    spec = importlib.util.spec_from_file_location("mutants", REPO / "scripts" / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutants"] = module  # a dataclass looks its module up
    spec.loader.exec_module(module)
    return module.MUTANTS


def test_each_mutant_changes_exactly_one_place_of_the_tree():
    mutants = _mutants()
    assert len(mutants) >= 8
    for m in mutants:
        text = (REPO / m.file).read_text(encoding="utf-8")
        assert text.count(m.old) == 1, f"{m.name}: {m.file} holds its text {text.count(m.old)} times"
        assert m.new != m.old
