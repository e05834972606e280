"""The import guard (issue #83 §1: a promise no test held): every import made after start-up
through :func:`tofu_solve._lazy.load` runs under the process's one lock, so that a second
thread importing the same package waits for the first (issue #68's partially initialised
module), and :func:`exports`' names load through it too."""

from __future__ import annotations

import sys
import threading

from tofu_solve._lazy import exports, holding_guard, load


def _module(tmp_path, name: str, body: str) -> None:
    (tmp_path / f"{name}.py").write_text(body)


def test_a_module_loaded_is_imported_under_the_guard(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _module(tmp_path, "guard_probe_a", "from tofu_solve._lazy import holding_guard\nSEEN = holding_guard()\n")
    assert load("guard_probe_a").SEEN is True
    assert not holding_guard()  # released after


def test_a_second_thread_waits_for_the_first_import_to_finish(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    sync = type(sys)("guard_probe_sync")
    sync.started, sync.release = threading.Event(), threading.Event()
    monkeypatch.setitem(sys.modules, "guard_probe_sync", sync)
    _module(tmp_path, "guard_probe_slow", "import guard_probe_sync as s\ns.started.set()\ns.release.wait(10)\n")
    _module(tmp_path, "guard_probe_other", "DONE = True\n")
    first = threading.Thread(target=load, args=("guard_probe_slow",))
    first.start()
    assert sync.started.wait(10)  # the first import is under way, holding the guard
    second = threading.Thread(target=load, args=("guard_probe_other",))
    second.start()
    second.join(0.5)
    assert second.is_alive() and "guard_probe_other" not in sys.modules  # it waits for the guard
    sync.release.set()
    first.join(10)
    second.join(10)
    assert sys.modules["guard_probe_other"].DONE


def test_an_exported_name_loads_through_the_guard(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _module(tmp_path, "guard_probe_b", "from tofu_solve._lazy import holding_guard\nSEEN = holding_guard()\n")
    namespace: dict = {}
    getattr_ = exports("guard_pkg", namespace, {"SEEN": "guard_probe_b"})
    assert getattr_("SEEN") is True and namespace["SEEN"] is True
