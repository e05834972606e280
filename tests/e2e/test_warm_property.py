"""Issue #47 §2, as a property: the warm path is exact by construction.

Hypothesis generates sequences of changes to a solved working directory and to the
directories above it (a policy file, a ``*.policy.hcl`` file or a version file added, edited
or removed at any level up to the repository's top, a variables file, the lock file, an
installed copy, the CLI configuration, a policy file named by an environment variable, an
environment variable), and after each change the warm answer
of ``check`` or ``init -handover=false`` (a fresh run that may answer from the stamp) equals
the full path's (``TOFU_SOLVE_FULL_CHECK=1``): the same exit status and the same facts, or the
warm path declines and runs the full path itself (the full path runs on an identical copy,
since it may mend what it finds). Every example first shows the warm path
answering from the stamp on the unchanged directory, so the property is never met by a stamp
that never answers.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.e2e.conftest import write_root
from tests.e2e.test_warm_stamp import backdate
from tofu_solve.cli import main
from tofu_solve.workdir import stamp

MAIN = '''
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
'''

LEVELS = 3  # the root (0), its parent (1), its grandparent (2)
FAST_MARKS = ("as the last check found them", "sizes and modification times of the last verified init")


@pytest.fixture(scope="module")
def template(running, tmp_path_factory):
    """A solved working directory, ``top/a/b/root``, in a repository whose top is ``top``,
    with its own cache, CLI configuration and home, all modified an hour ago; copied afresh
    for every example."""
    top = tmp_path_factory.mktemp("warm-template")
    (top / ".git").mkdir()  # the repository's top: policy files may appear in any directory up to it
    root = write_root(top / "a" / "b" / "root", MAIN)
    (top / "home" / ".terraform.d").mkdir(parents=True)
    shutil.copy(running.cli_config, top / "cli.tfrc")
    env = _env(top)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["init", "-handover=false", f"-chdir={root}"], env) == 0, err.getvalue()
    backdate(top)
    return top


def _env(top: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(top / "home"),
            "TF_CLI_CONFIG_FILE": str(top / "cli.tfrc"), "TOFU_SOLVE_CACHE_DIR": str(top / "cache")}


def _run(top: Path, env: dict[str, str], command: tuple[str, ...], full: bool) -> tuple[int, str, str]:
    root = top / "a" / "b" / "root"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*command, f"-chdir={root}"], {**env, **({stamp.FULL_CHECK_VARIABLE: "1"} if full else {})})
    return code, out.getvalue(), err.getvalue()


def _facts(run: tuple[int, str, str]) -> list[str]:
    """What a warm answer and a full one must agree on: the selections, the target, the
    warnings and the verdict (standard output), and the errors and differences (standard
    error, without its progress lines), without the words that say how it was verified."""
    _, out, err = run
    keep = ("- ", "Solved for", "Warning:", "tofu-solve has been", "Error:", "The lock file, ")
    lines = []
    for line in out.splitlines() + [x for x in err.splitlines() if not x.startswith(("- Modules:", "- Providers:",
                                                                                    "- Install:", "- Fetching"))]:
        line = re.sub(r" \(as the last check found them: .*\)\.$", ".", line)
        if line.startswith(keep) and "Verified checksum" not in line:
            lines.append(line)
    return lines


def _where(top: Path, level: int) -> Path:
    return [top / "a" / "b" / "root", top / "a" / "b", top / "a"][level]


def _hcl_policy(version: str) -> str:
    """A ``*.policy.hcl`` rule refusing ``version`` of every module (issue #62)."""
    return (f'module_policy "*" "not_{version.replace(".", "_")}" {{\n  enforce {{\n'
            f'    condition = meta.version != "{version}"\n  }}\n}}\n')


def _policy(version: str) -> str:
    return (f'deny "module" "terraform-aws-modules/vpc/aws" {{\n  versions = "{version}"\n'
            '  reason   = "a test rule"\n}\n')


CHANGES = st.one_of(
    st.tuples(st.just("policy"), st.integers(0, LEVELS - 1), st.sampled_from(["locked", "other", "remove"])),
    st.tuples(st.just("version file"), st.integers(0, LEVELS - 1),
              st.sampled_from([".opentofu-version", ".tofu-version", ".terraform-version"]),
              st.sampled_from(["1.10.0", "1.9.1", "remove"])),
    st.tuples(st.just("policy file"), st.integers(0, LEVELS - 1), st.sampled_from(["locked", "other", "remove"])),
    st.tuples(st.just("tfvars"), st.sampled_from(["write", "remove"])),
    st.tuples(st.just("lock"), st.sampled_from(["touch", "edit hash"])),
    st.tuples(st.just("installed copy"), st.sampled_from(["edit", "touch"])),
    st.tuples(st.just("cli config"), st.sampled_from(["comment", "tfrc in home"])),
    st.tuples(st.just("named policy"), st.sampled_from(["name it", "edit it", "unname it"])),
    st.tuples(st.just("environment"), st.sampled_from(["TF_VAR_region", "TOFU_SOLVE_POLICY=none", "unset"])),
)


def _apply(top: Path, env: dict[str, str], change: tuple) -> None:
    """Make ``change`` to the working directory at ``top`` (or to ``env``)."""
    root = top / "a" / "b" / "root"
    kind = change[0]
    if kind == "policy":
        p = _where(top, change[1]) / "tofu-solve-policy.hcl"
        if change[2] == "remove":
            p.unlink(missing_ok=True)
        else:
            locked = re.search(r'version\s+=\s+"([^"]+)"', (root / ".terraform.lock.hcl").read_text())
            p.write_text(_policy(locked.group(1) if change[2] == "locked" and locked else "1.0.0"))
    elif kind == "policy file":  # HashiCorp's policy language, found beside or instead of ours
        p = _where(top, change[1]) / "team.policy.hcl"
        if change[2] == "remove":
            p.unlink(missing_ok=True)
        else:
            locked = re.search(r'version\s+=\s+"([^"]+)"', (root / ".terraform.lock.hcl").read_text())
            p.write_text(_hcl_policy(locked.group(1) if change[2] == "locked" and locked else "1.0.0"))
    elif kind == "version file":
        p = _where(top, change[1]) / change[2]
        if change[3] == "remove":
            p.unlink(missing_ok=True)
        else:
            p.write_text(change[3] + "\n")
    elif kind == "tfvars":
        p = root / "terraform.tfvars"
        if change[1] == "remove":
            p.unlink(missing_ok=True)
        else:
            p.write_text('unused = "x"\n')
    elif kind == "lock":
        p = root / ".terraform.lock.hcl"
        text = p.read_text()
        p.write_text(re.sub(r'"h1:[A-Za-z0-9+/]{4}', '"h1:AAAA', text, count=1) if change[1] == "edit hash" else text)
    elif kind == "installed copy":
        p = root / ".terraform" / "modules" / "vpc" / "versions.tf"
        if p.exists():
            p.write_text(p.read_text() + ("# edited\n" if change[1] == "edit" else ""))
    elif kind == "cli config":
        if change[1] == "comment":
            p = top / "cli.tfrc"
            p.write_text(p.read_text() + "# a comment\n")
        else:
            (top / "home" / ".terraform.d" / "extra.tfrc").write_text("# nothing\n")
    elif kind == "named policy":
        p = top / "named-policy.hcl"
        if change[1] == "unname it":
            env.pop("TOFU_SOLVE_POLICY", None)
        else:
            if change[1] == "name it" or not p.exists():
                p.write_text("")
                env["TOFU_SOLVE_POLICY"] = str(p)
            else:
                locked = re.search(r'version\s+=\s+"([^"]+)"', (root / ".terraform.lock.hcl").read_text())
                p.write_text(_policy(locked.group(1) if locked else "1.0.0"))
    elif kind == "environment":
        if change[1] == "unset":
            env.pop("TF_VAR_region", None)
            env.pop("TOFU_SOLVE_POLICY", None)
        else:
            name, _, value = change[1].partition("=")
            env[name] = value or "eu-west-1"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(commands=st.lists(st.sampled_from([("check",), ("init", "-handover=false")]), min_size=1, max_size=4),
       changes=st.lists(CHANGES, min_size=1, max_size=4))
def test_after_any_change_the_warm_answer_is_the_full_paths(template, commands, changes):
    with tempfile.TemporaryDirectory() as d:
        top = Path(d) / "w"
        shutil.copytree(template, top, symlinks=True)  # copy2: sizes and times kept
        env = _env(top)
        first = commands[0]
        assert _run(top, env, first, full=False)[0] == 0  # verified on this copy: stamps
        warm = _run(top, env, first, full=False)
        assert warm[0] == 0 and any(m in warm[1] for m in FAST_MARKS), warm  # the premise: it answers
        for i, change in enumerate(changes):
            _apply(top, env, change)
            command = commands[i % len(commands)]
            # the full path on an identical copy (it may mend what it finds: this copy stays as changed)
            twin = Path(d) / f"full-{i}"
            shutil.copytree(top, twin, symlinks=True)
            twin_env = {k: v.replace(str(top), str(twin)) for k, v in env.items()}
            full = tuple(x.replace(str(twin), str(top)) if isinstance(x, str) else x
                         for x in _run(twin, twin_env, command, full=True))
            warm = _run(top, env, command, full=False)
            answered = any(m in warm[1] for m in FAST_MARKS)
            event("answered from the stamp" if answered else "declined: the full path ran")
            assert warm[0] == full[0], (change, command, warm, full)
            assert _facts(warm) == _facts(full), (change, command, warm, full)
