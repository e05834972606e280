"""Provider packages: fetched, authenticated and hashed as OpenTofu's installer does.

For one (provider, version, platform), following ``internal/providercache/installer.go``
and ``internal/getproviders/package_authentication.go``:

1. the registry's package answer (:meth:`RegistryClient.provider_download`);
2. the ``SHA256SUMS`` document and its detached signature, verified against the answer's
   ``signing_keys`` (:func:`.signatures.verify_shasums`) once per provider version;
3. the zip, bounded like every download; its SHA-256 must equal the answer's ``shasum``
   and the document's line for ``filename`` (``matchingChecksumAuthentication`` and
   ``archiveHashAuthentication``);
4. unpacked (bounded) and hashed as a directory: the ``h1:`` ``tofu init`` records
   (``PackageHashV1`` of the installed directory, nothing excluded).

The lock's ``hashes`` are then that ``h1:`` for each target platform plus every ``zh:``
line of the verified document (``signatureAuthentication.acceptableHashes``).

Results are cached per (provider, version, platform); a warm run asks nothing of the
network. When ``plugin_cache_dir`` / ``TF_PLUGIN_CACHE_DIR`` is set, unpacked packages are
also placed there in OpenTofu's layout (``HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/``) so that
the following ``tofu init`` downloads nothing.
"""

from __future__ import annotations

import logging
import platform as _platform
import re
import shutil
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from .._threads import NETWORK, worker_pool
from ..addrs.provider import ProviderAddress
from ..addrs.redact import redact
from ..errors import ConfigurationError, IntegrityError, NetworkError, OfflineError, RegistryError
from ..lockfile.hashes import hash_dir, zh_hashes_from_sha256sums, zip_sha256
from ..lockfile.replacefile import replace_dir
from ..remote.archives import extract_archive
from ..remote.fetch import Fetcher
from ..remote.flight import SingleFlight
from ..remote.limits import describe_failure, read_document
from ..remote.ops import OpCounter, lazy_import
from ..remote.package_store.keys import ProviderKey, provider_label
from ..remote.package_store.store import PackageStore
from ..remote.provider_sources import DIRECT, InstallationMethod, ProviderSources
from ..remote.registry import ProviderDownload, RegistryClient
from ..solver.wiring import Wiring
from ..store.cache import Cache, key_of
from ..store.plugin_dirs import verified_dir
from .registry_hashes import check_package, platform_hashes, reads_registry_hashes, reported_hashes, signing_required
from .signatures import verify_shasums

# Unpacked packages keep the zip's file modes (the provider executable stays executable, as
# go-getter's ZipDecompressor leaves it for tofu init); copies unpacked before that rule are
# not reused.
UNPACKED = "/modes"
requests = lazy_import("requests")  # loaded on first use: no network, no import

log = logging.getLogger(__name__)
_PLATFORM_RE = re.compile(r"[a-z0-9]+_[a-z0-9]+")
_ARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i386": "386", "i686": "386",
         "armv7l": "arm", "armv6l": "arm"}


def current_platform() -> str:
    """``OS_ARCH`` of this machine as Go names it (``linux_amd64``, ``darwin_arm64``)."""
    os_name = {"win32": "windows", "cygwin": "windows"}.get(sys.platform, sys.platform)
    os_name = re.sub(r"\d+$", "", os_name)  # freebsd13 -> freebsd
    machine = _platform.machine().lower()
    return f"{os_name}_{_ARCH.get(machine, machine)}"


def parse_platform(text: str) -> str:
    """Validate ``-platform=OS_ARCH`` as ``tofu providers lock`` does.

    Raises:
        ConfigurationError: not of the form ``os_arch``.
    """
    if not _PLATFORM_RE.fullmatch(text or ""):
        raise ConfigurationError("Invalid target platform",
                                 f'The string "{text}" given in -platform is not a valid platform name: it must be '
                                 'an operating system name and a CPU architecture name separated by an underscore, '
                                 'like "linux_amd64".')
    return text


@dataclass(frozen=True)
class PackageInfo:
    """What the lock needs of one authenticated package.

    Attributes:
        h1: ``h1:`` of the unpacked package.
        signed: every ``zh:`` of the verified SHA256SUMS document, sorted.
        shasum: the zip's SHA-256 (hex).
        directory: the unpacked package in the cache (None when only the hashes were cached,
            or for another platform's package known from its registry's ``packages`` field).
        reported: every platform's ``h1:`` and ``zh:`` from the registry's ``packages``
            field, checked against this package, where they reach the lock (OpenTofu 1.12:
            :mod:`.registry_hashes`); () otherwise.
    """

    h1: str
    signed: tuple[str, ...]
    shasum: str
    directory: Path | None = None
    reported: tuple[str, ...] = ()


class _StoreMismatch(Exception):
    """A provider package from the store that none of the lock's hashes verifies."""


class ProviderPackages:
    """Fetches and authenticates provider packages (thread-safe).

    Args:
        client: the registry client (discovery, credentials, bounded answers).
        fetcher: bounded downloads into the cache.
        cache: where answers and unpacked packages are kept.
        plugin_cache_dir: where to place unpacked packages for ``tofu init`` (or None).
        offline: use only what the cache holds.
        sources: the CLI configuration's installation methods (None: direct only).
        registry_hashes: the client solved for reads the registry's ``packages`` field
            (OpenTofu 1.12 and later: :func:`.registry_hashes.reads_registry_hashes`).
    """

    def __init__(self, client: RegistryClient, fetcher: Fetcher, cache: Cache, counter: OpCounter,
                 plugin_cache_dir: Path | None = None, offline: bool = False, sources: ProviderSources | None = None,
                 store: PackageStore | None = None, registry_hashes: bool = False):
        self.registry_hashes = registry_hashes
        self.store = store  # the package store on an OCI registry (issue #49), or None
        self.sources = sources
        self.client = client
        self.fetcher = fetcher
        self.cache = cache
        self.counter = counter
        self.plugin_cache_dir = plugin_cache_dir
        self.offline = offline
        # one request per package answer and per signed checksum document, however many ask
        # (the read-ahead during the solve and the plan after it); failures are not remembered
        self._sums = SingleFlight(remember_errors=False)  # (address, version, shasums URL) -> zh: hashes
        self._answers = SingleFlight(remember_errors=False)  # (address, version, platform) -> ProviderDownload
        self._documents: dict[str, str] = {}  # shasums URL -> verified document text
        self.unsigned: set[str] = set()  # "ns/type version" whose signature OpenTofu's no-key rule skipped
        self._lock = threading.Lock()
        self._placing: dict[Path, threading.Lock] = {}  # plugin cache directory -> its placer's lock

    # ------------------------------------------------------------------ lookups

    def _method(self, address: ProviderAddress, version: str) -> InstallationMethod:
        return self.sources.method_for(address, version) if self.sources is not None else DIRECT

    def _key(self, address: ProviderAddress, version: str, platform: str) -> str:
        method = self._method(address, version)
        where = "" if method.kind == "direct" else f"{method.key}\n"
        # what the lock takes of a package differs where the registry's packages field is read
        reads = "registry-hashes\n" if self.registry_hashes and method.kind == "direct" else ""
        return key_of(f"provider\n{reads}{where}{address}\n{version}\n{platform}")

    def cached(self, address: ProviderAddress, version: str, platform: str) -> PackageInfo | None:
        """The package's hashes from an earlier run, without any network (None if unknown)."""
        if self.cache.fresh and not self.offline:
            return None
        d = self.cache.read_json("provider-packages", self._key(address, version, platform))
        if not isinstance(d, dict) or not all(isinstance(d.get(k), str) for k in ("h1", "shasum")):
            return None
        return PackageInfo(d["h1"], tuple(d.get("signed") or ()), d["shasum"], None, tuple(d.get("reported") or ()))

    def _remember(self, address: ProviderAddress, version: str, platform: str, info: PackageInfo) -> None:
        self.cache.write_json("provider-packages", self._key(address, version, platform),
                              {"h1": info.h1, "signed": list(info.signed), "shasum": info.shasum,
                               "reported": list(info.reported)})

    def info(self, address: ProviderAddress, version: str, platform: str,
             max_zip_bytes: int | None = None) -> PackageInfo:
        """The authenticated package (cached after the first time). ``max_zip_bytes``: a
        read ahead of need refuses a zip larger than this (NetworkError; nothing cached).

        Raises:
            OfflineError: offline and not cached.
            RegistryError, NetworkError: the registry or a download failed.
            IntegrityError: the signature, a checksum or the archive is wrong.
        """
        hit = self.cached(address, version, platform)
        if hit is not None and (self.offline or self.plugin_cache_dir is None
                                or self.in_plugin_cache(address, version, platform)):
            return hit  # offline, a plugin cache still missing this package stays so: nothing to copy it from
        if self.offline and hit is None:
            raise OfflineError("Not available offline",
                               f"The {platform} package of provider {address.for_display} {version} is not in the "
                               "cache; run tofu-solve init once without -offline.")
        method = self._method(address, version)
        if method.kind != "direct":
            return self._from_mirror(method, address, version, platform)
        if self.store is not None:
            stored = self._from_store(address, version, platform)
            if stored is not None:
                return stored
        if self.registry_hashes and platform != current_platform():
            known = self._from_field(address, version, platform)
            if known is not None:
                return known
        meta = self._origin_answer(address, version, platform)
        log.debug("provider %s %s %s: %s, checksums %s", address, version, platform, redact(meta.download_url),
                  redact(meta.shasums_url))
        what = f"provider {address.for_display} {version}"
        # The checksums, their signature and the zip are fetched at once (one round trip, not
        # three); nothing is recorded as verified until all three checks have passed.
        kept: list[Path] | None = [] if self.store is not None else None  # the zip, for the store
        sizes: list[int] = []  # the zip's size, when it is downloaded now
        with worker_pool(1, "tofu-solve-provider-zip") as one:
            unpacked = one.submit(self.cache.ensure_package, f"provider:{address}", f"{version}/{platform}{UNPACKED}",
                                  lambda dest: self._fill(meta, dest, what, max_zip_bytes, kept, sizes))
            try:
                signed = self._signed_sums(meta, what)
            finally:
                directory = unpacked.result()
        h1 = hash_dir(directory)
        try:
            if f"zh:{meta.shasum}" not in signed or not self._lists(meta):
                raise IntegrityError("Failed to authenticate provider package",
                                     f"The SHA256SUMS document of {what} does not list {meta.filename} with the "
                                     f"checksum the registry gave ({meta.shasum}).")
            reported: tuple[str, ...] = ()
            if self.registry_hashes and meta.packages:  # OpenTofu 1.12: the registry's packages field
                check_package(meta, sizes[0] if sizes else self._zip_size(meta, what), h1)
                reported = reported_hashes(meta, self.client.cli_config.env)
        except IntegrityError:
            for f in kept or ():
                f.unlink(missing_ok=True)
            raise
        if self.store is not None and kept:  # signed, and its checksum listed: pushed if a lock names it
            self.store.pusher.offer_provider(ProviderKey(address.host, address.namespace, address.type, version),
                                             platform, kept[0])
        info = PackageInfo(h1, signed, meta.shasum, directory, reported)
        self._remember(address, version, platform, info)
        self._place(address, version, platform, directory)
        return info

    def _zip_size(self, meta: ProviderDownload, what: str) -> int:
        """The size of the zip a cached package was unpacked from (recorded when it was
        downloaded; a package cached before sizes were recorded is downloaded again, once)."""
        key = key_of(f"{meta.provider}\n{meta.version}\n{meta.platform}\n{meta.shasum}")
        size = self.cache.read_json("provider-zip-sizes", key)
        if isinstance(size, int) and not isinstance(size, bool):
            return size
        self.counter.add("provider_package")
        archive, sha = self.fetcher.download(meta.download_url)
        try:
            if sha != meta.shasum:
                raise IntegrityError("Failed to authenticate provider package",
                                     f"The {meta.platform} package of {what} has SHA-256 {sha}, but the registry and "
                                     f"its signed checksums say {meta.shasum}.")
            size = archive.stat().st_size
        finally:
            archive.unlink(missing_ok=True)
        self.cache.write_json("provider-zip-sizes", key, size)
        return size

    def _from_field(self, address: ProviderAddress, version: str, platform: str) -> PackageInfo | None:
        """Another platform's package (``-platform``) known without downloading it, as
        OpenTofu 1.12's lock knows every platform: its ``h1:`` from the registry's
        ``packages`` field, where this machine's package was checked against the same field
        (:meth:`info` for :func:`current_platform`), the platform's answer gives the same
        field, and its signed ``SHA256SUMS`` lists its zip. None: download it as before."""
        meta = self._origin_answer(address, version, platform)
        here = current_platform()
        known = platform_hashes(meta, platform)
        if known is None:
            return None
        try:
            ours = self._answer(address, version, here)
        except (NetworkError, RegistryError):
            return None  # no package for this machine to check the field with
        if dict(ours.packages) != dict(meta.packages):
            return None
        what = f"provider {address.for_display} {version}"
        signed = self._signed_sums(meta, what)
        if known[1] not in signed or not self._lists(meta):
            return None
        checked = self.info(address, version, here)  # raises when the field does not hold for it
        if not checked.reported and not signing_required(address.host, self.client.cli_config.env):
            return None
        info = PackageInfo(known[0], signed, meta.shasum, None, checked.reported)
        self._remember(address, version, platform, info)
        return info

    def locked_platforms(self, address: ProviderAddress, version: str, hashes: tuple[str, ...]) -> list[str]:
        """The platforms (``os_arch``) whose package a lock's ``zh:`` hashes record: the
        lines of the version's signed ``SHA256SUMS`` document (verified as for a package)
        whose checksum is among ``hashes``, named ``terraform-provider-TYPE_VERSION_OS_ARCH.zip``.

        Raises:
            RegistryError, NetworkError: the registry failed.
            IntegrityError: the document's signature is wrong.
        """
        meta = self._answer(address, version, current_platform())
        self._signed_sums(meta, f"provider {address.for_display} {version}")
        with self._lock:
            document = self._documents.get(meta.shasums_url, "")
        name = re.compile(rf"terraform-provider-{re.escape(address.type)}_{re.escape(version)}_"
                          r"([a-z0-9]+)_([a-z0-9]+)\.zip")
        out = set()
        for line in document.splitlines():
            parts = line.split()
            found = name.fullmatch(parts[1]) if len(parts) == 2 else None
            if found and f"zh:{parts[0].lower()}" in hashes:
                out.add(f"{found[1]}_{found[2]}")
        return sorted(out)

    def from_registry(self, address: ProviderAddress, version: str) -> bool:
        """Whether the package comes straight from its registry (the CLI configuration's
        ``direct`` method), not from a network or filesystem mirror."""
        return self._method(address, version).kind == "direct"

    def _origin_answer(self, address: ProviderAddress, version: str, platform: str) -> ProviderDownload:
        """:meth:`_answer`, for a package the store did not give: when the registry fails
        too and the lock records the version, the error says what the store lacked or
        rejected as well (issue #57)."""
        try:
            return self._answer(address, version, platform)
        except (NetworkError, RegistryError) as e:
            key = ProviderKey(address.host, address.namespace, address.type, version)
            if self.store is None or not self.store.ledger.provider_hashes(key):
                raise
            label = provider_label(key, platform)
            raise e.adding(f"The locked package {label} could not come from the package store either: "
                           f"{self.store.ledger.why_not(label)}.") from None

    def origin_zip(self, address: ProviderAddress, version: str, platform: str) -> tuple[Path, str]:
        """The package's zip from its registry, authenticated as :meth:`info` authenticates
        it (the registry's checksum, and the signed ``SHA256SUMS`` listing it under its
        file name), in a temporary file the caller removes, with its ``zh:`` hash. For
        ``store push``: the cache keeps unpacked packages, whose zip cannot be rebuilt.

        Raises:
            RegistryError, NetworkError: the registry or the download failed.
            IntegrityError: the signature, the checksum or the listing is wrong.
        """
        meta = self._answer(address, version, platform)
        what = f"provider {address.for_display} {version}"
        signed = self._signed_sums(meta, what)
        self.counter.add("provider_package")
        archive, sha = self.fetcher.download(meta.download_url)
        if sha != meta.shasum or f"zh:{sha}" not in signed or not self._lists(meta):
            archive.unlink(missing_ok=True)
            raise IntegrityError("Failed to authenticate provider package",
                                 f"The {platform} package of {what} has SHA-256 {sha}; the registry says "
                                 f"{meta.shasum}, and its signed checksums must list it as {meta.filename}.")
        return archive, f"zh:{sha}"

    def _answer(self, address: ProviderAddress, version: str, platform: str) -> ProviderDownload:
        """The registry's package answer, asked once per run (concurrent askers wait for
        the first; a failure is not remembered)."""
        return self._answers.run((str(address), version, platform),
                                 lambda: self.client.provider_download(address, version, platform))

    def _from_mirror(self, method: InstallationMethod, address: ProviderAddress, version: str,
                     platform: str) -> PackageInfo:
        """A package from a network or filesystem mirror: checked against the hashes the
        mirror reports (``NewPackageHashAuthentication``: at least one must match), never
        signed, so only its own ``h1:`` reaches the lock (``installer.go``)."""
        what = f"provider {address.for_display} {version}"
        if self.sources is None:  # _method gives only "direct" without the CLI configuration's methods
            raise RuntimeError(f"{what}: a mirror without installation methods")
        pkg = self.sources.mirrors.package(method, address, version, platform)
        sha = ""
        if pkg.directory is not None:
            directory = pkg.directory
        else:
            shas: list[str] = []

            key = (f"provider:{method.key}:{address}", f"{version}/{platform}{UNPACKED}")

            def fill(dest: Path) -> None:
                if pkg.zip_path is not None:
                    archive, owned = pkg.zip_path, False
                    shas.append(zip_sha256(archive)[3:])
                else:
                    self.counter.add("provider_package")
                    archive, digest = self.fetcher.download(pkg.url)
                    owned = True
                    shas.append(digest)
                    # kept beside the package: a later run (or a concurrent one) that finds it
                    # unpacked still has the zip's checksum to check the mirror's hashes with
                    self.cache.write_archive_hash(key, digest)
                try:
                    extract_archive(archive, "zip", dest, self.fetcher.limits)
                finally:
                    if owned:
                        archive.unlink(missing_ok=True)

            directory = self.cache.ensure_package(*key, fill)
            recorded = self.cache.archive_hash(key) or ""
            sha = shas[0] if shas else (zip_sha256(pkg.zip_path)[3:] if pkg.zip_path is not None
                                        else recorded.removeprefix("zh:"))
        h1 = hash_dir(directory)
        if pkg.hashes and h1 not in pkg.hashes and (not sha or f"zh:{sha}" not in pkg.hashes):
            raise IntegrityError("Failed to authenticate provider package",
                                 f"The {platform} package of {what} from the network mirror {redact(method.location)} "
                                 f"matches none of the hashes the mirror reports for it (got {h1}).")
        info = PackageInfo(h1, (), sha, directory)
        self._remember(address, version, platform, info)
        self._place(address, version, platform, directory)
        return info

    # ------------------------------------------------------------------ steps

    def _lists(self, meta: ProviderDownload) -> bool:
        """The verified document has the line ``<shasum>  <filename>``."""
        with self._lock:
            doc = self._documents.get(meta.shasums_url, "")
        return any(line.split()[1:] == [meta.filename] and line.split()[0].lower() == meta.shasum
                   for line in doc.splitlines() if line.strip())

    def _signed_sums(self, meta: ProviderDownload, what: str) -> tuple[str, ...]:
        key = (str(meta.provider), meta.version, meta.shasums_url)
        return self._sums.run(key, lambda: self._signed_sums_once(meta, what))

    def _signed_sums_once(self, meta: ProviderDownload, what: str) -> tuple[str, ...]:
        if meta.signing_keys:
            with worker_pool(1, "tofu-solve-provider-sig", NETWORK) as one:
                sig = one.submit(self._get_small, meta.shasums_signature_url)
                document = self._get_small(meta.shasums_url)
                signature = sig.result()
        else:  # nothing to check a signature against: OpenTofu's rule decides (signatures.py)
            document, signature = self._get_small(meta.shasums_url), b""
        if not verify_shasums(document, signature, meta.signing_keys, what, meta.provider.host,
                              self.client.cli_config.env):
            with self._lock:
                self.unsigned.add(f"{meta.provider.for_display} {meta.version}")
        try:
            text = document.decode("utf-8")
            signed = tuple(sorted(set(zh_hashes_from_sha256sums(text))))
        except (UnicodeDecodeError, ValueError):
            raise IntegrityError("Failed to authenticate provider package",
                                 f"The SHA256SUMS document of {what} is not a checksum list.") from None
        with self._lock:
            self._documents[meta.shasums_url] = text
        return signed

    def _get_small(self, url: str) -> bytes:
        self.counter.add("provider_checksums")
        try:
            r = self.fetcher.session.get(url, stream=True, timeout=self.fetcher.timeout)
        except requests.RequestException as e:
            raise NetworkError("Failed to download provider checksums", f"{describe_failure(e)} contacting "
                               f"{redact(url)}.", url=redact(url)) from None
        body = read_document(r, self.fetcher.limits, url).content
        if r.status_code != 200:
            raise NetworkError("Failed to download provider checksums", f"{redact(url)} answered {r.status_code}.",
                               url=redact(url))
        return body

    def _fill(self, meta: ProviderDownload, dest: Path, what: str, max_bytes: int | None = None,
              keep: list[Path] | None = None, sizes: list[int] | None = None) -> None:
        """Download, check against the registry's checksum, unpack into ``dest``; the zip is
        removed, or handed to ``keep`` when given (for the package store, once verified).
        The zip's size is appended to ``sizes`` and recorded in the cache (the registry's
        ``packages`` field is checked against it: :meth:`_zip_size`)."""
        self.counter.add("provider_package")
        archive, sha = self.fetcher.download(meta.download_url, max_bytes=max_bytes)
        kept = False
        try:
            if sha != meta.shasum:
                raise IntegrityError("Failed to authenticate provider package",
                                     f"The {meta.platform} package of {what} has SHA-256 {sha}, but the registry and "
                                     f"its signed checksums say {meta.shasum}.")
            size = archive.stat().st_size
            if sizes is not None:
                sizes.append(size)
            self.cache.write_json("provider-zip-sizes",
                                  key_of(f"{meta.provider}\n{meta.version}\n{meta.platform}\n{meta.shasum}"), size)
            extract_archive(archive, "zip", dest, self.fetcher.limits)
            if keep is not None:
                keep.append(archive)
                kept = True
        finally:
            if not kept:
                archive.unlink(missing_ok=True)

    def _from_store(self, address: ProviderAddress, version: str, platform: str) -> PackageInfo | None:
        """The package from the package store, when the lock records hashes for the version
        and the store's zip matches one of its ``zh:`` hashes, or its unpacked directory
        one of its ``h1:`` hashes (issue #49); checked before anything reaches the cache.
        The lock's ``zh:`` hashes stand for the signed document (they were recorded from
        one). None: the registry is asked as without a store."""
        store = self.store
        if store is None:
            return None
        key = ProviderKey(address.host, address.namespace, address.type, version)
        got = store.reader.read_provider(key, platform)
        if got is None:
            return None
        data, zh = got
        hashes = store.ledger.provider_hashes(key)
        found: list[str] = []

        def fill(dest: Path) -> None:
            extract_archive(data, "zip", dest, self.fetcher.limits)
            h1 = hash_dir(dest)
            if zh not in hashes and h1 not in hashes:
                raise _StoreMismatch(f"its zip is {zh} and unpacks to {h1}, neither of which the lock records")
            found.append(h1)
        try:
            directory = self.cache.ensure_package(f"provider:{address}", f"{version}/{platform}{UNPACKED}", fill)
        except (_StoreMismatch, IntegrityError) as e:
            store.ledger.provider_read(key, platform, False, str(e))
            return None
        h1 = found[0] if found else hash_dir(directory)
        if zh not in hashes and h1 not in hashes:  # an entry the cache had already, for other contents
            store.ledger.provider_read(key, platform, False, f"the cached package hashes to {h1}")
            return None
        store.ledger.provider_read(key, platform, True)
        info = PackageInfo(h1, tuple(sorted(h for h in hashes if h.startswith("zh:"))), zh[3:], directory)
        self._remember(address, version, platform, info)
        self._place(address, version, platform, directory)
        return info

    # ------------------------------------------------------------------ plugin cache

    def _plugin_dir(self, address: ProviderAddress, version: str, platform: str) -> Path | None:
        if self.plugin_cache_dir is None:
            return None
        return self.plugin_cache_dir.joinpath(address.host, address.namespace, address.type, version, platform)

    def in_plugin_cache(self, address: ProviderAddress, version: str, platform: str) -> bool:
        """Whether the plugin cache (if any) already holds this package."""
        d = self._plugin_dir(address, version, platform)
        return d is not None and d.is_dir()

    def _place(self, address: ProviderAddress, version: str, platform: str, directory: Path) -> None:
        """Copy the unpacked package into the plugin cache (OpenTofu's unpacked layout),
        atomically, unless it is there already with the same contents: a directory there
        that does not hash to the package just verified (a plugin cache restored from
        somewhere, issue #80 §3) is replaced, and said in the log."""
        target = self._plugin_dir(address, version, platform)
        if target is None:
            return
        with self._lock:  # one placer of a directory at a time in this run (the plan's threads)
            placing = self._placing.setdefault(target, threading.Lock())
        with placing:
            h1 = hash_dir(directory)
            for attempt in (1, 2):
                exists = target.is_dir()
                if exists and verified_dir(target, (h1,), self.cache):
                    return
                if exists:
                    log.warning("the plugin cache's %s %s (%s) matches no hash of the package verified: replaced",
                                address, version, platform)
                try:
                    # 0755: mkdtemp's 0700 would hide it from other users of the cache; another
                    # process that placed it meanwhile wins (when there was none)
                    replace_dir(target, lambda tmp: shutil.copytree(directory, tmp, dirs_exist_ok=True, symlinks=True),
                                0o755, keep_existing=not exists)
                    return
                except OSError as e:
                    # another process replaced it meanwhile: kept when it is the package just verified, else
                    # tried once more; then the error
                    if target.is_dir() and verified_dir(target, (h1,), self.cache):
                        return
                    if attempt == 2:
                        raise ConfigurationError("Cannot write the plugin cache", f"{target}: {e.strerror or e}. "
                                                 "Check plugin_cache_dir / TF_PLUGIN_CACHE_DIR.") from None


def packages_for_run(wired: Wiring, offline: bool, plugin_cache: Path | None) -> ProviderPackages:
    """Where a run's provider packages come from (one object, so that what was read ahead
    during the solve is found by the plan after it): the run's registry client, fetcher,
    cache, counter and package store, the CLI configuration's ``plugin_cache_dir`` (else
    ``plugin_cache``), the provider sources of a ``provider_installation`` block."""
    ctx, fetcher, client = wired.context, wired.fetcher, wired.client
    return ProviderPackages(client, fetcher, fetcher.cache, wired.counter,
                            client.cli_config.plugin_cache_dir or plugin_cache, offline=offline,
                            sources=ctx.provider_source if isinstance(ctx.provider_source, ProviderSources) else None,
                            store=fetcher.store, registry_hashes=reads_registry_hashes(ctx.options.target))
