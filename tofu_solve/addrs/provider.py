"""OpenTofu provider source addresses (``hashicorp/aws``, ``registry.opentofu.org/hashicorp/aws``).

Rules from opentofu/registry-address ``ParseProviderSource`` as OpenTofu's lock file uses
them: one to three parts, the host defaulting to ``registry.opentofu.org``, the namespace to
``hashicorp``; names are case-insensitive and normalized to lower case; the legacy ``-``
namespace and ``terraform.io/builtin`` providers are not installable.

(These are OpenTofu *provider plugins*; tofu-solve's per-source *candidate providers* live in
:mod:`tofu_solve.providers`.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NoReturn

from ..errors import TofuSolveError
from .hosts import normalize as normalize_host

DEFAULT_PROVIDER_HOST = "registry.opentofu.org"
BUILTIN_HOST = "terraform.io"
_PART_RE = re.compile(r"[0-9a-z](?:[0-9a-z-]{0,62}[0-9a-z])?", re.I)


class ProviderAddressError(TofuSolveError):
    """A provider source address that does not parse."""


@dataclass(frozen=True, order=True)
class ProviderAddress:
    """``host/namespace/type``, normalized (lower case). Orders as ``Provider.LessThan``:
    host, then namespace, then type, each compared as a string."""

    host: str
    namespace: str
    type: str
    default_host: str = field(default=DEFAULT_PROVIDER_HOST, compare=False, repr=False)  # left out in display

    def __str__(self) -> str:
        return f"{self.host}/{self.namespace}/{self.type}"

    @property
    def for_display(self) -> str:
        short = f"{self.namespace}/{self.type}"
        return short if self.host == self.default_host else f"{self.host}/{short}"

    @property
    def is_builtin(self) -> bool:
        return self.host == BUILTIN_HOST and self.namespace == "builtin"

    @property
    def is_legacy(self) -> bool:
        return self.namespace == "-"


def parse_provider_source(text: str, default_host: str = DEFAULT_PROVIDER_HOST) -> ProviderAddress:
    """Parse a provider source string (``required_providers`` ``source`` or a lock label);
    an address without a host is on ``default_host`` (:mod:`tofu_solve.addrs.product`).

    Raises:
        ProviderAddressError: "Invalid provider source address" with the reason.
    """
    def fail(msg: str) -> NoReturn:
        raise ProviderAddressError("Invalid provider source address", msg)

    if not isinstance(text, str) or text.strip() == "":
        fail("The provider source address must not be empty.")
    parts = text.split("/")
    if len(parts) > 3:
        fail(f'"{text}": a provider source address must have at most three slash-separated parts '
             "(hostname/namespace/type).")
    host, ns = default_host, "hashicorp"
    if len(parts) == 3:
        normalized = normalize_host(parts[0])  # IDNA 2008, as svchost
        if normalized is None:
            fail(f'"{text}": invalid provider registry hostname "{parts[0]}".')
        host = normalized
        parts = parts[1:]
    if len(parts) == 2:
        ns = parts[0]
        if ns != "-" and not _PART_RE.fullmatch(ns):
            fail(f'"{text}": invalid provider namespace "{ns}".')
        parts = parts[1:]
    typ = parts[0]
    if not _PART_RE.fullmatch(typ):
        fail(f'"{text}": invalid provider type "{typ}".')
    for part, what in ((ns, "namespace"), (typ, "type")):
        if "--" in part:  # registry-address ParseProviderPart
            fail(f'"{text}": invalid provider {what} "{part}": cannot use multiple consecutive dashes.')
    low = typ.lower()
    for prefix in ("terraform-provider-", "opentofu-provider-"):
        if low.startswith(prefix) and _PART_RE.fullmatch(low[len(prefix):]):
            fail(f'Invalid provider type "{typ}" in source "{text}": did you mean "{low[len(prefix):]}"? Provider '
                 f'source addresses never include the prefix "{prefix}".')
    for prefix in ("terraform-", "opentofu-"):
        if low.startswith(prefix):
            # registry-address ParseProviderSource: the prefix is reserved (redundant in a source address)
            fail(f'Provider source "{text}" has a type with the prefix "{prefix}", which isn\'t valid. Although '
                 "that prefix is often used in the names of version control repositories for providers, provider "
                 "source strings should not include it.")
    return ProviderAddress(host, ns.lower(), low, default_host)
