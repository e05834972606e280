"""Every bound on what the network can make tofu-solve read, unpack or wait for, in one place
(issue #38), each with the OpenTofu behaviour it matches or tightens; and the bounded reads
that apply them: no answer may be larger or slower than :class:`Limits` allow.

The bounds a user can raise are :class:`Limits` (read from the environment with the other
settings, so defined in :mod:`tofu_solve.settings`, whose docstring gives each one's OpenTofu
behaviour, and re-exported here); the fixed ones are the constants below. Remote code takes
both from this module."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._lazy import load
from ..addrs.redact import redact
from ..settings import Limits, MiB

REQUEST_TIMEOUT = 10.0
"""Seconds one registry or OCI request may wait for an answer: OpenTofu's registry client
default (``TF_REGISTRY_CLIENT_TIMEOUT``, ``internal/command/cliconfig/registry_protocols.go``),
which overrides it here too."""

MAX_REDIRECTS = 10
"""Redirects followed for one download (``X-Terraform-Get`` chains included): Go's
``net/http`` client stops after 10, which go-getter and OpenTofu's registry client use; a
server that redirects forever (or in a loop of relative URLs, opentofu#4472) is cut off."""

MAX_TAG_PAGES = 1000
"""Pages of one OCI tag listing followed through ``Link`` headers. ORAS-Go, which OpenTofu
uses, follows pages without a bound; a registry that pages forever is cut off here
(GHSA-pxh5-6rrc-8rjv)."""

OCI_MANIFEST_BYTES = 4 * MiB
"""An OCI image manifest's size: OpenTofu's ``ociImageManifestSizeLimitMiB``
(``internal/getmodules/oci_getter.go``)."""

CREDENTIAL_HELPER_TIMEOUT = 30.0
"""Seconds a docker credential helper may take to answer (OpenTofu runs it without a bound)."""


_FAILURES = (  # (exception class name, what people are told), most specific first; names, so that
    # this module imports no network library (a warm run never pays for one)
    ("ConnectTimeout", "the connection timed out"),
    ("ReadTimeout", "the server stopped answering"),
    ("Timeout", "the request timed out"),
    ("SSLError", "the TLS handshake failed (check the certificate)"),
    ("ProxyError", "the proxy refused the connection"),
    ("TooManyRedirects", "it redirected too many times"),
    ("ChunkedEncodingError", "the answer broke off"),
    ("ContentDecodingError", "the answer could not be decoded"),
    ("ProtocolError", "the connection broke"),
    ("ConnectionError", "the connection failed (refused, reset or no route to the host)"),
    ("InvalidURL", "the address is not a valid URL"),
    ("InvalidSchema", "the address has an unsupported scheme"),
)


def describe_failure(e: BaseException) -> str:
    """What went wrong with a request, in words (issue #34: no exception class name reaches
    the output): ``the connection timed out``, ``the connection failed (…)``...; the most
    specific class in ``e``'s ancestry that is known, else ``the request failed``."""
    names = [c.__name__ for c in type(e).__mro__]
    for name, words in _FAILURES:
        if name in names:
            return words
    return "the request failed"


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
    load("requests")
    import requests

    load("tofu_solve.errors")
    from ..errors import DownloadTooLarge, NetworkError, TruncatedDownload

    end = time.monotonic() + deadline
    total = 0
    raw = response.raw

    def broken(e: BaseException) -> NetworkError:
        return TruncatedDownload(f"Truncated {what}",
                            f"{redact(url)}: the connection broke after {total} bytes ({describe_failure(e)}).",
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
                raise DownloadTooLarge(f"The {what} is too large",
                                   f"{redact(url)} sent more than {limit} bytes. Raise the limit ({var}) if the "
                                   "package is really that large.", url=redact(url))
            sink(chunk)  # its own OSError (a full disk) is the caller's to report
    finally:
        response.close()


@dataclass(frozen=True)
class Document:
    """A small answer read whole (:func:`read_document`): what the callers of a registry,
    mirror or OCI request look at, the body included; the connection is closed.

    Attributes:
        status_code: the HTTP status.
        url: the final URL (after redirects).
        headers: the response headers (case-insensitive, as requests keeps them).
        links: the parsed ``Link`` header (``rel`` -> ``{"url": ...}``).
        encoding: the charset the headers declare, if any.
        content: the body.
    """

    status_code: int
    url: str
    headers: Mapping[str, str]
    links: Mapping[str, Mapping[str, str]]
    encoding: str | None
    content: bytes

    def json(self) -> Any:
        """The body as JSON. Raises ValueError (``json.JSONDecodeError``) when it is not."""
        return json.loads(self.content)


def read_document(response, limits: Limits, url: str) -> Document:
    """The whole of a small answer (registry JSON, checksums, a probe page), its body
    bounded by ``limits.document_bytes`` and ``limits.deadline``. Raises NetworkError."""
    buf = bytearray()
    read_bounded(response, buf.extend, limits.document_bytes, limits.deadline, url, "registry answer")
    return Document(response.status_code, response.url, response.headers, response.links, response.encoding,
                    bytes(buf))
