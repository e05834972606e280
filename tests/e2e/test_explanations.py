"""Issue #12: explanations that hold on hard cases, every suggestion applied and re-solved.

Each test builds the case in the fixture world (real registry, real git), reads the
explanation as text and as ``-json`` data, applies every suggested edit to the files the
way a tool would (``old`` -> ``new`` on ``file:line``) and runs ``init`` again: a suggestion
that does not solve fails the test.
"""

from __future__ import annotations

import shutil

import pytest

from tests.e2e.conftest import lock_versions, make_repo, write_root

AWS5_VPC_EKS_RDS = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = ">= 21.0"
}

module "rds" {
  source  = "terraform-aws-modules/rds/aws"
  version = "~> 7.0"
}
'''

SHARED_8 = '''
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 21.0"
}
module "kms" {
  source  = "terraform-aws-modules/kms/aws"
  version = "~> 3.0"
}
module "rds" {
  source  = "terraform-aws-modules/rds/aws"
  version = "~> 7.0"
}
module "alb" {
  source  = "terraform-aws-modules/alb/aws"
  version = "~> 10.0"
}
module "ecs" {
  source  = "terraform-aws-modules/ecs/aws"
  version = "~> 7.0"
}
module "label" {
  source  = "cloudposse/label/null"
  version = "0.25.0"
}
module "subnets" {
  source  = "cloudposse/dynamic-subnets/aws"
  version = "~> 3.0"
}
'''


def _error(run) -> dict:
    return run.json()["error"]


def apply_edits(root, edits: list[dict]) -> None:
    """Apply ``-json`` edits as a tool would: ``old`` -> ``new`` on exactly that line."""
    for e in edits:
        path = root / e["file"]
        lines = path.read_text().split("\n")
        line = lines[e["line"] - 1]
        assert f'"{e["old"]}"' in line, (e, line)
        lines[e["line"] - 1] = line.replace(f'"{e["old"]}"', f'"{e["new"]}"', 1)
        path.write_text("\n".join(lines))


def check_every_suggestion(tofu_solve, root, suggestions: list[dict], *args: str) -> list[dict]:
    """Apply each suggestion to a copy of ``root`` and solve it; return the locks."""
    assert suggestions, "no suggestion"
    out = []
    for i, s in enumerate(suggestions):
        copy = root.parent / f"{root.name}-suggestion-{i}"
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".terraform*"))
        apply_edits(copy, s["edits"])
        r = tofu_solve(copy, "init", *args)
        assert r.code == 0, (s["summary"], r.err)
        out.append(lock_versions(r.lock))
    return out


def test_three_parties_are_all_named_and_every_fix_works(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", AWS5_VPC_EKS_RDS)
    r = tofu_solve(root, "init")
    assert r.code == 1
    # both clashes, each with every party and no other: vpc 6.0.0 admits aws 5.x
    assert 'These cannot hold together' not in r.err
    assert '  - rds "~> 7.0" (main.tf:22); hashicorp/aws "~> 5.0" (main.tf:5)' in r.err
    assert '  - eks ">= 21.0" (main.tf:17); hashicorp/aws "~> 5.0" (main.tf:5)' in r.err
    assert 'module "vpc"' not in r.err
    assert '7.0.1, 7.0.0: ">= 6.27"' in r.err  # rds ~> 7.0 needs aws >= 6.27

    j = tofu_solve(root, "init", "-json")
    err = _error(j)
    clashes = [{c["name"] for c in clash} for clash in err["explanation"]["clashes"]]
    assert sorted(map(sorted, clashes)) == [["eks", "registry.opentofu.org/hashicorp/aws"],
                                            ["rds", "registry.opentofu.org/hashicorp/aws"]]
    suggestions = err["explanation"]["suggestions"]
    # fewest edits first: one edit to the provider, then eks and rds together
    assert [len(s["edits"]) for s in suggestions] == sorted(len(s["edits"]) for s in suggestions)
    assert suggestions[0]["edits"] == [{"file": "main.tf", "line": 5, "old": "~> 5.0", "new": "~> 6.0"}]
    two = next(s for s in suggestions if len(s["edits"]) == 2)
    assert {(e["line"], e["old"]) for e in two["edits"]} == {(17, ">= 21.0"), (22, "~> 7.0")}
    locks = check_every_suggestion(tofu_solve, root, suggestions)
    assert locks[0]["eks"].startswith("21.") and locks[0]["rds"].startswith("7.")
    both = locks[suggestions.index(two)]
    assert both["eks"].startswith("20.") and both["rds"].startswith("6.")
    # alternatives by what they keep (issue #24)
    assert suggestions[0]["keeps"] == ["modules"] and suggestions[0]["fewest_edits"] is True
    assert two["keeps"] == ["providers"]


def test_a_fix_that_keeps_the_provider_is_found_across_three_calls(tmp_path, tofu_solve):
    """Issue #24's case: aws "~> 5.0" with vpc "~> 6.1", eks ">= 21.0", rds "~> 7.0". Teams
    often cannot move a provider across a major: the fix that keeps it moves all three
    calls to their nearest lines that allow aws 5.x, and is verified like every other."""
    root = write_root(tmp_path / "root", AWS5_VPC_EKS_RDS.replace('version = "~> 6.0"', 'version = "~> 6.1"'))
    j = tofu_solve(root, "init", "-json")
    suggestions = _error(j)["explanation"]["suggestions"]
    keeps = {k: s for s in suggestions for k in s["keeps"]}
    assert set(keeps) == {"providers", "modules"}
    assert keeps["modules"]["edits"] == [{"file": "main.tf", "line": 5, "old": "~> 5.0", "new": "~> 6.0"}]
    assert {e["old"] for e in keeps["providers"]["edits"]} == {"~> 6.1", ">= 21.0", "~> 7.0"}
    locks = check_every_suggestion(tofu_solve, root, [keeps["providers"]])
    assert locks[0]["eks"].startswith("20.") and locks[0]["rds"].startswith("6.")
    r = tofu_solve(root, "init")
    assert "[keeps the providers]" in r.err and "[fewest edits; keeps the modules]" in r.err


def test_recursive_explanations_name_files_from_where_the_user_ran(tmp_path, tofu_solve):
    """init -recursive: citations and suggested edits name files from the directory the
    user ran in (``live/x/main.tf:5``), and applying the edits there solves (issue #24)."""
    base = tmp_path / "repo"
    write_root(base / "live" / "x", AWS5_VPC_EKS_RDS)
    write_root(base / "live" / "y", 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                    '  version = "~> 2.0"\n}\n')
    r = tofu_solve(base, "init", "-recursive")
    assert r.code == 1
    assert '"~> 5.0" required by the root module at live/x/main.tf:5' in r.err
    assert 'change "~> 5.0" to "~> 6.0" at live/x/main.tf:5' in r.err
    j = tofu_solve(base, "init", "-recursive", "-json")
    failed = next(x for x in j.json()["roots"] if not x["ok"])
    suggestions = failed["error"]["explanation"]["suggestions"]
    assert suggestions[0]["edits"] == [{"file": "live/x/main.tf", "line": 5, "old": "~> 5.0", "new": "~> 6.0"}]
    apply_edits(base, suggestions[0]["edits"])
    assert tofu_solve(base, "init", "-recursive").code == 0


def test_a_fix_never_starts_by_undoing_the_users_own_edit(tmp_path, tofu_solve):
    """Issue #24 §2: eks moved from "~> 20.0" to "~> 21.0" under aws "~> 5.0"; init explains
    the conflict at once (issue #34: the edit is solved afresh). Changing eks back is the
    smallest move, but it undoes what the user just did: it ranks after the fix that keeps
    the edit, and says what the lock recorded."""
    root = write_root(tmp_path / "root", AWS5_VPC_EKS_RDS.replace('">= 21.0"', '"~> 20.0"')
                      .replace('"~> 7.0"', '"~> 6.0"'))
    first = tofu_solve(root, "init")
    assert first.code == 0, first.err
    assert 'constraints = "~> 20.0"' in first.lock
    main = root / "main.tf"
    main.write_text(main.read_text().replace('"~> 20.0"', '"~> 21.0"'))
    j = tofu_solve(root, "init", "-json")
    suggestions = [s for s in _error(j)["explanation"]["suggestions"] if s["edits"]]
    undo = [s for s in suggestions if any(e["old"] == "~> 21.0" for e in s["edits"])]
    keep = [s for s in suggestions if s not in undo]
    assert undo and keep
    assert suggestions.index(undo[0]) > max(suggestions.index(k) for k in keep)
    assert undo[0]["undoes_edit"] == ["eks"] and all(k["undoes_edit"] == [] for k in keep)
    assert 'which you edited since the lock file was written (it recorded "~> 20.0")' in undo[0]["summary"]
    check_every_suggestion(tofu_solve, root, keep)


def test_noisy_ranges_are_collapsed(tmp_path, tofu_solve):
    """Identical constraints of one module version are shown once, with the files."""
    root = write_root(tmp_path / "root", AWS5_VPC_EKS_RDS)
    r = tofu_solve(root, "init")
    assert ('21.12.0 to 21.19.0: ">= 6.28" (modules/eks-managed-node-group/versions.tf:7, '
            'modules/fargate-profile/versions.tf:7, modules/self-managed-node-group/versions.tf:7, '
            'versions.tf:7)') in r.err
    assert '" AND ">= 6.28"' not in r.err


def test_a_constraint_matching_no_published_version_is_named(tmp_path, tofu_solve):
    """A selected module's own provider constraint that admits no published version: the
    module is named, with the versions actually published, and the fix is verified."""
    tf = '''
        terraform {
          required_providers {
            aws = {
              source  = "hashicorp/aws"
              version = "%s"
            }
          }
        }
    '''
    url = make_repo(tmp_path / "net", [("v1.0.0", {"main.tf": tf % ">= 5.0"}),
                                       ("v1.1.0", {"main.tf": tf % ">= 99.0"})])
    root = write_root(tmp_path / "root", f'''
        module "net" {{
          source  = "git::{url}"
          version = "~> 1.1"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert 'module "net"' in r.err and '1.1.0: ">= 99.0" (main.tf:' in r.err
    assert 'no published version of hashicorp/aws matches ">= 99.0" (published: ' in r.err
    err = _error(tofu_solve(root, "init", "-json"))
    assert err["explanation"]["suggestions"][0]["edits"] == [
        {"file": "main.tf", "line": 3, "old": "~> 1.1", "new": "~> 1.0"}]
    locks = check_every_suggestion(tofu_solve, root, err["explanation"]["suggestions"])
    assert locks[0]["net"] == "v1.0.0"  # a git tag is locked as the tag


def test_shared_mode_fails_fast_and_names_the_two_calls(tmp_path, tofu_solve):
    """-module-versions=shared: root kms ~> 3.0 against eks 21's exact kms 4.0.0. The
    clash is certain once eks 21's versions are read; the explanation names exactly the
    two calls (the other six are not part of it) and every suggestion solves."""
    root = write_root(tmp_path / "root", SHARED_8)
    r = tofu_solve(root, "init", "-module-versions=shared", "-json")
    assert r.code == 1
    err = _error(r)
    clashes = err["explanation"]["clashes"]
    assert [sorted(c["name"] for c in clash) for clash in clashes] == [["eks", "kms"]]
    subject = err["explanation"]["subjects"][0]
    assert subject["subject"] == "module package registry.opentofu.org/terraform-aws-modules/kms/aws"
    text = tofu_solve(root, "init", "-module-versions=shared")
    assert '"4.0.0" (module "eks.kms", main.tf:' in text.err
    assert 'module "kms" asks for "~> 3.0" (main.tf:11)' in text.err
    suggestions = err["explanation"]["suggestions"]
    assert suggestions[0]["edits"] == [{"file": "main.tf", "line": 11, "old": "~> 3.0", "new": "~> 4.0"}]
    locks = check_every_suggestion(tofu_solve, root, suggestions, "-module-versions=shared")
    assert locks[0]["kms"] == locks[0]["eks.kms"] == "4.0.0"
    # the nearest line that works, in the old constraint's style (issue #24): eks 18's newest
    # releases call kms 1.x, but its older ones call none; eks 15.x is six majors back
    assert suggestions[1]["edits"] == [{"file": "main.tf", "line": 7, "old": "~> 21.0", "new": "~> 18.0"}]
    assert locks[1]["eks"].startswith("18.") and "eks.kms" not in locks[1]


def test_round_cap_names_what_the_search_went_back_and_forth_on(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", SHARED_8)
    r = tofu_solve(root, "init", "-module-versions=shared", "-max-rounds=40", "-json")
    assert r.code == 1
    err = _error(r)
    assert err["summary"] == "Resolution took too long"
    named = err["explanation"]["back_and_forth"]
    assert named and all("versions rejected" in n for n in named)
    assert any('module call "' in n or "module package" in n for n in named)


@pytest.mark.parametrize("pair", ["vpc@6+rds@7", "vpc@6+eks@21"])
def test_corpus_pairs_under_aws5_every_suggestion_solves(tmp_path, tofu_solve, pair):
    """Real conflicts from the corpus with three parties (root aws ~> 5.0 and two modules
    at ~> MAJOR.0, as tofu-solve's benchmark assembles them)."""
    (a, ma), (b, mb) = (p.split("@") for p in pair.split("+"))
    root = write_root(tmp_path / "root", f'''
        terraform {{
          required_providers {{
            aws = {{
              source  = "hashicorp/aws"
              version = "~> 5.0"
            }}
          }}
        }}
        module "{a}" {{
          source  = "terraform-aws-modules/{a}/aws"
          version = "~> {ma}.0"
        }}
        module "{b}" {{
          source  = "terraform-aws-modules/{b}/aws"
          version = "~> {mb}.0"
        }}
    ''')
    r = tofu_solve(root, "init", "-json")
    if r.code == 0:
        pytest.fail(f"{pair} under aws ~> 5.0 resolved; the corpus changed")
    err = _error(r)
    named = {c["name"] for clash in err["explanation"]["clashes"] for c in clash}
    assert "registry.opentofu.org/hashicorp/aws" in named and b in named
    check_every_suggestion(tofu_solve, root, err["explanation"]["suggestions"])
