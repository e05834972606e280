"""The early start of init (issue #36 §3, ``command/early.py``): the root's first listings
go out before init's own module is imported, the solve shares them (one request per listing),
their failures are reported where the solve meets them, and the early start sends nothing a
run would not (locked calls, a policy, -offline)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.e2e.conftest import VPC6_EKS20, lock_versions, write_root
from tofu_solve.command import early
from tofu_solve.command.arguments.init_flags import InitArguments
from tofu_solve.command.init import InitOptions, run_init
from tofu_solve.settings import Settings
from tofu_solve.world import RegistryServer, write_cli_config

REPO = Path(__file__).resolve().parents[2]

PROVIDER_AND_MODULES = VPC6_EKS20 + '''
terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}
'''


def listings(reg: RegistryServer) -> list[str]:
    """The version listings the registry was asked for, in order."""
    with reg.log.lock:
        return [p for _, p, _ in reg.log.requests if p.endswith("/versions")]


def wait_for(predicate, seconds: float = 10.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_the_root_listings_go_out_before_init_is_imported(world, running, tmp_path):
    """In a fresh process, as the CLI runs it: once the early start returns, the listings of
    the root's calls and providers are on their way, and neither init's module nor the solver,
    the explanations or the views have been imported yet (they are imported meanwhile)."""
    root = write_root(tmp_path / "root", PROVIDER_AND_MODULES)
    with RegistryServer(world, running.git.url) as reg:
        rc = write_cli_config(tmp_path / "rc", reg.url)
        script = textwrap.dedent(f"""
            import json, sys, time
            from tofu_solve.command import early
            from tofu_solve.command.arguments.init_flags import InitArguments
            from tofu_solve.settings import Settings
            import os
            started = early.start(InitArguments(chdir={str(root)!r}), Settings.from_environ(os.environ))
            heavy = sorted(m for m in ("tofu_solve.command.init", "tofu_solve.explain", "tofu_solve.solver.context",
                                       "tofu_solve.solver.resolve", "tofu_solve.command.views") if m in sys.modules)
            # asking the same client again joins the requests in flight: it waits for their
            # answers and sends nothing more
            from tofu_solve.addrs.module_source import RegistrySource, parse_source
            from tofu_solve.addrs.provider import parse_provider_source
            for addr in ("terraform-aws-modules/vpc/aws", "terraform-aws-modules/eks/aws"):
                source = parse_source(addr)
                assert isinstance(source, RegistrySource)
                started.registry.module_versions(source.package)
            started.registry.provider_versions(parse_provider_source("hashicorp/aws"))
            print(json.dumps({{"listings": started.listings, "heavy": heavy,
                              "counted": started.registry.counter.snapshot()}}))
        """)
        env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache"),
               "HOME": str(tmp_path)}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=REPO,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        got = json.loads(done.stdout.strip().splitlines()[-1])
        assert got["heavy"] == []
        assert got["listings"] == 3  # vpc, eks, aws
        assert got["counted"] == {"module_versions": 2, "provider_versions": 1}
        assert sorted(listings(reg)) == ["/v1/modules/terraform-aws-modules/eks/aws/versions",
                                         "/v1/modules/terraform-aws-modules/vpc/aws/versions",
                                         "/v1/providers/hashicorp/aws/versions"]


def test_the_solve_shares_the_early_listings(world, running, tmp_path):
    """The solve asks the early start's client for the same listings and gets the answers
    already requested: the registry is asked for each listing once, and the selection is the
    one a run without the early start makes."""
    root = write_root(tmp_path / "root", PROVIDER_AND_MODULES)
    plain = write_root(tmp_path / "plain", PROVIDER_AND_MODULES)
    with RegistryServer(world, running.git.url) as reg:
        rc = write_cli_config(tmp_path / "rc", reg.url)
        env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache")}
        settings = Settings.from_environ(env)
        started = early.start(InitArguments(chdir=str(root)), settings)
        assert started.registry is not None
        res = run_init(InitOptions(root=root, client=started.client()), settings, registry=started.registry)
        asked = listings(reg)
        assert {"/v1/modules/terraform-aws-modules/eks/aws/versions", "/v1/modules/terraform-aws-modules/vpc/aws/versions",
                "/v1/providers/hashicorp/aws/versions"} <= set(asked)
        assert len(listings(reg)) == len(set(listings(reg)))  # no listing asked twice
        assert res.network["module_versions"] == len([p for p in listings(reg) if "/modules/" in p])
        env2 = {**env, "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache2")}
        alone = run_init(InitOptions(root=plain), Settings.from_environ(env2))
    assert {p: c.version_text for p, c in res.resolution.modules.items()} == \
        {p: c.version_text for p, c in alone.resolution.modules.items()}
    assert res.locks.providers.keys() == alone.locks.providers.keys()
    assert res.resolution.modules["eks"].version_text == "20.37.0"


def test_an_early_listing_that_fails_is_reported_once_at_its_source_line(world, running, isolated, tofu_solve,
                                                                        monkeypatch):
    """A package the registry does not have: the early start's request gets the 404, the
    solve meets the same answer and reports it at the call's source line, as before; the
    registry was asked once."""
    root = write_root(isolated / "root", '''
        module "gone" {
          source  = "nobody/nothing/aws"
          version = "~> 1.0"
        }
    ''')
    with RegistryServer(world, running.git.url) as reg:
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "rc", reg.url)))
        r = tofu_solve(root, "init", "-handover=false")
        assert r.code == 1
        assert "Module not found" in r.err and "on main.tf line 2" in r.err, r.err
        assert listings(reg) == ["/v1/modules/nobody/nothing/aws/versions"]


def test_the_early_start_sends_nothing_a_run_would_not(world, running, isolated, tofu_solve, monkeypatch):
    """Locked calls are not listed (a locked install asks no listing), and under a policy,
    with -offline or -upgrade=NAME nothing is started; an unlocked call beside a locked one
    is."""
    root = write_root(isolated / "root", VPC6_EKS20)
    with RegistryServer(world, running.git.url) as reg:
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "rc", reg.url)))
        first = tofu_solve(root, "init", "-handover=false")
        assert first.code == 0, first.err
        settings = Settings.from_environ(os.environ)

        def started(**kw):
            s = early.start(InitArguments(chdir=str(root), **kw), settings)
            return s.listings
        assert started() == 0  # both calls locked, no provider required by the root itself
        (root / "more.tf").write_text('module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                      '  version = "~> 3.0"\n}\n')
        reg.log.clear()
        assert started() == 1
        wait_for(lambda: listings(reg) == ["/v1/modules/terraform-aws-modules/kms/aws/versions"])
        assert started(upgrade=True) == 3  # -upgrade lists every call again
        wait_for(lambda: len(listings(reg)) == 4)
        reg.log.clear()
        assert started(offline=True) == 0
        assert started(upgrade_only=("kms",)) == 0
        (root / "tofu-solve-policy.hcl").write_text('sources {\n  deny = ["terraform-aws-modules/kms/aws"]\n}\n')
        stood_aside = early.start(InitArguments(chdir=str(root)), settings)
        # no registry client was opened: nothing can be in flight, so nothing need be waited for
        assert stood_aside.listings == 0 and stood_aside.registry is None
        assert listings(reg) == []
        assert lock_versions(first.lock)["eks"] == "20.37.0"


def test_providers_a_mirror_may_serve_are_not_listed_early(world, running, isolated, tofu_solve, monkeypatch):
    """With a provider_installation block the registry may not be where providers come from
    (a network mirror, a filesystem mirror): the early start lists the modules only."""
    root = write_root(isolated / "root", PROVIDER_AND_MODULES)
    with RegistryServer(world, running.git.url) as reg:
        rc = write_cli_config(isolated / "rc", reg.url)
        rc.write_text(rc.read_text() + 'provider_installation {\n  direct {}\n}\n')
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(rc))
        s = early.start(InitArguments(chdir=str(root)), Settings.from_environ(os.environ))
        assert s.listings == 2
        wait_for(lambda: len(listings(reg)) == 2)
        assert all("/modules/" in p for p in listings(reg))
