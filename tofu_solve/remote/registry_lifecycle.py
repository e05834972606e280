"""What a registry says of its versions' lives, for one run (issue #62 §3; out of
:class:`~.registry.RegistryClient` in issue #71 §2): each version's release time and
deprecation, read from the version listings the client makes, and the revocations of HCP
Terraform's and TFE's v2 API, asked once per package and run. Words and bounds:
:mod:`.lifecycle`.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import wait
from datetime import datetime
from typing import Protocol
from urllib.parse import quote, urljoin

from .._threads import worker_pool
from ..addrs.module_source import RegistryPackage
from ..errors import TofuSolveError
from ..store.cache import Cache, key_of
from .flight import SingleFlight
from .lifecycle import LIFECYCLE_SECONDS, MAX_REVOKED_READ, Deprecation, Revocation, one_line, safe_link
from .limits import Document

log = logging.getLogger(__name__)


def cached_revocations(cache: Cache, package: RegistryPackage, reads=None) -> dict[str, Revocation]:
    """The revocations of ``package`` the last run that asked its registry kept in the
    cache (:meth:`RegistryLifecycle.revocations`); never touches the network. ``reads``: a
    :class:`~tofu_solve.settings.ReadLog` the cache entry is registered in."""
    key = key_of(str(package))
    if reads is not None:
        reads.saw(cache.json_file("module-revocations", key))
    return revocations_from(cache.peek_json("module-revocations", key), str(package))


def revocations_from(cached: object, package: str) -> dict[str, Revocation]:
    """The revocations an earlier run kept in the cache (version -> {message, link})."""
    if not isinstance(cached, dict):
        return {}
    return {str(v): Revocation(package, str(v), one_line(x.get("message")), safe_link(x.get("link")))
            for v, x in cached.items() if isinstance(x, dict)}


class RegistryAccess(Protocol):
    """What the lifecycle asks of the registry client (:class:`~.registry.RegistryClient`)."""

    cache: Cache | None
    offline: bool

    def get_document(self, url: str, host: str, what: str, kind: str, allow_redirects: bool = True) -> Document:
        """One bounded GET; raises NetworkError, OfflineError."""

    def services(self, host: str) -> dict[str, str]:
        """The host's service URLs."""

    def module_versions(self, package: RegistryPackage) -> list[str]:
        """The package's version listing (once per run)."""


class RegistryLifecycle:
    """The registry client's record of versions' lives (thread-safe): filled by the
    client's listings (:meth:`keep_release_times`, :meth:`keep_deprecations`), asked by
    the solver, ``outdated`` and the cooldown; revocations read through the client.

    Args:
        client: the run's registry client (its requests, services, cache and offline mode).
    """

    def __init__(self, client: RegistryAccess):
        self.client = client
        self._lock = threading.Lock()
        self.lifecycle_seconds = LIFECYCLE_SECONDS  # the run-wide deadline of revocation messages (issue #67 §7)
        self._lifecycle_deadline: float | None = None
        self._release_times: dict[tuple[str, str], dict[str, float]] = {}  # (kind, address) -> version -> time
        self._deprecations: dict[str, dict[str, Deprecation]] = {}  # package -> version -> deprecation
        self._revocations = SingleFlight(remember_errors=True)  # package -> version -> revocation, once per run

    def release_times(self, kind: str, address: str) -> dict[str, float]:
        """Each listed version's release time (seconds since the epoch), as the registry's
        version list gave it (RFC 3339): ``discovered``, the OpenTofu registry's record of when
        it first saw the version (registry PR #4113; what OpenTofu's module-cooldown RFC
        dates a version by, since a tag's or commit's date can be backdated), else
        ``published_at``; for ``kind`` ``"module"`` (a package address) or ``"provider"``;
        from this run's listing, else the one an earlier run kept in the cache. The module
        and provider registry protocols define no release time: a registry that gives none
        gives an empty mapping (issue #25)."""
        with self._lock:
            known = self._release_times.get((kind, address))
        if known is not None:
            return known
        cache = self.client.cache
        cached = cache.read_json(f"{kind}-release-times", key_of(address)) if cache is not None else None
        if not isinstance(cached, dict):
            return {}
        return {str(k): float(v) for k, v in cached.items() if isinstance(v, (int, float))}

    def keep_release_times(self, kind: str, address: str, entries) -> None:
        """Read ``discovered``, else ``published_at``, of a version list's entries (see
        :meth:`release_times`); unreadable times are left out."""
        times = {}
        for e in entries or ():
            if not isinstance(e, dict):
                continue
            for field in ("discovered", "published_at"):
                stamp = e.get(field)
                if not isinstance(stamp, str):
                    continue
                try:
                    t = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
                except ValueError:
                    continue
                if t.tzinfo is not None:
                    times[str(e.get("version"))] = t.timestamp()
                    break
        with self._lock:
            self._release_times[(kind, address)] = times
        if self.client.cache is not None:
            self.client.cache.write_json(f"{kind}-release-times", key_of(address), times)

    def keep_deprecations(self, address: str, entries) -> None:
        """Each listed version's ``deprecation`` (HCP's private registry; issue #62 §3), kept
        for the run and in the cache as :meth:`release_times` are."""
        found = {}
        for e in entries or ():
            if isinstance(e, dict):
                d = Deprecation.from_registry(e.get("deprecation"))
                if d is not None:
                    found[str(e.get("version"))] = d
        with self._lock:
            self._deprecations[address] = found
        if self.client.cache is not None:
            self.client.cache.write_json("module-deprecations", key_of(address),
                                  {v: d.as_data() for v, d in found.items()})

    def deprecations(self, package: RegistryPackage) -> dict[str, Deprecation]:
        """The versions of ``package`` its registry marks deprecated (version as listed ->
        :class:`~.lifecycle.Deprecation`), from this run's listing, else the one an earlier
        run kept in the cache; empty when the registry gives none (the OpenTofu registry
        never does). Never touches the network."""
        key = str(package)
        with self._lock:
            known = self._deprecations.get(key)
        if known is not None:
            return known
        cache = self.client.cache
        cached = cache.read_json("module-deprecations", key_of(key)) if cache is not None else None
        if not isinstance(cached, dict):
            return {}
        return {str(v): d for v, raw in cached.items() if (d := Deprecation.from_registry(raw)) is not None}

    def revocations(self, package: RegistryPackage) -> dict[str, Revocation]:
        """The versions of ``package`` its registry revoked (version -> :class:`Revocation`),
        read once per run from the v2 API of a host whose services include ``tfe.v2`` (HCP
        Terraform, TFE; issue #62 §3): ``GET {tfe.v2}organizations/NS/registry-modules/
        private/NS/NAME/TARGET`` for ``revoked-versions``, then each revoked version's
        ``…/version?module_version=V`` for its message (at most
        :data:`~.lifecycle.MAX_REVOKED_READ`); the versions listing too, once per run, so
        that a locked version's deprecation is known (:meth:`deprecations`). Empty for any other host, offline (then the
        answer an earlier run cached), and when the API cannot answer (a module of the
        public registry, a token without access): revocation is advice a registry adds to
        its listing, never a reason for a run to fail."""
        key = str(package)
        if not self.client.offline:
            try:
                return self._revocations.run(key, lambda: self._read_revocations(package))
            except TofuSolveError as e:
                log.debug("revocations of %s not read: %s", key, e)
        return cached_revocations(self.client.cache, package) if self.client.cache is not None else {}

    def _revocation_messages(self, package: RegistryPackage, url: str, versions: list[str]) -> dict[str, object]:
        """Each version's ``revocation`` object as the v2 API gives it (version -> the
        object; a version whose answer did not come by the run's lifecycle deadline, or was
        unreadable, is absent). Read in parallel, the version URL-encoded in the query."""
        def one(v: str) -> object:
            r = self.client.get_document(f"{url}/version?module_version={quote(v, safe='')}", package.host,
                          f"read the revocation of {package.for_display} {v}", "module_revocations")
            try:
                return r.json()["data"]["attributes"].get("revocation") if r.status_code == 200 else None
            except (ValueError, KeyError, TypeError, AttributeError):
                return None
        if not versions:
            return {}
        with self._lock:
            if self._lifecycle_deadline is None:
                self._lifecycle_deadline = time.monotonic() + self.lifecycle_seconds
            deadline = self._lifecycle_deadline
        pool = worker_pool(min(8, len(versions)), "tofu-solve-lifecycle")
        try:
            futures = {pool.submit(one, v): v for v in versions}
            done, _ = wait(futures, timeout=max(0.0, deadline - time.monotonic()))
            out = {}
            for f in done:
                try:
                    out[futures[f]] = f.result()
                except TofuSolveError as e:
                    log.debug("revocation of %s %s not read: %s", package, futures[f], e)
            return out
        finally:
            pool.shutdown(wait=False, cancel_futures=True)  # what is still on the wire is abandoned

    def _read_revocations(self, package: RegistryPackage) -> dict[str, Revocation]:
        svc = self.client.services(package.host)
        base = svc.get("tfe.v2") or svc.get("tfe.v2.1")
        if not base:
            return {}
        try:  # a locked version's deprecation is in the listing, which a lock that applies never asked for
            self.client.module_versions(package)
        except TofuSolveError as e:
            log.debug("versions of %s not listed for their deprecations: %s", package, e)
        org, name, system = (quote(x, safe="") for x in (package.namespace, package.name, package.system))
        url = urljoin(urljoin(f"https://{package.host}/", base),
                      f"organizations/{org}/registry-modules/private/{org}/{name}/{system}")
        r = self.client.get_document(url, package.host, f"read the revoked versions of {package.for_display}",
                                     "module_revocations")
        if r.status_code != 200:
            return {}
        try:
            revoked = r.json()["data"]["attributes"].get("revoked-versions") or []
        except (ValueError, KeyError, TypeError, AttributeError):
            return {}
        versions = list(dict.fromkeys(str(x) for x in revoked if isinstance(x, str)))
        told = self._revocation_messages(package, url, versions[:MAX_REVOKED_READ])
        out: dict[str, Revocation] = {}
        for v in versions:  # every version listed as revoked stays revoked, message read or not
            said = told.get(v)
            if isinstance(said, dict) and said.get("status") == "unrevoked":
                continue
            message, link = (one_line(said.get("message")), safe_link(said.get("link"))) if isinstance(said, dict) \
                else ("", "")
            out[v] = Revocation(str(package), v, message, link)
        if self.client.cache is not None:
            self.client.cache.write_json("module-revocations", key_of(str(package)),
                                  {v: {"message": x.message, "link": x.link} for v, x in out.items()})
        return out
