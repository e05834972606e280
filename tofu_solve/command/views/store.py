"""The package store as the views show it (issue #49): warnings and ``-json`` data about
what the store did, for ``init`` and ``store push``."""

from __future__ import annotations

from ...errors import WarningText
from ...remote.package_store import PUSH_VARIABLE, StoreAddress, StoreReport


def store_warnings(address: StoreAddress, report: StoreReport) -> list[WarningText]:
    """The warnings of a run with a store: an artifact that failed verification (each
    once: store, package, what differed), a store that stopped answering, pushes that did
    not finish, and a store that may not be written (one note)."""
    out = []
    for label, why in report.rejected:
        out.append(WarningText(
            "Package store artifact rejected",
            f"The package store {address} holds {label}, but it failed verification: {why}. It was not installed; "
            "the package came from its origin instead, verified against the lock file. Someone or something wrote "
            "other contents under that name: check who may write to the store."))
    if report.down:
        out.append(WarningText(
            "Package store unavailable",
            f"The package store {address} did not answer ({report.down}); every package came from its origin. "
            "The run was not otherwise affected."))
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
    """``-json``'s ``store`` object: the address and the packages read, pushed, rejected
    and not pushed (lists of labels), and why it was down or read-only ("" when not)."""
    return {"address": str(address), "read": sorted(report.read), "pushed": sorted(report.pushed),
            "rejected": [{"package": p, "reason": r} for p, r in report.rejected],
            "not_pushed": sorted(report.not_pushed), "down": report.down, "read_only": report.read_only}
