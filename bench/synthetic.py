"""Synthetic module universes, in memory, to time the solver alone (no network, no disk).

The universes and the context that answers from them live in :mod:`tests.world.memory`
(the data-driven solver tests use them too); this module keeps the names the benchmarks
import."""

from __future__ import annotations

from tests.world.memory import SYNTHETIC_PROVIDER as PROVIDER
from tests.world.memory import MemoryContext, Universe, make_universe

__all__ = ["PROVIDER", "MemoryContext", "Universe", "make_universe"]
