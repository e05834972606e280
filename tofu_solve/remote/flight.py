"""One computation per key, shared by every thread that asks for it."""

from __future__ import annotations

import threading
from collections.abc import Callable


class OnceEach:
    """``fn()`` once per key for the run: concurrent callers with the same key wait for the
    first and share its result, later callers get it from memory. A failure is not
    remembered (the next caller tries again). Thread-safe. Used where several module calls
    of one package version would otherwise ask the network the same question at once (a
    package's submodules: ``eks//modules/fargate-profile``, ``eks//modules/...``)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._locks: dict = {}
        self._done: dict = {}

    def __call__(self, key, fn: Callable):
        with self._lock:
            if key in self._done:
                return self._done[key]
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._lock:
                if key in self._done:
                    return self._done[key]
            value = fn()
            with self._lock:
                self._done[key] = value
            return value
