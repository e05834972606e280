"""Small helpers shared by the network clients: credential-free URLs, loopback detection,
operation counters."""

from __future__ import annotations

import hashlib
import ipaddress
import re
import contextlib
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

# One redaction rule (issue #11), applied wherever a source address or a download location
# is written or shown: lock file, state, graph, inspect, progress, errors, logs, cache.
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


def lazy_import(name: str):
    """The module ``name``, imported on first attribute access, once, under a lock (the
    import itself is :func:`importlib.import_module`; the standard library's
    ``LazyLoader`` is not safe when several threads touch the module first, before Python
    3.12). Network libraries are imported this way so that a run that never touches the
    network (a warm re-init, ``check``, ``why``) never pays for importing them."""
    return _LazyModule(name)


def import_in_background(*names: str) -> None:
    """Import the modules ``names`` on a daemon thread (the import system's own locks make
    a concurrent first use wait for it), so that the run does not pay for them later, on
    its critical path. For modules a run that has started using the network will need."""
    import importlib

    def run():
        for name in names:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the real first use reports it
                pass
    threading.Thread(target=run, name="tofu-solve-import", daemon=True).start()


class _LazyModule:
    def __init__(self, name: str):
        self._name = name
        self._module = None
        self._lock = threading.Lock()

    def __getattr__(self, attr: str):
        module = self._module
        if module is None:
            with self._lock:
                if self._module is None:
                    import importlib
                    self._module = importlib.import_module(self._name)
                module = self._module
        return getattr(module, attr)


class OnceEach:
    """``fn()`` once per key for the run: concurrent callers with the same key wait for the
    first and share its result, later callers get it from memory. A failure is not
    remembered (the next caller tries again). Thread-safe. Used where several module calls
    of one package version would otherwise ask the network the same question at once (a
    package's submodules: ``eks//modules/fargate-profile``, ``eks//modules/...``)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._locks: dict = {}
        self._done: dict = {}

    def __call__(self, key, fn: Callable):
        with self._lock:
            if key in self._done:
                return self._done[key]
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._lock:
                if key in self._done:
                    return self._done[key]
            value = fn()
            with self._lock:
                self._done[key] = value
            return value


class OpCounter:
    """Thread-safe counts of network operations by kind (for progress and benchmarks).

    It also says what a thread is fetching the moment it first goes to the network:
    :meth:`announcing` sets, for the calling thread, a message that :meth:`add` hands to
    ``announce`` once, just before the first network operation counted in that thread.
    Work served from the cache therefore announces nothing (a warm re-init prints no
    "Fetching")."""

    def __init__(self, announce=None):
        self._lock = threading.Lock()
        self.counts: Counter = Counter()
        self.announce = announce
        self._local = threading.local()

    @contextlib.contextmanager
    def announcing(self, message: str):
        """Within the block, the calling thread's first network operation prints ``message``."""
        prev = getattr(self._local, "pending", None)
        self._local.pending = message
        try:
            yield
        finally:
            self._local.pending = prev

    def add(self, kind: str, n: int = 1) -> None:
        pending = getattr(self._local, "pending", None)
        if pending is not None and self.announce is not None:
            self._local.pending = None
            self.announce(pending)
        with self._lock:
            self.counts[kind] += n

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self.counts)


# --------------------------------------------------------------------------- bounds

MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Bounds on what the outside world can make tofu-solve download, unpack and wait for.

    Attributes (each set by the environment variable named in brackets):
        download_bytes: one package download, compressed [TOFU_SOLVE_MAX_DOWNLOAD_BYTES],
            default 512 MiB.
        document_bytes: one registry answer or checksum document
            [TOFU_SOLVE_MAX_DOCUMENT_BYTES], default 8 MiB.
        extracted_bytes: everything one archive unpacks to [TOFU_SOLVE_MAX_EXTRACTED_BYTES],
            default 1 GiB.
        file_bytes: one unpacked file [TOFU_SOLVE_MAX_FILE_BYTES], default 256 MiB.
        entries: entries in one archive [TOFU_SOLVE_MAX_ARCHIVE_ENTRIES], default 100,000.
        deadline: seconds one download or registry request may take in all, however
            slowly the server drips its bytes [TOFU_SOLVE_DOWNLOAD_DEADLINE], default 300.

    The largest public module packages unpack to a few tens of MiB, far below these.
    """

    download_bytes: int = 512 * MiB
    document_bytes: int = 8 * MiB
    extracted_bytes: int = 1024 * MiB
    file_bytes: int = 256 * MiB
    entries: int = 100_000
    deadline: float = 300.0

    ENV = {"download_bytes": "TOFU_SOLVE_MAX_DOWNLOAD_BYTES", "document_bytes": "TOFU_SOLVE_MAX_DOCUMENT_BYTES",
           "extracted_bytes": "TOFU_SOLVE_MAX_EXTRACTED_BYTES", "file_bytes": "TOFU_SOLVE_MAX_FILE_BYTES",
           "entries": "TOFU_SOLVE_MAX_ARCHIVE_ENTRIES", "deadline": "TOFU_SOLVE_DOWNLOAD_DEADLINE"}

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "Limits":
        """The limits, each overridden by its environment variable when set.

        Raises:
            ConfigurationError: a variable that is not a positive number, naming it.
        """
        from .errors import ConfigurationError

        values = {}
        for name, var in cls.ENV.items():
            raw = env.get(var)
            if not raw:
                continue
            try:
                value = float(raw) if name == "deadline" else int(raw)
            except ValueError:
                value = 0
            if value <= 0:
                raise ConfigurationError("Invalid environment variable",
                                         f"{var} must be a positive {'number' if name == 'deadline' else 'integer'}"
                                         f", not {raw!r}.")
            values[name] = value
        return cls(**values)


def read_bounded(response, sink: Callable[[bytes], None], limit: int, deadline: float, url: str,
                 what: str = "download") -> int:
    """Stream ``response``'s body (a ``requests`` response opened with ``stream=True``)
    into ``sink`` chunk by chunk, as bytes arrive.

    Returns the number of bytes read.

    Raises:
        NetworkError: more than ``limit`` bytes ("... too large"), or the whole body took
            longer than ``deadline`` seconds ("... timed out": a server that drips one byte
            at a time never trips the per-read timeout alone), or the connection broke.
    """
    import requests

    from .errors import NetworkError

    end = time.monotonic() + deadline
    total = 0
    raw = response.raw

    def broken(e: BaseException) -> NetworkError:
        return NetworkError(f"Truncated {what}",
                            f"{redact(url)}: the connection broke after {total} bytes ({type(e).__name__}).",
                            url=redact(url))

    try:
        while True:
            if time.monotonic() > end:
                raise NetworkError(f"The {what} timed out",
                                   f"{redact(url)} did not finish within {deadline:g} s ({total} bytes received). "
                                   "Raise TOFU_SOLVE_DOWNLOAD_DEADLINE for a slow but honest server.",
                                   url=redact(url))
            try:
                chunk = raw.read1(1 << 16, decode_content=True)
            except (requests.RequestException, OSError, ValueError) as e:
                raise broken(e) from None
            except Exception as e:  # urllib3's own errors (ProtocolError, ReadTimeoutError...)
                if type(e).__module__.startswith("urllib3"):
                    raise broken(e) from None
                raise
            if not chunk:
                return total
            total += len(chunk)
            if total > limit:
                var = "TOFU_SOLVE_MAX_DOCUMENT_BYTES" if what == "registry answer" else "TOFU_SOLVE_MAX_DOWNLOAD_BYTES"
                raise NetworkError(f"The {what} is too large",
                                   f"{redact(url)} sent more than {limit} bytes. Raise the limit ({var}) if the "
                                   "package is really that large.", url=redact(url))
            sink(chunk)  # its own OSError (a full disk) is the caller's to report
    finally:
        response.close()


def read_document(response, limits: Limits, url: str) -> bytes:
    """The whole body of a small answer (registry JSON, checksums), bounded by
    ``limits.document_bytes`` and ``limits.deadline``; also stored as the response's
    ``content``. Raises NetworkError."""
    buf = bytearray()
    read_bounded(response, buf.extend, limits.document_bytes, limits.deadline, url, "registry answer")
    response._content = bytes(buf)  # requests' documented-by-use cache of the body
    response._content_consumed = True
    return response._content
