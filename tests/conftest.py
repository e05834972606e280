"""Shared test fixtures: the conformance vectors and corpus in ../shared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(__import__("os").environ.get("TOFU_SOLVE_SHARED", REPO.parent / "shared"))
VECTORS_PATH = SHARED / "conformance" / "vectors.json"


def load_vectors() -> dict:
    """The conformance vectors. A missing file is a hard error, never a skip: CI runs with
    ../shared beside the clone."""
    if not VECTORS_PATH.exists():
        raise FileNotFoundError(
            f"{VECTORS_PATH} is missing: tests need ../shared beside the repository "
            "(or TOFU_SOLVE_SHARED pointing at it)")
    return json.loads(VECTORS_PATH.read_text())


VECTORS = load_vectors()


@pytest.fixture(scope="session")
def vectors() -> dict:
    return VECTORS


_real_getaddrinfo = __import__("socket").getaddrinfo


def _loopback_only(host, *args, **kwargs):
    """Tests talk to 127.0.0.1 only: refuse to resolve any other name (a safety net)."""
    h = host.decode() if isinstance(host, bytes) else str(host)
    if h not in ("localhost", "::1") and not h.startswith("127."):
        raise OSError(f"tests may not contact {h}: only servers on 127.0.0.1 are allowed")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True, scope="session")
def loopback_only():
    import socket
    socket.getaddrinfo = _loopback_only
    yield
    socket.getaddrinfo = _real_getaddrinfo
