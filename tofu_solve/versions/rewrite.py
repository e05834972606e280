"""Rewriting a version constraint as a user would: the strings in the style of the one
written that admit a given version, most alike first (``~> 5.0`` -> ``~> 6.0``, ``>= 21.0``
-> ``>= 20.0``, ``0.25.0`` -> ``0.24.1``). The explanation's suggested edits are made of
these; which text admits which version is the caller's language (go-version for modules and
OpenTofu, go-versions for providers), passed in as ``allows``."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from ..errors import TofuSolveError
from .hashicorp_go_version import GoVersion

_CLAUSE = re.compile(r"^\s*(~>|>=|<=|!=|>|<|=)?\s*v?(\d+(?:\.\d+)*)\s*$")


def _segments(v) -> list[int]:
    if isinstance(v, GoVersion):
        return list(v.segments[:3])
    return [int(x) for x in re.findall(r"\d+", str(v).split("-")[0])[:3]]


def rewrite_constraint(old: str, version, allows: Callable[[str, object], bool]) -> list[str]:
    """Constraint strings in the style of ``old`` that admit ``version``, most alike first.

    Each clause of ``old`` that admits ``version`` is kept; each that excludes it is moved
    just enough, at the precision it was written with (``~> 5.0`` -> ``~> 6.0``, ``>= 21.0``
    -> ``>= 20.0``, ``0.25.0`` -> ``0.24.1``). ``allows(text, version)`` decides; the exact
    version is the last resort.
    """
    vs = _segments(version) + [0, 0, 0]
    exact = str(version)
    clauses = [c.strip() for c in old.split(",")]
    options: list[list[str]] = []
    for c in clauses:
        m = _CLAUSE.match(c)
        if m is None:
            options.append([])
            continue
        op, num = m.group(1) or "", m.group(2)
        if _safe_allows(allows, c, version):
            options.append([c])
            continue
        p = len(num.split("."))
        was_zero = num.split(".")[-1] == "0" and p >= 2
        trunc = vs[:max(p, 1)]
        zeroed = trunc[:-1] + [0] if was_zero else trunc
        j = lambda seg: ".".join(str(x) for x in seg)  # noqa: E731
        if op == "~>":
            alts = [f"~> {j(zeroed)}", f"~> {j(trunc)}", f"~> {j(vs[:2])}"]
        elif op in (">=", ">"):
            alts = [f">= {j(zeroed)}", f">= {j(trunc)}", f">= {exact}"]
        elif op in ("<", "<="):
            bumped = trunc[:-1] + [trunc[-1] + 1]
            alts = [f"< {j(bumped)}", f"<= {exact}"]
        elif op == "!=":
            alts = []  # dropping it is the move
        else:  # exact
            alts = [f"{op} {exact}".strip() if op else exact]
        options.append(list(dict.fromkeys(alts)))
    out = []
    for combo in itertools.product(*[o or [""] for o in options]):
        text = ", ".join(x for x in combo if x)
        if text and _safe_allows(allows, text, version):
            out.append(text)
    out.append(f"~> {'.'.join(str(x) for x in vs[:2])}")
    out.append(exact)
    return [t for t in dict.fromkeys(out) if _safe_allows(allows, t, version)]


def _safe_allows(allows, text: str, version) -> bool:
    try:
        return bool(allows(text, version))
    except TofuSolveError:
        return False
