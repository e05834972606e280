"""OpenTofu's CLI configuration, as far as registries are concerned.

Found as OpenTofu finds it (:func:`locate`): ``TF_CLI_CONFIG_FILE``, else ``~/.tofurc``, else
``~/.terraformrc``, then the ``*.tfrc`` and ``*.tfrc.json`` files of ``~/.terraform.d``; each
in HCL 1 or JSON syntax (:mod:`.hcl1`), merged in OpenTofu's order. Read:
``host "NAME" { services = { "modules.v1" = URL, ... } }``
(overrides service discovery for NAME; how tests, private registries and mirrors point at
``http://127.0.0.1:PORT``) and ``credentials "NAME" { token = "..." }``. Tokens also come
from ``TF_TOKEN_<host>`` environment variables (highest precedence; ``__`` is ``-`` and
``_`` is ``.`` in the host name) and ``~/.terraform.d/credentials.tfrc.json``.
Source: OpenTofu ``internal/command/cliconfig`` (reference §3).
"""

from __future__ import annotations

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
from . import hcl, hcl1


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


@dataclass(frozen=True)
class CliConfigFiles:
    """Where a client finds its CLI configuration (:func:`locate`).

    Attributes:
        main: the one file named by ``TF_CLI_CONFIG_FILE``, else the home directory's file;
            None when there is none to read.
        directory: the CLI configuration directory whose ``*.tfrc`` and ``*.tfrc.json`` files
            are merged after ``main`` (``~/.terraform.d``); None when ``TF_CLI_CONFIG_FILE``
            is set (OpenTofu then reads no directory) or it does not exist.
        looked_for: every path whose existence decided this (for the warm stamp).
        warnings: OpenTofu's warning for a ``TF_CLI_CONFIG_FILE`` that does not exist.
    """

    main: Path | None
    directory: Path | None
    looked_for: tuple[Path, ...] = ()
    warnings: tuple[str, ...] = ()

    def files(self) -> list[Path]:
        """The files read, in OpenTofu's merge order: ``main``, then the directory's
        ``*.tfrc`` and ``*.tfrc.json`` sorted by name (``loadConfigDir``: ``os.ReadDir``'s
        order). ``credentials.tfrc.json`` is one of them, as it is there."""
        out = [self.main] if self.main is not None else []
        if self.directory is not None:
            try:
                out += sorted((p for p in self.directory.iterdir()
                               if (p.name.endswith(".tfrc") or p.name.endswith(".tfrc.json")) and p.is_file()),
                              key=lambda p: p.name)
            except OSError:
                pass
        return out


def locate(env: Mapping[str, str], command: str = "tofu") -> CliConfigFiles:
    """The CLI configuration files the client ``command`` (``tofu`` or ``terraform``) reads in
    the environment ``env``.

    OpenTofu (``internal/command/cliconfig/cliconfig.go`` ``cliConfigFile``, ``LoadConfig``;
    ``config_unix.go`` ``configFile``, ``configDir``; ``util.go`` ``getNewOrLegacyPath``):
    ``TF_CLI_CONFIG_FILE`` (or the older ``TERRAFORM_CONFIG``) names the one file, a warning
    when it does not exist, and no directory is read; otherwise ``~/.tofurc``, or
    ``~/.terraformrc`` when only that exists, or ``$XDG_CONFIG_HOME/opentofu/tofurc`` when
    neither exists and ``XDG_CONFIG_HOME`` is set; then the directory ``~/.terraform.d``, or
    ``$XDG_CONFIG_HOME/opentofu`` when that does not exist. Terraform
    (``internal/command/cliconfig/config_unix.go``): ``~/.terraformrc`` and ``~/.terraform.d``.
    """
    explicit = env.get("TF_CLI_CONFIG_FILE") or env.get("TERRAFORM_CONFIG")
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if explicit:
        path = Path(explicit)
        if path.is_file():
            return CliConfigFiles(path, None, (path,))
        return CliConfigFiles(None, None, (path,), (
            f'Unable to open CLI configuration file: the CLI configuration file at "{path}" does not exist. '
            "Going on with the defaults.",))
    xdg = env.get("XDG_CONFIG_HOME") or ""
    if command == "terraform":
        main, directory = home / ".terraformrc", home / ".terraform.d"
        looked: tuple[Path, ...] = (main, directory)
    else:
        new, legacy = home / ".tofurc", home / ".terraformrc"
        main = legacy if legacy.exists() and not new.exists() else new
        if xdg and not legacy.exists() and not new.exists():
            main = Path(xdg) / "opentofu" / "tofurc"
        directory = home / ".terraform.d"
        if xdg and not directory.exists():
            directory = Path(xdg) / "opentofu"
        looked = (new, legacy, main, home / ".terraform.d", directory)
    return CliConfigFiles(main if main.is_file() else None, directory if directory.is_dir() else None,
                          tuple(dict.fromkeys(looked)))


def read_file(path: Path, memo: hcl1.SyntaxMemo | None = None) -> hcl1.ObjectList:
    """One CLI configuration file's HCL 1 syntax tree (:func:`tofu_solve.config.hcl1.parse`,
    with ``memo``).

    Raises:
        ConfigurationError: unreadable, larger than 1 MiB, or not valid HCL 1 or JSON (file
            and line, never its text).
    """
    try:
        with path.open("rb") as f:
            data = f.read(hcl1.MAX_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigurationError("Failed to read CLI configuration",
                                 f"{path} could not be read ({getattr(e, 'strerror', None) or 'not UTF-8 text'}).") \
            from None
    return hcl1.parse(text, str(path), memo)


def _expand_env(value: str, env: Mapping[str, str]) -> str:
    """Go's ``os.ExpandEnv`` (``$NAME`` and ``${NAME}``, an unset name as ""), which OpenTofu
    applies to ``plugin_cache_dir`` (``loadConfigFile``)."""
    import re

    return re.sub(r"\$(?:\{([^}]*)\}|([A-Za-z0-9_]+))", lambda m: env.get(m.group(1) or m.group(2), ""), value)


@dataclass
class _Merged:
    """The CLI configuration files merged as OpenTofu's ``Config.Merge`` merges them."""

    hosts: dict[str, dict[str, str]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    oci: dict[str, tuple[str, str]] = field(default_factory=dict)
    plugin_cache: str = ""
    installs: list[tuple[hcl.Block, str, tuple[InstallationMethod, ...]]] = field(default_factory=list)
    modules: list[tuple[hcl.Block, str]] = field(default_factory=list)
    min_age: tuple[str, str] | None = None


def _merge_file(path: Path, body: hcl.Body, into: _Merged) -> None:
    """Merge one file's decoded ``body`` into ``into``: ``host``, ``credentials`` and
    ``oci_credentials`` blocks by host, a later file's winning (``maps.Copy``);
    ``plugin_cache_dir``: the first file that sets it; ``provider_installation`` blocks
    collected (more than one in all is an error, ``Config.Validate``). Blocks and arguments
    tofu-solve does not use are passed over, as the client passes over what it does not know.

    Raises:
        ConfigurationError: a malformed ``oci_credentials`` block, a ``tofu_solve_min_age``
            that is not a string, a ``provider_installation`` written as an argument.
    """
    for a in body.attributes:
        if a.name == "plugin_cache_dir" and not into.plugin_cache:
            value = literal(a)
            into.plugin_cache = value if isinstance(value, str) else ""
        elif a.name == "tofu_solve_min_age":
            value = literal(a)
            if not isinstance(value, str):
                raise ConfigurationError("Invalid tofu_solve_min_age",
                                         f'{path} line {a.line}: tofu_solve_min_age must be a string, such as "7d".')
            into.min_age = into.min_age or (value, f"{path} line {a.line}")
    for block in hcl1.labelled(body, "host", 1):
        services = literal(block.body.attribute("services"))
        if isinstance(services, dict):
            into.hosts[_normalize_host(block.labels[0])] = {str(k): str(v) for k, v in services.items()}
    for block in hcl1.labelled(body, "credentials", 1):
        token = literal(block.body.attribute("token"))
        if isinstance(token, str):
            into.tokens[_normalize_host(block.labels[0])] = token
    for block in hcl1.labelled(body, "oci_credentials", 1):
        user, password, helper = (literal(block.body.attribute(n)) for n in
                                  ("username", "password", "docker_credentials_helper"))
        if isinstance(user, str) and isinstance(password, str):
            into.oci[block.labels[0].lower()] = (user, password)
        elif isinstance(helper, str) and helper:
            into.oci[block.labels[0].lower()] = ("", helper)
        else:
            raise ConfigurationError("Invalid oci_credentials block",
                                     f"{path} line {block.line}: an oci_credentials block sets username and "
                                     "password, or docker_credentials_helper.")
    for block in body.blocks_of("provider_installation"):
        methods = parse_installation_block(block, str(path))  # its methods' problems first, as OpenTofu lists them
        if block.labels:
            raise ConfigurationError("Invalid provider_installation block",
                                     f"{path} line {block.line}: the provider_installation block must not have any "
                                     "labels.")
        into.installs.append((block, str(path), methods))
    into.modules += [(b, str(path)) for b in body.blocks_of("module_installation")]


def load_cli_config(env: Mapping[str, str], reads: ReadLog | None = None) -> CliConfig:
    """Read the CLI configuration for the environment ``env`` (a run's
    :attr:`tofu_solve.settings.Settings.environ`), as OpenTofu reads it: the files
    :func:`locate` names, each in HCL 1 or JSON syntax (:mod:`tofu_solve.config.hcl1`),
    merged in OpenTofu's order. Every file read or looked for, and the directory whose files
    are merged, is registered in ``reads`` (issue #47 §2).

    Raises:
        ConfigurationError: a file is not valid HCL 1 or JSON (file and line, never its
            text); more than one ``provider_installation`` or ``module_installation`` block
            in all; a malformed block tofu-solve uses.
    """
    env = dict(env)
    where = locate(env)
    if reads is not None:
        reads.saw(*where.looked_for)
        if not (env.get("TF_CLI_CONFIG_FILE") or env.get("TERRAFORM_CONFIG")):
            # a *.tfrc or *.tfrc.json file added there (credentials.tfrc.json among them)
            for d in dict.fromkeys(p for p in where.looked_for if p.name in (".terraform.d", "opentofu")):
                reads.listed(d)
    merged = _Merged()
    files = where.files()
    for f in files:
        if reads is not None:
            reads.saw(f)
        _merge_file(f, hcl1.to_body(read_file(f)), merged)
    installation = None
    if len(merged.installs) > 1:
        block, path, _ = merged.installs[1]
        raise ConfigurationError("Invalid provider_installation block",
                                 f"{path} line {block.line}: no more than one provider_installation block may be "
                                 "specified, in all the CLI configuration files.")
    if merged.installs:
        installation = merged.installs[0][2]
    if len(merged.modules) > 1:
        block, path = merged.modules[1]
        raise ConfigurationError("Invalid module_installation block",
                                 f"{path} line {block.line}: only one module_installation block is allowed.")
    module_installation = parse_module_installation(*merged.modules[0]) if merged.modules else None
    min_age = merged.min_age
    if min_age is not None and module_installation is not None and module_installation.cooldown_period:
        raise ConfigurationError(
            "Two release cooldowns configured",
            f"The CLI configuration sets tofu_solve_min_age ({min_age[1]}) and a module_installation "
            f"cooldown_period ({module_installation.where}). Keep one: module_installation is OpenTofu's own "
            "syntax (modules only, with include and exclude); tofu_solve_min_age also covers providers.")
    plugin_cache = Path(_expand_env(merged.plugin_cache, env)) if merged.plugin_cache else None
    if env.get("TF_PLUGIN_CACHE_DIR"):
        plugin_cache = Path(os.path.expanduser(env["TF_PLUGIN_CACHE_DIR"]))
    return CliConfig(merged.hosts, merged.tokens, env, where.main, plugin_cache, where.warnings, installation,
                     min_age, module_installation, merged.oci)


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
        if b.type == "dev_overrides":
            # provider development: the client runs the named local builds instead of
            # installed packages, and its init installs the rest as usual (OpenTofu
            # ``provider_installation.go``: dev_overrides is not an installation method)
            continue
        if b.type == "oci_mirror":
            raise ConfigurationError("Unsupported provider_installation method",
                                     f"{here}: tofu-solve does not install providers through oci_mirror yet, and "
                                     "will not go around it to the providers' origins. Run tofu-solve with a CLI "
                                     "configuration (TF_CLI_CONFIG_FILE) whose provider_installation uses "
                                     "network_mirror, filesystem_mirror or direct.")
        if b.type not in ("network_mirror", "filesystem_mirror"):
            raise ConfigurationError("Invalid provider_installation block",
                                     f'{here}: unknown installation method "{b.type}" (direct, network_mirror, '
                                     "filesystem_mirror, oci_mirror or dev_overrides).")
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
