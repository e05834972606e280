"""Where provider versions and packages come from: the CLI configuration's
``provider_installation`` methods, as OpenTofu chooses among them.

OpenTofu (``internal/command/cliconfig/provider_installation.go``,
``internal/getproviders/multi_source.go``; reference §12):

* ``direct { include, exclude }``: the provider's origin registry;
* ``network_mirror { url, include, exclude }``: ``GET <url><host>/<ns>/<type>/index.json``
  lists versions, ``<version>.json`` gives each platform's archive URL and hashes
  (the provider network mirror protocol);
* ``filesystem_mirror { path, include, exclude }``: a directory in the packed layout
  (``HOST/NS/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip``) or the unpacked one
  (``HOST/NS/TYPE/VERSION/OS_ARCH/``).

A provider is handled by every method whose ``include`` patterns match it (all, when
absent) and whose ``exclude`` patterns do not; its available versions are the union of what
those methods list, and a version's package comes from the first of them, in order, that
lists it. Without a ``provider_installation`` block every provider is installed directly.
Patterns are ``HOST/NS/TYPE`` or ``NS/TYPE`` (the default host), ``*`` matching any one part.

Mirror packages are not signed: as in ``installer.go``, their lock entries get the ``h1:``
of each installed package (and earlier ``h1:``/``zh:`` of the same version), never the
mirror's own word for other platforms. Mirror URLs must be https, except on loopback.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin

from .._lazy import load
from ..addrs.provider import ProviderAddress
from ..addrs.redact import redact
from ..config.cliconfig import DIRECT, InstallationMethod
from ..errors import NetworkError, RegistryError
from .limits import REQUEST_TIMEOUT, describe_failure, read_document

_PACKED_RE = re.compile(r"terraform-provider-(?P<type>[^_]+)_(?P<version>[^_]+)_(?P<platform>[a-z0-9]+_[a-z0-9]+)\.zip")


@dataclass
class MirrorPackage:
    """A mirror's package for one platform: a zip to download or open, or an unpacked
    directory, and the hashes the mirror reports for it (network mirrors)."""

    url: str = ""
    zip_path: Path | None = None
    directory: Path | None = None
    hashes: tuple[str, ...] = field(default_factory=tuple)


class MirrorClient:
    """Reads network and filesystem mirrors (bounded answers, like every registry answer)."""

    def __init__(self, session, limits, counter, timeout: float = REQUEST_TIMEOUT):
        self.session = session
        self.limits = limits
        self.counter = counter
        self.timeout = timeout

    def _json(self, url: str, what: str):
        load("requests")
        import requests

        self.counter.add("mirror_request")
        try:
            r = read_document(self.session.get(url, timeout=self.timeout, stream=True,
                                               headers={"Accept": "application/json"}), self.limits, url)
        except requests.RequestException as e:
            raise RegistryError("Failed to query provider mirror",
                                f"Could not {what}: {describe_failure(e)} contacting {redact(url)}.") from None
        if r.status_code == 404:
            return None
        if r.status_code != 200:
            raise RegistryError("Failed to query provider mirror", f"Could not {what}: {redact(url)} answered "
                                f"{r.status_code}.")
        try:
            return json.loads(r.content), r.url
        except ValueError:
            raise RegistryError("Invalid response from provider mirror", f"{redact(url)} is not JSON.") from None

    def versions(self, m: InstallationMethod, a: ProviderAddress) -> list[str]:
        """The versions the mirror has of ``a`` ([] when it has none)."""
        if m.kind == "filesystem_mirror":
            base = Path(m.location, a.host, a.namespace, a.type)
            found = set()
            if base.is_dir():
                for entry in base.iterdir():
                    pm = _PACKED_RE.fullmatch(entry.name)
                    if pm and pm.group("type") == a.type and entry.is_file():
                        found.add(pm.group("version"))
                    elif entry.is_dir() and any(p.is_dir() for p in entry.iterdir()):
                        found.add(entry.name)
            return sorted(found)
        got = self._json(urljoin(m.location, f"{a.host}/{a.namespace}/{a.type}/index.json"),
                         f"list the versions of {a.for_display} on the network mirror")
        if got is None:
            return []
        doc, _ = got
        versions = doc.get("versions") if isinstance(doc, dict) else None
        if not isinstance(versions, dict):
            raise RegistryError("Invalid response from provider mirror",
                                f"The version index of {a.for_display} has no \"versions\" object.")
        return [str(v) for v in versions]

    def package(self, m: InstallationMethod, a: ProviderAddress, version: str, platform: str) -> MirrorPackage:
        """Where the mirror keeps ``a`` ``version`` for ``platform``.

        Raises:
            RegistryError: the mirror has no package for that platform, or answers wrongly.
        """
        missing = RegistryError("Provider package not available",
                                f"Provider {a.for_display} v{version} has no package for the platform {platform} in "
                                f"the {m.kind.replace('_', ' ')} {redact(m.location)}.")
        if m.kind == "filesystem_mirror":
            base = Path(m.location, a.host, a.namespace, a.type)
            unpacked = base / version / platform
            if unpacked.is_dir():
                return MirrorPackage(directory=unpacked)
            packed = base / f"terraform-provider-{a.type}_{version}_{platform}.zip"
            if packed.is_file():
                return MirrorPackage(zip_path=packed)
            raise missing
        got = self._json(urljoin(m.location, f"{a.host}/{a.namespace}/{a.type}/{version}.json"),
                         f"find the packages of {a.for_display} {version} on the network mirror")
        if got is None:
            raise missing
        doc, url = got
        archive = (doc.get("archives") or {}).get(platform) if isinstance(doc, dict) else None
        if not isinstance(archive, dict) or not isinstance(archive.get("url"), str):
            raise missing
        target = urljoin(url, archive["url"])
        if not target.startswith(("http://", "https://")):
            raise RegistryError("Invalid response from provider mirror",
                                f"The archive URL of {a.for_display} {version} ({platform}) is not http(s).")
        hashes = tuple(h for h in archive.get("hashes") or () if isinstance(h, str))
        return MirrorPackage(url=target, hashes=hashes)


class ProviderSources:
    """Provider versions and package locations through the configured installation
    methods (thread-safe; listings memoized for the run and, for mirrors, kept in the cache
    like the registry's so that a warm run asks nothing)."""

    def __init__(self, methods: tuple[InstallationMethod, ...] | None, client, mirrors: MirrorClient,
                 cache=None, offline: bool = False, refresh: bool = False, store=None):
        import threading

        # the package store (issue #49): its tags list a locked provider first (store_listing:
        # address -> locked version), and a provider whose registry cannot be reached
        self.store = store
        self.store_listing: dict[str, str] = {}
        self.listed_by_store: set[str] = set()  # addresses whose listing came from the store's tags
        self.fallbacks: dict[str, str] = {}  # provider address -> why its versions came from the store
        self.methods = methods if methods else (DIRECT,)
        self.client = client
        self.mirrors = mirrors
        self.cache = cache
        self.offline = offline
        self.refresh = refresh
        self._listed: dict[tuple[str, str], list[str]] = {}
        self._relisted: set[str] = set()  # provider addresses listed afresh this run (relist)
        self._lock = threading.Lock()

    def handling(self, a: ProviderAddress) -> list[InstallationMethod]:
        """The methods that may install ``a``, in order.

        Raises:
            RegistryError: none (every method's include/exclude leaves it out).
        """
        hs = [m for m in self.methods if m.handles(a)]
        if not hs:
            raise RegistryError("Provider not available",
                                f"No provider_installation method of the CLI configuration handles {a}: add it to an "
                                "include list, or remove it from an exclude list.")
        return hs

    def _versions(self, m: InstallationMethod, a: ProviderAddress) -> list[str]:
        if m.kind == "direct":
            locked = self.store_listing.get(str(a))
            if locked is not None and self.store is not None:
                # a locked provider whose store holds the locked version is listed by the store (as
                # tofu's oci_mirror lists it): its registry is not asked. The caller solves again
                # with the registry's listing if the solve moves it (init: listed_by_store).
                tags = self.store.reader.provider_versions(a)
                if locked in tags:
                    with self._lock:
                        self.listed_by_store.add(str(a))
                    return tags
            try:
                return self.client.provider_versions(a)
            except NetworkError as e:
                # the registry cannot be reached: the store's tags are its versions, as
                # tofu's oci_mirror reads them (issue #49); never when the registry answered
                listed = self.store.reader.provider_versions(a) if self.store is not None else None
                if not listed and self.store is not None:  # both places named (issue #57)
                    raise e.adding(f"The versions of {a} could not come from the package store either: "
                                   f"{self.store.ledger.why_not(f'provider {a}')}.") from None
                if not listed:
                    raise
                with self._lock:
                    self.fallbacks[str(a)] = e.summary
                return listed
        key = (m.key, str(a))
        with self._lock:
            if key in self._listed:
                return self._listed[key]
        load("tofu_solve.errors")
        from ..errors import OfflineError
        load("tofu_solve.store.cache")
        from ..store.cache import key_of

        ckey = key_of(f"{m.key}\n{a}")
        cached = self.cache.read_json("mirror-versions", ckey) if self.cache is not None else None
        if cached is not None and (self.offline or not (self.refresh or str(a) in self._relisted)):
            versions = cached
        elif self.offline and m.kind == "network_mirror":
            raise OfflineError("Not available offline", f"The versions of {a} on the network mirror "
                               f"{redact(m.location)} are not in the cache.")
        else:
            versions = self.mirrors.versions(m, a)
            if self.cache is not None and m.kind == "network_mirror":
                self.cache.write_json("mirror-versions", ckey, versions)
        with self._lock:
            self._listed[key] = versions
        return versions

    def stop_store_listing(self) -> set[str]:
        """List every provider at its registry from now on; returns the addresses the store
        listed so far (their listings must be asked again)."""
        with self._lock:
            listed, self.store_listing = set(self.listed_by_store), {}
            self.listed_by_store.clear()
        return listed

    def relist(self, a: ProviderAddress) -> list[str]:
        """:meth:`provider_versions` asked of every method again, not of the cache (a lock
        names a version the cached listing predates). Raises as :meth:`provider_versions`."""
        with self._lock:
            self._relisted.add(str(a))
            for key in [k for k in self._listed if k[1] == str(a)]:
                del self._listed[key]
        if any(m.kind == "direct" for m in self.handling(a)):
            self.client.relist(a)
        return self.provider_versions(a)

    def provider_versions(self, a: ProviderAddress) -> list[str]:
        """Every version any handling method lists (direct first, in the registry's order).

        Raises:
            RegistryError: no method has the provider at all; NetworkError, OfflineError.
        """
        out, seen = [], set()
        for m in self.handling(a):
            for v in self._versions(m, a):
                if v not in seen:
                    seen.add(v)
                    out.append(v)
        if not out:
            raise RegistryError("Provider not found",
                                f"provider {a.for_display} was not found in any provider_installation method.")
        return out

    def method_for(self, a: ProviderAddress, version: str) -> InstallationMethod:
        """The method a version's packages come from: the first handling method that lists
        it (the only one, without listing anything, when just one handles ``a``)."""
        hs = self.handling(a)
        if len(hs) == 1:
            return hs[0]
        for m in hs:
            if version in self._versions(m, a):
                return m
        return hs[0]
