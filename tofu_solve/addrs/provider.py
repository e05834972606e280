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

from .._lazy import load
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
    ns_low = ns.lower()
    shown = f"{ns_low}/{low}" if host == default_host else f"{host}/{ns_low}/{low}"  # Provider.ForDisplay
    # registry-address ParseProviderSource: the "terraform-" / "opentofu-" type prefixes
    for product, redundant, whose, sometimes in (("Terraform", "terraform-", "Terraform", "often"),
                                                 ("OpenTofu", "opentofu-", "OpenTofu", "sometimes")):
        if not low.startswith(redundant):
            continue
        user_error = redundant + "provider-"
        suggested = low[len(user_error):]
        if low.startswith(user_error) and _PART_RE.fullmatch(suggested) and "--" not in suggested:
            raise ProviderAddressError(
                "Invalid provider type",
                f'Provider source "{shown}" has a type with the prefix "{user_error}", which isn\'t valid. Although '
                f"that prefix is {sometimes} used in the names of version control repositories for {whose} "
                f'providers, provider source strings should not include it.\n\nDid you mean '
                f'"{shown.rsplit("/", 1)[0]}/{suggested}"?')
        article = "an" if product == "OpenTofu" else "a"
        raise ProviderAddressError(
            "Invalid provider type",
            f'Provider source "{host}/{ns_low}/{low}" has a type with the prefix "{redundant}", which isn\'t allowed '
            f"because it would be redundant to name {article} {product} provider with that prefix. If you are the "
            "author of this provider, rename it to not include the prefix.")
    return ProviderAddress(host, ns.lower(), low, default_host)


def parse_provider_part(given: str) -> str:
    """registry-address ``ParseProviderPart``: a provider namespace, type or local name in
    its normalized form (IDNA ``ToUnicode``: case-folded).

    Raises:
        ValueError: registry-address's reason ("must have at least one character",
            "cannot use multiple consecutive dashes", "must contain only letters, digits,
            and dashes, and may not use leading or trailing dashes").
    """
    if not given:
        raise ValueError("must have at least one character")
    if "--" in given:
        raise ValueError("cannot use multiple consecutive dashes")
    invalid = "must contain only letters, digits, and dashes, and may not use leading or trailing dashes"
    if given.isascii():
        if not re.fullmatch(r"[0-9a-z](?:[0-9a-z-]*[0-9a-z])?", given, re.I):
            raise ValueError(invalid)
        return given.lower()
    load("idna")
    import idna

    if "." in given:
        raise ValueError(invalid)
    try:
        return idna.decode(idna.encode(given, uts46=True, transitional=False))
    except (idna.IDNAError, UnicodeError):
        raise ValueError(invalid) from None
