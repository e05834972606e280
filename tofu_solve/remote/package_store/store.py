"""The run's package store: its ledger and its three jobs over one client (issue #49;
split by job in issue #71 §2), and :func:`open_store`."""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import ConfigurationError
from ..limits import Limits
from ..oci import OciClient
from ..ops import OpCounter
from .address import GRACE_VARIABLE, PUSH_GRACE, PUSH_VARIABLE, STORE_TIMEOUT, StoreAddress
from .ledger import StoreLedger, StoreReport
from .pushing import StorePusher
from .reading import StoreReader
from .verifying import StoreVerifier


class PackageStore:
    """The store of one run: its ledger and its three jobs over one client.

    Attributes:
        address: the store.
        client: the :class:`OciClient` every job uses (``store_retries``, :data:`STORE_TIMEOUT`).
        ledger: what the lock expects and what the store did (:attr:`report`).
        reader: reads verified against the lock (``init``).
        verifier: ``store verify`` / ``store push``'s checks.
        pusher: pushes after verification.
    """

    def __init__(self, address: StoreAddress, client: OciClient, push: bool = True,
                 limits: Limits | None = None, grace: float = PUSH_GRACE):
        limits = limits or Limits()
        self.address = address
        self.client = client
        self.ledger = StoreLedger(address, push=push)
        self.reader = StoreReader(self.ledger, client, limits)
        self.verifier = StoreVerifier(self.reader, limits)
        self.pusher = StorePusher(self.ledger, client, grace=grace)

    @property
    def report(self) -> StoreReport:
        """What the store did in this run (the ledger's report)."""
        return self.ledger.report


def open_store(address: StoreAddress | None, env: Mapping[str, str], limits: Limits,
               counter: OpCounter | None = None, offline: bool = False,
               configured: Mapping[str, tuple[str, str]] | None = None) -> PackageStore | None:
    """The run's store, or None (no address, or ``-offline``). ``env`` gives the credentials
    (Docker-style config files, as for OCI module sources), ``TOFU_SOLVE_PACKAGE_STORE_PUSH``
    and ``TOFU_SOLVE_PACKAGE_STORE_GRACE`` (seconds); ``configured``: the CLI configuration's
    ``oci_credentials`` blocks, which come first."""
    if address is None or offline:
        return None
    push = env.get(PUSH_VARIABLE, "true").strip().lower() not in ("false", "0", "no", "off")
    try:
        grace = float(env.get(GRACE_VARIABLE, "") or PUSH_GRACE)
    except ValueError:
        raise ConfigurationError("Invalid package store grace",
                                 f"{GRACE_VARIABLE} must be a number of seconds.") from None
    client = OciClient(env, counter, timeout=STORE_TIMEOUT, limits=limits, store_retries=True,
                       configured=configured)
    return PackageStore(address, client, push=push, limits=limits, grace=max(0.0, grace))
