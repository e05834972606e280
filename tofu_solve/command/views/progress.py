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


def progress_text(event: Event) -> str:
    """The line people see for ``event`` (``- Fetching terraform-aws-modules/vpc/aws 6.6.0``)."""
    match event:
        case FetchingPackage(source=source, version=version):
            return f"- Fetching {source} {version}".rstrip()
        case StillResolving(round=index, backtracks=backtracks):
            return f"- Still resolving: round {index}, {backtracks} backtracks"
        case LookingForDeadEnds():
            return "- Looking for dead ends: reading every candidate version of the root module calls"
        case PhaseDone(phase="modules", done=done, fetched=fetched):
            return f"- Modules: {done} module calls solved, {fetched} packages fetched"
        case PhaseDone(phase="providers", done=done):
            return f"- Providers: {done} provider locks"
        case PhaseDone(phase=phase, done=done):
            return f"- {phase.capitalize()}: {done} module calls installed"
        case InRoot(root=root, event=inner):
            return f"[{root}] {progress_text(inner)}"
        case RootDone(root=root, module_calls=n):
            return f"[{root}] done: {n} module calls"
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
        case RootDone():
            return "root_module_initialized"
    raise TypeError(f"not a progress event: {event!r}")


def is_fetch(event: Event) -> bool:
    """Whether ``event`` is (a root's) package download, which the live line counts."""
    return isinstance(event, FetchingPackage) or (isinstance(event, InRoot) and is_fetch(event.event))
