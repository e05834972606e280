"""A git host that accepts a connection and never answers (issue #80 §5) holds a run for
the request timeout, not the download deadline: git's low-speed limit (http) and the
listing's own bound (any transport). A real ``git`` against a listener on 127.0.0.1 that
accepts and says nothing."""

from __future__ import annotations

import socket
import threading

import pytest

from tofu_solve.errors import NetworkError
from tofu_solve.remote.git import GitRemotes
from tofu_solve.settings import Limits
from tofu_solve.store.cache import Cache


@pytest.fixture
def silent_host():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                held.append(conn)  # never answered
            except OSError:
                continue
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield server.getsockname()[1]
    stop.set()
    t.join(5)
    for c in held:
        c.close()
    server.close()


def test_a_silent_http_git_host_is_given_up_on_the_request_timeout(tmp_path, silent_host):
    remotes = GitRemotes(Cache(tmp_path / "cache"), limits=Limits(deadline=300.0),
                         environ={"TF_REGISTRY_CLIENT_TIMEOUT": "1", "HOME": str(tmp_path)})
    with pytest.raises(NetworkError) as e:
        remotes.refs(f"http://127.0.0.1:{silent_host}/net.git")
    assert "Failed to list git tags" in e.value.summary and "too slow" in e.value.detail.lower()
