"""One truth for the package store (issue #49): for any edit of a locked root, a job that
reads the store (locked packages from it, locked providers listed by it) gives exactly the
answer of a job without it: the same exit status, the same lock file, the same error."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.e2e.conftest import VPC6_EKS20, write_root
from tests.e2e.oci_fixtures import run_registry
from tofu_solve.cli import main
from tofu_solve.world import running_world


@contextlib.contextmanager
def _env(**values: str):
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _init(root: Path, cache: Path, cli_config: Path, store: str) -> tuple[int, str, dict]:
    out, err = io.StringIO(), io.StringIO()
    with _env(TF_CLI_CONFIG_FILE=str(cli_config), TOFU_SOLVE_CACHE_DIR=str(cache), TOFU_SOLVE_PACKAGE_STORE=store,
              TOFU_SOLVE_PACKAGE_STORE_GRACE="120"), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["init", "-handover=false", "-json", f"-chdir={root}"])
    lock = root / ".terraform.lock.hcl"
    last = json.loads(out.getvalue().strip().splitlines()[-1])
    return code, lock.read_text() if lock.exists() else "", last


@pytest.fixture(scope="module")
def fleet(world, tmp_path_factory):
    """Origins, a store, and a lock file whose packages the store holds."""
    tmp = tmp_path_factory.mktemp("store-property")
    (tmp / "servers").mkdir()
    with run_registry(tmp / "store") as reg, running_world(world, tmp / "servers") as rw:
        store = f"oci://{reg.host}/ci"
        root = write_root(tmp / "first", VPC6_EKS20)
        code, lock, _ = _init(root, tmp / "c0", rw.cli_config, store)
        assert code == 0
        yield rw.cli_config, store, lock


AWS = [None, "< 6.50.0", ">= 6.0", "~> 5.0", "6.58.0"]
VPC = ["~> 6.0", "~> 6.1", ">= 6.0, < 6.5", "6.6.0"]
EKS = ["~> 20.0", "20.36.0", "~> 20.37"]


@pytest.mark.parametrize("aws", AWS)  # every provider edit, among them one that moves the locked aws down
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                               HealthCheck.function_scoped_fixture])
@given(vpc=st.sampled_from(VPC), eks=st.sampled_from(EKS))
def test_an_edited_root_gets_the_same_answer_with_and_without_the_store(fleet, aws, vpc, eks):
    cli_config, store, lock = fleet
    text = (f'module "vpc" {{\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "{vpc}"\n}}\n'
            f'module "eks" {{\n  source  = "terraform-aws-modules/eks/aws"\n  version = "{eks}"\n}}\n')
    if aws is not None:
        text += ('terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n'
                 f'      version = "{aws}"\n    }}\n  }}\n}}\n')
    with tempfile.TemporaryDirectory() as tmp:
        results = {}
        for name, address in (("store", store), ("none", "")):
            root = write_root(Path(tmp) / name, text)
            (root / ".terraform.lock.hcl").write_text(lock)
            results[name] = _init(root, Path(tmp) / f"cache-{name}", cli_config, address)
    (code_s, lock_s, last_s), (code_n, lock_n, last_n) = results["store"], results["none"]
    event(f"exit {code_n}")
    assert code_s == code_n
    assert lock_s == lock_n
    if code_n == 0:
        moved = [c["address"] for c in last_n["result"]["lock_file"]["provider_changes"]]
        event("a provider moved" if moved else "no provider moved")
        assert [c["address"] for c in last_s["result"]["lock_file"]["provider_changes"]] == moved
        assert last_s["result"]["lock_file"]["changes"] == last_n["result"]["lock_file"]["changes"]
    else:
        assert last_s["diagnostic"]["summary"] == last_n["diagnostic"]["summary"]
