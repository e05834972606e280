"""git remotes: tag listings and shallow fetches into bare mirrors, every git command
through :mod:`.gitcmd` (the ``git`` executable, one environment, one deadline, one error).

* ``list_tags(url)``: one ``git ls-remote --tags`` per remote per run; annotated tags are
  peeled to the commit they point at.
* ``strict_semver_tags``: the tags that are strict SemVer (``vX.Y.Z`` or ``X.Y.Z``,
  prerelease and build allowed), the only ones a ``version`` constraint selects from
  (the module-locking RFC's rule).
* ``export(url, ref)``: fetch one ref (depth 1) into a per-remote bare mirror in the cache,
  then write the commit's files (no ``.git``) into a directory with ``git archive``,
  extracted by :mod:`tarfile` with the ``data`` filter (no escaping paths).

Credentials in URLs never reach messages: every URL shown goes through ``redact``.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .._threads import NOTHING, start_thread
from ..addrs.redact import redact, url_key
from ..config.files import PackageFiles
from ..errors import NetworkError, OfflineError
from ..lockfile.replacefile import replace_dir
from ..store.cache import Cache
from ..versions.hashicorp_go_version import GoVersion
from . import gitcmd
from .archives import extract_archive, read_config_files
from .git_mirror_read import ARCHIVE, BrokenMirror, git_archive, tree_files
from .gitcmd import GitError
from .limits import Limits
from .ops import OpCounter

_STRICT_SEMVER = re.compile(
    r"v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?")
_SHA_RE = re.compile(r"[0-9a-f]{40}")
# what git says when a server refuses a want by object id (protocol v0 without
# uploadpack.allow*SHA1InWant, or a server that restricts wants)
_REFUSED_WANT = re.compile(r"unadvertised object|not our ref|not a valid object|want .* not valid", re.I)
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RemoteRef:
    """One ref of a remote: its full name and the commit it points at (peeled)."""

    name: str
    commit: str


def strict_semver_tags(tags: dict[str, str]) -> list[tuple[GoVersion, str]]:
    """(version, tag) for every strict-SemVer tag. Raises nothing."""
    out = []
    for tag in tags:
        if _STRICT_SEMVER.fullmatch(tag):
            out.append((GoVersion.parse(tag), tag))
    return out


MAX_REFS_PER_FETCH = 64  # refs one batched git fetch asks for


class GitRemotes:
    """Listing and fetching git remotes, cached per run and on disk.

    Args:
        cache: where mirrors live.
        counter: counts ``git_ls_remote`` and ``git_fetch`` operations.
        environ: the environment git runs in (the run's
            :attr:`tofu_solve.settings.Settings.environ`; ``GIT_TERMINAL_PROMPT=0`` and the
            like are added). Empty: git's defaults.
    """

    def __init__(self, cache: Cache, counter: OpCounter | None = None, offline: bool = False,
                 limits: Limits | None = None, environ: Mapping[str, str] | None = None):
        self.environ = dict(environ or {})
        self.limits = limits or Limits()
        self.cache = cache
        self.counter = counter or OpCounter()
        self.offline = offline
        self._refs: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()
        self._url_locks: dict[str, threading.Lock] = {}
        # url -> ref name -> ref: refs some thread is about to export; one fetch takes every
        # ref queued for the remote at that moment (a shared per-remote queue, issue #13)
        self._queued: dict[str, dict[str, RemoteRef]] = {}
        # (url, ref name) -> the fetch that is bringing it now (others wait for it)
        self._inflight: dict[tuple[str, str], _Flight] = {}
        self._direct: set[str] = set()  # remotes whose first fetch went by tag name
        self._background: list[threading.Thread] = []
        # git fetches running now, so that :meth:`abort` can stop read-ahead nobody needs
        self._running: set[subprocess.Popen] = set()
        self._aborted = False
        self.moved: dict[str, dict[str, tuple[str, str]]] = {}  # url -> tag -> (was, now)
        self.deleted: dict[str, set[str]] = {}  # url -> tags gone since the last listing

    def _url_lock(self, url: str) -> threading.Lock:
        with self._lock:
            return self._url_locks.setdefault(url, threading.Lock())

    def _list_lock(self, url: str) -> threading.Lock:
        """Guards the listing of ``url`` (apart from its fetches, so both can run at once)."""
        with self._lock:
            return self._url_locks.setdefault("list:" + url, threading.Lock())

    def cached_refs(self, url: str) -> dict[str, str] | None:
        """The listing of ``url`` from this run or, failing that, from the disk cache (the
        last run that listed it); None when never listed."""
        with self._list_lock(url):
            if url in self._refs:
                return self._refs[url]
        return self.cache.read_json("refs", url_key(url))

    def refs(self, url: str) -> dict[str, str]:
        """Full ref name -> commit for the remote's tags and branches (peeled), listed
        once per run. Tags whose commit changed since the last listing are recorded in
        ``moved``, tags that disappeared in ``deleted``.

        Raises:
            NetworkError: the remote cannot be listed.
            OfflineError: offline and never listed.
        """
        with self._list_lock(url):
            if url in self._refs:
                return self._refs[url]
            known = self.cache.read_json("refs", url_key(url))
            if self.offline:
                if known is None:
                    raise OfflineError("Not available offline",
                                       f"The tags of {redact(url)} are not in the cache; run tofu-solve init once "
                                       "without -offline.")
                self._refs[url] = known
                return known
            self.counter.add("git_ls_remote")
            log.debug("git ls-remote --tags --heads %s", redact(url))
            try:
                # a listing is small: a host that accepts and never answers (git://, ssh, where git has
                # no low-speed limit) is cut off well before the download deadline (issue #80 §5)
                out = gitcmd.run(["ls-remote", "--tags", "--heads", "--", url], self.environ,
                                 timeout=min(self.limits.deadline, max(30.0, 3 * gitcmd.stall_seconds(self.environ)))
                                 ).decode(errors="replace")
            except GitError as e:
                raise NetworkError("Failed to list git tags",
                                   f"git ls-remote {redact(url)} failed: {redact(_stderr(e))}",
                                   url=redact(url)) from None
            refs: dict[str, str] = {}
            peeled: dict[str, str] = {}
            for line in out.splitlines():
                if "\t" not in line:
                    continue
                sha, name = line.split("\t", 1)
                if name.endswith("^{}"):
                    peeled[name[:-3]] = sha
                else:
                    refs[name] = sha
            refs.update(peeled)
            if known:
                moved = {n[len("refs/tags/"):]: (c, refs[n]) for n, c in known.items()
                         if n.startswith("refs/tags/") and n in refs and refs[n] != c}
                gone = {n[len("refs/tags/"):] for n in known if n.startswith("refs/tags/") and n not in refs}
                if moved:
                    self.moved[url] = moved
                if gone:
                    self.deleted[url] = gone
            self.cache.write_json("refs", url_key(url), refs)
            self._refs[url] = refs
            return refs

    def tags(self, url: str) -> dict[str, str]:
        """Tag name -> commit (annotated tags peeled)."""
        return {n[len("refs/tags/"):]: c for n, c in self.refs(url).items() if n.startswith("refs/tags/")}

    def resolve(self, url: str, ref: str, fresh: bool = True) -> RemoteRef:
        """What ``?ref=`` names: a tag, a branch, ``tags/X``/``heads/X``, a full ref, or a
        commit SHA (as ``git checkout`` would take it).

        ``fresh=False`` accepts the cached listing when it names the ref (no network).

        Raises:
            NetworkError: the remote cannot be listed, or the ref does not exist.
        """
        if not fresh and ref:
            known = self.cached_refs(url)
            if known:
                for cand in (ref, f"refs/{ref}", f"refs/tags/{ref}"):
                    if cand in known:
                        return RemoteRef(cand, known[cand])
        refs = self.refs(url)
        if not ref:
            for cand in ("HEAD", "refs/heads/main", "refs/heads/master"):
                if cand in refs:
                    return RemoteRef(cand, refs[cand])
            heads = sorted(n for n in refs if n.startswith("refs/heads/"))
            if heads:
                return RemoteRef(heads[0], refs[heads[0]])
        for cand in (ref, f"refs/{ref}", f"refs/tags/{ref}", f"refs/heads/{ref}"):
            if cand in refs:
                return RemoteRef(cand, refs[cand])
        if _SHA_RE.fullmatch(ref):
            return RemoteRef(ref, ref)
        raise NetworkError("Git reference not found",
                           f'The git remote {redact(url)} has no tag or branch named "{ref}".', url=redact(url))

    def before_listing(self, url: str) -> tuple[bool, bool]:
        """(whether the caller may fetch its tag by name (:meth:`fetch_tag`) instead of
        waiting for ``ls-remote``, whether it is the first to and must start the listing in
        the background (:meth:`list_in_background`)). By name while the remote has never
        been listed, this run or an earlier one: every tag asked for meanwhile is fetched at
        once, side by side, not after the listing (the 25 calls of the iam root waited for
        their tag behind the first one's listing, issue #23)."""
        with self._lock:
            if url in self._refs:
                return False, False
            first = url not in self._direct
            self._direct.add(url)
        if self.offline or self.cache.read_json("refs", url_key(url)) is not None:
            return False, False
        return True, first

    def list_in_background(self, url: str) -> None:
        """Start ``ls-remote`` of ``url`` on a thread of its own (tags that moved are still
        detected; :meth:`join_background` waits for it)."""
        def run():
            try:
                self.refs(url)
            except Exception:
                pass
        with self._lock:
            self._background.append(start_thread(run, "tofu-solve-ls-remote", needs=NOTHING))

    def join_background(self) -> None:
        """Wait for the listings started in the background (before tag warnings are read)."""
        with self._lock:
            threads, self._background = self._background, []
        for t in threads:
            t.join()

    def fetch_tag(self, url: str, tag: str) -> RemoteRef | None:
        """Fetch ``refs/tags/<tag>`` by name into the mirror and return it with its commit
        (peeled); None when the remote has no such tag (the caller then resolves the ref
        from the listing, which knows branches and the rest). Issue #13: the first fetch of
        a remote no longer waits for ``ls-remote``."""
        if _SHA_RE.fullmatch(tag) or tag.startswith("refs/"):
            return None
        name = f"refs/tags/{tag.removeprefix('tags/')}"
        log.debug("git fetch %s %s (by name, before ls-remote)", redact(url), name)
        try:
            # by name (the commit is not known yet), as a fetch in flight that exports of the
            # same tag join rather than repeat, taking any other tag queued meanwhile
            self._bring(url, RemoteRef(name, ""))
            with self._url_lock(url), self.cache.locked(f"git:{self.cache.git_mirror(url)}"):
                mirror = _open_mirror(self.cache.git_mirror(url), self.environ)
                commit = gitcmd.run(["rev-parse", f"{name}^{{commit}}"], self.environ, git_dir=mirror,
                                    timeout=self.limits.deadline).decode().strip()
        except GitError:
            return None
        return RemoteRef(name, commit)

    def _run_fetch(self, mirror: Path, args: list[str], local: bool = False) -> None:
        """``git fetch ARGS`` in ``mirror`` (one ``git_fetch`` network operation, unless
        ``local``: from a scratch repository on this disk), bounded by the deadline,
        stoppable by :meth:`abort`. ``ARGS`` end their options with ``--``: a remote or
        refspec that looks like an option (``--upload-pack=...``) is never read as one
        (go-getter's CVE-2024-3817 and CVE-2026-4660 class, issue #38).

        Raises:
            FetchAborted: :meth:`abort` was called before or during the fetch.
            GitError: git failed or ran past the deadline.
        """
        cmd = ["fetch", *args]
        with self._lock:
            if self._aborted and not local:
                raise FetchAborted()
            if not local:
                self.counter.add("git_fetch")
            proc = gitcmd.start(cmd, self.environ, git_dir=mirror)
            if not local:  # a local fetch into the mirror is short and always finished
                self._running.add(proc)
        try:
            gitcmd.finish(proc, cmd, self.limits.deadline)
        except GitError:
            with self._lock:
                aborted = self._aborted
            if aborted and proc.returncode != 0 and not local:
                raise FetchAborted() from None
            raise
        finally:
            with self._lock:
                self._running.discard(proc)

    def abort(self) -> None:
        """Stop every git fetch now running and refuse new ones: the run no longer needs
        them (read-ahead still in flight when the solve is done, issue #13). git cleans up
        after SIGTERM; a mirror left half-fetched heals itself on the next export."""
        with self._lock:
            self._aborted = True
            running = list(self._running)
        for proc in running:
            try:
                proc.terminate()
            except OSError:
                pass

    def _bring(self, url: str, ref: RemoteRef) -> None:
        """Make sure a fetch of ``ref`` into the mirror has run: join the one in flight that
        carries it, or start one that takes ``ref`` and every other ref queued for ``url``
        (the shared per-remote queue). Fetches of one remote run side by side, each into a
        scratch repository of its own, so none waits for another's network time (issue
        #13). A ref whose shared fetch failed is fetched again alone, so one bad ref fails
        only itself.

        Raises:
            GitError: fetching ``ref`` alone failed.
            FetchAborted: :meth:`abort` was called.
        """
        with self._lock:
            flight = self._inflight.get((url, ref.name))
            mine = flight is None
            if mine:
                queued = self._queued.setdefault(url, {})
                queued.pop(ref.name, None)
                others = [r for n, r in queued.items() if (url, n) not in self._inflight]
                batch = [ref] + others[:MAX_REFS_PER_FETCH - 1]
                for r in batch[1:]:
                    queued.pop(r.name, None)
                flight = _Flight()
                for r in batch:
                    self._inflight[(url, r.name)] = flight
        if flight is None:  # for mypy: set above when it was not in flight
            raise RuntimeError("no fetch in flight")
        if not mine:
            flight.done.wait()
            if flight.error is not None:
                self._fetch_into_mirror(url, [ref])
            return
        try:
            self._fetch_into_mirror(url, batch)
        except BaseException as e:
            flight.error = e
            if len(batch) == 1 or not isinstance(e, GitError):
                raise
        finally:
            with self._lock:
                for r in batch:
                    if self._inflight.get((url, r.name)) is flight:
                        del self._inflight[(url, r.name)]
            flight.done.set()
        if flight.error is not None:
            self._fetch_into_mirror(url, [ref])  # one bad ref must not fail the others

    def _fetch_into_mirror(self, url: str, refs: list[RemoteRef]) -> None:
        """One shallow ``git fetch`` (depth 1) of ``refs`` from the remote into a fresh
        scratch repository, with no lock held, then a local fetch of the same refs from it
        into the remote's mirror under the mirror's locks (a few milliseconds). A bare
        commit (``RemoteRef(sha, sha)``) is fetched the same way, by its id.

        Raises:
            GitError, FetchAborted: see :meth:`_run_fetch`.
        """
        if self._aborted:
            raise FetchAborted()
        log.debug("git fetch %s %s", redact(url), " ".join(r.name or r.commit for r in refs))
        mirror = self.cache.git_mirror(url)
        # A bare commit (a lock's package, a ?ref=<sha>) is asked for by its id, as protocol v2
        # allows for any object the remote has; it lands in the mirror without a ref. A tag
        # whose commit the listing gave is asked for by that id too, into its name: no ref
        # advertisement to wait for (a round trip less per fetch, issue #23), and exactly the
        # commit listed. A remote that refuses a want by id is asked by name.
        by_name = [r.commit if r.name == r.commit else f"+{r.name}:{r.name}" for r in refs]
        specs = [r.commit if r.name == r.commit else f"+{r.commit}:{r.name}" if _SHA_RE.fullmatch(r.commit or "")
                 else f"+{r.name}:{r.name}" for r in refs]
        scratch = Path(tempfile.mkdtemp(prefix="git-fetch-", dir=self.cache.tmp_dir()))
        started = time.monotonic()
        try:
            gitcmd.run(["init", "--quiet", "--bare", str(scratch)], self.environ, timeout=self.limits.deadline)
            try:
                self._run_fetch(scratch, ["--no-tags", "--depth", "1", "--", url, *specs])
            except GitError as e:
                if specs == by_name or not _REFUSED_WANT.search(_stderr(e)):
                    raise  # a timeout or a lost connection is not asked again: the deadline holds
                specs = by_name
                self._run_fetch(scratch, ["--no-tags", "--depth", "1", "--", url, *specs])
            fetched = time.monotonic()
            with self._url_lock(url), self.cache.locked(f"git:{mirror}"):
                _open_mirror(mirror, self.environ)
                self._run_fetch(mirror, ["--no-tags", "--depth", "1", "--update-shallow", "--", str(scratch), *specs],
                                local=True)
            log.debug("git fetch %s: %d refs in %.2f s, into the mirror in %.2f s", redact(url), len(refs),
                      fetched - started, time.monotonic() - fetched)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def export(self, url: str, ref: RemoteRef, dest: Path) -> None:
        """Write the files of ``ref``'s commit into ``dest`` (no ``.git``), unpacked with the
        same bounds as any archive.

        The per-remote mirror heals itself under the cache's lock for it: lock files left
        by a killed git (``shallow.lock``, ``refs/**.lock``...) are removed, and a mirror
        whose objects are incomplete (a fetch killed half-way) is rebuilt from scratch once.

        Raises:
            NetworkError: the fetch fails or times out.
            OfflineError: offline and the commit is not in the mirror.
            FetchAborted: :meth:`abort` was called.
        """
        tar = self._commit_archive(url, ref)
        try:
            extract_archive(tar, "tar", dest, self.limits)
        finally:
            tar.unlink(missing_ok=True)

    def commit_time(self, url: str, commit: str) -> float | None:
        """The committer date of ``commit`` (seconds since the epoch) when the remote's
        mirror holds it (it was fetched), else None; never touches the network. The date a
        tag's release is known by once its package is fetched (issue #25: the cooldown)."""
        if not _SHA_RE.fullmatch(commit or ""):
            return None
        mirror = self.cache.git_mirror(url)
        if not mirror.is_dir():
            return None
        try:
            out = gitcmd.run(["show", "-s", "--format=%ct", commit], self.environ, git_dir=mirror,
                             timeout=self.limits.deadline).decode(errors="replace").strip()
        except GitError:
            return None
        return float(out) if out.isdigit() else None

    def config_files(self, url: str, ref: RemoteRef) -> PackageFiles | None:
        """The configuration files of ``ref``'s commit, read into memory without writing the
        package out (:func:`~tofu_solve.remote.archives.read_config_files`; None when it holds
        a link: :meth:`export` it instead). Fetches as :meth:`export` does, with its errors."""
        files = self._from_commit(url, ref, lambda u, r, m, rebuilt: tree_files(u, r, m, rebuilt, self.environ,
                                                                                      self.limits))
        if files is not ARCHIVE:
            return files
        tar = self._commit_archive(url, ref)
        try:
            return read_config_files(tar, self.limits)
        finally:
            tar.unlink(missing_ok=True)

    def _git_archive(self, url: str, ref: RemoteRef, mirror: Path, rebuilt: bool) -> Path:
        """:func:`~.git_mirror_read.git_archive` with this client's environment and bounds."""
        return git_archive(url, ref, mirror, rebuilt, self.environ, self.limits, self.cache.tmp_dir())

    def _commit_archive(self, url: str, ref: RemoteRef) -> Path:
        """A temporary tar file of ``ref``'s commit (the caller removes it), the mirror
        fetched and healed as :meth:`export` describes."""
        return self._from_commit(url, ref, self._git_archive)

    def _from_commit(self, url: str, ref: RemoteRef, read):
        """``read(url, ref, mirror, rebuilt)`` of ``ref``'s commit in the mirror, the mirror
        fetched and healed as :meth:`export` describes."""
        mirror = self.cache.git_mirror(url)
        if ref.name != ref.commit:
            with self._lock:
                self._queued.setdefault(url, {})[ref.name] = ref
        try:
            return self._archive(url, ref, mirror, read=read)
        except BrokenMirror:
            if self.offline:
                raise OfflineError("Not available offline",
                                   f"The cached copy of {redact(url)} is damaged and -offline forbids fetching "
                                   "it again.") from None
            self.counter.add("git_mirror_rebuilt")
            log.warning("the cached mirror of %s was incomplete; rebuilding it", redact(url))
            with self._url_lock(url), self.cache.locked(f"git:{mirror}"):
                shutil.rmtree(mirror, ignore_errors=True)
            return self._archive(url, ref, mirror, rebuilt=True, read=read)

    def _archive(self, url: str, ref: RemoteRef, mirror: Path, rebuilt: bool = False, read=None):
        """``read`` (default: ``git archive`` of the commit into a temporary tar file) of the
        commit, fetching it first when the mirror lacks it (with no lock held while the
        network is used). Raises BrokenMirror when the mirror cannot produce it.

        A commit the mirror holds is read under the mirror's lock *shared*: git's readers
        need no lock files, so reads of one remote run side by side and wait only for a
        fetch into the mirror or its repair (exclusive), not for each other."""
        read = read or self._git_archive
        whole = False
        if not rebuilt:
            with self.cache.locked(f"git:{mirror}", shared=True):
                whole = _whole_repository(mirror)
                if whole and _has_commit(mirror, ref.commit, self.environ):
                    with self._lock:
                        self._queued.get(url, {}).pop(ref.name, None)
                    return read(url, ref, mirror, rebuilt)
        if not whole:
            # made or repaired first; a whole mirror is repaired, if need be, where a fetch
            # writes into it (the refs queued meanwhile wait for no one's check: the 14 tags
            # of one read-ahead window once queued 0.3 s behind each other's, issue #23)
            with self._url_lock(url), self.cache.locked(f"git:{mirror}"):
                have = _has_commit(_open_mirror(mirror, self.environ), ref.commit, self.environ)
                if have:
                    with self._lock:
                        self._queued.get(url, {}).pop(ref.name, None)
                    return read(url, ref, mirror, rebuilt)
        if self.offline:
            raise OfflineError("Not available offline",
                               f"Commit {ref.commit} of {redact(url)} is not in the cache.")
        try:
            if ref.name == ref.commit:
                self._fetch_into_mirror(url, [ref])
            else:
                self._bring(url, ref)
        except GitError as e:
            if not rebuilt and "shallow" in e.stderr:
                raise BrokenMirror() from None
            raise NetworkError("Failed to fetch git repository",
                               f"git fetch {redact(url)} {ref.name} failed: {redact(e.stderr)}",
                               url=redact(url)) from None
        with self._url_lock(url), self.cache.locked(f"git:{mirror}"):
            _open_mirror(mirror, self.environ)
            return read(url, ref, mirror, rebuilt)

class _Flight:
    """One fetch in flight: those waiting for a ref it carries wait for ``done``; ``error``
    is set when it failed."""

    __slots__ = ("done", "error")

    def __init__(self):
        self.done = threading.Event()
        self.error: BaseException | None = None


class FetchAborted(Exception):
    """A git fetch or download stopped by :meth:`GitRemotes.abort` or
    :meth:`tofu_solve.remote.fetch.Fetcher.abort` (never shown: the run no longer needs it)."""


def _open_mirror(mirror: Path, environ: Mapping[str, str]) -> Path:
    """The bare mirror at ``mirror`` (created when missing), without stale git lock files.
    A directory that is not a whole repository (what a ``git init`` killed half-way leaves:
    no ``objects``, an empty ``HEAD``, no ``config``) is rebuilt, never reported as an
    internal error; its content is only a cache. Called only under the cache's lock for that
    mirror."""
    if not _whole_repository(mirror):
        _init_mirror(mirror, environ)
    _remove_stale_locks(mirror)
    return mirror


def _whole_repository(mirror: Path) -> bool:
    """Whether ``mirror`` has what every bare repository has: a ``HEAD`` naming a ref or a
    commit, a ``config`` file, and ``objects`` and ``refs`` directories."""
    try:
        head = (mirror / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return False
    return bool(head) and (head.startswith("ref: ") or all(c in "0123456789abcdef" for c in head)) and \
        (mirror / "config").is_file() and (mirror / "objects").is_dir() and (mirror / "refs").is_dir()


def _init_mirror(mirror: Path, environ: Mapping[str, str]) -> None:
    """A new, empty bare mirror at ``mirror``, made beside it and renamed into place, so that
    a kill leaves either nothing or a whole repository."""
    replace_dir(mirror, lambda tmp: gitcmd.run(["init", "--quiet", "--bare", str(tmp)], environ))


def _remove_stale_locks(mirror: Path) -> None:
    """Delete git's ``*.lock`` files in a mirror. Called only under the cache's own lock
    for that mirror, so no other tofu-solve is using it: any lock file is a leftover of a
    killed git and would make every later fetch fail."""
    for lock in list(mirror.glob("*.lock")) + list((mirror / "refs").rglob("*.lock")):
        lock.unlink(missing_ok=True)


def _has_commit(mirror: Path, sha: str, environ: Mapping[str, str]) -> bool:
    """Whether the mirror holds commit ``sha`` (a reader: ``git cat-file -e``, no lock files)."""
    return gitcmd.succeeds(["cat-file", "-e", f"{sha}^{{commit}}"], environ, git_dir=mirror)


def _stderr(e: GitError) -> str:
    return e.stderr
