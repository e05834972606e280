"""resolvelib's search, with the check it repeats most done once per criterion and pin.

Every round, resolvelib's ``Resolution`` asks, for every criterion, whether the current pin
still satisfies all of its requirements (``_is_current_pin_satisfying``), twice. A provider's
criterion holds one requirement per module version that requires it, so on a tree of 1,050
calls a round costs thousands of ``is_satisfied_by`` calls and the search as a whole grows
with the square of the tree (issue #23: 1.8 million checks for one solve). The answer depends
only on the criterion (its requirements; resolvelib builds a new ``Criterion`` object
whenever they change, and never changes one in place) and the pin (a candidate object), and
``is_satisfied_by`` is a pure function of its arguments, so :class:`Search` keeps the last
answer per identifier with the exact criterion and pin objects it was computed for, and
reuses it while both are the same objects.

Only this check changes: the order of the search, its rounds, its backtracking and its
results are resolvelib's. The override names two of resolvelib's private members, whose
shape is fixed within the ``resolvelib>=1.2,<2`` that ``pyproject.toml`` admits; when either
is missing, :class:`Search` is resolvelib's own ``Resolver``, unchanged.
"""

from __future__ import annotations

from resolvelib import Resolver
from resolvelib.resolvers import resolution as _resolution

_ORIGINAL = getattr(_resolution.Resolution, "_is_current_pin_satisfying", None)
_BUILD_RESULT = getattr(_resolution, "_build_result", None)


class _RememberingResolution(_resolution.Resolution):
    """``Resolution`` whose pin check is remembered per identifier (see the module)."""

    def __init__(self, provider, reporter):
        super().__init__(provider, reporter)
        self._pin_checks: dict = {}  # identifier -> (criterion, pin, satisfied)

    def _is_current_pin_satisfying(self, name, criterion) -> bool:
        pin = self.state.mapping.get(name)
        if pin is None:
            return False
        seen = self._pin_checks.get(name)
        if seen is not None and seen[0] is criterion and seen[1] is pin:
            return seen[2]
        satisfied = _ORIGINAL(self, name, criterion)
        self._pin_checks[name] = (criterion, pin, satisfied)  # holds both: an id is never reused
        return satisfied


class Search(Resolver):
    """resolvelib's ``Resolver``: same arguments, same results, same exceptions
    (``ResolutionImpossible``, ``ResolutionTooDeep`` and whatever the provider raises)."""

    def resolve(self, requirements, max_rounds: int = 100):
        if _ORIGINAL is None or _BUILD_RESULT is None:
            return super().resolve(requirements, max_rounds=max_rounds)
        state = _RememberingResolution(self.provider, self.reporter).resolve(requirements, max_rounds=max_rounds)
        return _BUILD_RESULT(state)


def remembering() -> bool:
    """Whether :class:`Search` remembers pin checks with this resolvelib (False: it is
    resolvelib's ``Resolver`` as it is)."""
    return _ORIGINAL is not None and _BUILD_RESULT is not None


__all__ = ["Search", "remembering"]
