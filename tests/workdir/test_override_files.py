"""The override bridge's files (issue #83 §1: a promise no test held): a directory that no
longer needs one loses tofu-solve's own ``tofu_solve_override.tf``, and a file of that name
someone else wrote is kept, never removed."""

from __future__ import annotations

from tofu_solve.workdir.overrides import HEADER, OVERRIDE_FILE, apply


def test_only_tofu_solves_own_override_file_is_removed(tmp_path):
    ours, theirs, wanted = tmp_path / "ours", tmp_path / "theirs", tmp_path / "wanted"
    for d in (ours, theirs, wanted):
        d.mkdir()
    (ours / OVERRIDE_FILE).write_text(HEADER + 'module "vpc" {\n  version = "6.5.1"\n}\n')
    (theirs / OVERRIDE_FILE).write_text('# a file of the team\'s own, by that name\nlocals {\n  a = 1\n}\n')
    text = HEADER + 'module "eks" {\n  version = "20.37.2"\n}\n'
    written = apply({wanted: text}, [ours, theirs, wanted])
    assert written == [wanted / OVERRIDE_FILE] and (wanted / OVERRIDE_FILE).read_text() == text
    assert not (ours / OVERRIDE_FILE).exists()
    assert (theirs / OVERRIDE_FILE).read_text().startswith("# a file of the team's own")
    assert apply({wanted: text}, [wanted]) == []  # unchanged text: not written again
