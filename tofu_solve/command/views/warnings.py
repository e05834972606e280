"""The words of the solver's warnings, from the records it returns (issue #51 §4: the
solver says what happened, the view says it in English): a module version fenced off by its
own line (:class:`~tofu_solve.solver.fenced.FencedOff`), and ``-upgrade=NAME`` held back by
other locks (:class:`~tofu_solve.solver.upgrades.BlockedUpgrade`)."""

from __future__ import annotations

from ...errors import WarningText
from ...solver.fenced import FencedOff
from ...solver.upgrades import BlockedUpgrade, newer


def fenced_off_warning(f: FencedOff) -> WarningText:
    """``Module version fenced off by its own line``."""
    r = f.requirement
    return WarningText(
        "Module version fenced off by its own line",
        f'Module "{f.call}" is at {f.selected}, but {f.newer} of the same line requires '
        f'{r.address.for_display} "{r.constraint.text if r.constraint else ""}" ({r.where}), which '
        f"excludes the selected {f.chosen}: its authors may have found {f.selected} incompatible with it.")


def blocked_upgrade_warning(b: BlockedUpgrade, upgrade_names: tuple[str, ...]) -> WarningText:
    """``Newer version needs other locks to move``."""
    return WarningText("Newer version needs other locks to move", blocked_upgrade_text(b, upgrade_names))


def blocked_upgrade_text(b: BlockedUpgrade, upgrade_names: tuple[str, ...]) -> str:
    """The warning's words for ``b``; ``upgrade_names``: the ``-upgrade=NAME`` names given
    (kept in the command it suggests)."""
    moves = ", ".join(f"{n} {old} -> {new}" for n, old, new, _ in b.others)
    head = (f"{b.name} is at {b.selected}, the newest its constraints allow while every other lock is kept. "
            f"{b.name} {b.newer} needs {moves}; tofu-solve moved nothing else.")
    if all(newer(new, old) for _, old, new, _ in b.others):
        names = ",".join(dict.fromkeys((*upgrade_names, b.name, *(n for n, *_ in b.others))))
        if b.lands is False:  # -upgrade takes the newest of each, and those newest do not fit together
            return (f"{head} -upgrade={names} would take the newest of each, which do not fit together; "
                    "constraints that hold the others at those versions do.")
        return f"{head} To allow it: tofu-solve init -upgrade={names}"
    # a lock that would have to go down: -upgrade takes the newest, so only a constraint does it;
    # the ones that go up move with the same command as NAME (issue #48 §4: one command, not three)
    down = [(n, new, where) for n, old, new, where in b.others if not newer(new, old)]
    up = [n for n, old, new, _ in b.others if newer(new, old)]
    if all(where is not None for _, _, where in down):
        pins = "; ".join(f'{n} to version = "{new}" ({where})' for n, new, where in down)
        names = ",".join(dict.fromkeys((*upgrade_names, b.name, *up)))
        return (f"{head} -upgrade takes the newest of each, so what goes down needs a pin: pin {pins}, then "
                f"tofu-solve init -upgrade={names}")
    return f"{head} -upgrade takes the newest of each, so it cannot; a constraint that excludes the newer ones can."
