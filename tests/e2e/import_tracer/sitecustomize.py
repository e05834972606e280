"""Loaded by a tofu-solve process a test starts with this folder on PYTHONPATH (issue #68).

It records, into the file ``TOFU_SOLVE_TEST_IMPORT_LOG`` names, every first import of a
module that is not in the standard library (tofu-solve's own or a library's) made while
another thread is alive, by a thread that does not hold tofu-solve's one import guard
(``tofu_solve._lazy``): each such import can race another thread's import of the same
package and fail with "partially initialized module". A line is ``THREAD<TAB>MODULE``.

``TOFU_SOLVE_TEST_SWITCH_INTERVAL`` (seconds) shortens the interpreter's thread switch
interval, so that threads interleave inside imports as they do on a loaded CI machine."""

from __future__ import annotations

import os
import sys
import threading

_LOG = os.environ.get("TOFU_SOLVE_TEST_IMPORT_LOG")
_INTERVAL = os.environ.get("TOFU_SOLVE_TEST_SWITCH_INTERVAL")
if _INTERVAL:
    sys.setswitchinterval(float(_INTERVAL))


class _ThreadImportTracer:
    """A meta path finder that finds nothing: it only looks at who asks (CPython asks the
    finders only for a module not yet in ``sys.modules``)."""

    def find_spec(self, name, path=None, target=None):
        thread = threading.current_thread()
        if name.split(".")[0] in sys.stdlib_module_names:
            return None
        if thread is threading.main_thread() and threading.active_count() == 1:
            return None  # nothing to race with
        lazy = sys.modules.get("tofu_solve._lazy")
        if lazy is not None and getattr(lazy, "holding_guard", lambda: False)():
            return None
        for finder in sys.meta_path:  # only a module that exists counts (not an optional probe)
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            if finder.find_spec(name, path, target) is not None:
                with open(_LOG, "a", encoding="utf-8") as log:
                    log.write(f"{thread.name}\t{name}\n")
                break
        return None


if _LOG:
    sys.meta_path.insert(0, _ThreadImportTracer())
