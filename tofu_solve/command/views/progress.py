"""How progress events (:mod:`tofu_solve.events`) read: a line for people, a message code
for the JSON stream."""

from __future__ import annotations

from ...events import (
    Event,
    FetchingPackage,
    InRoot,
    LookingForDeadEnds,
    PhaseDone,
    RootDone,
    StillResolving,
)


def _n(n: int, noun: str) -> str:
    """``1 module call``, ``2 module calls``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def progress_text(event: Event) -> str:
    """The line people see for ``event`` (``- Fetching terraform-aws-modules/vpc/aws 6.6.0``)."""
    match event:
        case FetchingPackage(source=source, version=version):
            return f"- Fetching {source} {version}".rstrip()
        case StillResolving(round=index, backtracks=backtracks):
            return f"- Still resolving: round {index}, {_n(backtracks, 'backtrack')}"
        case LookingForDeadEnds():
            return "- Looking for dead ends: reading every candidate version of the root module calls"
        case PhaseDone(phase="modules", done=done, fetched=fetched):
            return f"- Modules: {_n(done, 'module call')} solved, {_n(fetched, 'package')} fetched"
        case PhaseDone(phase="providers", done=done):
            return f"- Providers: {_n(done, 'provider lock')}"
        case PhaseDone(phase=phase, done=done):
            return f"- {phase.capitalize()}: {_n(done, 'module call')} installed"
        case InRoot(root=root, event=inner):
            return f"[{root}] {progress_text(inner)}"
        case RootDone(root=root, error=error) if error:
            return f"[{root}] failed: {error}"
        case RootDone(root=root, module_calls=n):
            return f"[{root}] done: {_n(n, 'module call')}"
    raise TypeError(f"not a progress event: {event!r}")


def message_code(event: Event) -> str:
    """The ``message_code`` of ``event``'s JSON message (a root's events keep their own)."""
    match event:
        case FetchingPackage():
            return "fetching_module_package"
        case StillResolving():
            return "still_resolving"
        case LookingForDeadEnds():
            return "looking_for_dead_ends"
        case PhaseDone(phase=phase):
            return f"{phase}_done"
        case InRoot(event=inner):
            return message_code(inner)
        case RootDone(error=error) if error:
            return "root_module_failed"
        case RootDone():
            return "root_module_initialized"
    raise TypeError(f"not a progress event: {event!r}")


def is_fetch(event: Event) -> bool:
    """Whether ``event`` is (a root's) package download, which the live line counts."""
    return isinstance(event, FetchingPackage) or (isinstance(event, InRoot) and is_fetch(event.event))
