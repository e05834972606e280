"""One computation per key, shared by every thread that asks for it (single flight).

The one helper behind every "ask the network once" in a run: the solver context's listings
and module trees (failures remembered, so every caller sees the same error) and the
registry's download locations and package fetches (failures forgotten, so the next caller
tries again). Thread-safe; it never waits on a thread pool, so pool tasks that use it
cannot deadlock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable


class _Entry:
    __slots__ = ("done", "error", "lock", "value")

    def __init__(self):
        self.lock = threading.Lock()
        self.done = False
        self.value = None
        self.error: Exception | None = None


class SingleFlight:
    """``run(key, fn)`` calls ``fn()`` once per key; concurrent callers with the same key
    wait for the first and share its result, later callers get it from memory.

    Args:
        remember_errors: an exception from ``fn`` is kept and raised to every later caller
            (True), or forgotten so that the next caller runs ``fn`` again (False).
    """

    def __init__(self, remember_errors: bool = True):
        self.remember_errors = remember_errors
        self._lock = threading.Lock()
        self._entries: dict[Hashable, _Entry] = {}

    def run(self, key: Hashable, fn: Callable):
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = self._entries[key] = _Entry()
        with entry.lock:
            if not entry.done:
                try:
                    entry.value = fn()
                except Exception as e:
                    if not self.remember_errors:
                        raise
                    entry.error = e
                entry.done = True
        if entry.error is not None:
            raise entry.error
        return entry.value

    __call__ = run

    def reserve(self, key: Hashable) -> bool:
        """Make ``key`` known from now on (a computation about to start in the background),
        so that whoever asks meanwhile waits for it rather than starting another. Returns
        False when it was known already."""
        with self._lock:
            if key in self._entries:
                return False
            self._entries[key] = _Entry()
            return True

    def forget_failure(self, key: Hashable) -> bool:
        """Drop ``key``'s remembered failure, so that the next caller runs its computation
        again (a read ahead of need that failed: the run goes on as if it had never been
        made). Returns whether there was one."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or not entry.done or entry.error is None:
                return False
            del self._entries[key]
            return True

    def __contains__(self, key: Hashable) -> bool:
        """Whether ``key`` was asked for (done, failed or under way)."""
        with self._lock:
            return key in self._entries

    def done(self, key: Hashable) -> bool:
        """Whether ``key``'s computation has finished (successfully or not)."""
        with self._lock:
            entry = self._entries.get(key)
        return entry is not None and entry.done

    def succeeded(self, key: Hashable) -> bool:
        """Whether ``key``'s computation has finished without an error."""
        with self._lock:
            entry = self._entries.get(key)
        return entry is not None and entry.done and entry.error is None

    def keys(self) -> list:
        with self._lock:
            return list(self._entries)
