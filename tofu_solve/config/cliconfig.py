"""OpenTofu's CLI configuration, as far as registries are concerned.

Found as OpenTofu finds it: ``TF_CLI_CONFIG_FILE``, else ``~/.tofurc``, else
``~/.terraformrc``. Read: ``host "NAME" { services = { "modules.v1" = URL, ... } }``
(overrides service discovery for NAME; how tests, private registries and mirrors point at
``http://127.0.0.1:PORT``) and ``credentials "NAME" { token = "..." }``. Tokens also come
from ``TF_TOKEN_<host>`` environment variables (highest precedence; ``__`` is ``-`` and
``_`` is ``.`` in the host name) and ``~/.terraform.d/credentials.tfrc.json``.
Source: OpenTofu ``internal/command/cliconfig`` (reference §3).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..addrs.hosts import normalize as normalize_host
from ..addrs.module_source import DEFAULT_REGISTRY_HOST, ModuleSource, RegistryPackage, RegistrySource
from ..addrs.provider import DEFAULT_PROVIDER_HOST, ProviderAddress
from ..addrs.redact import is_loopback_host, redact
from ..errors import ConfigurationError
from ..settings import ReadLog
from . import hcl


def _normalize_host(host: str) -> str:
    """A label's host as addresses compare it (:func:`tofu_solve.addrs.hosts.normalize`); a
    label that is not a valid host is kept lower-cased, so that it simply matches nothing."""
    h = normalize_host(host)
    if h is not None:
        return h
    h = host.lower()
    return h[:-4] if h.endswith(":443") else h


@dataclass(frozen=True)
class CliConfig:
    """Registry-related CLI configuration.

    Attributes:
        hosts: host name -> {service id -> URL} (``host`` blocks).
        tokens: host name -> token (``credentials`` blocks and the credentials file).
        env: the environment to read ``TF_TOKEN_*`` from.
        path: the file read (None when there was none).
        plugin_cache_dir: where ``tofu init`` looks for provider packages first
            (``TF_PLUGIN_CACHE_DIR``, else the file's ``plugin_cache_dir``), or None.
        warnings: problems OpenTofu reports as warnings and goes on (a missing
            ``TF_CLI_CONFIG_FILE``: ``internal/command/cliconfig/cliconfig.go``).
        provider_installation: the ``provider_installation`` block's methods
            (:mod:`tofu_solve.remote.provider_sources`), or None without one.
        min_age: tofu-solve's own ``tofu_solve_min_age = "7d"`` (the release cooldown,
            issue #25; OpenTofu and Terraform ignore attributes they do not know) as
            (value, "FILE line N"), or None.
        module_installation: the ``module_installation`` block of OpenTofu's module-cooldown
            RFC (its ``direct`` method's cooldown), or None without one.
        oci_credentials: OpenTofu's ``oci_credentials "DOMAIN[/PATH]"`` blocks
            (``internal/command/cliconfig/oci_credentials.go``): label -> (username, password),
            or label -> ("", helper) for ``docker_credentials_helper = "NAME"``; they come
            before any Docker-style file (the most specific label wins).
    """

    hosts: dict[str, dict[str, str]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    path: Path | None = None
    plugin_cache_dir: Path | None = None
    warnings: tuple[str, ...] = ()
    provider_installation: tuple | None = None  # InstallationMethod, in order; None: direct only
    min_age: tuple[str, str] | None = None
    module_installation: ModuleInstallation | None = None
    oci_credentials: dict[str, tuple[str, str]] = field(default_factory=dict, repr=False)

    def services(self, host: str) -> dict[str, str] | None:
        return self.hosts.get(_normalize_host(host))

    def token(self, host: str) -> str | None:
        """The bearer token for ``host``: ``TF_TOKEN_*`` first, then CLI config."""
        want = _normalize_host(host)
        for key, value in self.env.items():
            if key.startswith("TF_TOKEN_") and value:
                name = key[len("TF_TOKEN_"):].replace("__", "\0").replace("_", ".").replace("\0", "-")
                if _normalize_host(name) == want:
                    return value
        return self.tokens.get(want)


def find_cli_config_file(env: Mapping[str, str]) -> Path | None:
    explicit = env.get("TF_CLI_CONFIG_FILE") or env.get("TERRAFORM_CONFIG")  # the older name, still honoured
    if explicit:
        return Path(explicit)
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    for name in (".tofurc", ".terraformrc"):
        if (home / name).is_file():
            return home / name
    return None


def _read_file(path: Path, hosts: dict[str, dict[str, str]], tokens: dict[str, str],
               oci: dict[str, tuple[str, str]] | None = None):
    """Merge one CLI configuration file's ``host`` and ``credentials`` blocks into ``hosts``
    and ``tokens``; return its ``plugin_cache_dir``, its ``provider_installation`` methods,
    its ``tofu_solve_min_age`` as (value, "FILE line N") and its ``module_installation``
    (each None when the file sets none).

    Raises:
        ConfigurationError: unreadable or not valid HCL (with line); a malformed
            ``provider_installation`` or ``module_installation`` block.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigurationError("Failed to read CLI configuration",
                                 f"{path} could not be read ({getattr(e, 'strerror', None) or e}).") from None
    body = hcl.parse_lazily(text, str(path))
    hcl.force(body)  # every argument: a syntax error anywhere is this file's (no parser for plain values)
    plugin_cache = None
    methods = None
    min_age = None
    installs = body.blocks_of("provider_installation")
    if len(installs) > 1:
        raise ConfigurationError("Invalid provider_installation block",
                                 f"{path} line {installs[1].line}: only one provider_installation block is allowed.")
    if installs:
        methods = parse_installation_block(installs[0], str(path))
    modules = body.blocks_of("module_installation")
    if len(modules) > 1:
        raise ConfigurationError("Invalid module_installation block",
                                 f"{path} line {modules[1].line}: only one module_installation block is allowed.")
    module_installation = parse_module_installation(modules[0], str(path)) if modules else None
    a: hcl.Attribute | None  # bound afresh by each loop and branch below
    for a in body.attributes:
        if a.name == "plugin_cache_dir":
            value = literal(a)
            if isinstance(value, str) and value:
                plugin_cache = Path(os.path.expanduser(value))
        elif a.name == "tofu_solve_min_age":
            value = literal(a)
            if not isinstance(value, str):
                raise ConfigurationError("Invalid tofu_solve_min_age",
                                         f'{path} line {a.line}: tofu_solve_min_age must be a string, such as "7d".')
            min_age = (value, f"{path} line {a.line}")
    for block in body.blocks:
        if block.type == "host" and len(block.labels) == 1:
            services = literal(block.body.attribute("services"))
            if isinstance(services, dict):
                hosts[_normalize_host(block.labels[0])] = {str(k): str(v) for k, v in services.items()}
        elif block.type == "oci_credentials" and len(block.labels) == 1 and oci is not None:
            user, password, helper = (literal(block.body.attribute(n)) for n in
                                      ("username", "password", "docker_credentials_helper"))
            if isinstance(user, str) and isinstance(password, str):
                oci[block.labels[0].lower()] = (user, password)
            elif isinstance(helper, str) and helper:
                oci[block.labels[0].lower()] = ("", helper)
            else:
                raise ConfigurationError("Invalid oci_credentials block",
                                         f"{path} line {block.line}: an oci_credentials block sets username and "
                                         "password, or docker_credentials_helper.")
        elif block.type == "credentials" and len(block.labels) == 1:
            a = block.body.attribute("token")
            if a is not None:
                try:
                    tokens[_normalize_host(block.labels[0])] = str(a.expr.literal())
                except hcl.NotLiteral:
                    pass
    return plugin_cache, methods, min_age, module_installation


def load_cli_config(env: Mapping[str, str], reads: ReadLog | None = None) -> CliConfig:
    """Read the CLI configuration for the environment ``env`` (a run's
    :attr:`tofu_solve.settings.Settings.environ`); every file read or looked for, and the
    directory whose ``*.tfrc`` files are merged, is registered in ``reads`` (issue #47 §2).

    Raises:
        ConfigurationError: the file named by ``TF_CLI_CONFIG_FILE`` is missing, or the file
            is not valid HCL (with line).
    """
    env = dict(env)
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if reads is not None:
        explicit = env.get("TF_CLI_CONFIG_FILE") or env.get("TERRAFORM_CONFIG")
        reads.saw(*([explicit] if explicit else [home / ".tofurc", home / ".terraformrc"]),
                  home / ".terraform.d" / "credentials.tfrc.json")
        if not explicit:
            reads.listed(home / ".terraform.d")
    path = find_cli_config_file(env)
    hosts: dict[str, dict[str, str]] = {}
    tokens: dict[str, str] = {}
    plugin_cache: Path | None = None
    warnings: list[str] = []
    if path is not None and (env.get("TF_CLI_CONFIG_FILE") or env.get("TERRAFORM_CONFIG")) and not path.exists():
        # OpenTofu: "Unable to open CLI configuration file", a warning; defaults apply.
        warnings.append(f'Unable to open CLI configuration file: the CLI configuration file at "{path}" does not '
                        "exist. Going on with the defaults.")
        path = None
    files = [path] if path is not None else []
    if not (env.get("TF_CLI_CONFIG_FILE") or env.get("TERRAFORM_CONFIG")):
        # Without an explicit file, OpenTofu also merges the *.tfrc files of the CLI
        # config directory (cliconfig.go LoadConfig, loadConfigDir).
        try:
            files += sorted(p for p in (home / ".terraform.d").glob("*.tfrc") if p.is_file())
        except OSError:
            pass
    installation = None
    min_age = None
    module_installation = None
    oci: dict[str, tuple[str, str]] = {}
    for f in files:
        cache_dir, methods, age, modules = _read_file(f, hosts, tokens, oci)
        plugin_cache = cache_dir or plugin_cache
        installation = methods if methods is not None else installation
        min_age = age or min_age
        module_installation = modules or module_installation
    if min_age is not None and module_installation is not None and module_installation.cooldown_period:
        raise ConfigurationError(
            "Two release cooldowns configured",
            f"The CLI configuration sets tofu_solve_min_age ({min_age[1]}) and a module_installation "
            f"cooldown_period ({module_installation.where}). Keep one: module_installation is OpenTofu's own "
            "syntax (modules only, with include and exclude); tofu_solve_min_age also covers providers.")
    creds = home / ".terraform.d" / "credentials.tfrc.json"
    if creds.is_file():
        try:
            data = json.loads(creds.read_text())
            for host, c in (data.get("credentials") or {}).items():
                if isinstance(c, dict) and c.get("token"):
                    tokens.setdefault(_normalize_host(host), str(c["token"]))
        except (OSError, ValueError):
            pass
    if env.get("TF_PLUGIN_CACHE_DIR"):
        plugin_cache = Path(os.path.expanduser(env["TF_PLUGIN_CACHE_DIR"]))
    return CliConfig(hosts, tokens, env, path, plugin_cache, tuple(warnings), installation, min_age,
                     module_installation, oci)


def literal(a: hcl.Attribute | None) -> Any:
    """The constant value of an argument, or None when it is absent or not a constant."""
    if a is None:
        return None
    try:
        return a.expr.literal()
    except hcl.NotLiteral:
        return None


def _strings(b: hcl.Block, name: str, summary: str, path: str) -> tuple[str, ...]:
    """The list of strings argument ``name`` of block ``b`` (``include``, ``exclude``) in the
    file ``path``; () when absent.

    Raises:
        ConfigurationError: ``summary``, naming the file and the argument's line, when the
            value is not a list of strings.
    """
    a = b.body.attribute(name)
    if a is None:
        return ()
    v = literal(a)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ConfigurationError(summary, f"{path} line {a.line}: {b.type} {name} must be a list of strings.")
    return tuple(v)


# ------------------------------------------------------------------ module_installation
# OpenTofu's module-cooldown RFC (opentofu/opentofu PR #4444, rfc/20260807-module-dependency-
# cooldown.md): a CLI configuration block beside provider_installation,
#
#     module_installation {
#       direct {
#         cooldown_period = "7d"
#         include         = ["registry.opentofu.org/*/*/*"]
#         exclude         = ["registry.opentofu.org/acme/*/*"]
#       }
#     }


@dataclass(frozen=True)
class ModulePattern:
    """``HOST/NAMESPACE/NAME/SYSTEM`` with ``*`` for any part (``NAMESPACE/NAME/SYSTEM``: the
    default registry host), matched against registry module packages: the RFC's four-segment
    patterns, in the style of ``provider_installation``'s three-segment ones."""

    host: str
    namespace: str
    name: str
    system: str

    @classmethod
    def parse(cls, text: str, where: str) -> ModulePattern:
        """Raises ConfigurationError naming ``where`` for a malformed pattern."""
        parts = text.lower().split("/")
        if len(parts) == 3:
            parts = [DEFAULT_REGISTRY_HOST] + parts
        host = parts[0] if len(parts) == 4 and parts[0] == "*" else (normalize_host(parts[0]) if len(parts) == 4
                                                                      else None)
        if len(parts) != 4 or host is None or any(not p for p in parts):
            raise ConfigurationError("Invalid module_installation pattern",
                                     f'{where}: "{text}" is not a module pattern: write HOST/NAMESPACE/NAME/SYSTEM '
                                     "or NAMESPACE/NAME/SYSTEM, with * for any part.")
        return cls(host, parts[1], parts[2], parts[3])

    def matches(self, p: RegistryPackage) -> bool:
        return all(want in ("*", got.lower()) for want, got in (
            (self.host, p.host), (self.namespace, p.namespace), (self.name, p.name), (self.system, p.system)))


@dataclass(frozen=True)
class ModuleInstallation:
    """The ``direct`` method of a ``module_installation`` block.

    Attributes:
        cooldown_period: the minimum age as written (``"7d"``; the RFC's units d, h, m, s,
            and tofu-solve's w); "" when the block sets none.
        include, exclude: the patterns (an empty ``include`` covers every module).
        where: "FILE line N" of the ``direct`` block, for messages.
    """

    cooldown_period: str
    include: tuple[ModulePattern, ...] = ()
    exclude: tuple[ModulePattern, ...] = ()
    where: str = ""

    def covers(self, source: ModuleSource) -> bool:
        """Whether the cooldown applies to a module call's source. A registry package is
        covered when an ``include`` pattern matches it (or there is none) and no ``exclude``
        pattern does. The RFC covers registry modules only; tofu-solve also knows the age of
        git tags and OCI tags, which have no registry address to match: they are covered
        unless ``include`` is given (then only what it names is)."""
        if isinstance(source, RegistrySource):
            p = source.package
            return (not self.include or any(m.matches(p) for m in self.include)) and \
                not any(m.matches(p) for m in self.exclude)
        return not self.include


def parse_module_installation(block, where: str) -> ModuleInstallation | None:
    """The ``module_installation`` block (an ``hcl.Block``): its ``direct`` method, or None
    when it has none.

    Raises:
        ConfigurationError: a method other than ``direct`` (the only one the RFC defines),
            two of them, an unknown argument, a ``cooldown_period`` that is not a string, or
            a malformed pattern (file and line).
    """
    direct = None
    for b in block.body.blocks:
        here = f"{where} line {b.line}"
        if b.type != "direct":
            raise ConfigurationError("Invalid module_installation block",
                                     f'{here}: unknown installation method "{b.type}" (module_installation has '
                                     "only direct).")
        if direct is not None:
            raise ConfigurationError("Invalid module_installation block",
                                     f"{here}: only one direct block is allowed.")
        for a in b.body.attributes:
            if a.name not in ("cooldown_period", "include", "exclude"):
                raise ConfigurationError("Invalid module_installation block",
                                         f'{where} line {a.line}: unknown argument "{a.name}" in direct '
                                         "(cooldown_period, include, exclude).")
        period = ""
        a = b.body.attribute("cooldown_period")
        if a is not None:
            value = literal(a)
            if not isinstance(value, str):
                raise ConfigurationError("Invalid module_installation block",
                                         f'{where} line {a.line}: cooldown_period must be a string, such as "7d".')
            period = value
        include, exclude = (tuple(ModulePattern.parse(x, here) for x in
                                  _strings(b, name, "Invalid module_installation block", where))
                            for name in ("include", "exclude"))
        direct = ModuleInstallation(period, include, exclude, here)
    return direct


# ------------------------------------------------------------------ provider_installation
# Parsed here into plain values; tofu_solve.remote.provider_sources acts on them.

@dataclass(frozen=True)
class ProviderPattern:
    """``HOST/NS/TYPE`` with ``*`` wildcards (``NS/TYPE``: the default host); ``text`` is the
    pattern as written (the hand-over writes it again as it was: the client's default host
    is its own)."""

    host: str
    namespace: str
    type: str
    text: str = field(default="", compare=False)

    @classmethod
    def parse(cls, text: str, where: str) -> ProviderPattern:
        """Raises ConfigurationError naming ``where`` for a malformed pattern."""
        parts = text.lower().split("/")
        if len(parts) == 2:
            parts = [DEFAULT_PROVIDER_HOST] + parts
        if len(parts) != 3 or any(not p for p in parts) or (parts[1] == "*" and parts[2] != "*"):
            raise ConfigurationError("Invalid provider_installation pattern",
                                     f'{where}: "{text}" is not a provider pattern: write HOST/NAMESPACE/TYPE or '
                                     "NAMESPACE/TYPE, with * for any part (a wildcard namespace needs a wildcard "
                                     "type).")
        return cls(parts[0], parts[1], parts[2], text)

    def matches(self, a: ProviderAddress) -> bool:
        return all(p in ("*", v) for p, v in ((self.host, a.host), (self.namespace, a.namespace), (self.type, a.type)))


@dataclass(frozen=True)
class InstallationMethod:
    """One method of a ``provider_installation`` block.

    Attributes:
        kind: ``direct``, ``network_mirror`` or ``filesystem_mirror``.
        location: the mirror's URL (ending in ``/``) or directory; "" for direct.
        include, exclude: the patterns (an empty ``include`` matches every provider).
    """

    kind: str
    location: str = ""
    include: tuple[ProviderPattern, ...] = ()
    exclude: tuple[ProviderPattern, ...] = ()

    def handles(self, a: ProviderAddress) -> bool:
        return (not self.include or any(p.matches(a) for p in self.include)) and \
            not any(p.matches(a) for p in self.exclude)

    @property
    def key(self) -> str:
        """What distinguishes this method's packages in the cache."""
        return f"{self.kind}:{self.location}"


DIRECT = InstallationMethod("direct")


def parse_installation_block(block, where: str) -> tuple[InstallationMethod, ...]:
    """The methods of a ``provider_installation`` block (an ``hcl.Block``), in order.

    Raises:
        ConfigurationError: an unknown method, a missing ``url``/``path``, a mirror URL that is
            not https (plain http only on loopback), or a malformed pattern.
    """
    out = []
    for b in block.body.blocks:
        here = f"{where} line {b.line}"
        include, exclude = (tuple(ProviderPattern.parse(p, here) for p in
                                  _strings(b, name, "Invalid provider_installation block", where))
                            for name in ("include", "exclude"))
        if b.type == "direct":
            out.append(InstallationMethod("direct", "", include, exclude))
            continue
        if b.type not in ("network_mirror", "filesystem_mirror"):
            raise ConfigurationError("Invalid provider_installation block",
                                     f'{here}: unknown installation method "{b.type}" (direct, network_mirror or '
                                     "filesystem_mirror).")
        attr = "url" if b.type == "network_mirror" else "path"
        value = literal(b.body.attribute(attr))
        if not isinstance(value, str) or not value:
            raise ConfigurationError("Invalid provider_installation block",
                                     f'{here}: {b.type} needs a "{attr}" string.')
        if b.type == "network_mirror":
            parts = urlsplit(value)
            if parts.scheme != "https" and not (parts.scheme == "http" and is_loopback_host(parts.netloc)):
                raise ConfigurationError("Invalid provider_installation block",
                                         f"{here}: the network mirror URL {redact(value)} must use https.")
            value = value if value.endswith("/") else value + "/"
        out.append(InstallationMethod(b.type, value, include, exclude))
    return tuple(out)
