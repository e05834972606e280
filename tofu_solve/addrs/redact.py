"""Secrets out of addresses, and which hosts are this machine's.

One redaction rule (issue #11), applied wherever a source address or a download location is
written or shown: lock file, state, graph, inspect, progress, errors, logs, cache keys.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from urllib.parse import urlsplit, urlunsplit

SECRET_QUERY_KEYS = frozenset({
    "token", "access_token", "refresh_token", "id_token", "auth", "authorization", "password", "passwd", "pwd",
    "secret", "client_secret", "api_key", "apikey", "sshkey", "sig", "signature", "credential", "credentials",
})
SECRET_QUERY_PREFIXES = ("x-amz-", "x-goog-", "x-ms-")
_USERINFO_RE = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<userinfo>[^/?#@\s]+)@")
_QUERY_PARAM_RE = re.compile(r"(?P<lead>[?&])(?P<key>[^=&#\s\"']+)=(?P<value>[^&#\s\"']*)")
REDACTED = "***"


def _is_secret_key(key: str) -> bool:
    k = key.lower()
    return k in SECRET_QUERY_KEYS or k.startswith(SECRET_QUERY_PREFIXES)


def _userinfo(m: re.Match) -> str:
    scheme, info = m.group("scheme"), m.group("userinfo")
    if scheme.lower().endswith("ssh") and ":" not in info:
        return m.group(0)  # ssh://git@host: a user name, not a secret
    return f"{scheme}://"


def _param(m: re.Match) -> str:
    if _is_secret_key(m.group("key")) and m.group("value"):
        return f"{m.group('lead')}{m.group('key')}={REDACTED}"
    return m.group(0)


def redact(text: str) -> str:
    """``text`` (an address, a URL, or a message holding some) without secrets:

    * URL user-info is dropped (``https://u:pw@h/r`` -> ``https://h/r``), except a bare
      ssh user name, which identifies the account rather than proving it
      (``ssh://git@h/r`` is kept);
    * the value of every query parameter that carries a credential is replaced by
      ``***``: :data:`SECRET_QUERY_KEYS` (case-insensitive) and any key starting with
      ``X-Amz-``, ``X-Goog-`` or ``X-Ms-`` (pre-signed S3, GCS and Azure URLs).

    The result is stable for a given package, so it serves as its identity in the lock
    file and as the cache key. Idempotent.
    """
    if "://" not in text and "?" not in text and "&" not in text:
        return text
    text = _USERINFO_RE.sub(_userinfo, text)
    return _QUERY_PARAM_RE.sub(_param, text)


def has_secret(text: str) -> bool:
    """Whether :func:`redact` would change ``text``."""
    return redact(text) != text


def url_key(url: str) -> str:
    """A stable, credential-free key for a URL: SHA-256 hex of its :func:`redact`ed form
    without user-info and fragment (for cache directory names; the raw URL may hold
    credentials)."""
    parts = urlsplit(redact(url))
    netloc = parts.netloc.rsplit("@", 1)[-1]
    clean = urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
    return hashlib.sha256(clean.encode()).hexdigest()


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and addresses in 127.0.0.0/8 or ::1 (ports allowed)."""
    h = host.rsplit("@", 1)[-1]
    if h.startswith("["):
        h = h[1:].split("]", 1)[0]
    elif h.count(":") == 1:
        h = h.split(":", 1)[0]
    if h == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False
