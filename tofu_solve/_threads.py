"""Every thread tofu-solve starts is started here, after what it needs is imported (issue #68).

A worker that imports a library for the first time while another thread imports the same
library can fail with "partially initialized module" (the reason is in ``tofu_solve._lazy``).
Every import after start-up goes through the one import guard (``_lazy.load``), which is
what makes them safe; a thread's ``needs`` (absolute module names) are imported on the
starting thread before it starts only where the thread certainly uses them (a download
thread: the HTTP stack), since a warm run, whose workers find everything in the cache, must
not import the network libraries at all. ``tests/test_layout.py`` keeps thread creation
here, and ``tests/e2e/test_thread_imports.py`` runs tofu-solve as its own process with an
import tracer that fails on any first import of a library on a worker thread outside the
guard."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from ._lazy import load

NETWORK: tuple[str, ...] = ("requests", "requests.adapters", "urllib3", "urllib3.util.retry")
"""What a thread that talks HTTP imports (the registry, download and OCI clients' stack)."""

NOTHING: tuple[str, ...] = ()
"""For a thread that only moves bytes between pipes."""


def prepare(needs: Iterable[str]) -> None:
    """Import each of ``needs`` through the import guard, on the calling thread.

    Raises: ImportError as :func:`tofu_solve._lazy.load`."""
    for name in needs:
        load(name)


def worker_pool(workers: int, name: str, needs: Iterable[str] = NOTHING) -> ThreadPoolExecutor:
    """A ``ThreadPoolExecutor`` of at most ``workers`` threads named ``name_N``, started
    only after ``needs`` are imported."""
    prepare(needs)
    return ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix=name)


def start_thread(target: Callable[..., object], name: str, args: tuple = (),
                 needs: Iterable[str] = NOTHING) -> threading.Thread:
    """A daemon thread running ``target(*args)``, started after ``needs`` are imported (a
    process exiting on an error never waits for it)."""
    prepare(needs)
    thread = threading.Thread(target=target, args=args, name=name, daemon=True)
    thread.start()
    return thread


def join_within(threads: Iterable[threading.Thread], seconds: float) -> None:
    """Join ``threads`` within ``seconds`` in all (those still running are left: daemons)."""
    end = time.monotonic() + seconds
    for t in threads:
        t.join(max(0.0, end - time.monotonic()))


__all__ = ["NETWORK", "NOTHING", "join_within", "prepare", "start_thread", "worker_pool"]
