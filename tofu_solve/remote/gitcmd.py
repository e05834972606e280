"""The one way tofu-solve runs git: the ``git`` executable (a system tool, as for tofu),
with one environment, one deadline and one error type.

Every command runs non-interactively (no terminal prompt, no askpass, ssh in batch mode)
and may use only the transports go-getter's git getter uses (``GIT_ALLOW_PROTOCOL``:
``file``, ``git``, ``http``, ``https``, ``ssh``): a source such as ``git::ext::sh -c ...``
fails in git itself ("transport 'ext' not allowed") and is reported as any failed git
command is, never run.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

# git-config(1) GIT_ALLOW_PROTOCOL: a colon-separated list of the protocols git may use
ALLOWED_PROTOCOLS = "file:git:http:https:ssh"
GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "/bin/true", "GIT_SSH_COMMAND": "ssh -oBatchMode=yes",
           "GIT_ALLOW_PROTOCOL": ALLOWED_PROTOCOLS}
STALL_SECONDS = 10.0
"""Seconds an http(s) git transfer may move nothing before git gives up (issue #80 §5: a
host that accepts and never answers held a run for the whole deadline): the registry
client's request timeout, ``TF_REGISTRY_CLIENT_TIMEOUT`` where the job sets it."""


def stall_seconds(environ: Mapping[str, str]) -> float:
    """:data:`STALL_SECONDS`, or ``TF_REGISTRY_CLIENT_TIMEOUT`` where ``environ`` sets a
    positive number."""
    try:
        stall = float(environ.get("TF_REGISTRY_CLIENT_TIMEOUT") or STALL_SECONDS)
    except ValueError:
        return STALL_SECONDS
    return stall if stall > 0 else STALL_SECONDS


def _environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a git command runs in: ``environ``, :data:`GIT_ENV` over it, and
    git's low-speed limit (``http.lowSpeedLimit`` of 1 byte a second for
    ``http.lowSpeedTime`` = :func:`stall_seconds`)."""
    return {**environ, **GIT_ENV, "GIT_HTTP_LOW_SPEED_LIMIT": "1",
            "GIT_HTTP_LOW_SPEED_TIME": str(max(1, int(stall_seconds(environ))))}


class GitError(Exception):
    """A git command failed (or ran past its deadline).

    Attributes:
        args_: the command's arguments after ``git``.
        status: its exit status (None: killed at the deadline).
        stderr: what it wrote to standard error, on one line (its lines joined with "; ",
            control characters dropped, at most :data:`MAX_STDERR` characters: it is quoted in
            tofu-solve's own one-line messages; issue #68 §3).
    """

    def __init__(self, args: Sequence[str], status: int | None, stderr: str):
        self.args_ = tuple(args)
        self.status = status
        self.stderr = one_line(stderr)
        super().__init__(f"git {' '.join(args)}: {self.stderr or f'exit status {status}'}")


MAX_STDERR = 1000
"""How much of a git command's standard error an error quotes."""


def one_line(text: str) -> str:
    """``text`` (another program's output) on one line: its non-empty lines joined with "; ",
    other control characters dropped, cut at :data:`MAX_STDERR` characters."""
    lines = ("".join(c for c in line if c.isprintable()).strip() for line in text.splitlines())
    joined = "; ".join(line for line in lines if line)
    return joined if len(joined) <= MAX_STDERR else joined[:MAX_STDERR - 1] + "…"


def _command(args: Sequence[str], git_dir: Path | None) -> list[str]:
    return ["git", *(["--git-dir", str(git_dir)] if git_dir is not None else []), *args]


def run(args: Sequence[str], environ: Mapping[str, str], *, git_dir: Path | None = None,
        timeout: float | None = None, input: bytes | None = None, stdout: IO[bytes] | None = None) -> bytes:
    """``git [--git-dir GIT_DIR] ARGS``; its standard output (b"" when ``stdout`` takes it).

    Args:
        environ: the run's environment (:attr:`tofu_solve.settings.Settings.environ`);
            :data:`GIT_ENV` is laid over it.
        timeout: seconds before the command is killed (None: none).
        input: bytes for its standard input (none: it reads nothing).
        stdout: a file for its standard output instead of returning it.

    Raises:
        GitError: git exited with a failure status, or ran past ``timeout``.
    """
    try:
        proc = subprocess.run(_command(args, git_dir), input=input, stdin=None if input is not None else
                              subprocess.DEVNULL, stdout=stdout if stdout is not None else subprocess.PIPE,
                              stderr=subprocess.PIPE, env=_environment(environ), timeout=timeout)
    except subprocess.TimeoutExpired:
        raise GitError(args, None, f"timed out after {timeout:g} s") from None
    if proc.returncode != 0:
        raise GitError(args, proc.returncode, proc.stderr.decode(errors="replace"))
    return proc.stdout if stdout is None else b""


def succeeds(args: Sequence[str], environ: Mapping[str, str], *, git_dir: Path | None = None,
             timeout: float | None = None) -> bool:
    """Whether ``git ARGS`` exits with status 0 (a question, such as ``cat-file -e``)."""
    try:
        run(args, environ, git_dir=git_dir, timeout=timeout)
    except GitError:
        return False
    return True


def start(args: Sequence[str], environ: Mapping[str, str], *, git_dir: Path | None = None) -> subprocess.Popen:
    """``git ARGS`` started, not waited for (a fetch that :meth:`GitRemotes.abort` may stop):
    standard input closed, standard output and error piped. :func:`finish` waits for it."""
    return subprocess.Popen(_command(args, git_dir), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_environment(environ))


def finish(proc: subprocess.Popen, args: Sequence[str], timeout: float | None) -> None:
    """Wait for a command :func:`start` began; kill it at ``timeout``.

    Raises:
        GitError: it failed, or ran past ``timeout`` (then it is killed).
    """
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise GitError(args, None, f"timed out after {timeout:g} s") from None
    if proc.returncode != 0:
        raise GitError(args, proc.returncode, err.decode(errors="replace"))
