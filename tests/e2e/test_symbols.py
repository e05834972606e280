"""Symbol libraries end to end (issue #38 §4): solved with the module rules, locked next to the
module blocks under their call paths and installed where OpenTofu's module installer puts
them (opentofu/opentofu branch symbol_libraries_experiment_2, internal/configs/config_build.go
``symbolLoader``: the path ``symbols:NAME`` under its parent's, so ``modules.json`` keys
``symbols:net``, ``app.symbols:util``), against the world's registry and a git repository."""

from __future__ import annotations

import json

from tests.e2e.conftest import lock_versions, make_repo, write_root

ENABLE = "language {\n  experiments = [symbol_libraries]\n}\n"


def test_symbol_libraries_are_solved_locked_and_installed(tmp_path, tofu_solve):
    util = make_repo(tmp_path / "util", [(t, {"util.sym.hcl": f'values {{\n  v = "{t}"\n}}\n'})
                                         for t in ("v1.0.0", "v1.1.0")])
    app = make_repo(tmp_path / "app", [("v2.0.0", {"main.tofu": ENABLE + f'''
        symbols "util" {{
          source = "git::{util}?ref=v1.0.0"
        }}
        '''})])
    root = write_root(tmp_path / "root", "", {
        "main.tofu": ENABLE + f'''
            symbols "net" {{
              source  = "terraform-aws-modules/vpc/aws"
              version = "~> 6.0"
            }}
            symbols "local" {{
              source = "./lib"
            }}
            module "app" {{
              source = "git::{app}?ref=v2.0.0"
            }}
            ''',
        "lib/lib.sym.hcl": f'symbols "util" {{\n  source = "git::{util}?ref=v1.1.0"\n}}\n',
    })
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"symbols:net": "6.6.0", "app": "v2.0.0", "app.symbols:util": "v1.0.0",
                                     "symbols:local.symbols:util": "v1.1.0"}
    assert 'provider "' not in r.lock  # a library's versions.tf is never read: vpc's aws is not required
    manifest = json.loads((root / ".terraform/modules/modules.json").read_text())
    dirs = {m["Key"]: m["Dir"] for m in manifest["Modules"]}
    assert dirs["symbols:local"] == "lib"
    assert dirs["symbols:net"] == ".terraform/modules/symbols:net"
    assert dirs["app.symbols:util"] == ".terraform/modules/app.symbols:util"
    assert (root / ".terraform/modules/symbols:local.symbols:util/util.sym.hcl").read_text() == 'values {\n  v = "v1.1.0"\n}\n'
    assert (root / ".terraform/modules/symbols:net/versions.tf").is_file()

    again = tofu_solve(root, "init", "-handover=false")
    assert again.code == 0 and again.lock == r.lock
    assert tofu_solve(root, "check").code == 0
    why = tofu_solve(root, "why", "symbols:net")
    assert why.code == 0 and "6.6.0" in why.out and "main.tofu:7" in why.out

    # an installed library edited afterwards is caught against its h1: hash
    (root / ".terraform/modules/app.symbols:util/util.sym.hcl").write_text("values {}\n")
    bad = tofu_solve(root, "check")
    assert bad.code != 0 and "app.symbols:util" in bad.out + bad.err


def test_a_symbols_block_without_the_experiment_is_refused_at_its_line(tmp_path, tofu_solve):
    root = write_root(tmp_path, "", {"main.tofu": 'symbols "net" {\n  source = "./lib"\n}\n'})
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 1
    assert "Error: Language Experiment not enabled" in r.err and "on main.tofu line 1" in r.err
    assert not (root / ".terraform.lock.hcl").exists()
