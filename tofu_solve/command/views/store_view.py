"""The package store as the views show it (issues #49, #57): the one summary line of a run
with a store, warnings and ``-json`` data about what the store did, for ``init``, and the
per-package lines of ``store push`` and ``store verify``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..._lazy import load
from ...errors import WarningText

if TYPE_CHECKING:  # the store's code (OCI, archives) is imported only where a store is used, not by every init view
    from ...remote.package_store.address import StoreAddress
    from ...remote.package_store.ledger import PackageOutcome, StoreReport


def store_warnings(address: StoreAddress, report: StoreReport, rejected: bool = True) -> list[WarningText]:
    """The warnings of a run with a store, each once with one header: an artifact that
    failed verification or is not in OpenTofu's formats (store, package, what differed;
    ``rejected=False`` leaves them to the caller's own lines), a corrupt blob a push cannot
    replace (what the operator must do), a store that stopped answering, pushes that did not
    finish, and a store that may not be written (one note)."""
    load("tofu_solve.remote.package_store.address")
    from ...remote.package_store.address import PUSH_VARIABLE

    out = []
    for label, why in report.rejected if rejected else ():
        if any(lbl == label for lbl, _ in report.unrepaired):
            continue  # said once, below, with what to do
        out.append(WarningText(
            "Package store artifact rejected",
            f"The package store {address} holds {label}, but it was rejected: {why}. It was not installed; the "
            "package came from its origin instead, verified against the lock file, and was pushed in its place "
            "when the store takes it. If nobody wrote to the store by hand, check who may write to it."))
    for label, what in report.unrepaired:
        out.append(WarningText(
            "Package store artifact rejected",
            f"The package store {address} holds {label}, but its blob is corrupt: {what}"))
    if report.down:
        out.append(WarningText(
            "Package store unavailable",
            f"The package store {address} did not answer ({report.down}), after retrying; it was not asked again, "
            "and every package it had not given was asked of its origin."))
    if report.not_pushed:
        out.append(WarningText(
            "Packages not pushed to the package store",
            f"These packages were verified and installed, but not pushed to {address}: "
            + "; ".join(report.not_pushed) + ". The next run that fetches them from their origin pushes them."))
    if report.read_only and not report.read_only.startswith(PUSH_VARIABLE):
        out.append(WarningText(
            "Package store is read-only for this run",
            f"Nothing was pushed to {address}: {report.read_only}. Packages are still read from it. Set "
            f"{PUSH_VARIABLE}=false to say that this is intended."))
    return out


def report_data(address: StoreAddress, report: StoreReport) -> dict:
    """``-json``'s ``store`` object: the address and the packages read, pushed, rejected,
    unrepaired and not pushed (lists of labels), and why it was down or read-only ("" when not)."""
    return {"address": str(address), "read": sorted(report.read), "pushed": sorted(report.pushed),
            "rejected": [{"package": p, "reason": r} for p, r in report.rejected],
            "unrepaired": [{"package": p, "reason": r} for p, r in report.unrepaired],
            "not_pushed": sorted(report.not_pushed), "down": report.down, "read_only": report.read_only}


def summary_line(runs: Iterable[Mapping | None], roots: int = 1) -> str | None:
    """The one line a run with a store prints (issue #57 §4), from the ``store`` objects
    of its roots (``report_data``; None for a root without one): ``Package store ADDRESS:
    N read, N pushed, N rejected`` (with ``-recursive``, over all of them), and why it was
    not answering; None when no root had a store."""
    docs = [d for d in runs if d]
    if not docs:
        return None
    addresses = sorted({d["address"] for d in docs})
    read = sum(len(d["read"]) for d in docs)
    pushed = sum(len(d["pushed"]) for d in docs)
    rejected = sum(len(d["rejected"]) for d in docs)
    line = (f"Package store {', '.join(addresses)}: {read} {'package' if read == 1 else 'packages'} read, {pushed} "
            f"pushed, {rejected} rejected")
    if roots > 1:
        line += f" (in {len(docs)} root modules)"
    down = sum(1 for d in docs if d["down"])
    if down:
        line += "; unavailable" + (f" in {down} of them" if roots > 1 else "")
    elif any(d["read_only"] for d in docs):
        line += "; read-only"
    return line + "."


def outcome_lines(address: StoreAddress, action: str, packages: Sequence[PackageOutcome], lock_files: int) -> list[str]:
    """``store push`` / ``store verify``'s text: one count line, then a line per package
    that is not already well (pushed, missing, rejected: each with its reason), then the
    verdict."""
    load("tofu_solve.remote.package_store.ledger")
    from ...remote.package_store.ledger import StoreOutcome

    words = {StoreOutcome.VERIFIED: "verified", StoreOutcome.COMPLETE: "complete", StoreOutcome.PUSHED: "pushed",
             StoreOutcome.MISSING: "MISSING", StoreOutcome.REJECTED: "REJECTED"}
    counts: dict[StoreOutcome, int] = {}
    for p in packages:
        counts[p.outcome] = counts.get(p.outcome, 0) + 1
    order = (StoreOutcome.VERIFIED, StoreOutcome.COMPLETE, StoreOutcome.PUSHED, StoreOutcome.MISSING,
             StoreOutcome.REJECTED)
    shown = ", ".join(f"{counts[o]} {words[o].lower()}" for o in order if counts.get(o))
    providers = sum(1 for p in packages if p.package.startswith("provider "))
    # push and verify count the same units, and say which (issue #68 §3)
    units = (f"{len(packages) - providers} module {'package' if len(packages) - providers == 1 else 'packages'} and "
             f"{providers} provider {'package' if providers == 1 else 'packages'}, one per platform")
    out = [f"Package store {address} ({action}, {units}, from {lock_files} lock "
           f"{'file' if lock_files == 1 else 'files'}): {shown or 'nothing to do'}."]
    for p in packages:
        if p.outcome in (StoreOutcome.VERIFIED, StoreOutcome.COMPLETE):
            continue
        out.append(f"  {words[p.outcome]:<8} {p.package}" + (f": {p.reason}" if p.reason and
                                                             p.outcome is not StoreOutcome.PUSHED else ""))
    bad = counts.get(StoreOutcome.MISSING, 0) + counts.get(StoreOutcome.REJECTED, 0)
    if bad:
        out.append(f"{bad} of {len(packages)} packages would not install from the store.")
    elif action == "verify":
        out.append("Every package the lock files name installs from the store, verified.")
    else:
        out.append("The store holds every package the lock files name (tofu-solve store verify reads every byte).")
    return out
