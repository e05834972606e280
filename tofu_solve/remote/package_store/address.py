"""The package store's address and settings (issue #49): ``oci://HOST[:PORT]/PREFIX``,
from ``-package-store`` or ``TOFU_SOLVE_PACKAGE_STORE``.

Light on purpose: ``init``'s early start reads the setting before any of the store's
machinery (the OCI client, archives, hashing) is imported (issue #72 §2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from ...addrs.redact import redact
from ...errors import ConfigurationError

STORE_VARIABLE = "TOFU_SOLVE_PACKAGE_STORE"
PUSH_VARIABLE = "TOFU_SOLVE_PACKAGE_STORE_PUSH"
GRACE_VARIABLE = "TOFU_SOLVE_PACKAGE_STORE_GRACE"
STORE_TIMEOUT = 5.0
"""Seconds one request to the store may wait for a connection or a read: the store is an
optimisation, so a silent one is given up on sooner than an origin (10 s)."""
PUSH_GRACE = 10.0
"""Seconds ``init`` waits at its end for pushes still running (``TOFU_SOLVE_PACKAGE_STORE_GRACE``)."""

COMPONENT = re.compile(r"[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*")  # OCI distribution spec: a path component
_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
                   r"(?::[0-9]{1,5})?")


@dataclass(frozen=True)
class StoreAddress:
    """``oci://HOST[:PORT]/PREFIX``: the registry and the repository prefix of the store."""

    host: str
    prefix: str

    def repository(self, *parts: str) -> str:
        return "/".join(p for p in (self.prefix, *parts) if p)

    def __str__(self) -> str:
        return f"oci://{self.host}/{self.prefix}" if self.prefix else f"oci://{self.host}"


def parse_store_address(text: str, origin: str) -> StoreAddress:
    """``oci://HOST[:PORT][/PREFIX]``; ``origin`` names where it was given (``-package-store``
    or ``TOFU_SOLVE_PACKAGE_STORE``) for the error.

    Raises:
        ConfigurationError: "Invalid package store address": another scheme, a credential,
            a query, or a host or path component an OCI registry refuses.
    """
    def bad(why: str) -> ConfigurationError:
        return ConfigurationError("Invalid package store address",
                                  f"{origin} is {redact(text)!r}: {why}. Write it as oci://HOST[:PORT]/PREFIX, for "
                                  "example oci://ghcr.io/my-org/tofu-packages.")
    if not text.startswith("oci://"):
        raise bad("the package store is an OCI registry, named with oci://")
    parts = urlsplit(text)
    if parts.username or parts.password or "@" in parts.netloc:
        raise bad("credentials never go in the address; they come from the Docker-style config files")
    if parts.query or parts.fragment:
        raise bad("it may not have a query or a fragment")
    if not _HOST.fullmatch(parts.netloc or ""):
        raise bad("the host is not a valid registry host")
    prefix = parts.path.strip("/")
    for component in prefix.split("/") if prefix else ():
        if not COMPONENT.fullmatch(component):
            raise bad(f"the path component {component!r} is not a valid OCI repository name (lower-case letters, "
                       "digits and single separators)")
    return StoreAddress(parts.netloc, prefix)


def store_setting(flag: str | None, env: Mapping[str, str]) -> StoreAddress | None:
    """The store a run uses: ``-package-store`` (an empty value turns the store off), else
    ``TOFU_SOLVE_PACKAGE_STORE``; None for none. Raises ConfigurationError."""
    if flag is not None:
        return parse_store_address(flag, "-package-store") if flag else None
    text = env.get(STORE_VARIABLE, "")
    return parse_store_address(text, STORE_VARIABLE) if text else None
