"""Small helpers shared by the network clients: credential-free URLs, loopback detection,
operation counters."""

from __future__ import annotations

import hashlib
import ipaddress
import re
import threading
from collections import Counter
from urllib.parse import urlsplit, urlunsplit

_USERINFO_RE = re.compile(r"(?<=://)[^/@\s]+@")
_SECRET_QUERY_RE = re.compile(r"(?i)([?&](?:token|access_token|password|sshkey|x-amz-signature|sig)=)[^&#\s]+")


def redact(text: str) -> str:
    """``text`` with URL user-info and secret-looking query values replaced by ``***``
    (``https://user:pw@h/x?token=t`` -> ``https://***@h/x?token=***``)."""
    text = _USERINFO_RE.sub("***@", text)
    return _SECRET_QUERY_RE.sub(r"\1***", text)


def strip_userinfo(text: str) -> str:
    """``text`` with URL user-info removed (``git::https://u:pw@h/r`` -> ``git::https://h/r``):
    the form tofu-solve writes into lock files, modules.json and output."""
    return _USERINFO_RE.sub("", text)


def url_key(url: str) -> str:
    """A stable, credential-free key for a URL: SHA-256 hex of the URL without user-info
    (for cache directory names; the raw URL may hold credentials)."""
    parts = urlsplit(url)
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


class OpCounter:
    """Thread-safe counts of network operations by kind (for progress and benchmarks)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.counts: Counter = Counter()

    def add(self, kind: str, n: int = 1) -> None:
        with self._lock:
            self.counts[kind] += n

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self.counts)
