"""Shared test fixtures: the conformance vectors and corpus in ../shared."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import TypeVar

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TOFU_SOLVE_SHARED", REPO.parent / "shared"))
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


CLIENT_NAMES = ("tofu", "terraform")


def path_without_clients(path: str, shims: Path) -> str:
    """``path`` as on a machine with neither ``tofu`` nor ``terraform``: every directory
    that holds one is replaced by ``shims``, which links everything else it held."""
    shims.mkdir(parents=True, exist_ok=True)
    out = []
    for d in path.split(os.pathsep):
        if not d:
            continue
        if not any(os.path.isfile(os.path.join(d, n)) for n in CLIENT_NAMES):
            out.append(d)
            continue
        for name in os.listdir(d):
            link = shims / name
            if name not in CLIENT_NAMES and not link.exists():
                link.symlink_to(os.path.join(d, name))
        if str(shims) not in out:
            out.append(str(shims))
    return os.pathsep.join(out)


@pytest.fixture(autouse=True, scope="session")
def no_client_on_path(tmp_path_factory):
    """tofu-solve solves for, and hands over to, the client it finds on PATH (issue #26);
    tests run as on a machine without one, so that each test says which client it wants
    (``-tf-path``, ``-terraform-version``...). The clients' own paths are looked up first
    (``CLIENT_PATHS``)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PATH", path_without_clients(os.environ.get("PATH", ""), tmp_path_factory.mktemp("shims")))
    yield
    mp.undo()


CLIENT_PATHS: dict[str, str | None] = {n: shutil.which(n) for n in CLIENT_NAMES}
"""``tofu`` and ``terraform`` as found on the PATH the tests started with (None: absent)."""


def pytest_addoption(parser):
    parser.addoption("--resolvelib-loop", choices=("tofu-solve", "resolvelib"), default="tofu-solve",
                     help="the search loop the solver runs: tofu-solve's incremental one (default) or "
                          "resolvelib's own Resolver, its fallback (issue #35: CI runs the solver tests on both)")


@pytest.fixture(autouse=True, scope="session")
def resolvelib_loop(request):
    """Which loop :class:`tofu_solve.solver.search.Search` runs in this test session: with
    ``--resolvelib-loop=resolvelib``, resolvelib's own ``Resolver``, as when a resolvelib
    release lacks a private member the incremental loop uses."""
    from tofu_solve.solver import search

    loop = request.config.getoption("--resolvelib-loop")
    saved = search._HAS_MEMBERS
    if loop == "resolvelib":
        search._HAS_MEMBERS = False
    yield loop
    search._HAS_MEMBERS = saved


# Property tests (Hypothesis): under CI the same examples every run, so that a landing does not
# depend on a draw; elsewhere each run explores new ones (a failure found is kept as a test).
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    _hypothesis_settings.load_profile("ci")


T = TypeVar("T")


def require_tool(found: T, what: str, package: str) -> T:
    """A system tool the README's two commands do not install (Graphviz ``dot``, Debian's
    ``docker-registry``): without it the test skips, saying what to install, except under CI
    (``CI`` set, as ``.ci/run`` sets it), where ``.ci/run`` installs it and its absence fails
    the test (issue #37)."""
    if found:
        return found
    message = f"{what} is not installed here (.ci/run installs it; on Debian: apt-get install {package})"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
    return found  # not reached: skip raises
