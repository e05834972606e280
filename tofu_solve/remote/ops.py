"""Counting network operations, and importing network libraries only when they are used."""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from types import ModuleType

from .._lazy import load


def lazy_import(name: str):
    """The module ``name``, imported on first attribute access through the process's one
    import guard (:func:`tofu_solve._lazy.load`: the standard library's ``LazyLoader`` is not
    safe when several threads touch the module first, before Python 3.12, and a lock of this
    object's own would not keep another thread from importing a module of the same package
    another way; issue #68). Network libraries are imported this way so that a run that never
    touches the network (a warm re-init, ``check``, ``why``) never pays for importing them."""
    return _LazyModule(name)


class _LazyModule:
    def __init__(self, name: str):
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str):
        module = self._module
        if module is None:
            module = self._module = load(self._name)
        return getattr(module, attr)


class OpCounter:
    """Thread-safe counts of network operations by kind (for progress and benchmarks).

    It also says what a thread is fetching the moment it first goes to the network:
    :meth:`announcing` sets, for the calling thread, a message that :meth:`add` hands to
    ``announce`` once, just before the first network operation counted in that thread.
    Work served from the cache therefore announces nothing (a warm re-init prints no
    "Fetching")."""

    def __init__(self, announce=None):
        self._lock = threading.Lock()
        self.counts: Counter = Counter()
        self.announce = announce
        self._local = threading.local()

    @contextlib.contextmanager
    def announcing(self, event):
        """Within the block, the calling thread's first network operation hands ``event`` (a
        progress event, :mod:`tofu_solve.events`) to ``announce``."""
        prev = getattr(self._local, "pending", None)
        self._local.pending = event
        try:
            yield
        finally:
            self._local.pending = prev

    def add(self, kind: str, n: int = 1) -> None:
        pending = getattr(self._local, "pending", None)
        if pending is not None and self.announce is not None:
            self._local.pending = None
            self.announce(pending)
        with self._lock:
            self.counts[kind] += n

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self.counts)
