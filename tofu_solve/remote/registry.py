"""Client for the module registry protocol and the provider registry protocol.

Reference §3 (modules) and §10 (providers): service discovery at
``/.well-known/terraform.json`` (``modules.v1``, ``providers.v1``), unless a CLI-config
``host`` block names the services; ``GET <base>/<ns>/<name>/<system>/versions``;
``GET <base>/<ns>/<name>/<system>/<version>/download`` (204 + ``X-Terraform-Get``, or 200 +
``{"location": ...}``; relative locations resolved against the download URL);
``GET <providers base>/<ns>/<type>/versions``. Credentials: ``TF_TOKEN_<host>`` and CLI
config, sent as ``Authorization: Bearer``.

Discovery is always HTTPS, as in OpenTofu, except for hosts on loopback (127.0.0.0/8,
``localhost``), which use plain HTTP (Docker's rule for local registries). Requests are
retried on connection errors and 502/503/504 (urllib3 ``Retry``), with a timeout.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast
from urllib.parse import urljoin

from .._lazy import load
from .._threads import NETWORK, start_thread
from .._version import __version__
from ..addrs.module_source import DEFAULT_REGISTRY_HOST, RegistryPackage
from ..addrs.provider import ProviderAddress
from ..addrs.redact import has_secret, is_loopback_host, redact
from ..config.cliconfig import CliConfig, load_cli_config
from ..errors import ModuleNotFound, NetworkError, OfflineError, RegistryError, TofuSolveError, name_suggestion
from ..store.cache import Cache, key_of
from .flight import SingleFlight
from .limits import MAX_REDIRECTS, REQUEST_TIMEOUT, Document, Limits, describe_failure, read_document
from .ops import OpCounter, lazy_import
from .registry_lifecycle import RegistryLifecycle
from .registry_packages import PlatformPackage, parse_packages

if TYPE_CHECKING:
    import requests

    from ..settings import Settings
else:
    requests = lazy_import("requests")  # loaded on first use: no network, no import

MAX_DISCOVERY_BYTES = 1 << 20


log = logging.getLogger(__name__)


class DirectLocation(str):
    """A v1.12 "direct" download location: an http(s) URL of an archive that the client
    downloads itself (zip, tar.gz, tar.xz or tar.bz2, sniffed), with the registry's
    credentials only when ``use_registry_credentials`` was true."""

    use_registry_credentials: bool
    host: str

    def __new__(cls, url: str, use_registry_credentials: bool, host: str):
        obj = super().__new__(cls, url)
        obj.use_registry_credentials = use_registry_credentials
        obj.host = host
        return obj


def make_session(retries: int = 2) -> requests.Session:
    """A requests session with retries on connection errors and 502/503/504, created on
    first use (so that a run without network work never imports requests)."""
    def real():
        load("requests.adapters")
        from requests.adapters import HTTPAdapter
        load("urllib3.util.retry")
        from urllib3.util.retry import Retry
        s = requests.Session()
        retry = Retry(total=retries, connect=retries, read=retries, status=retries, backoff_factor=0.2,
                      status_forcelist=(502, 503, 504), allowed_methods=frozenset({"GET", "HEAD"}),
                      raise_on_status=False)
        adapter = HTTPAdapter(max_retries=retry, pool_connections=64, pool_maxsize=64)
        s.mount("http://", adapter)
        s.mount("https://", adapter)
        s.headers["User-Agent"] = f"tofu-solve/{__version__}"
        s.max_redirects = MAX_REDIRECTS  # Go's client's 10, not requests' 30 (remote/limits.py)
        return s
    return cast("requests.Session", _LazySession(real))  # the session's whole interface, created on first use


class _LazySession:
    """Stands for a ``requests.Session`` and builds it on first attribute access."""

    def __init__(self, factory):
        import threading
        self._factory = factory
        self._session = None
        self._lock = threading.Lock()

    def __getattr__(self, name):
        with self._lock:
            if self._session is None:
                self._session = self._factory()
        return getattr(self._session, name)


def open_client(settings: Settings, *, upgrade: bool = False, offline: bool = False,
                refresh_only: frozenset[str] = frozenset(), announce=None) -> RegistryClient:
    """The run's registry client with everything it holds: the cache under
    ``settings.cache_dir`` (entries filled afresh with ``upgrade``), the CLI configuration
    read from ``settings.environ``, one HTTP session (created on first use), and the run's
    network counter (``announce`` gets its progress events; it may be set later, as
    ``client.counter.announce``). ``build_context`` opens one, or takes the one the early
    start of ``init`` opened (:mod:`tofu_solve.command.early`).

    Raises:
        ConfigurationError: the CLI configuration is broken (with file and line).
    """
    return RegistryClient(load_cli_config(settings.environ, settings.reads), make_session(),
                          counter=OpCounter(announce=announce),
                          cache=Cache(settings.cache_dir, fresh=upgrade), offline=offline, refresh=upgrade,
                          limits=settings.limits, refresh_only=refresh_only)


class RegistryClient:
    """Talks to module and provider registries. Thread-safe; caches discovery and version
    lists for the life of the client (one run).

    Args:
        cli_config: services overrides and credentials.
        session: an HTTP session (default: :func:`make_session`).
        timeout: seconds per request (``TF_REGISTRY_CLIENT_TIMEOUT`` overrides; default 10).
        counter: where to count network operations.
    """

    def __init__(self, cli_config: CliConfig, session: requests.Session | None = None,
                 timeout: float | None = None, counter: OpCounter | None = None, cache=None,
                 offline: bool = False, refresh: bool = False, limits: Limits | None = None,
                 refresh_only: frozenset[str] = frozenset()):
        self.limits = limits or Limits()
        self.refresh_only = refresh_only  # provider addresses to re-list (-upgrade=NAME)
        self.cache = cache
        self.offline = offline
        self.refresh = refresh
        self.cli_config = cli_config
        self.session = session or make_session()
        env_timeout = cli_config.env.get("TF_REGISTRY_CLIENT_TIMEOUT") if cli_config.env else None
        self.timeout = timeout or (float(env_timeout) if env_timeout else REQUEST_TIMEOUT)
        self.counter = counter or OpCounter()
        self._lock = threading.Lock()
        self._services: dict[str, dict[str, str]] = {}
        self._module_versions: dict[str, list[str]] = {}
        self._provider_versions: dict[str, list[str]] = {}
        self.lifecycle = RegistryLifecycle(self)  # release times, deprecations, revocations (issue #62 §3)
        self._locations = SingleFlight(remember_errors=False)  # (package, version) -> download location, once per run
        # one request per listing and run, whoever asks first (the early start, the solver):
        # a caller that comes while it is in flight waits for it and shares its answer or error
        self._listings = SingleFlight(remember_errors=True)

    # ------------------------------------------------------------------ plumbing

    def _headers(self, host: str) -> dict[str, str]:
        h = {"Accept": "application/json", "X-Terraform-Version": __version__}
        token = self.cli_config.token(host)
        if token:
            h["Authorization"] = f"Bearer {token}"
        return h

    def get_document(self, url: str, host: str, what: str, kind: str, allow_redirects: bool = True) -> Document:
        """One GET of ``url`` on ``host`` with its credentials, counted as ``kind``, its
        answer bounded in size and time (:func:`~.limits.read_document`); ``what`` words
        the errors ("Could not {what}: ...").

        Raises:
            OfflineError: ``-offline``.
            NetworkError: the host could not be reached (the URL redacted).
        """
        if self.offline:
            raise OfflineError("Not available offline",
                               f"Could not {what}: -offline forbids contacting {host}, and the answer is not in "
                               "the cache. Run tofu-solve init once without -offline.")
        self.counter.add(kind)
        log.debug("GET %s (%s)", redact(url), kind)
        try:
            r = self.session.get(url, headers=self._headers(host), timeout=self.timeout,
                                 allow_redirects=allow_redirects, stream=True)
            doc = read_document(r, self.limits, url)  # bounded in size and in time
            log.debug("GET %s -> %d, %d bytes", redact(url), doc.status_code, len(doc.content))
            return doc
        except requests.RequestException as e:
            raise NetworkError(
                f"Failed to reach registry {host}",
                f"Could not {what}: {describe_failure(e)} contacting {redact(url)}. Check the network "
                "connection, the host name and any CLI-config host block.", url=redact(url)) from None

    def services(self, host: str) -> dict[str, str]:
        """The service URLs of ``host`` (CLI-config ``host`` block, else discovery).

        Raises:
            NetworkError: the host cannot be reached.
            RegistryError: the discovery document is missing or invalid.
        """
        with self._lock:
            if host in self._services:
                return self._services[host]
        configured = self.cli_config.services(host)
        if configured is not None:
            services = dict(configured)
            base = None
            log.debug("services of %s from the CLI configuration's host block: %s", host,
                      {k: redact(v) for k, v in services.items()})
        else:
            scheme = "http" if is_loopback_host(host) else "https"
            base = f"{scheme}://{host}/.well-known/terraform.json"
            r = self.get_document(base, host, "discover the registry's services", "discovery")
            if r.status_code != 200:
                raise RegistryError("Failed to discover registry services",
                                    f"{redact(base)} answered {r.status_code}; {host} does not look like a "
                                    "module registry.")
            if len(r.content) > MAX_DISCOVERY_BYTES:
                raise RegistryError("Failed to discover registry services", f"{redact(base)} is larger than 1 MiB.")
            try:
                services = r.json()
            except ValueError:
                raise RegistryError("Failed to discover registry services",
                                    f"{redact(base)} is not valid JSON.") from None
            if not isinstance(services, dict):
                raise RegistryError("Failed to discover registry services", f"{redact(base)} is not a JSON object.")
            base = r.url
        resolved = {}
        for k, v in services.items():
            if isinstance(v, str):
                u = urljoin(base, v) if base else v
                resolved[k] = u if u.endswith("/") else u + "/"
        with self._lock:
            self._services[host] = resolved
        return resolved

    def _service(self, host: str, service: str, kind: str) -> str:
        svc = self.services(host)
        if service not in svc:
            raise RegistryError(f"Host does not provide a {kind} registry",
                                f"{host} does not offer the {service} service.")
        return svc[service]

    # ------------------------------------------------------------------ modules

    def module_versions(self, package: RegistryPackage) -> list[str]:
        """The version strings the registry lists for ``package``, in registry order.

        Raises:
            NetworkError, RegistryError: "Module not found" on 404, and other failures.
        """
        return self._listed(self._module_versions, "module", str(package), lambda: self._list_module_versions(package))

    def _near_modules(self, package: RegistryPackage, base: str) -> list[str]:
        """The modules of ``package``'s namespace and target system whose name is near its
        name (OpenTofu's "did you mean" rule, :func:`tofu_solve.errors.name_suggestion`,
        issue #60 §4), as the registry lists a namespace (``GET <modules.v1>NAMESPACE``, which
        registry.terraform.io answers with ``modules``); empty when the registry does not list
        namespaces or cannot be reached: a suggestion never fails the run."""
        try:
            r = self.get_document(urljoin(base, f"{package.namespace}?limit=100"), package.host,
                          f"list the modules of {package.namespace}", "module_namespace")
            entries = r.json().get("modules") if r.status_code == 200 else None
        except (TofuSolveError, ValueError, AttributeError):
            return []
        names = [str(e.get("name")) for e in entries or () if isinstance(e, dict)
                 and str(e.get("provider", package.system)) == package.system and isinstance(e.get("name"), str)]
        near = name_suggestion(package.name, names)
        if near is None:
            return []
        shown = package.for_display.rsplit("/", 3)
        return ["/".join([*shown[:-3], package.namespace, near, package.system])]

    def _list_module_versions(self, package: RegistryPackage) -> list[str]:
        key = str(package)
        if self.offline and self.cache is not None:
            cached = self.cache.read_json("module-versions", key_of(key))
            if cached is not None:
                return cached
        base = self._service(package.host, "modules.v1", "module")
        url = urljoin(base, f"{package.namespace}/{package.name}/{package.system}/versions")
        r = self.get_document(url, package.host, f"list the versions of {package.for_display}", "module_versions")
        if r.status_code == 404:
            hint = (" If you believe this module is missing from the registry, please submit an issue at "
                    "https://github.com/opentofu/registry/issues") if package.host == DEFAULT_REGISTRY_HOST else ""
            near = self._near_modules(package, base)
            said = f" Did you mean {' or '.join(near)}?" if near else ""
            raise ModuleNotFound("Module not found",
                                f"Module {package.for_display} could not be found in the registry at "
                                f"{package.host}.{said}{hint}")
        if r.status_code != 200:
            raise RegistryError("Error accessing remote module registry",
                                f"error looking up module versions of {package.for_display}: {r.status_code}")
        try:
            data = r.json()
            modules = data["modules"]
            entries = modules[0]["versions"] if modules else None
            versions = [str(v["version"]) for v in entries] if entries is not None else None
        except (ValueError, KeyError, TypeError, IndexError):
            versions = None
        if versions is None:
            raise RegistryError("Invalid response from remote module registry",
                                f"The registry at {package.host} returned an invalid version list for "
                                f"{package.for_display}.")
        with self._lock:
            self._module_versions[key] = versions
        self.lifecycle.keep_release_times("module", key, entries)
        self.lifecycle.keep_deprecations(key, entries)
        if self.cache is not None:
            self.cache.write_json("module-versions", key_of(key), versions)
        return versions

    def cached_module_versions(self, package: RegistryPackage) -> list[str] | None:
        """The version list this run or an earlier one read for ``package`` (memory, then
        the on-disk cache), or None; never touches the network."""
        key = str(package)
        with self._lock:
            if key in self._module_versions:
                return self._module_versions[key]
        if self.cache is None:
            return None
        cached = self.cache.read_json("module-versions", key_of(key))
        return cached if isinstance(cached, list) and all(isinstance(v, str) for v in cached) else None

    def module_versions_listed_at(self, package: RegistryPackage) -> float | None:
        """When the version list :meth:`cached_module_versions` gives was read from the
        registry (seconds since the epoch), or None when unknown."""
        if self.cache is None:
            return None
        return self.cache.json_written_at("module-versions", key_of(str(package)))

    def module_location(self, package: RegistryPackage, version: str) -> str:
        """The source address the registry gives for ``package`` at ``version`` (the
        normalized go-version string, as OpenTofu requests it). Cached on disk: a version's
        location does not change (``refresh`` asks again).

        Asked once per run for each package version, however many calls (submodules) want it.

        Raises:
            NetworkError, RegistryError.
        """
        return self._locations((str(package), version), lambda: self._location_once(package, version))

    def _location_once(self, package: RegistryPackage, version: str) -> str:
        ckey = key_of(f"{package}@{version}")
        if self.cache is not None and not self.refresh:
            cached = self.cache.read_json("module-locations", ckey)
            if isinstance(cached, dict):
                return DirectLocation(cached["url"], cached["creds"], package.host)
            if cached is not None:
                return cached
        location = self._module_location(package, version)
        if self.cache is not None and not has_secret(str(location)):
            # A location that carries credentials (a pre-signed URL) stays in memory only.
            doc = {"url": str(location), "creds": location.use_registry_credentials} \
                if isinstance(location, DirectLocation) else str(location)
            self.cache.write_json("module-locations", ckey, doc)
        return location

    def auth_headers(self, host: str) -> dict[str, str]:
        """The registry credentials for a direct download that asks for them."""
        token = self.cli_config.token(host)
        return {"Authorization": f"Bearer {token}"} if token else {}

    def _module_location(self, package: RegistryPackage, version: str) -> str:
        base = self._service(package.host, "modules.v1", "module")
        url = urljoin(base, f"{package.namespace}/{package.name}/{package.system}/{version}/download")
        r = self.get_document(url, package.host, f"find the download location of {package.for_display} {version}",
                      "module_download")
        if r.status_code == 404:
            raise RegistryError("Module version not found",
                                f'module "{package.for_display}" version "{version}" not found')
        location = ""
        if r.status_code == 200:
            try:
                body = json.loads(r.content or b"{}")
            except ValueError:
                raise RegistryError("Invalid response from remote module registry",
                                    f"The download response for {package.for_display} {version} is not JSON.") from None
            if not isinstance(body, dict):
                body = {}
            if "use_registry_credentials" in body and body["use_registry_credentials"] not in (True, False):
                raise RegistryError("Invalid response from remote module registry",
                                    '"use_registry_credentials" must be true or false.')
            location = body.get("location") or ""
            if "use_registry_credentials" in body:
                # v1.12 direct mode: an http(s) URL, maybe relative, that OpenTofu downloads itself
                location = urljoin(r.url, location)
                if not location.startswith(("http://", "https://")) or "#" in location:
                    raise RegistryError("Invalid response from remote module registry",
                                        f"The direct download location for {package.for_display} {version} must be "
                                        "an http(s) URL without a fragment.")
                return DirectLocation(location, bool(body["use_registry_credentials"]), package.host)
        elif r.status_code != 204:
            raise RegistryError("Error accessing remote module registry",
                                f"error getting download location for {package.for_display} {version}: "
                                f"{r.status_code}")
        if not location:
            location = r.headers.get("X-Terraform-Get", "")
        if not location:
            raise RegistryError("Invalid response from remote module registry",
                                f"failed to get download URL for {package.for_display} {version}: no location "
                                "in the response body or the X-Terraform-Get header")
        if location.startswith(("/", "./", "../")):
            location = urljoin(r.url, location)
        return location

    # ------------------------------------------------------------------ providers

    def provider_versions(self, provider: ProviderAddress) -> list[str]:
        """The versions the provider registry lists (registry order). The last listing is
        kept on disk and reused unless ``refresh`` (``-upgrade``), as a lock would be.

        Raises:
            NetworkError, RegistryError ("Provider not found" on 404).
        """
        return self._listed(self._provider_versions, "provider", str(provider),
                            lambda: self._list_provider_versions(provider))

    def provider_repository_known(self, provider: ProviderAddress) -> bool:
        """Whether the cache already holds the registry's answer for the provider's
        repository (a repository, or that the registry names none)."""
        if self.cache is None:
            return False
        return isinstance(self.cache.read_json("provider-repository", key_of(str(provider))), dict)

    def provider_repository(self, provider: ProviderAddress, ask: bool = True) -> str | None:
        """The source repository the registry names for a provider (``https://github.com/
        hashicorp/terraform-provider-aws``), as registry.terraform.io's ``GET /v1/providers/
        NAMESPACE/TYPE`` answers it in ``source`` and Renovate reads it: the identity advisory
        databases key provider advisories on (issue #60 §3). Kept in the cache once asked, so
        that ``list`` stays offline; ``ask=False`` reads only the cache. None when the registry
        does not say (OpenTofu's registry has no such endpoint), or cannot be reached: this
        is a record for the SBOM, never a reason to fail a run."""
        key = str(provider)
        cached = self.cache.read_json("provider-repository", key_of(key)) if self.cache is not None else None
        if isinstance(cached, dict):
            source = cached.get("source")
            return source if isinstance(source, str) else None
        if not ask or self.offline:
            return None
        try:
            base = self._service(provider.host, "providers.v1", "provider")
            r = self.get_document(urljoin(base, f"{provider.namespace}/{provider.type}"), provider.host,
                          f"read the details of provider {provider.for_display}", "provider_details")
        except TofuSolveError as e:
            log.debug("provider details of %s not read: %s", key, e.summary)
            return None
        source = None
        if r.status_code == 200:
            try:
                given = r.json().get("source")
            except (ValueError, AttributeError):
                given = None
            if isinstance(given, str) and given.startswith("https://") and len(given) < 512:
                source = redact(given)
        elif r.status_code != 404:
            return None  # a registry fault: asked again by the next run
        if self.cache is not None:
            self.cache.write_json("provider-repository", key_of(key), {"source": source})
        return source

    def _listed(self, kept: dict[str, list[str]], kind: str, key: str, fn: Callable[[], list[str]]) -> list[str]:
        """The listing ``kept`` holds for ``key``, else ``fn()``, asked once per run however
        many callers ask at the same time (single flight)."""
        with self._lock:
            if key in kept:
                return kept[key]
        return self._listings.run((kind, key), fn)

    def _list_provider_versions(self, provider: ProviderAddress) -> list[str]:
        key = str(provider)
        if self.cache is not None and (self.offline or not (self.refresh or key in self.refresh_only)):
            cached = self.cache.read_json("provider-versions", key_of(key))
            if cached is not None:
                with self._lock:
                    self._provider_versions[key] = cached
                return cached
        base = self._service(provider.host, "providers.v1", "provider")
        url = urljoin(base, f"{provider.namespace}/{provider.type}/versions")
        r = self.get_document(url, provider.host, f"list the versions of provider {provider.for_display}",
                      "provider_versions")
        if r.status_code == 404:
            raise RegistryError("Provider not found",
                                f"provider {provider.for_display} was not found in the registry at {provider.host}")
        if r.status_code in (401, 403):
            raise RegistryError("Unauthorized", f"the registry at {provider.host} refused the credentials given")
        if r.status_code != 200:
            raise RegistryError("Error accessing provider registry",
                                f"error listing versions of {provider.for_display}: {r.status_code}")
        try:
            entries = r.json()["versions"]
            versions = [str(v["version"]) for v in entries]
        except (ValueError, KeyError, TypeError):
            raise RegistryError("Invalid response from provider registry",
                                f"The version list of {provider.for_display} is not valid.") from None
        self.lifecycle.keep_release_times("provider", key, entries)
        with self._lock:
            self._provider_versions[key] = versions
        if self.cache is not None:
            self.cache.write_json("provider-versions", key_of(key), versions)
        return versions

    def relist(self, provider: ProviderAddress) -> list[str]:
        """:meth:`provider_versions` asked of the registry again, not of the cache (a lock
        names a version the cached listing predates). Raises as :meth:`provider_versions`."""
        key = str(provider)
        with self._lock:
            self._provider_versions.pop(key, None)
            self.refresh_only = self.refresh_only | {key}
        return self._list_provider_versions(provider)  # past the run's first answer, kept in the flight

    def provider_download(self, provider: ProviderAddress, version: str, platform: str) -> ProviderDownload:
        """What the provider registry says about one package: ``GET <providers.v1>
        <ns>/<type>/<version>/download/<os>/<arch>`` (OpenTofu's ``registry_client.go``
        ``PackageMeta``). Relative URLs are resolved against the answer's URL and must be
        http(s).

        Raises:
            RegistryError: 404 ("does not have a package available for <platform>"), a
                refused token, an answer missing a required field, or a malformed
                ``packages`` field (:func:`.registry_packages.parse_packages`).
            NetworkError: the registry cannot be reached.
        """
        os_, _, arch = platform.partition("_")
        base = self._service(provider.host, "providers.v1", "provider")
        url = urljoin(base, f"{provider.namespace}/{provider.type}/{version}/download/{os_}/{arch}")
        what = f"find the {platform} package of provider {provider.for_display} {version}"
        r = self.get_document(url, provider.host, what, "provider_download")
        if r.status_code == 404:
            raise RegistryError("Provider package not available",
                                f"Provider {provider.for_display} v{version} does not have a package available for "
                                f"the platform {platform}.")
        if r.status_code in (401, 403):
            raise RegistryError("Unauthorized", f"the registry at {provider.host} refused the credentials given")
        if r.status_code != 200:
            raise RegistryError("Error accessing provider registry", f"Could not {what}: {r.status_code}")
        try:
            body = json.loads(r.content)
            keys = body.get("signing_keys") or {}
            armors = tuple(str(k["ascii_armor"]) for k in (keys.get("gpg_public_keys") or []))
            fields = {k: str(body[k]) for k in ("filename", "download_url", "shasums_url", "shasums_signature_url",
                                                 "shasum")}
            protocols = tuple(str(p) for p in body.get("protocols") or ())
            packages = parse_packages(body, f"{provider.for_display} {version} ({platform})")
        except (ValueError, KeyError, TypeError, AttributeError):
            raise RegistryError("Invalid response from provider registry",
                                f"The package answer for {provider.for_display} {version} ({platform}) is not "
                                "valid.") from None
        for k in ("download_url", "shasums_url", "shasums_signature_url"):
            fields[k] = urljoin(r.url, fields[k])
            if not fields[k].startswith(("http://", "https://")):
                raise RegistryError("Invalid response from provider registry",
                                    f"The {k} for {provider.for_display} {version} must be an http(s) URL.")
        if len(fields["shasum"]) != 64 or any(c not in "0123456789abcdef" for c in fields["shasum"].lower()):
            raise RegistryError("Invalid response from provider registry",
                                f"The shasum for {provider.for_display} {version} is not a SHA-256 digest.")
        if "/" in fields["filename"] or "\\" in fields["filename"] or fields["filename"] in ("", ".", ".."):
            raise RegistryError("Invalid response from provider registry",
                                f"The filename {fields['filename']!r} for {provider.for_display} {version} is "
                                "not a plain file name.")
        return ProviderDownload(provider, version, platform, fields["filename"], fields["download_url"],
                                fields["shasums_url"], fields["shasums_signature_url"], fields["shasum"].lower(),
                                armors, protocols, packages)


@dataclass(frozen=True)
class ProviderDownload:
    """One provider package as its registry describes it.

    Attributes:
        provider, version, platform: which package (``platform`` is ``os_arch``).
        filename: the zip's name, as listed in the SHA256SUMS document.
        download_url, shasums_url, shasums_signature_url: absolute http(s) URLs.
        shasum: the zip's SHA-256, lowercase hex.
        signing_keys: ASCII-armored OpenPGP public keys that may have signed the sums.
        protocols: plugin protocol versions (``"5.0"``).
        packages: every platform's hashes and size, where the registry gives them
            (OpenTofu 1.12's ``packages`` field, :mod:`.registry_packages`); ``{}`` otherwise.
    """

    provider: ProviderAddress
    version: str
    platform: str
    filename: str
    download_url: str
    shasums_url: str
    shasums_signature_url: str
    shasum: str
    signing_keys: tuple[str, ...]
    protocols: tuple[str, ...]
    packages: Mapping[str, PlatformPackage] = field(default_factory=dict, hash=False, compare=False)


REPOSITORY_THREADS = 4
"""How many providers' repositories are asked at once (daemon threads: never waited for)."""


def ask_provider_repositories(client: RegistryClient, addresses: Iterable[ProviderAddress]) -> tuple:
    """Ask the registry, once per provider and machine, which repository each provider is
    built from (:meth:`RegistryClient.provider_repository`), so that ``list
    -format=cyclonedx|spdx`` can name its Go module offline: on daemon threads (at most
    :data:`REPOSITORY_THREADS`) that the run never waits for, the cache written as each
    answers (atomically); unasked or unanswered ones are asked by the next run. Never fails
    the run, never delays its lock or install (issue #72 §1). Returns the threads (none
    offline, or when the cache knows every one)."""
    if client.offline:
        return ()
    wanted = [a for a in addresses if not (a.is_builtin or a.is_legacy) and not client.provider_repository_known(a)]

    def ask(chunk) -> None:
        for a in chunk:
            client.provider_repository(a)

    return tuple(start_thread(ask, f"tofu-solve-provider-repository_{i}", (wanted[i::REPOSITORY_THREADS],),
                              needs=NETWORK) for i in range(min(REPOSITORY_THREADS, len(wanted))))
