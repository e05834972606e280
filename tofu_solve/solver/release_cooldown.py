"""The release cooldown (issue #25, ``-min-age``): a version released less than the minimum
age ago is not a candidate, as a version the constraints exclude is not, with two
exemptions: the version the lock file holds (accepted when it was locked: the cooldown never
takes a call below it, ``-upgrade`` included) and a version an exact constraint pins
(honoured, and recorded for a warning). What it held back is kept for the warnings, ``why``,
``graph`` and ``outdated``. When a version's release time is unknown it counts as old enough
(noted under ``TF_LOG`` and counted), unless asked before its package was read, which may
still tell."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable

from ..addrs.redact import redact
from ..config.cliconfig import ModuleInstallation
from ..versions.constraints import ProviderConstraint
from ..versions.cooldown import HeldBack, exact_version, format_duration
from .lock_terms import LockTerms
from .model import Identity, ModuleCandidate, ModuleRequirement

log = logging.getLogger(__name__)


class Cooldown:
    """One run's cooldown: the policy, and what it held back and let through.

    Attributes:
        min_age: the minimum age, seconds (0: no cooldown).
        scope: what it covers when the CLI configuration's ``module_installation`` set it
            (modules only, by its include/exclude patterns); None: every module and provider.
        held_back: (subject, version) -> the version it kept out (subject: a call path or a
            provider address).
        young_pins: (subject, version) -> a young version an exact constraint pinned.
        unknown: how many module versions were let through for want of a release time.
    """

    def __init__(self, min_age: float, terms: LockTerms, clock: Callable[[], float] = time.time, *,
                 scope: ModuleInstallation | None = None, label: str | None = None):
        self.min_age = min_age
        self.scope = scope
        self._label = label
        self._terms = terms  # which versions the lock file records (LockTerms.recorded_at)
        self._clock = clock
        self._lock = threading.Lock()
        self.held_back: dict[tuple[str, str], HeldBack] = {}
        self.young_pins: dict[tuple[str, str], HeldBack] = {}
        self._age_checked: set[tuple[str, str]] = set()
        self.unknown = 0

    @property
    def label(self) -> str:
        """The setting that imposes the cooldown, for messages: ``-min-age=7d``, or
        ``cooldown_period=7d (~/.tofurc line 3)`` for a ``module_installation`` block, or the
        policy's ``release_cooldown=7d (tofu-solve-policy.hcl:4)``."""
        if self._label is not None:
            return self._label
        if self.scope is not None:
            return f"cooldown_period={format_duration(self.min_age)} ({self.scope.where})"
        return f"-min-age={format_duration(self.min_age)}"

    def module(self, cand: ModuleCandidate, req: ModuleRequirement | None, released: Callable[[], float | None],
               final: bool = True) -> HeldBack | None:
        """``cand`` as held back when the cooldown keeps it out, else None.

        Args:
            cand: the candidate.
            req: the latest requirement of its call (None: not known; the call then counts
                as versioned and nothing pins exactly).
            released: when it was released (seconds since the epoch), asked only when needed.
            final: False when asked before the package was read: an unknown release time
                is then neither noted nor counted.
        """
        if not self.min_age or (req is not None and not req.versioned):
            return None
        if self.scope is not None and not self.scope.covers(cand.source):
            return None
        if self._terms.recorded_at(Identity.module(cand.call_path), cand.version_text):
            return None
        at = released()
        key = (cand.call_path, cand.version_text)
        if at is None:
            if not final:
                return None
            with self._lock:
                if key not in self._age_checked:
                    self._age_checked.add(key)
                    self.unknown += 1
                    log.info("release time of %s %s unknown: counted as older than -min-age",
                             redact(str(cand.source)), cand.version_text)
            return None
        age = self._clock() - at
        if age >= self.min_age:
            return None
        held = HeldBack(cand.call_path, cand.version_text, age, at, at + self.min_age)
        exact = exact_version(req.constraint.text if req is not None and req.constraint is not None else None)
        with self._lock:
            if exact is not None and exact.lstrip("v") == cand.version_text.lstrip("v"):
                self.young_pins[key] = held
                return None
            self.held_back[key] = held
        return held

    def provider(self, address: str, version: str, constraints: Iterable[ProviderConstraint],
                 released: Callable[[], float | None]) -> HeldBack | None:
        """As :meth:`module`, for a provider version (the registry's ``published_at``);
        ``constraints``: those in force, an exact one of which pins; an unknown release time
        counts as old enough, silently."""
        if not self.min_age or self.scope is not None:  # module_installation covers modules only
            return None
        if self._terms.recorded_at(Identity.provider(address), version):
            return None  # as for modules: the locked version stays
        at = released()
        if at is None:
            return None
        age = self._clock() - at
        if age >= self.min_age:
            return None
        held = HeldBack(address, version, age, at, at + self.min_age)
        with self._lock:
            if any(exact_version(c.text) == version for c in constraints):
                self.young_pins[(address, version)] = held
                return None
            self.held_back[(address, version)] = held
        return held
