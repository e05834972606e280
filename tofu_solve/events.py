"""Progress events: what the stages report while they work, as data.

The stages never compose text for people; they call a :data:`Progress` callback with one of
these values, and the views (:mod:`tofu_solve.command.views.progress`) turn each into a line
of text or a JSON message with its ``message_code``, as OpenTofu's ``ModuleInstallHooks``
are rendered by its views. Every event is immutable and safe to hand between threads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class FetchingPackage:
    """A module package is being downloaded (announced by its first network operation, so a
    package found in the cache says nothing). ``source`` is the address as shown to people
    (registry form, or the redacted remote address), ``version`` its version or "" when
    pinned."""

    source: str
    version: str = ""


@dataclass(frozen=True)
class StillResolving:
    """The search is long: ``round`` rounds so far, ``backtracks`` candidates rejected."""

    round: int
    backtracks: int


@dataclass(frozen=True)
class LookingForDeadEnds:
    """The search went back often enough to read every candidate version of the root module
    calls and drop those that cannot be part of any solution."""


@dataclass(frozen=True)
class PhaseDone:
    """A phase of ``init`` is over: ``phase`` is ``"modules"`` (``done`` module calls solved,
    ``fetched`` packages downloaded for it), ``"providers"`` (``done`` providers locked) or
    ``"install"`` (``done`` module calls installed). Off a terminal these are the lines
    people see, in this order, instead of one per download (issue #24)."""

    phase: Literal["modules", "providers", "install"]
    done: int
    fetched: int = 0


@dataclass(frozen=True)
class InRoot:
    """``event`` happened in the root module ``root`` (``-recursive``; relative name)."""

    root: str
    event: Event


@dataclass(frozen=True)
class RootDone:
    """The root module ``root`` (``-recursive``) is initialized with ``module_calls`` calls,
    or failed (``error``: the error's summary; "" when it did not)."""

    root: str
    module_calls: int
    error: str = ""


Event = FetchingPackage | StillResolving | LookingForDeadEnds | PhaseDone | InRoot | RootDone
Progress = Callable[[Event], None]
"""What every stage that reports progress takes."""

