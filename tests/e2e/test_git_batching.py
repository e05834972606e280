"""Issue #13: fetches from one git remote share a queue: the tags asked for while a fetch
runs are pulled together in the next shallow fetch, not one after another."""

from __future__ import annotations

import threading

from tests.e2e.conftest import make_repo


def test_tags_of_one_remote_are_fetched_in_batches(tmp_path):
    from tofu_solve.cache import Cache
    from tofu_solve.gitremote import GitRemotes, RemoteRef
    from tofu_solve.netutil import OpCounter

    tags = [f"v1.{i}.0" for i in range(12)]
    url = make_repo(tmp_path / "repo", [(t, {"main.tf": f'# {t}\n'}) for t in tags])
    counter = OpCounter()
    remotes = GitRemotes(Cache(tmp_path / "cache"), counter)
    refs = remotes.refs(url)
    wanted = [RemoteRef(f"refs/tags/{t}", refs[f"refs/tags/{t}"]) for t in tags]
    start = threading.Barrier(len(wanted))
    errors = []

    def export(ref: RemoteRef):
        try:
            start.wait()
            dest = tmp_path / "out" / ref.name.rsplit("/", 1)[-1]
            remotes.export(url, ref, dest)
            assert (dest / "main.tf").read_text() == f"# {ref.name.rsplit('/', 1)[-1]}\n"
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=export, args=(r,)) for r in wanted]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    fetches = counter.snapshot()["git_fetch"]
    assert 1 <= fetches < len(tags) // 2, fetches  # twelve tags, a few fetches

    # a tag deleted from the remote fails alone; the others in its batch still arrive
    url2 = make_repo(tmp_path / "repo2", [(t, {"main.tf": f'# {t}\n'}) for t in tags[:3]])
    refs2 = remotes.refs(url2)
    good = RemoteRef("refs/tags/v1.0.0", refs2["refs/tags/v1.0.0"])
    bad = RemoteRef("refs/tags/v9.9.9", "0" * 40)
    remotes._queued[url2] = {bad.name: bad}
    remotes.export(url2, good, tmp_path / "good")
    assert (tmp_path / "good" / "main.tf").is_file()


def test_first_fetch_of_a_remote_does_not_wait_for_ls_remote(tmp_path, tofu_solve, own_cache, monkeypatch):
    """The tag the registry names is fetched by name while ``ls-remote`` runs beside it;
    the listing still happens (moved tags stay detectable) and the lock is the same."""
    from tests.e2e.conftest import lock_versions, write_root
    log = tmp_path / "tf.log"
    monkeypatch.setenv("TF_LOG", "DEBUG")
    monkeypatch.setenv("TF_LOG_PATH", str(log))
    root = write_root(tmp_path / "root", 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                         '  version = "~> 3.0"\n}\n')
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"kms": "3.1.1"}
    text = log.read_text()
    assert "(by name, before ls-remote)" in text
    assert "git ls-remote --tags --heads" in text  # the listing still ran, beside the fetch
    assert r.json()["network_operations"]["git_ls_remote"] == 1


def test_abort_stops_a_fetch_nobody_needs_and_the_mirror_still_works(tmp_path):
    """Issue #13: read-ahead still in flight when the run ends is stopped, not waited for.
    A git server that accepts and never answers stands for a slow fetch; ``abort`` ends it
    at once with FetchAborted, refuses later fetches, and the mirror serves the next run."""
    import socket

    from tofu_solve.cache import Cache
    from tofu_solve.gitremote import FetchAborted, GitRemotes, RemoteRef
    from tofu_solve.netutil import OpCounter

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)
    held = []
    threading.Thread(target=lambda: held.append(silent.accept()), daemon=True).start()
    hung_url = f"git://127.0.0.1:{silent.getsockname()[1]}/never.git"
    cache = Cache(tmp_path / "cache")
    remotes = GitRemotes(cache, OpCounter())
    outcome = []
    started = threading.Event()

    def fetch():
        started.set()
        try:
            remotes.export(hung_url, RemoteRef("refs/tags/v1.0.0", "1" * 40), tmp_path / "never")
            outcome.append("returned")
        except Exception as e:  # noqa: BLE001 - the kind is asserted below
            outcome.append(e)
    t = threading.Thread(target=fetch)
    t.start()
    started.wait()
    while not remotes._running:  # the git process is up and talking to the silent server
        t.join(0.05)
    remotes.abort()
    t.join(60)  # a liveness bound: without abort this thread would wait for the deadline
    try:
        assert not t.is_alive()
        assert len(outcome) == 1 and isinstance(outcome[0], FetchAborted), outcome
        url = make_repo(tmp_path / "repo", [("v1.0.0", {"main.tf": "# one\n"})])
        refs = GitRemotes(cache, OpCounter()).refs(url)
        try:  # the aborted GitRemotes refuses new work
            remotes.export(url, RemoteRef("refs/tags/v1.0.0", refs["refs/tags/v1.0.0"]), tmp_path / "refused")
            raise AssertionError("an aborted GitRemotes fetched")
        except FetchAborted:
            pass
        fresh = GitRemotes(cache, OpCounter())
        fresh.export(url, RemoteRef("refs/tags/v1.0.0", refs["refs/tags/v1.0.0"]), tmp_path / "ok")
        assert (tmp_path / "ok" / "main.tf").read_text() == "# one\n"
    finally:
        silent.close()
        for conn, _ in held:
            conn.close()
