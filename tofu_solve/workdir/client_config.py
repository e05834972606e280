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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..addrs.product import Product
from ..config import hcl, hcl1
from ..config.cliconfig import ProviderPattern, literal, locate, parse_installation_block, read_file
from ..errors import ConfigurationError
from ..settings import Settings
from ..store.cache import AcceptedSyntax, Cache
from ..store.plugin_dirs import verified_dir

CONFIG_FILE_NAME = "tofu-solve-handover.tfrc"


@dataclass(frozen=True)
class ProviderMirror:
    """The packages offered to one hand-over.

    Attributes:
        path: the plugin directory (unpacked layout) the ``filesystem_mirror`` reads.
        platform: ``OS_ARCH`` of this machine.
        offered: (provider address ``HOST/NS/TYPE``, locked version) of each package there.
        missing: the same for each locked provider with no package there for ``platform``.
        refused: the same for each whose directory there matches none of the lock's ``h1:``
            hashes (replaced or tampered with since it was verified: never offered).
        hashes: provider address -> the lock's ``h1:`` hashes a directory must match
            (kept for the warm path, which decides again with the same rule).
    """

    path: Path
    platform: str
    offered: tuple[tuple[str, str], ...]
    missing: tuple[tuple[str, str], ...] = ()
    refused: tuple[tuple[str, str], ...] = ()
    hashes: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict:
        return {"path": str(self.path), "platform": self.platform, "offered": [list(p) for p in self.offered],
                "missing": [list(p) for p in self.missing], "refused": [list(p) for p in self.refused],
                "hashes": {a: list(h) for a, h in self.hashes.items()}}

    @classmethod
    def from_dict(cls, d: Mapping) -> ProviderMirror:
        return cls(Path(d["path"]), str(d["platform"]), tuple((str(a), str(v)) for a, v in d["offered"]),
                   tuple((str(a), str(v)) for a, v in d.get("missing", ())),
                   tuple((str(a), str(v)) for a, v in d.get("refused", ())),
                   {str(a): tuple(str(x) for x in h) for a, h in (d.get("hashes") or {}).items()})

    def everything(self) -> dict[str, str]:
        """Every locked provider the mirror was decided for: address -> version."""
        return dict(self.offered + self.missing + self.refused)


def provider_mirror(locked: Mapping[str, str], plugin_dir: Path | None, platform: str,
                    hashes: Mapping[str, tuple[str, ...]] | None = None,
                    cache: Cache | None = None) -> ProviderMirror | None:
    """The mirror for ``locked`` (provider address ``HOST/NS/TYPE`` -> locked version): each
    provider whose package for ``platform`` is in ``plugin_dir``
    (``HOST/NS/TYPE/VERSION/OS_ARCH/``) and hashes to one of its ``h1:`` hashes in
    ``hashes`` (the lock's; :func:`verified_dir`, with ``cache`` keeping what it verified);
    one whose directory does not is ``refused``. None when there is no plugin directory or
    no package in it to offer (the client then installs as it always does)."""
    if plugin_dir is None:
        return None
    offered: list[tuple[str, str]] = []
    missing: list[tuple[str, str]] = []
    refused: list[tuple[str, str]] = []
    allowed = {a: tuple(h for h in hs if h.startswith("h1:")) for a, hs in (hashes or {}).items()}
    for address, version in sorted(locked.items()):
        host, namespace, type_ = address.split("/")
        d = plugin_dir.joinpath(host, namespace, type_, version, platform)
        if not d.is_dir():
            missing.append((address, version))
        elif verified_dir(d, allowed.get(address, ()), cache):
            offered.append((address, version))
        else:
            refused.append((address, version))
    if not offered:
        return None
    return ProviderMirror(plugin_dir, platform, tuple(offered), tuple(missing), tuple(refused), allowed)


def offered_text(mirror: ProviderMirror, command: str) -> str:
    """What the line after "Handing over to ..." says of ``mirror`` (one line, and a second
    naming the providers the client installs itself)."""
    def names(pairs):
        return ", ".join(f"{a.split('/', 1)[1]} {v}" for a, v in pairs)
    text = f"  Offered to {command} init, verified by tofu-solve: {names(mirror.offered)} ({mirror.platform})."
    if mirror.refused:
        text += (f"\n  Not offered: {names(mirror.refused)}: the package in {mirror.path} matches none of the lock's "
                 f"hashes (replaced or tampered with since it was verified); {command} init installs it from its "
                 "origin and checks it against the lock.")
    if mirror.missing:
        text += (f"\n  {command} init installs from their origins (no verified {mirror.platform} package here): "
                 f"{names(mirror.missing)}.")
    return text


def client_config_file(environ: Mapping[str, str], product: Product) -> Path | None:
    """The main CLI configuration file the client reads (:func:`tofu_solve.config.cliconfig.locate`
    for its command); None when there is none."""
    return locate(environ, product.command).main


def token_variable(host: str) -> str:
    """The environment variable that carries ``host``'s token (OpenTofu and Terraform:
    ``TF_TOKEN_`` then the host with ``.`` as ``_`` and ``-`` as ``__``)."""
    return "TF_TOKEN_" + host.replace("-", "__").replace(".", "_")


def _strings(values) -> str:
    return "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in values) + "]"


def _pattern(p: ProviderPattern) -> str:
    return p.text or f"{p.host}/{p.namespace}/{p.type}"


def _with_exclude(method: hcl1.Item, also_exclude: tuple[str, ...]) -> str:
    """The user's method block as written (every argument kept, ``dev_overrides`` and
    methods tofu-solve does not use among them), with ``also_exclude`` added to its
    ``exclude`` where the method takes one."""
    kind = method.keys[0]
    if kind == "dev_overrides" or not isinstance(method.value, hcl1.ObjectList):
        return hcl1.dump_item(method, "  ")
    items = list(method.value.items)
    at = next((i for i, it in enumerate(items) if it.keys == ("exclude",)), None)
    given = [str(v) for v in items[at].value] if at is not None and isinstance(items[at].value, list) else []
    exclude = given + [a for a in also_exclude if a not in given]
    if exclude:
        item = hcl1.Item(("exclude",), exclude, method.line, True)
        if at is None:
            items.append(item)
        else:
            items[at] = item
    return hcl1.dump_item(hcl1.Item(method.keys, hcl1.ObjectList(tuple(items)), method.line, False), "  ")


def _methods(objects: hcl1.ObjectList) -> list[hcl1.Item]:
    """The method items of a ``provider_installation`` block, a JSON array of objects as one
    item each."""
    out = []
    for item in objects.items:
        if isinstance(item.value, list):
            out += [hcl1.Item(item.keys, e, item.line, False) for e in item.value if isinstance(e, hcl1.ObjectList)]
        else:
            out.append(item)
    return out


_BY_LABEL = ("host", "credentials_helper", "oci_credentials", "oci_default_credentials")
"""Blocks decoded into maps by their label: in the merged files a later one wins (OpenTofu's
``Config.Merge``: ``maps.Copy``), so one of each is written."""


def render(files: Sequence[tuple[str, hcl1.ObjectList]], mirror: ProviderMirror) -> tuple[str, dict[str, str]]:
    """(the run's CLI configuration, the tokens it took out: host -> token) for the user's
    CLI configuration ``files`` (name, syntax tree: the files the client would read, in
    its merge order, :meth:`tofu_solve.config.cliconfig.CliConfigFiles.files`), written as
    one native HCL 1 file, since ``TF_CLI_CONFIG_FILE`` makes the client read that file
    alone. Merged as the client merges them: ``credentials`` (taken out; a later file wins),
    blocks keyed by a label (a later one wins), other top-level arguments (the first file
    that sets one wins, as ``plugin_cache_dir``), the rest kept in order.

    Raises:
        ConfigurationError: a ``provider_installation`` block is malformed, or there is more
            than one (as when tofu-solve read them for its own requests).
    """
    tokens: dict[str, str] = {}
    installs: list[tuple[hcl.Block, str, hcl1.Item]] = []
    kept: dict[tuple, hcl1.Item] = {}
    for name, objects in files:
        body = hcl1.to_body(objects)
        for block in hcl1.labelled(body, "credentials", 1):
            value = literal(block.body.attribute("token"))
            if isinstance(value, str):
                tokens[block.labels[0].lower()] = value
        for item in objects.items:
            kind = item.keys[0]
            if kind == "credentials":
                continue
            if kind == "provider_installation":
                one = hcl1.to_body(hcl1.ObjectList((item,), objects.json))
                installs += [(b, name, item) for b in one.blocks_of("provider_installation")]
                continue
            if kind in _BY_LABEL:
                for block in hcl1.labelled(hcl1.to_body(hcl1.ObjectList((item,), objects.json)), kind, 1):
                    kept.pop((kind, block.labels[0]), None)
                    kept[(kind, block.labels[0])] = _labelled_item(item, block.labels[0])
                continue
            key = ("arg", kind) if not isinstance(item.value, hcl1.ObjectList) else ("item", len(kept))
            kept.setdefault(key, item)
    if len(installs) > 1:
        raise ConfigurationError("Invalid provider_installation block",
                                 f"{installs[1][1]} line {installs[1][0].line}: no more than one "
                                 "provider_installation block may be specified, in all the CLI configuration files.")
    methods: list[hcl1.Item] = []
    if installs:
        block, name, item = installs[0]
        parse_installation_block(block, name)  # malformed: the error the solve's own reading gives
        methods = _methods(item.value) if isinstance(item.value, hcl1.ObjectList) else []
    if not any(m.keys[0] != "dev_overrides" for m in methods):
        methods.append(hcl1.Item(("direct",), hcl1.ObjectList(()), 0, False))
    addresses = tuple(a for a, _ in mirror.offered)
    first = (f"  filesystem_mirror {{\n    path = {json.dumps(str(mirror.path), ensure_ascii=False)}\n"
             f"    include = {_strings(addresses)}\n  }}\n")
    # dev_overrides before every method (Terraform: "must appear before all other installation methods")
    dev = [m for m in methods if m.keys[0] == "dev_overrides"]
    others = [m for m in methods if m.keys[0] != "dev_overrides"]
    installation = "provider_installation {\n" + "".join(_with_exclude(m, addresses) for m in dev) + first + \
        "".join(_with_exclude(m, addresses) for m in others) + "}\n"
    head = "# Written by tofu-solve for one run of the client's init: the provider packages it verified\n" \
           "# come from the filesystem_mirror first. Removed when the client's init ends.\n"
    rest = "".join(hcl1.dump_item(i) for i in kept.values())
    return head + (rest + "\n" if rest else "") + installation, tokens


def _labelled_item(item: hcl1.Item, label: str) -> hcl1.Item:
    """The block of ``item`` (a ``host``, ``oci_credentials``... item, native or JSON)
    labelled ``label``, as one native item."""
    if len(item.keys) == 2:
        return item
    inner = item.value
    for sub in (inner.items if isinstance(inner, hcl1.ObjectList) else ()):
        if sub.keys[0] == label:
            return hcl1.Item((item.keys[0],) + sub.keys, sub.value, sub.line, False)
    return item


@contextlib.contextmanager
def written(mirror: ProviderMirror, environ: Mapping[str, str], product: Product) -> Iterator[dict[str, str]]:
    """Write the run's CLI configuration into a private temporary directory; yield the
    variables the client's environment gains (``TF_CLI_CONFIG_FILE``, and ``TF_TOKEN_*``
    for each ``credentials`` block not already given that way); remove the file after.

    Raises:
        ConfigurationError: as :func:`render`, or a file of the user's cannot be read or is
            not valid HCL 1 (:func:`tofu_solve.config.cliconfig.read_file`). A
            ``TF_CLI_CONFIG_FILE`` that does not exist is no configuration, as for the
            client and tofu-solve's own reading, which warned of it.
    """
    # a configuration read before (by this run's own reading or the last hand-over) is not parsed by pyhcl again
    memo = AcceptedSyntax(Cache(Settings.from_environ(environ).cache_dir))
    files = [(str(f), read_file(f, memo)) for f in locate(environ, product.command).files()]
    config, tokens = render(files, mirror)
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
