"""Host names as OpenTofu compares them (``svchost.ForComparison``, terraform-svchost).

Internationalized names are mapped with UTS #46 (IDNA 2008, non-transitional: ``straße``
stays ``straße`` and becomes ``xn--strae-oqa``, where Python's built-in ``idna`` codec, IDNA
2003, would give ``strasse``), case-folded, and the default HTTPS port 443 is dropped. The
mapping is the ``idna`` package's. Checked against Terraform 1.11 (the same svchost), which
lists ``straße.example/ns/name/aws`` at ``xn--strae-oqa.example``.
"""

from __future__ import annotations

import functools
import re

from .._lazy import load

_LABEL = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
_HOST_RE = re.compile(rf"{_LABEL}(?:\.{_LABEL})*(?::[0-9]+)?")


def normalize(host: str) -> str | None:
    """The comparison form of a host written in an address (a module registry source, a
    provider source address, a CLI configuration's ``host``/``credentials`` label):
    lower case, IDNA 2008 to punycode, the default port 443 dropped; None when ``host`` is
    not a valid host name (an empty label, a character outside ``[a-z0-9-]`` in an ASCII
    name, a port that is not a number). registry-address's ``ParseModuleSource`` and
    ``ParseProviderSource`` both compare through svchost ``ForComparison``; an ASCII name
    skips the IDNA mapping (it would only lower-case it)."""
    h = host if host.isascii() else for_comparison(host)
    if h is None:
        return None
    h = h.lower()
    if h.endswith(":443"):
        h = h[:-4]
    return h if _HOST_RE.fullmatch(h) else None


@functools.lru_cache(maxsize=4096)
def for_comparison(given: str) -> str | None:
    """``given`` (``name`` or ``name:port``) in its comparison form, or None when it is not a
    valid host name (an empty label, a character IDNA forbids, a port that is not a number)."""
    load("idna")
    import idna  # only for a name that needs it: ASCII names never get here from normalize()

    name, sep, port = given.partition(":")
    if not name or (sep and not port.isdigit()):
        return None
    try:
        ascii_name = idna.encode(name, uts46=True, transitional=False).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        return None
    if sep and port != "443":
        return f"{ascii_name}:{port}"
    return ascii_name


def for_display(host: str) -> str:
    """A comparison-form host with its punycode labels shown in Unicode (the port kept);
    the host itself when it cannot be decoded."""
    if "xn--" not in host:
        return host
    load("idna")
    import idna

    name, sep, port = host.partition(":")
    try:
        return idna.decode(name) + sep + port
    except (idna.IDNAError, UnicodeError):
        return host
