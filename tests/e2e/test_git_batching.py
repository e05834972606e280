"""Issue #13: fetching that overlaps. Fetches from one git remote share a queue: the tags
asked for while a fetch runs are pulled together in the next shallow fetch, and fetches of
one remote run side by side without holding its mirror; the first fetch of a remote does
not wait for its listing; submodules of one package version share one fetch; and what is
still in flight when the run is done (git fetches, downloads) is stopped, not waited for.
Slow servers are real ones on 127.0.0.1 that accept and then hold back their answer."""

from __future__ import annotations

import contextlib
import socket
import threading

import pytest

from tests.e2e.conftest import make_repo
from tofu_solve.remote.git import RemoteRef


def test_tags_of_one_remote_are_fetched_in_batches(tmp_path):
    from tofu_solve.remote.git import GitRemotes, RemoteRef
    from tofu_solve.remote.ops import OpCounter
    from tofu_solve.store.cache import Cache

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
        except Exception as e:
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


def test_every_tag_asked_for_before_the_listing_is_fetched_by_name_at_once(tmp_path, tofu_solve, own_cache,
                                                                           monkeypatch):
    """Two versions of one package, asked for while its remote was never listed: both tags
    are fetched by name side by side (issue #23: the second no longer waits for
    ``ls-remote``), the remote is still listed once, and the selections are the same."""
    from tests.e2e.conftest import lock_versions, write_root
    log = tmp_path / "tf.log"
    monkeypatch.setenv("TF_LOG", "DEBUG")
    monkeypatch.setenv("TF_LOG_PATH", str(log))
    root = write_root(tmp_path / "root", 'module "a" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                         '  version = "~> 3.0"\n}\n'
                                         'module "b" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                         '  version = "~> 2.0"\n}\n')
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    versions = lock_versions(r.lock)
    assert versions["a"].startswith("3.") and versions["b"].startswith("2."), versions
    by_name = [line.split("refs/tags/")[1].split()[0] for line in log.read_text().splitlines()
               if "(by name, before ls-remote)" in line]
    assert sorted(by_name) == sorted({f"v{versions['a']}", f"v{versions['b']}"}), by_name
    assert r.json()["network_operations"]["git_ls_remote"] == 1


def test_submodules_of_one_package_version_share_one_fetch(tmp_path, tofu_solve, own_cache):
    """Issue #13: four calls of one package version's submodules ask the registry for its
    download location once and fetch its tag once (they once did both four times at once,
    and a second git fetch of the same tag sat on the critical path)."""
    from tests.e2e.conftest import lock_versions, write_root
    from tofu_solve.lockfile import parse_lock_text
    subs = ("eks-managed-node-group", "fargate-profile", "self-managed-node-group")
    calls = 'module "eks" {\n  source  = "terraform-aws-modules/eks/aws"\n  version = "18.31.2"\n}\n' + "".join(
        f'module "m{i}" {{\n  source  = "terraform-aws-modules/eks/aws//modules/{sub}"\n  version = "18.31.2"\n}}\n'
        for i, sub in enumerate(subs))
    root = write_root(tmp_path / "root", calls)
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    versions = lock_versions(r.lock)
    assert {versions[n] for n in ("eks", "m0", "m1", "m2")} == {"18.31.2"}
    locks, _ = parse_lock_text(r.lock)
    package_versions = {(m.source.split("//")[0], m.version) for m in locks.modules.values()}
    ops = r.json()["network_operations"]
    assert len(package_versions) < len(locks.modules)  # several calls share a package version
    assert ops["module_download"] == len(package_versions), ops  # one registry answer per package version
    assert ops["git_fetch"] == len(package_versions), ops  # one fetch per package version


@contextlib.contextmanager
def silent_git_server():
    """A git:// address whose server accepts connections and never answers: a fetch from
    it runs until stopped (a slow remote, produced for real)."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    held = []

    def accept():
        while True:
            try:
                held.append(silent.accept()[0])
            except OSError:
                return
    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"git://127.0.0.1:{silent.getsockname()[1]}/never.git"
    finally:
        silent.close()
        for conn in held:
            conn.close()


def _export_in_thread(remotes, url, tag, dest, outcome):
    def run():
        try:
            remotes.export(url, RemoteRef(f"refs/tags/{tag}", "1" * 40), dest)
            outcome.append("returned")
        except Exception as e:
            outcome.append(e)
    t = threading.Thread(target=run)
    t.start()
    return t


def _wait_for(predicate, thread_alive, bound: float = 60.0):
    """Wait until ``predicate()``; a liveness bound, not a timing: it fails only when the
    state is never reached."""
    import time
    give_up = time.monotonic() + bound
    while not predicate():
        assert thread_alive(), "the fetching thread ended early"
        assert time.monotonic() < give_up, "never reached"
        threading.Event().wait(0.05)


def test_abort_stops_a_fetch_nobody_needs_and_the_mirror_still_works(tmp_path):
    """Issue #13: read-ahead still in flight when the run ends is stopped, not waited for.
    A git server that accepts and never answers stands for a slow fetch; ``abort`` ends it
    at once with FetchAborted, refuses later fetches, and the mirror serves the next run."""
    from tofu_solve.remote.git import FetchAborted, GitRemotes
    from tofu_solve.remote.ops import OpCounter
    from tofu_solve.store.cache import Cache

    cache = Cache(tmp_path / "cache")
    remotes = GitRemotes(cache, OpCounter())
    outcome: list = []
    with silent_git_server() as hung_url:
        t = _export_in_thread(remotes, hung_url, "v1.0.0", tmp_path / "never", outcome)
        _wait_for(lambda: remotes._running, t.is_alive)  # git is up and talking to the silent server
        remotes.abort()
        t.join(60)  # a liveness bound: without abort this thread would wait for the deadline
        assert not t.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], FetchAborted), outcome
    url = make_repo(tmp_path / "repo", [("v1.0.0", {"main.tf": "# one\n"})])
    refs = GitRemotes(cache, OpCounter()).refs(url)
    with pytest.raises(FetchAborted):  # the aborted GitRemotes refuses new work
        remotes.export(url, RemoteRef("refs/tags/v1.0.0", refs["refs/tags/v1.0.0"]), tmp_path / "refused")
    fresh = GitRemotes(cache, OpCounter())
    fresh.export(url, RemoteRef("refs/tags/v1.0.0", refs["refs/tags/v1.0.0"]), tmp_path / "ok")
    assert (tmp_path / "ok" / "main.tf").read_text() == "# one\n"


def test_fetches_of_one_remote_run_side_by_side_without_holding_the_mirror(tmp_path):
    """Issue #13: a fetch in flight holds neither the remote's mirror nor its queue. A
    second tag of the same (slow) remote starts its own fetch at once, and the mirror's
    lock is free meanwhile (an export of a commit already there is served)."""
    from tofu_solve.remote.git import FetchAborted, GitRemotes
    from tofu_solve.remote.ops import OpCounter
    from tofu_solve.store.cache import Cache

    cache = Cache(tmp_path / "cache")
    remotes = GitRemotes(cache, OpCounter())
    outcome: list = []
    with silent_git_server() as url:
        try:
            first = _export_in_thread(remotes, url, "v1.0.0", tmp_path / "a", outcome)
            _wait_for(lambda: len(remotes._running) == 1, first.is_alive)
            second = _export_in_thread(remotes, url, "v2.0.0", tmp_path / "b", outcome)
            _wait_for(lambda: len(remotes._running) == 2, second.is_alive)  # both on the network at once
            got = []

            def take_the_mirror():
                with remotes._url_lock(url), cache.locked(f"git:{cache.git_mirror(url)}"):
                    got.append(True)
            probe = threading.Thread(target=take_the_mirror, daemon=True)
            probe.start()
            probe.join(60)  # the mirror's lock is free while both fetches wait on the network
            assert got and not probe.is_alive()
        finally:
            remotes.abort()
        first.join(60)
        second.join(60)
    assert len(outcome) == 2 and all(isinstance(o, FetchAborted) for o in outcome), outcome


def test_abort_stops_a_download_in_flight_and_leaves_nothing_behind(tmp_path):
    """Issue #13: an HTTP download still running when the run ends (an archive read ahead)
    stops at its next chunk once the fetcher is aborted; its temporary file is removed and
    later downloads are refused."""
    import http.server

    from tofu_solve.remote.fetch import Fetcher
    from tofu_solve.remote.git import FetchAborted, GitRemotes
    from tofu_solve.remote.ops import OpCounter
    from tofu_solve.remote.registry import make_session
    from tofu_solve.store.cache import Cache

    sent_first, release = threading.Event(), threading.Event()

    class Slow(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", str(2 << 20))
            self.end_headers()
            self.wfile.write(b"x" * (64 << 10))
            self.wfile.flush()
            sent_first.set()
            release.wait(60)
            try:
                for _ in range(31):
                    self.wfile.write(b"x" * (64 << 10))
            except OSError:
                pass

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    cache = Cache(tmp_path / "cache")
    fetcher = Fetcher(cache, GitRemotes(cache, OpCounter()), make_session(), OpCounter())
    url = f"http://127.0.0.1:{server.server_address[1]}/module.tar.gz"
    outcome: list = []

    def download():
        try:
            outcome.append(fetcher.download(url))
        except Exception as e:
            outcome.append(e)
    t = threading.Thread(target=download)
    try:
        t.start()
        assert sent_first.wait(60)
        fetcher.abort()
        release.set()
        t.join(60)
        assert not t.is_alive()
        assert len(outcome) == 1 and isinstance(outcome[0], FetchAborted), outcome
        assert not list(cache.tmp_dir().glob("download-*"))  # the partial file is gone
        with pytest.raises(FetchAborted):
            fetcher.download(url)
    finally:
        release.set()
        server.shutdown()


def _annotated_tag_repo(path) -> str:
    import subprocess
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin:/usr/local/bin"}
    path.mkdir(parents=True)
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "one"]):
        subprocess.run(["git", "-C", str(path), *args], check=True, env=env)
    (path / "main.tf").write_text('variable "v" {}\n')
    for args in (["add", "main.tf"], ["commit", "-q", "-m", "two"], ["tag", "-a", "v1.0.0", "-m", "release"],
                 ["commit", "-q", "--allow-empty", "-m", "three"]):  # the tagged commit is no branch's tip
        subprocess.run(["git", "-C", str(path), *args], check=True, env=env)
    return f"file://{path}"


def test_a_listed_tag_is_fetched_by_its_commit_into_its_name(tmp_path):
    """Issue #23: a tag whose commit the listing gave is fetched by that id (no ref
    advertisement to wait for), and the mirror still knows it by name."""
    import subprocess

    from tofu_solve.remote.git import GitRemotes
    from tofu_solve.remote.ops import OpCounter
    from tofu_solve.store.cache import Cache

    url = _annotated_tag_repo(tmp_path / "repo")
    counter = OpCounter()
    cache = Cache(tmp_path / "cache")
    remotes = GitRemotes(cache, counter)
    ref = RemoteRef("refs/tags/v1.0.0", remotes.refs(url)["refs/tags/v1.0.0"])
    remotes.export(url, ref, tmp_path / "out")
    assert (tmp_path / "out" / "main.tf").is_file()
    assert counter.snapshot()["git_fetch"] == 1
    named = subprocess.run(["git", "--git-dir", str(cache.git_mirror(url)), "rev-parse", "refs/tags/v1.0.0^{commit}"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert named == ref.commit


def test_a_remote_that_refuses_a_want_by_id_is_asked_by_name(tmp_path):
    """Over git's protocol v0 (here: the user's git configuration asks for it) a server
    refuses to send an annotated tag's commit by its id ("unadvertised object"): the tag
    is then fetched by name, and the package is the same."""
    from tofu_solve.remote.git import GitRemotes
    from tofu_solve.remote.ops import OpCounter
    from tofu_solve.store.cache import Cache

    url = _annotated_tag_repo(tmp_path / "repo")
    v0 = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "protocol.version", "GIT_CONFIG_VALUE_0": "0"}
    counter = OpCounter()
    remotes = GitRemotes(Cache(tmp_path / "cache"), counter, environ=v0)
    ref = RemoteRef("refs/tags/v1.0.0", remotes.refs(url)["refs/tags/v1.0.0"])
    remotes.export(url, ref, tmp_path / "out")
    assert (tmp_path / "out" / "main.tf").read_text() == 'variable "v" {}\n'
    assert counter.snapshot()["git_fetch"] == 2  # by id, refused; then by name


def test_a_fetch_by_id_that_times_out_is_not_asked_again_by_name(tmp_path):
    """Only a refused want falls back to a fetch by name: a server that never answers costs
    one deadline, not two (hostile input stays bounded)."""
    from tofu_solve.errors import NetworkError
    from tofu_solve.remote.git import GitRemotes
    from tofu_solve.remote.ops import OpCounter
    from tofu_solve.settings import Limits
    from tofu_solve.store.cache import Cache

    counter = OpCounter()
    remotes = GitRemotes(Cache(tmp_path / "cache"), counter, limits=Limits(deadline=2))
    with silent_git_server() as url:
        with pytest.raises(NetworkError):
            remotes.export(url, RemoteRef("refs/tags/v1.0.0", "1" * 40), tmp_path / "never")
    assert counter.snapshot()["git_fetch"] == 1  # by id, timed out; not again by name
