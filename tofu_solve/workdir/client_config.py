"""The provider packages tofu-solve verified, offered to the client's init through a CLI
configuration written for that one run (issue #68 §2).

``tofu init`` and ``terraform init`` ask each provider's registry for its versions even when
the lock names the version and a plugin cache holds the package
(``internal/providercache/installer.go``: ``AvailableVersions`` comes before the cache), so
with the origins down the hand-over failed although tofu-solve had just verified every
package (from the package store, its cache or the origins). A ``filesystem_mirror``
installation method (OpenTofu ``internal/command/cliconfig/provider_installation.go``,
Terraform's likewise) is answered from a directory alone. So the hand-over runs the client
with ``TF_CLI_CONFIG_FILE`` naming a file written for that run:

* the user's own CLI configuration (the file the client would read: ``TF_CLI_CONFIG_FILE``,
  else ``~/.tofurc`` for OpenTofu, else ``~/.terraformrc``), every block kept verbatim except
  ``credentials`` blocks (their tokens go to the client as ``TF_TOKEN_<host>`` variables, in
  memory, so that no secret is written to a file) and the ``provider_installation`` block,
  which is written again:
* a ``filesystem_mirror`` first, on the plugin directory where tofu-solve placed the packages
  it verified (OpenTofu's unpacked layout, ``HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/``), with an
  ``include`` of exactly the providers whose locked version is there for this platform; then
  the user's own methods (or ``direct``) with those providers added to each ``exclude``.

The client still checks each package against the lock's hashes, as for any installation
method, and ``-lockfile=readonly`` keeps it from writing the lock. A provider with no
verified package here is left to the user's methods and named before the hand-over.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..addrs.product import Product
from ..config import hcl
from ..config.cliconfig import DIRECT, InstallationMethod, ProviderPattern, literal, parse_installation_block
from ..errors import ConfigurationError

CONFIG_FILE_NAME = "tofu-solve-handover.tfrc"


@dataclass(frozen=True)
class ProviderMirror:
    """The packages offered to one hand-over.

    Attributes:
        path: the plugin directory (unpacked layout) the ``filesystem_mirror`` reads.
        platform: ``OS_ARCH`` of this machine.
        offered: (provider address ``HOST/NS/TYPE``, locked version) of each package there.
        missing: the same for each locked provider with no package there for ``platform``.
    """

    path: Path
    platform: str
    offered: tuple[tuple[str, str], ...]
    missing: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict:
        return {"path": str(self.path), "platform": self.platform, "offered": [list(p) for p in self.offered],
                "missing": [list(p) for p in self.missing]}

    @classmethod
    def from_dict(cls, d: Mapping) -> ProviderMirror:
        return cls(Path(d["path"]), str(d["platform"]), tuple((str(a), str(v)) for a, v in d["offered"]),
                   tuple((str(a), str(v)) for a, v in d.get("missing", ())))


def provider_mirror(locked: Mapping[str, str], plugin_dir: Path | None, platform: str) -> ProviderMirror | None:
    """The mirror for ``locked`` (provider address ``HOST/NS/TYPE`` -> locked version): each
    provider whose package for ``platform`` is in ``plugin_dir``
    (``HOST/NS/TYPE/VERSION/OS_ARCH/``). None when there is no plugin directory or no
    package in it (the client then installs as it always does)."""
    if plugin_dir is None:
        return None
    offered: list[tuple[str, str]] = []
    missing: list[tuple[str, str]] = []
    for address, version in sorted(locked.items()):
        host, namespace, type_ = address.split("/")
        (offered if plugin_dir.joinpath(host, namespace, type_, version, platform).is_dir() else missing).append(
            (address, version))
    if not offered:
        return None
    return ProviderMirror(plugin_dir, platform, tuple(offered), tuple(missing))


def offered_text(mirror: ProviderMirror, command: str) -> str:
    """What the line after "Handing over to ..." says of ``mirror`` (one line, and a second
    naming the providers the client installs itself)."""
    def names(pairs):
        return ", ".join(f"{a.split('/', 1)[1]} {v}" for a, v in pairs)
    text = f"  Offered to {command} init, verified by tofu-solve: {names(mirror.offered)} ({mirror.platform})."
    if mirror.missing:
        text += (f"\n  {command} init installs from their origins (no verified {mirror.platform} package here): "
                 f"{names(mirror.missing)}.")
    return text


def client_config_file(environ: Mapping[str, str], product: Product) -> Path | None:
    """The CLI configuration file the client reads: ``TF_CLI_CONFIG_FILE`` (or the older
    ``TERRAFORM_CONFIG``), else ``~/.tofurc`` (OpenTofu only), else ``~/.terraformrc``; None
    when there is none."""
    explicit = environ.get("TF_CLI_CONFIG_FILE") or environ.get("TERRAFORM_CONFIG")
    if explicit:
        return Path(explicit)
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    names = (".tofurc", ".terraformrc") if product.command == "tofu" else (".terraformrc",)
    return next((home / n for n in names if (home / n).is_file()), None)


def token_variable(host: str) -> str:
    """The environment variable that carries ``host``'s token (OpenTofu and Terraform:
    ``TF_TOKEN_`` then the host with ``.`` as ``_`` and ``-`` as ``__``)."""
    return "TF_TOKEN_" + host.replace("-", "__").replace(".", "_")


def _hcl_string(value: str) -> str:
    """``value`` as an HCL quoted string (JSON's escapes, with template openers doubled)."""
    return json.dumps(value).replace("${", "$${").replace("%{", "%%{")


def _pattern(p: ProviderPattern) -> str:
    return p.text or f"{p.host}/{p.namespace}/{p.type}"


def _method(m: InstallationMethod, also_exclude: tuple[str, ...]) -> str:
    lines = [f"  {m.kind} {{"]
    if m.kind != "direct":
        lines.append(f"    {'url' if m.kind == 'network_mirror' else 'path'} = {_hcl_string(m.location)}")
    if m.include:
        lines.append(f"    include = [{', '.join(_hcl_string(_pattern(p)) for p in m.include)}]")
    exclude = [_pattern(p) for p in m.exclude] + [a for a in also_exclude if a not in {_pattern(p) for p in m.exclude}]
    if exclude:
        lines.append(f"    exclude = [{', '.join(_hcl_string(a) for a in exclude)}]")
    lines.append("  }")
    return "\n".join(lines)


def render(user_text: str, filename: str, mirror: ProviderMirror) -> tuple[str, dict[str, str]]:
    """(the run's CLI configuration, the tokens it took out: host -> token) for the user's
    configuration ``user_text`` (read from ``filename``; "" when there is none).

    Raises:
        ConfigurationError: the user's file does not parse, or its ``provider_installation``
            block is malformed (as when tofu-solve read it for its own requests).
    """
    body = hcl.parse_lazily(user_text, filename) if user_text.strip() else None
    tokens: dict[str, str] = {}
    methods: tuple[InstallationMethod, ...] = (DIRECT,)
    cut: list[tuple[int, int]] = []
    if body is not None:
        for block in body.blocks:
            if block.type == "credentials" and block.labels:
                value = literal(block.body.attribute("token"))
                if isinstance(value, str):
                    tokens[block.labels[0].lower()] = value
                cut.append((block.start, block.end))
            elif block.type == "provider_installation":
                methods = parse_installation_block(block, filename) or (DIRECT,)
                cut.append((block.start, block.end))
    kept, at = [], 0
    for start, end in sorted(cut):
        kept.append(user_text[at:start])
        at = end
    kept.append(user_text[at:])
    addresses = tuple(a for a, _ in mirror.offered)
    mirror_method = InstallationMethod("filesystem_mirror", str(mirror.path),
                                       tuple(ProviderPattern(*a.split("/")) for a in addresses))
    installation = "\n".join(["provider_installation {", _method(mirror_method, ()),
                              *(_method(m, addresses) for m in methods), "}"])
    head = "# Written by tofu-solve for one run of the client's init: the provider packages it verified\n" \
           "# come from the filesystem_mirror first. Removed when the client's init ends.\n"
    rest = "".join(kept).strip()
    return head + (rest + "\n\n" if rest else "") + installation + "\n", tokens


@contextlib.contextmanager
def written(mirror: ProviderMirror, environ: Mapping[str, str], product: Product) -> Iterator[dict[str, str]]:
    """Write the run's CLI configuration into a private temporary directory; yield the
    variables the client's environment gains (``TF_CLI_CONFIG_FILE``, and ``TF_TOKEN_*``
    for each ``credentials`` block not already given that way); remove the file after.

    Raises:
        ConfigurationError: as :func:`render`, or the user's file cannot be read.
    """
    source = client_config_file(environ, product)
    text = ""
    if source is not None:
        try:
            text = source.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigurationError("Failed to read CLI configuration",
                                     f"{source} could not be read ({getattr(e, 'strerror', None) or e}).") from None
    config, tokens = render(text, str(source or CONFIG_FILE_NAME), mirror)
    with tempfile.TemporaryDirectory(prefix="tofu-solve-handover-") as tmp:  # mode 0700
        path = Path(tmp) / CONFIG_FILE_NAME
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(config)
        extra = {"TF_CLI_CONFIG_FILE": str(path)}
        extra.update({token_variable(h): t for h, t in tokens.items() if token_variable(h) not in environ})
        yield extra


__all__ = ["ProviderMirror", "client_config_file", "offered_text", "provider_mirror", "render", "token_variable",
           "written"]
