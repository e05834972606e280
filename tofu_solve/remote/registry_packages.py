"""The ``packages`` field of a provider registry's download answer (OpenTofu 1.12,
``rfc/20251027-provider-registry-hashes.md``): every platform's package hashes and size.

registry.opentofu.org answers ``GET <providers.v1>NS/TYPE/VERSION/download/OS/ARCH`` with::

    "packages": {
      "linux_amd64": {"hashes": ["zh:…", "h1:…"], "package_size": 1234},
      …
    }

Read as OpenTofu's ``internal/getproviders/registry_client.go`` ``PackageMeta`` reads it: a
platform is two words joined by ``_`` (``ParsePlatform``), a hash is ``SCHEME:VALUE``
(``ParseHash``); anything else makes the whole answer invalid. The answer is a registry's,
so tofu-solve is stricter where the lock file is at stake: a platform is lowercase letters
and digits, an ``h1:`` or ``zh:`` hash is well formed (base64 of 32 bytes, or 64 hex
digits), and the field is bounded, before any of it can reach a lock file. Hashes of other
schemes are passed over, as OpenTofu's ``PreferredHashes`` passes them over.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import RegistryError

MAX_PLATFORMS = 64
"""Platforms one answer may describe (registry.opentofu.org lists a dozen or so)."""
MAX_HASHES = 16
"""Hashes one platform may carry."""

_PLATFORM = re.compile(r"[a-z0-9]{1,32}_[a-z0-9]{1,32}")
_WELL_FORMED = {"h1": re.compile(r"h1:[A-Za-z0-9+/]{43}="), "zh": re.compile(r"zh:[0-9a-f]{64}")}


@dataclass(frozen=True)
class PlatformPackage:
    """One platform's entry of ``packages``.

    Attributes:
        hashes: its ``h1:`` and ``zh:`` hashes, in the answer's order.
        size: the package zip's size in bytes, as the registry gives it (OpenTofu refuses
            one that is not positive when it checks the package: :mod:`tofu_solve.plugins.registry_hashes`).
    """

    hashes: tuple[str, ...]
    size: int

    def scheme(self, prefix: str) -> tuple[str, ...]:
        """The hashes of one scheme (``"h1:"``, ``"zh:"``)."""
        return tuple(h for h in self.hashes if h.startswith(prefix))


def parse_packages(body: Mapping[str, Any], what: str) -> dict[str, PlatformPackage]:
    """The ``packages`` of a download answer ``body`` (``{}`` when it has none), ``what``
    naming the package in errors ("hashicorp/aws 6.58.0 (linux_amd64)").

    Raises:
        RegistryError: "Invalid response from provider registry": the field, a platform or a
            hash is malformed, or there are more than :data:`MAX_PLATFORMS` platforms or
            :data:`MAX_HASHES` hashes on one.
    """
    raw = body.get("packages")
    if raw is None:
        return {}

    def invalid(detail: str) -> RegistryError:
        return RegistryError("Invalid response from provider registry",
                             f"The package answer for {what} includes {detail}.")

    if not isinstance(raw, dict):
        raise invalid("a packages field that is not an object")
    if len(raw) > MAX_PLATFORMS:
        raise invalid(f"packages for {len(raw)} platforms (at most {MAX_PLATFORMS})")
    out: dict[str, PlatformPackage] = {}
    for platform, entry in raw.items():
        if not isinstance(platform, str) or not _PLATFORM.fullmatch(platform):
            raise invalid("an invalid package platform (two words of lowercase letters and digits joined by _)")
        if not isinstance(entry, dict):
            raise invalid(f"an invalid package entry for {platform}")
        hashes, size = entry.get("hashes") or [], entry.get("package_size", 0)
        if not isinstance(hashes, list) or len(hashes) > MAX_HASHES or not all(isinstance(h, str) for h in hashes):
            raise invalid(f"an invalid hashes list for {platform}")
        if isinstance(size, bool) or not isinstance(size, int):
            raise invalid(f"an invalid package_size for {platform}")
        kept = []
        for h in hashes:
            scheme, colon, _ = h.partition(":")
            if not colon or not scheme:  # ParseHash: a scheme keyword followed by a colon
                raise invalid(f"an invalid package hash for {platform} (a hash is SCHEME:VALUE)")
            pattern = _WELL_FORMED.get(scheme)
            if pattern is None:
                continue  # PreferredHashes: only h1: and zh: are carried
            if not pattern.fullmatch(h):
                raise invalid(f"a malformed {scheme}: hash for {platform}")
            kept.append(h)
        out[platform] = PlatformPackage(tuple(dict.fromkeys(kept)), size)
    return out


__all__ = ["MAX_HASHES", "MAX_PLATFORMS", "PlatformPackage", "parse_packages"]
