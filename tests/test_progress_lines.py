"""Issue #70 §2: off a terminal, ``-recursive``'s progress is a line only for a root still
running a few seconds after it started (then its end too); a quick root is no line at all."""

from __future__ import annotations

import io
import time

from tofu_solve.command.views import human
from tofu_solve.events import InRoot, PhaseDone, RootDone


def test_only_a_slow_root_is_a_progress_line_off_a_terminal(monkeypatch):
    monkeypatch.setattr(human, "SLOW_ROOT_SECONDS", 0.3)
    err = io.StringIO()
    view = human.HumanView(color=False, out=io.StringIO(), err=err)
    view.roots = 2
    with view:
        view.progress(InRoot("live/quick", PhaseDone("modules", 1)))
        view.progress(InRoot("live/slow", PhaseDone("modules", 1)))
        view.progress(RootDone("live/quick", 1))
        deadline = time.monotonic() + 5
        while "live/slow" not in err.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        view.progress(RootDone("live/slow", 1))
    lines = err.getvalue().splitlines()
    assert lines[0] == "- live/slow: still running after 0 s"
    assert len(lines) == 2 and "live/slow" in lines[1] and "(2 of 2)" in lines[1]
    assert "live/quick" not in err.getvalue()


def test_quiet_is_no_progress_at_all(monkeypatch):
    monkeypatch.setattr(human, "SLOW_ROOT_SECONDS", 0.0)
    err = io.StringIO()
    view = human.HumanView(color=False, out=io.StringIO(), err=err, quiet=True)
    view.roots = 1
    with view:
        view.progress(InRoot("live/a", PhaseDone("modules", 1)))
        time.sleep(0.4)
        view.progress(RootDone("live/a", 1))
    assert err.getvalue() == ""


def test_no_progress_line_after_the_answer(capsys):
    """Issue #70 §4: outdated closes its progress before it prints; a late event is no line."""
    progress = human.line_progress(False)
    progress(PhaseDone("modules", 1))
    progress.close()
    progress(PhaseDone("install", 1))
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Modules" in err
