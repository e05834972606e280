"""Real servers for the fixture world, on 127.0.0.1 only: an HTTP module + provider registry
(the registry protocols of reference §3 and §10) and ``git daemon``.

``running_world(world, tmp)`` starts both, writes a CLI config file pointing
``registry.opentofu.org`` and ``registry.terraform.io`` at the registry, and stops both on exit.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from ..errors import TofuSolveError
from .build import World
from .provider_files import PLATFORMS, ProviderFiles, package_name, shasums_name

LOOPBACK = "127.0.0.1"
OPENTOFU_PREFIX = "/opentofu-registry"
"""The path under which the registry serves registry.opentofu.org's provider protocol
(:func:`write_cli_config`); requests are logged without it."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


@dataclass
class RegistryLog:
    """What the registry served: one entry per request (method, path, status)."""

    requests: list = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, entry) -> None:
        with self.lock:
            self.requests.append(entry)

    def count(self, kind: str | None = None) -> int:
        with self.lock:
            return sum(1 for r in self.requests if kind is None or r[0] == kind)

    def clear(self) -> None:
        with self.lock:
            self.requests.clear()


class _Server(ThreadingHTTPServer):
    """socketserver listens with a backlog of 5: a client's first wave of simultaneous
    requests (eight version listings at once) lost its sixth connection and more to a SYN
    retransmitted a second later, a delay no real registry adds (seen in the benchmarks'
    timelines, issue #23)."""

    request_queue_size = 128


class RegistryServer:
    """An HTTP module and provider registry serving ``world``.

    Args:
        world: the built world.
        git_base: how download locations reach the repositories: ``None`` for ``file://``
            paths, or a ``git://127.0.0.1:PORT/`` base URL (``git daemon``).
        download_style: ``"header"`` (204 + ``X-Terraform-Get``), ``"json"`` (200 +
            ``{"location": ...}``; both the classic indirect mode), or ``"direct"`` (v1.12:
            ``{"location": "/archives/...", "use_registry_credentials": true}``, the archive a zip
            made from the tag, at a relative URL without extension).
        token: when set, every request must carry ``Authorization: Bearer <token>``.
        extra_modules: additional registry entries (address -> {"versions": {v: location},
            optionally "dates": {v: RFC 3339 release time} and "discovered": {v: RFC 3339
            time}, the OpenTofu registry's own record, served as ``discovered``}).

    Version listings carry each version's release time as ``published_at`` (RFC 3339) where
    the world knows it: the module and provider registry protocols define no such field,
    and tofu-solve reads it where a registry adds it (issue #25).
        signing_keys: list the world's key in provider download answers (False: none, as some
            providers on the main OpenTofu registry have none).
        hcp: answer as HCP Terraform's private registry does (issue #62 §3): discovery lists
            ``tfe.v2``; every module versions listing carries ``deprecation`` (an object or
            null) per version, from :attr:`deprecations`; the v2 API answers
            ``GET /api/v2/organizations/ORG/registry-modules/private/ORG/NAME/PROVIDER``
            (``revoked-versions``) and ``…/version?module_version=V`` (``revocation``), from
            :attr:`revocations`. Both mappings are address -> version -> ``{reason, link}``
            or ``{message, link}``, and may be changed while the server runs.
    """

    def __init__(self, world: World | None, git_base: str | None = None, download_style: str = "header",
                 token: str | None = None, extra_modules: dict | None = None, signing_keys: bool = True,
                 hcp: bool = False):
        self.signing_keys = signing_keys
        self.hcp = hcp
        self.deprecations: dict[str, dict[str, dict]] = {}
        self.revocations: dict[str, dict[str, dict]] = {}
        self.revocation_delay = 0.0  # seconds before each version's revocation is answered
        self.details_delay = 0.0  # seconds before a provider's details (its source repository) are answered
        self.provider_sources: dict[str, str] = {}  # address -> the source repository its details name
        # (address, version, packages) -> the packages field registry.opentofu.org's answers carry
        self.packages_edit: Callable[[str, str, dict], dict] | None = None
        self.world = world
        self.provider_files = ProviderFiles(world.root) if world is not None else None
        self.git_base = git_base
        self.download_style = download_style
        self.token = token
        self.extra = extra_modules or {}
        self.log = RegistryLog()
        self.down = False
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the registry server is not running")
        return int(self._httpd.server_address[1])

    @property
    def built(self) -> World:
        """The world served (a server started with none serves only ``extra_modules``)."""
        if self.world is None:
            raise RuntimeError("this registry server serves no built world")
        return self.world

    @property
    def files(self) -> ProviderFiles:
        if self.provider_files is None:
            raise RuntimeError("this registry server serves no built world")
        return self.provider_files

    def location(self, repo: str, tag: str) -> str:
        if self.git_base:
            return f"git::{self.git_base.rstrip('/')}/{repo}.git?ref={tag}"
        return f"git::file://{self.built.repo_path(repo)}?ref={tag}"

    def start(self, port: int = 0) -> RegistryServer:
        """Listen on 127.0.0.1:``port`` (0: any free port). Raises OSError when it is taken."""
        self._httpd = _Server((LOOPBACK, port), _RegistryHandler)
        self._httpd.owner = self  # type: ignore[attr-defined]  # what the handler serves
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class _RegistryHandler(BaseHTTPRequestHandler):
    """The module and provider registry protocols, the archives and the provider files that
    :class:`RegistryServer` serves."""

    protocol_version = "HTTP/1.1"

    @property
    def owner(self) -> RegistryServer:
        return self.server.owner  # type: ignore[attr-defined]  # set by RegistryServer.start

    def log_message(self, *args):  # quiet
        pass

    def _send(self, status: int, body: dict | None = None, headers: dict | None = None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.owner.log.add((self.command, self.path, status))

    def do_GET(self):
        # registry.opentofu.org's services are under this prefix (write_cli_config): the one
        # host whose provider download answers carry OpenTofu 1.12's packages field
        self.opentofu_host = self.path.startswith(OPENTOFU_PREFIX + "/")
        if self.opentofu_host:
            self.path = self.path[len(OPENTOFU_PREFIX):]
        if self.owner.down:
            self._send(503, {"errors": ["registry is down"]})
            return
        public = self.path.startswith("/provider-files/")  # like a release host: no registry token
        if self.owner.token and not public and self.headers.get("Authorization") != f"Bearer {self.owner.token}":
            self._send(401, {"errors": ["unauthorized"]})
            return
        path = urlsplit(self.path).path
        parts = [p for p in path.split("/") if p]
        if path == "/.well-known/terraform.json":
            self._send(200, {"modules.v1": "/v1/modules/", "providers.v1": "/v1/providers/",
                             **({"tfe.v2": "/api/v2/"} if self.owner.hcp else {})})
        elif self.owner.hcp and parts[:3] == ["api", "v2", "organizations"] and len(parts) in (9, 10) \
                and parts[4:6] == ["registry-modules", "private"] and parts[3] == parts[6]:
            self._v2_module("/".join(parts[6:9]), parse_qs(urlsplit(self.path).query).get("module_version", [None])[0]
                            if len(parts) == 10 and parts[9] == "version" else None)
        elif parts[:2] == ["v1", "modules"] and len(parts) == 3:  # a namespace's modules (registry.terraform.io)
            self._namespace_modules(parts[2])
        elif parts[:2] == ["v1", "modules"] and len(parts) == 6 and parts[5] == "versions":
            self._module_versions("/".join(parts[2:5]))
        elif parts[:2] == ["v1", "modules"] and len(parts) == 7 and parts[6] == "download":
            self._module_download("/".join(parts[2:5]), parts[5])
        elif parts[:1] == ["archives"] and len(parts) >= 3:
            self._archive("/".join(parts[1:-1]), parts[-1])
        elif parts[:2] == ["v1", "providers"] and len(parts) == 4:  # registry.terraform.io's provider details
            self._provider_details("/".join(parts[2:4]))
        elif parts[:2] == ["v1", "providers"] and len(parts) == 5 and parts[4] == "versions":
            self._provider_versions("/".join(parts[2:4]))
        elif parts[:2] == ["v1", "providers"] and len(parts) == 8 and parts[5] == "download":
            self._provider_download("/".join(parts[2:4]), parts[4], f"{parts[6]}_{parts[7]}")
        elif parts[:1] == ["provider-files"] and len(parts) == 5:
            self._provider_file("/".join(parts[1:3]), parts[3], parts[4])
        else:
            self._send(404, {"errors": ["not found"]})

    def _namespace_modules(self, namespace: str):
        """``GET /v1/modules/NAMESPACE`` as registry.terraform.io answers it: each module of
        the namespace (``namespace``, ``name``, ``provider``)."""
        known = list(self.owner.world.modules) if self.owner.world else []
        modules = [{"namespace": a.split("/")[0], "name": a.split("/")[1], "provider": a.split("/")[2]}
                   for a in sorted(set(known) | set(self.owner.extra)) if a.split("/")[0] == namespace]
        self._send(200, {"meta": {"limit": 100, "current_offset": 0}, "modules": modules})

    def _module_versions(self, addr: str):
        entry = self.owner.extra.get(addr) or (self.owner.world.modules.get(addr) if self.owner.world else None)
        if entry is None:
            self._send(404, {"errors": ["not found"]})
            return
        dates = entry.get("dates") or (self.owner.world.module_dates.get(addr, {}) if self.owner.world else {})
        discovered = entry.get("discovered") or {}
        deprecated = self.owner.deprecations.get(addr, {})
        versions = [{"version": v, **({"published_at": dates[v]} if v in dates else {}),
                     **({"discovered": discovered[v]} if v in discovered else {}),
                     **({"deprecation": deprecated.get(v)} if self.owner.hcp else {})}
                    for v in entry["versions"]]
        self._send(200, {"modules": [{"source": addr, "versions": versions}]})

    def _v2_module(self, addr: str, version: str | None):
        """HCP's v2 API for a private registry module: its ``revoked-versions``, or one
        version's ``revocation`` (``module_version``)."""
        entry = self.owner.extra.get(addr) or (self.owner.world.modules.get(addr) if self.owner.world else None)
        if entry is None:
            self._send(404, {"errors": [{"status": "404", "title": "not found"}]})
            return
        revoked = self.owner.revocations.get(addr, {})
        org, name, provider = addr.split("/")
        if version is None:
            self._send(200, {"data": {"id": f"mod-{name}", "type": "registry-modules", "attributes": {
                "name": name, "namespace": org, "provider": provider, "registry-name": "private",
                "revoked-versions": sorted(revoked)}}})
            return
        if self.owner.revocation_delay:  # a slow registry (issue #67 §7)
            time.sleep(self.owner.revocation_delay)
        told = revoked.get(version)
        revocation = None if told is None else {"status": "revoked", **told}
        self._send(200, {"data": {"type": "registry-module-versions", "attributes": {
            "version": version, "revocation": revocation}}})

    def _module_download(self, addr: str, version: str):
        if addr in self.owner.extra:
            loc = self.owner.extra[addr]["versions"].get(version)
            if loc is None:
                loc = self.owner.extra[addr]["versions"].get("v" + version)
        else:
            entry = self.owner.world.modules.get(addr) if self.owner.world else None
            tag = None
            if entry:
                tag = entry["versions"].get(version) or entry["versions"].get(f"v{version}")
            loc = self.owner.location(entry["repo"], tag) if entry and tag else None
        if loc is None:
            self._send(404, {"errors": ["not found"]})
        elif self.owner.download_style == "direct" and addr not in self.owner.extra and entry is not None:
            self._send(200, {"location": f"/archives/{entry['repo']}/{tag}",
                             "use_registry_credentials": True})
        elif self.owner.download_style == "json":
            self._send(200, {"location": loc})
        else:
            self._send(204, None, {"X-Terraform-Get": loc})

    def _archive(self, repo: str, tag: str):
        import subprocess
        r = subprocess.run(["git", "--git-dir", str(self.owner.built.repo_path(repo)), "archive", "--format=zip",
                            tag], capture_output=True)
        if r.returncode != 0:
            self._send(404, {"errors": ["no such archive"]})
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/zip")
        self.send_header("Content-Length", str(len(r.stdout)))
        self.end_headers()
        self.wfile.write(r.stdout)
        self.owner.log.add((self.command, self.path, 200))

    def _provider_details(self, addr: str):
        """``GET /v1/providers/NAMESPACE/TYPE`` as registry.terraform.io answers it: the
        provider's ``source`` repository (the server's ``provider_sources`` for an address it
        names, else ``https://github.com/NAMESPACE/terraform-provider-TYPE``)."""
        if self.owner.details_delay:  # a slow endpoint the lock does not need (issue #72 §1)
            time.sleep(self.owner.details_delay)
        if not self.owner.world or addr not in self.owner.world.providers:
            self._send(404, {"errors": ["not found"]})
            return
        namespace, type_ = addr.split("/")
        source = self.owner.provider_sources.get(addr, f"https://github.com/{namespace}/terraform-provider-{type_}")
        self._send(200, {"id": addr, "namespace": namespace, "name": type_, "source": source})

    def _provider_versions(self, addr: str):
        versions = self.owner.world.providers.get(addr) if self.owner.world else None
        if versions is None:
            self._send(404, {"errors": ["not found"]})
            return
        platforms = [dict(zip(("os", "arch"), p.split("_"), strict=False)) for p in PLATFORMS]
        dates = self.owner.built.provider_dates.get(addr, {})
        body = {"versions": [{"version": v, "protocols": ["5.0"], "platforms": platforms,
                              **({"published_at": dates[v]} if v in dates else {})} for v in versions]}
        self._send(200, body)

    def _provider_download(self, addr: str, version: str, platform: str):
        versions = self.owner.world.providers.get(addr) if self.owner.world else None
        if not versions or version not in versions or platform not in PLATFORMS:
            self._send(404, {"errors": ["not found"]})
            return
        files = self.owner.files
        type_ = addr.split("/")[1]
        base = f"/provider-files/{addr}/{version}/"
        pkg = files.package(addr, version, platform)
        os_, arch = platform.split("_")
        self._send(200, {
            "protocols": ["5.0"], "os": os_, "arch": arch,
            "filename": package_name(type_, version, platform),
            "download_url": base + package_name(type_, version, platform),
            "shasums_url": base + shasums_name(type_, version),
            "shasums_signature_url": base + shasums_name(type_, version) + ".sig",
            "shasum": hashlib.sha256(pkg).hexdigest(),
            "signing_keys": {"gpg_public_keys": [{"key_id": files.key_id,
                                                  "ascii_armor": files.public_key_armor}]
                             if self.owner.signing_keys else []},
            **({"packages": self._packages(addr, version)} if self.opentofu_host else {}),
        })

    def _packages(self, addr: str, version: str) -> dict:
        """OpenTofu 1.12's ``packages`` field, as registry.opentofu.org serves it
        (``rfc/20251027-provider-registry-hashes.md``): every platform's ``zh:`` and ``h1:``
        and its zip's size; :attr:`RegistryServer.packages_edit`, when set, changes it (a
        registry that lies)."""
        files = self.owner.files
        out = {p: {"hashes": [f"zh:{hashlib.sha256(files.package(addr, version, p)).hexdigest()}",
                              files.package_h1(addr, version, p)],
                   "package_size": len(files.package(addr, version, p))} for p in PLATFORMS}
        edit = self.owner.packages_edit
        return edit(addr, version, out) if edit is not None else out

    def _provider_file(self, addr: str, version: str, name: str):
        versions = self.owner.world.providers.get(addr) if self.owner.world else None
        type_ = addr.split("/")[1]
        body = None
        if versions and version in versions:
            files = self.owner.files
            if name == shasums_name(type_, version):
                body = files.sums(addr, version).document
            elif name == shasums_name(type_, version) + ".sig":
                body = files.sums(addr, version).signature
            else:
                body = next((files.package(addr, version, p) for p in PLATFORMS
                             if name == package_name(type_, version, p)), None)
        if body is None:
            self._send(404, {"errors": ["not found"]})
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.owner.log.add((self.command, self.path, 200))


class GitDaemon:
    """``git daemon`` serving a directory of bare repositories on 127.0.0.1."""

    def __init__(self, base: Path, port: int = 0):
        self.base = Path(base)
        self.wanted = port  # 0: any free port
        self.port = 0
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"git://{LOOPBACK}:{self.port}/"

    def start(self) -> GitDaemon:
        if shutil.which("git") is None:
            raise TofuSolveError("git not found", "git daemon needs git on PATH.")
        for _ in range(1 if self.wanted else 5):
            self.port = self.wanted or _free_port()
            self.proc = subprocess.Popen(
                ["git", "daemon", f"--base-path={self.base}", "--export-all", "--reuseaddr",
                 f"--listen={LOOPBACK}", f"--port={self.port}", "--informative-errors", str(self.base)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                with contextlib.suppress(OSError), socket.create_connection((LOOPBACK, self.port), 0.2):
                    return self
                time.sleep(0.05)
            self.stop()
        raise TofuSolveError("git daemon did not start", f"No git daemon listening on {LOOPBACK}"
                             + (f":{self.wanted} (is the port taken?)." if self.wanted else "."))

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def write_cli_config(path: Path, registry_url: str, hosts=("registry.opentofu.org", "registry.terraform.io"),
                     token: str | None = None, hcp: bool = False) -> Path:
    """A CLI config (``TF_CLI_CONFIG_FILE``) whose ``host`` blocks point ``hosts`` at the
    registry on loopback (``hcp``: with the ``tfe.v2`` service HCP Terraform's discovery lists)."""
    lines = []
    for h in hosts:
        # the OpenTofu registry's providers under a prefix of their own: its answers carry
        # OpenTofu 1.12's packages field, registry.terraform.io's do not
        providers = f"{registry_url}{OPENTOFU_PREFIX if h == 'registry.opentofu.org' else ''}/v1/providers/"
        lines += [f'host "{h}" {{', "  services = {",
                  f'    "modules.v1"   = "{registry_url}/v1/modules/",',
                  f'    "providers.v1" = "{providers}",',
                  *([f'    "tfe.v2"       = "{registry_url}/api/v2/",'] if hcp else []), "  }", "}", ""]
        if token:
            lines += [f'credentials "{h}" {{', f'  token = "{token}"', "}", ""]
    path.write_text("\n".join(lines))
    return path


@dataclass
class RunningWorld:
    """A world with its servers up; ``cli_config`` points tofu-solve at them."""

    world: World
    registry: RegistryServer
    git: GitDaemon | None
    cli_config: Path

    def env(self, cache_dir: Path | None = None) -> dict[str, str]:
        """Environment variables for a tofu-solve run against this world."""
        env = {"TF_CLI_CONFIG_FILE": str(self.cli_config)}
        if cache_dir is not None:
            env["TOFU_SOLVE_CACHE_DIR"] = str(cache_dir)
        return env


@contextlib.contextmanager
def running_world(world: World, tmp: Path, *, use_git_daemon: bool = True, download_style: str = "header",
                  ports: tuple[int, int] = (0, 0)):
    """Start the registry (and ``git daemon``), yield a :class:`RunningWorld`, stop both.
    ``ports``: the registry's and the git daemon's (0: any free one).

    Raises: TofuSolveError (git missing, the daemon did not start, the registry's port is
    taken)."""
    git = GitDaemon(world.git_dir, ports[1]).start() if use_git_daemon else None
    reg = RegistryServer(world, git.url if git else None, download_style)
    try:
        try:
            reg.start(ports[0])
        except OSError as e:
            raise TofuSolveError("Port in use", f"The fixture registry cannot listen on {LOOPBACK}:{ports[0]} "
                                 f"({e.strerror or e}): stop what uses it, or choose another -port.") from None
        cfg = write_cli_config(Path(tmp) / "tofu-solve-world.tfrc", reg.url)
        yield RunningWorld(world, reg, git, cfg)
    finally:
        reg.stop()
        if git:
            git.stop()
