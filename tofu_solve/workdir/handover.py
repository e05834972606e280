"""The hand-over: after modules are solved, locked and installed, the real client's own
``init`` finishes the working directory (providers, backend), reading the lock only.

``tofu init -lockfile=readonly`` (or ``terraform init``) runs in the root module with the
backend, state, prompt and plugin flags tofu-solve was given (:data:`PASSED_ON`), its
output streamed as it comes, its exit status returned (issue #21). The client finds
``.terraform/modules`` and ``modules.json`` as it would have written them and installs
nothing there (``internal/initwd/module_install.go``: a recorded module whose source and
version match the configuration is kept). Provider packages that tofu-solve already fetched
and verified are offered in a plugin cache in OpenTofu's layout
(``TF_PLUGIN_CACHE_DIR``: ``HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/``), which the client uses
when the lock's hashes match (``internal/providercache/installer.go``), so nothing
downloads twice; and they are offered through a ``filesystem_mirror`` in a CLI configuration
written for the run (:mod:`.client_config`, issue #68 §2), so that the client's init needs no
registry for them: with every origin down, the hand-over still completes. The lock file must
come back byte for byte: a change is an error, and the file tofu-solve wrote is put back.
"""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .._threads import NOTHING, start_thread
from ..addrs.redact import REDACTED, redact
from ..errors import TofuSolveError
from ..lockfile.filename import LOCK_FILE_NAME
from ..lockfile.replacefile import write_atomic
from ..output_edge import raw_stream
from ..versions.target import Client, TargetVersion
from .client_config import ProviderMirror, written
from .flags import PASSED_ON


class HandoverError(TofuSolveError):
    """The client's init changed what tofu-solve locked, or could not be started."""


class HandoverInterrupted(HandoverError):
    """The hand-over was interrupted (Ctrl-C): tofu-solve's part is done and consistent, the
    client's is not; exit status 130, as for any interrupted command (issue #60 §5)."""

    exit_code = 130


@dataclass(frozen=True)
class Handover:
    """What the client's init is to run: ``argv`` (the executable first), the directory,
    the extra environment (``TF_PLUGIN_CACHE_DIR`` when tofu-solve offers its own), and the
    provider packages offered through a ``filesystem_mirror`` (None: the client installs
    every provider as its own configuration says)."""

    client: Client
    argv: tuple[str, ...]
    root: Path
    environ: Mapping[str, str]
    mirror: ProviderMirror | None = None

    @property
    def command_line(self) -> str:
        """The command as a user would type it (the client by its usual name), with the
        values of credential ``-backend-config=KEY=VALUE`` settings and URL credentials replaced by ``***``
        (:func:`shown`): it is printed, and backend settings given that way are often
        credentials."""
        return shlex.join([self.client.product.command, *shown(self.argv[1:])])


# backend settings whose names say they hold a credential (s3 access_key/secret_key/token,
# azurerm sas_token/client_secret, gcs credentials/encryption_key, http password...)
_SECRET_SETTING = re.compile(r"key|token|secret|passw|credential|auth|sas|cert", re.I)


def shown(args: Sequence[str]) -> list[str]:
    """``args`` as they may be printed: ``-backend-config=KEY=VALUE`` becomes
    ``-backend-config=KEY=***`` when KEY names a credential (``access_key``, ``token``,
    ``password``...; ``path`` or ``bucket`` stay), a file path is kept, and every argument
    passes the one redaction rule (:func:`tofu_solve.addrs.redact.redact`)."""
    out = []
    for a in args:
        name, eq, value = a.partition("=")
        key = value.split("=", 1)[0]
        if eq and name.lstrip("-") == "backend-config" and "=" in value and _SECRET_SETTING.search(key):
            out.append(f"{name}={key}={REDACTED}")
        else:
            out.append(redact(a))
    return out


def client_args(flags: Sequence[str], json: bool = False, no_color: bool = False) -> list[str]:
    """The client's ``init`` arguments: ``-lockfile=readonly`` (the lock is tofu-solve's),
    then ``flags`` (the :data:`PASSED_ON` ones, as given), ``-json`` and ``-no-color``."""
    out = ["init", "-lockfile=readonly", *flags]
    if json:
        out.append("-json")
    if no_color:
        out.append("-no-color")
    return out


def next_command(target: TargetVersion, flags: Sequence[str]) -> str:
    """The command to run next when nothing is handed over: the target's client by name
    (backend settings given as ``KEY=VALUE`` shown as ``KEY=***``: :func:`shown`)."""
    return shlex.join([target.product.command, *shown(client_args(flags))])


def terragrunt_next_command(recursive: bool) -> str:
    """The command to run next after a Terragrunt unit is locked (issue #73 §3): Terragrunt's
    own, which runs the client in its working copy with the unit's pins (Terragrunt 1.x's
    ``run`` command; ``--all`` over every unit below)."""
    return "terragrunt run --all init" if recursive else "terragrunt run init"


def plan(client: Client, root: Path, flags: Sequence[str], environ: Mapping[str, str], plugin_cache: Path | None,
         own_plugin_cache: bool, json: bool = False, no_color: bool = False,
         mirror: ProviderMirror | None = None) -> Handover:
    """The hand-over for ``root``: ``plugin_cache`` is where tofu-solve placed the provider
    packages; it is passed as ``TF_PLUGIN_CACHE_DIR`` only when it is tofu-solve's own
    (``own_plugin_cache``), created if need be: a cache the user configured is found by the
    client itself. ``mirror``: the verified packages offered (:mod:`.client_config`)."""
    env = dict(environ)
    env.setdefault("CHECKPOINT_DISABLE", "1")
    if own_plugin_cache and plugin_cache is not None:
        # the client refuses a plugin cache directory that does not exist ("The specified
        # plugin cache dir ... cannot be opened"): a root with no provider placed nothing there
        try:
            plugin_cache.mkdir(parents=True, exist_ok=True)
            env["TF_PLUGIN_CACHE_DIR"] = str(plugin_cache)
        except OSError:
            pass  # then the client downloads what it needs itself
    return Handover(client, (client.path, *client_args(flags, json, no_color)), Path(root), env, mirror)


def run(h: Handover, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the client's init, streaming its standard output to ``out`` and its standard
    error to ``err`` (default: this process's) line by line; return its exit status.

    Raises:
        HandoverError: it could not be started, or it changed ``.terraform.lock.hcl`` (the
            file tofu-solve wrote is put back first).
        ConfigurationError: the user's CLI configuration could not be read again for the
            run's own (:func:`.client_config.written`).
    """
    # under -json the client is given -json too: its JSON stream follows tofu-solve's on standard
    # output; a standard output that is another document (-format=sarif) gets none of the client's
    # text, which goes to standard error, inside the runner's guard (issue #81 §1)
    machine = getattr(sys.stdout, "json", False) and "-json" not in h.argv
    out = out or (sys.stderr if machine else sys.stdout)
    if h.mirror is None:
        return _run(h, dict(h.environ), out, err or sys.stderr)
    with written(h.mirror, h.environ, h.client.product) as extra:
        return _run(h, {**h.environ, **extra}, out, err or sys.stderr)


def _run(h: Handover, env: dict[str, str], out: TextIO, err: TextIO) -> int:
    # on a terminal the client colours its own output (it is given -no-color elsewhere): its escape
    # sequences pass; off a terminal its output crosses the output edge like any other (issue #67 §1)
    out, err = (raw_stream(s) if s.isatty() else s for s in (out, err))
    lock = h.root / LOCK_FILE_NAME
    before = lock.read_bytes() if lock.exists() else None
    try:
        proc = subprocess.Popen(list(h.argv), cwd=h.root, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    except OSError as e:
        raise HandoverError("Failed to run the client", f"{h.client.path} could not be started: "
                            f"{e.strerror or e}.") from None

    def pump(src, dst) -> None:
        for line in src:
            dst.write(line)
            dst.flush()
    try:
        side = start_thread(pump, "tofu-solve-handover-stderr", (proc.stderr, err), needs=NOTHING)
        pump(proc.stdout, out)
        code = proc.wait()
        side.join()
    except KeyboardInterrupt:
        _stop(proc)  # the client got the same signal from the terminal: let it stop, then make sure
        if before is not None and lock.exists() and lock.read_bytes() != before:
            write_atomic(lock, before)
        raise interrupted(h) from None
    after = lock.read_bytes() if lock.exists() else None
    if after != before:
        if before is not None:
            write_atomic(lock, before)
        raise HandoverError(
            "The client changed the lock file",
            f"{h.command_line} changed {LOCK_FILE_NAME}, which tofu-solve had just written (it was given "
            f"-lockfile=readonly). tofu-solve put its lock file back. Check that the target ({h.client.product.name} "
            f"{h.client.version}) is the client that reads this working directory.")
    return code


def _stop(proc: subprocess.Popen, grace: float = 10.0) -> None:
    """Wait up to ``grace`` seconds for an interrupted client to stop, then end it."""
    try:
        proc.wait(timeout=grace)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        proc.kill()
        proc.wait()


def interrupted(h: Handover) -> HandoverInterrupted:
    """What an interrupted hand-over leaves and how to finish it: tofu-solve's lock file and
    installed modules are complete and verified; the client's init (providers, the backend)
    did not finish, and its command, run again, finishes it."""
    return HandoverInterrupted(
        "Interrupted",
        f"tofu-solve's part is done: {LOCK_FILE_NAME} and .terraform/modules are written and verified. "
        f"{h.client.product.name}'s own init was interrupted, so providers and the backend may not be set up. "
        f"To finish, run:\n  {h.command_line}\n(or tofu-solve init again, which answers at once and hands over "
        "again).")


MODULE_LOCK_WARNING = "Dependency locks for modules are not yet supported"
"""The client's warning about tofu-solve's module blocks, expected on every root."""


def client_said_more(output: str) -> bool:
    """Whether a client's init output (text) holds a warning or an error other than its
    warning about tofu-solve's module blocks (issue #50 §1: a clean root is one line)."""
    said = [line for line in output.splitlines() if "Warning:" in line or "Error:" in line]
    return any(MODULE_LOCK_WARNING not in line for line in said)


def run_captured(h: Handover) -> tuple[int, str, float]:
    """The client's init run with its output kept (both streams, in order of arrival):
    (exit status, output, seconds)."""
    buf = io.StringIO()
    started = time.monotonic()
    code = run(h, out=buf, err=buf)
    return code, buf.getvalue(), time.monotonic() - started


__all__ = [
    "PASSED_ON",
    "Handover",
    "HandoverError",
    "HandoverInterrupted",
    "client_args",
    "client_said_more",
    "interrupted",
    "next_command",
    "plan",
    "run",
    "run_captured",
    "shown",
    "terragrunt_next_command",
]
