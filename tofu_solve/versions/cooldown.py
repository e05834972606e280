"""The release cooldown (issue #25): versions younger than ``-min-age`` are not candidates.

Compromised releases are usually caught within days (Renovate's ``minimumReleaseAge``;
OpenTofu's module-cooldown RFC, opentofu/opentofu PR #4444, issue #3990). tofu-solve applies
the cooldown while solving: a too-young version is simply not chosen, and the reason is
explained like any other constraint. Locked versions stay; an exact pin to a young version is
honoured with a warning; a version whose release time cannot be known counts as old enough.

* :func:`parse_duration`: ``7d``, ``36h``, ``1d12h``, ``90m``, ``2w``, ``0``.
* :func:`format_duration`, :func:`format_age`: the same units, for messages.
* :func:`exact_version`: the one version an exact constraint (``= 1.2.3``, ``1.2.3``) names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from ..errors import TofuSolveError

UNITS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+)([wdhms])")
_EXACT = re.compile(r"\s*=?\s*v?(\d+(?:\.\d+)*(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)\s*")


class InvalidDuration(TofuSolveError):
    """A ``-min-age`` value that is not a duration."""


def parse_duration(text: str, what: str = "-min-age") -> float:
    """Seconds in ``text``: one or more ``<integer><unit>`` with units ``w`` (weeks), ``d``,
    ``h``, ``m`` (minutes), ``s``, as in ``7d``, ``36h``, ``1d12h``; ``0`` (or empty) is no
    cooldown.

    Raises:
        InvalidDuration: anything else (named by ``what``).
    """
    t = text.strip().lower()
    if t in ("", "0"):
        return 0.0
    if not _PART.sub("", t) == "" or not _PART.search(t):
        raise InvalidDuration("Invalid duration",
                              f'{what}={text!r} is not a duration: write a number and a unit (w, d, h, m, s), '
                              'such as "7d", "36h" or "1d12h"; "0" for none.')
    return float(sum(int(n) * UNITS[u] for n, u in _PART.findall(t)))


def min_age_setting(flag: str | None, environment: str | None,
                    configured: tuple[str, str] | None = None) -> float:
    """The cooldown in seconds: ``-min-age`` when given, else ``TOFU_SOLVE_MIN_AGE``
    (:attr:`tofu_solve.settings.Settings.min_age`), else the CLI configuration's
    ``tofu_solve_min_age`` (``configured``: value and "FILE line N",
    :attr:`tofu_solve.config.cliconfig.CliConfig.min_age`), else none (0). The flag wins
    over the environment and the environment over the file, as ``TF_PLUGIN_CACHE_DIR``
    wins over ``plugin_cache_dir``.

    Raises:
        InvalidDuration: the value that applies is not a duration (named as written).
    """
    if flag is not None:
        return parse_duration(flag, "-min-age")
    if environment:
        return parse_duration(environment, "TOFU_SOLVE_MIN_AGE")
    if configured is not None:
        return parse_duration(configured[0], f"tofu_solve_min_age ({configured[1]})")
    return 0.0


def given_min_age(flag: str | None, environment: str | None) -> float | None:
    """The cooldown ``-min-age`` or ``TOFU_SOLVE_MIN_AGE`` give (as :func:`min_age_setting`),
    or None when neither does (the CLI configuration, read later, may then)."""
    if flag is None and not environment:
        return None
    return min_age_setting(flag, environment)


def format_duration(seconds: float) -> str:
    """``seconds`` in the largest units that write it exactly (``7d``, ``36h``, ``1d12h``)."""
    left, out = int(seconds), []
    for unit, size in UNITS.items():
        if unit == "w":
            continue
        n, left = divmod(left, size)
        if n:
            out.append(f"{n}{unit}")
    return "".join(out) or "0"


def format_age(seconds: float) -> str:
    """How long ago, rounded down to the largest unit: ``2 days``, ``5 hours``, ``3 minutes``."""
    s = max(0, int(seconds))
    for name, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if s >= size:
            n = s // size
            return f"{n} {name}{'s' if n != 1 else ''}"
    return "less than a minute"


def exact_version(constraint_text: str | None) -> str | None:
    """The version an exact constraint names (``= 1.2.3``, ``1.2.3``, ``v1.2.3``), or None
    for any other constraint (a range, several parts)."""
    if not constraint_text:
        return None
    m = _EXACT.fullmatch(constraint_text)
    return m.group(1) if m else None


def format_day(at: float) -> str:
    """A time (seconds since the epoch) as its UTC date, ``2026-08-04``."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d")


@dataclass(frozen=True)
class HeldBack:
    """A version the cooldown kept out of the solve.

    Attributes:
        subject: a module call path (``eks.kms``) or a provider address.
        version: the version as the source names it.
        age: seconds since its release.
        released: when it was released (first seen by its registry), seconds since the epoch.
        clears: when it clears the cooldown (``released`` plus the minimum age).
    """

    subject: str
    version: str
    age: float
    released: float = 0.0
    clears: float = 0.0

    @property
    def note(self) -> str:
        """When it was discovered and when it clears, in the words of OpenTofu's
        module-cooldown RFC: ``discovered 2026-08-04, clears cooldown 2026-08-11``."""
        return f"discovered {format_day(self.released)}, clears cooldown {format_day(self.clears)}"
