"""Provider packages read ahead while the solve runs (issue #13).

``tofu init`` installs providers after the modules; tofu-solve used to start the provider
lock plan only when the solve was done, a chain of round trips (package answer, then
``SHA256SUMS``, signature and zip) on the critical path. The solver now says, each time a
provider's candidate list changes, which version it would pick first
(:attr:`tofu_solve.solver.context.Context.likely_provider`); this module starts that
version's chain at once: the package answer, the checksums and their signature, and the
zip when the server announces at most :data:`READ_AHEAD_ZIP_BYTES` (small providers such
as null, random, tls, time), or whatever its size when the version is the locked one (a
fresh clone with a lock file, where the guess is all but certain). A guess the solve later
abandons costs a few small requests and at most one small zip: at most
:data:`MAX_GUESSES` versions per provider are read ahead, and a large zip (aws, 100 MB and
more) waits until the solve has chosen its version.

The plan after the solve (:func:`.locks.plan_provider_locks`) shares the
:class:`ProviderPackages` object, so it finds the answers and verified documents in memory
and the package in the cache. Every check still happens there: reading ahead only moves
network time earlier.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping

from .._threads import worker_pool
from ..addrs.provider import ProviderAddress
from .packages import ProviderPackages

log = logging.getLogger(__name__)

MAX_GUESSES = 3  # versions read ahead per provider (each a few small requests)
READ_AHEAD_ZIP_BYTES = 8 << 20  # a guessed version's zip is read ahead only up to this size


class ProviderReadAhead:
    """Starts provider package work for the solver's likely picks (thread-safe).

    Args:
        packages: shared with the provider lock plan after the solve.
        platforms: target platforms (``OS_ARCH``).
        locked: provider address (string) -> its version in the lock file as read; the zip
            of that version is fetched ahead whatever its size.
        workers: threads for reading ahead.
        zip_bytes: the largest zip of a guessed (not locked) version read ahead.
    """

    def __init__(self, packages: ProviderPackages, platforms: tuple[str, ...], locked: Mapping[str, str],
                 workers: int = 4, zip_bytes: int = READ_AHEAD_ZIP_BYTES):
        self.zip_bytes = zip_bytes
        self.packages = packages
        self.platforms = platforms
        self.locked = dict(locked)
        self._pool = worker_pool(workers, "tofu-solve-provider-ahead")
        self._lock = threading.Lock()
        self._guesses: dict[str, list[str]] = {}
        self._closed = False

    def likely(self, address: ProviderAddress, version: str) -> None:
        """The solver would pick ``version`` of ``address`` now: read its package ahead
        (once per version, at most :data:`MAX_GUESSES` versions per provider; nothing for
        built-in or legacy providers, mirrored packages, offline, or after :meth:`close`)."""
        if address.is_builtin or address.is_legacy or self.packages.offline \
                or not self.packages.from_registry(address, version):
            return  # a mirror's package is read once, by the plan (its checks need the zip it fetches)
        key = str(address)
        with self._lock:
            guesses = self._guesses.setdefault(key, [])
            if self._closed or version in guesses or len(guesses) >= MAX_GUESSES:
                return
            guesses.append(version)
        whole = self.locked.get(key) == version
        for platform in self.platforms:
            if self.packages.cached(address, version, platform) is None:  # a warm run starts nothing
                self._pool.submit(self._read, address, version, platform, whole)

    def guesses(self) -> dict[str, list[str]]:
        """Provider address -> the versions read ahead, in order (for benchmarks and tests)."""
        with self._lock:
            return {k: list(v) for k, v in self._guesses.items()}

    def _read(self, address: ProviderAddress, version: str, platform: str, whole: bool) -> None:
        try:
            self.packages.info(address, version, platform, max_zip_bytes=None if whole else self.zip_bytes)
        except Exception as e:
            log.debug("reading provider %s %s %s ahead failed: %s", address, version, platform, e)

    def close(self) -> None:
        """Stop: guesses not started are dropped, those running are waited for (each is a
        small request, or the locked package the plan needed anyway)."""
        with self._lock:
            self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)
