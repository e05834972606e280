"""The command line, run as a user runs it (a subprocess)."""

import io
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "tofu_solve", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_help_and_version():
    r = run("--help")
    assert r.returncode == 0 and "inspect" in r.stdout and "-chdir" in r.stdout
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("tofu-solve ")


def test_no_command_is_a_usage_error():
    r = run()
    assert r.returncode == 2 and "usage:" in r.stdout


def test_inspect_bundled_example_both_flag_styles():
    a = run("-chdir=tofu_solve/data/demo/2-needs-solver", "inspect")
    b = run("inspect", "--chdir", "tofu_solve/data/demo/2-needs-solver")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout
    assert "vpc: terraform-aws-modules/vpc/aws ~> 6.0  [main.tf:16]" in a.stdout  # the version line (issue #34)
    assert "eks: terraform-aws-modules/eks/aws ~> 20.0  [main.tf:21]" in a.stdout


def test_inspect_json():
    r = run("inspect", "-chdir=fixtures/configs/full", "-json")
    assert r.returncode == 0
    data = json.loads(r.stdout)
    assert [c["name"] for c in data["module_calls"]] == ["kms", "vpc", "eks", "network", "label"]
    assert data["module_calls"][1]["version"] == "~> 6.6"


def test_errors_exit_nonzero_with_file_and_line():
    r = run("inspect", "-chdir=fixtures/configs/version-on-local")
    assert r.returncode == 1
    assert "Error: Invalid registry module source address" in r.stderr
    assert "on main.tf line 2, in module " in r.stderr
    assert "Traceback" not in r.stderr
    r = run("inspect", "-chdir=fixtures/configs/version-on-local", "-json")
    assert r.returncode == 1 and json.loads(r.stdout)["error"]["line"] == 2


def test_package_data_ships_demo_roots_and_release_list():
    """pip installs must carry the demo roots and the OpenTofu release list (pyproject
    package-data), or ``tofu-solve demo`` fails on a fresh machine."""
    import tomllib
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["tofu_solve"]
    import fnmatch
    files = [p.relative_to(REPO / "tofu_solve").as_posix() for p in (REPO / "tofu_solve" / "data").rglob("*")
             if p.is_file()]
    assert files and all(any(fnmatch.fnmatch(f, pat) for pat in data) for f in files), files


def test_version_command():
    """Issue #15 (part): `tofu-solve version`, as `tofu version`."""
    import json
    import subprocess
    import sys

    from tofu_solve import __version__
    r = subprocess.run([sys.executable, "-m", "tofu_solve", "version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == f"tofu-solve v{__version__}"
    r = subprocess.run([sys.executable, "-m", "tofu_solve", "version", "-json"], capture_output=True, text=True)
    assert json.loads(r.stdout) == {"tofu_solve_version": __version__}
    # --version prints what version prints, as tofu --version does (issue #50 §5)
    r = subprocess.run([sys.executable, "-m", "tofu_solve", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == f"tofu-solve v{__version__}"


def test_a_mistyped_command_gets_the_nearest_one():
    """Issue #50 §5: ``tofu-solve int`` is a usage error naming the command meant."""
    import contextlib
    import io

    from tofu_solve.cli import main
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["int"]) == 2
        assert main(["-chdir", ".", "outdatd"]) == 2
    assert 'Error: "int" is not a tofu-solve command. Did you mean init?' in err.getvalue()
    assert "Did you mean outdated?" in err.getvalue()


def test_max_rounds_must_be_a_positive_whole_number(tmp_path):
    for bad in ("0", "-3", "many"):
        r = run("init", f"-max-rounds={bad}", f"-chdir={tmp_path}")
        assert r.returncode == 2 and "--max-rounds" in r.stderr, (bad, r.stderr)


def test_a_named_corpus_that_is_not_there_is_an_error_not_another_corpus(tmp_path):
    r = run("demo", "--corpus", str(tmp_path / "nonexistent"), f"--output={tmp_path / 'out'}")
    assert r.returncode == 1
    assert "Error: Corpus not found" in r.stderr and str(tmp_path / "nonexistent") in r.stderr
    assert not (tmp_path / "out").exists()


def test_boolean_flags_take_gos_values_as_tofu_does():
    """Go's flag package (ParseBool) as tofu reads boolean flags: -json=true, -json=1,
    -json=false; anything else is a usage error in the flag package's words."""
    assert json.loads(run("version", "-json=true").stdout) == json.loads(run("version", "-json").stdout)
    assert json.loads(run("version", "-json=1").stdout)["tofu_solve_version"]
    assert run("version", "-json=false").stdout.startswith("tofu-solve v")
    r = run("version", "-json=maybe")
    assert r.returncode == 2 and 'invalid boolean value "maybe" for -json: parse error' in r.stderr


def test_the_command_ends_without_teardown_and_loses_nothing(tmp_path):
    """``python -m tofu_solve`` (and the console script, ``cli.entry``) ends the process with
    ``os._exit`` after ``main``: its output is complete through a pipe (the same bytes as
    ``main`` writes in-process), its exit status is main's, and a TF_LOG_PATH file holds every
    line, ending with the last one written."""
    import contextlib
    import io
    import os

    from tofu_solve.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["completion", "bash"]) == 0
    r = run("completion", "bash")
    assert r.returncode == 0 and r.stdout == out.getvalue() and len(r.stdout) > 8192  # more than one buffer
    assert run("init", "-no-such-flag").returncode == 2
    log = tmp_path / "log"
    root = tmp_path / "root"
    root.mkdir()
    (root / "main.tf").write_text('module "m" {\n  source = "./nowhere"\n}\n')
    r = subprocess.run([sys.executable, "-m", "tofu_solve", "init", f"-chdir={root}"], capture_output=True,
                       text=True, timeout=120, env={**os.environ, "TF_LOG": "TRACE", "TF_LOG_PATH": str(log)})
    assert r.returncode == 1 and "nowhere" in r.stderr, r.stderr
    lines = log.read_text().splitlines(keepends=True)
    assert lines and all(line.endswith("\n") for line in lines)


def test_inspect_reads_a_terraform_root_as_terraform(tmp_path):
    """Issue #50 §5: ``inspect`` on a Terraform target speaks of Terraform, reads ``.tf``
    files only, and counts "1 file"."""
    import contextlib
    import io

    from tofu_solve.cli import main
    (tmp_path / "main.tf").write_text('terraform {\n  required_version = ">= 1.5"\n}\n')
    (tmp_path / "only.tofu").write_text('module "m" {\n  source = "./m"\n}\n')  # OpenTofu reads it; Terraform not
    (tmp_path / ".terraform-version").write_text("1.11.4\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["inspect", f"-chdir={tmp_path}"], {"PATH": ""}) == 0
    text = out.getvalue()
    assert "read as Terraform (1 file: main.tf)" in text and "Terraform version constraints:" in text
    assert "OpenTofu" not in text and "(none)" in text.split("Module calls:")[1].split("\n\n")[0]


def test_a_file_saved_during_the_run_is_not_stamped(tmp_path, monkeypatch):
    """Issue #58 §1.1: the stamp records what the run saw before it began and is written only
    if the inputs are unchanged after it. A run during which ``main.tf`` is saved (a save in
    the editor while init or its hand-over runs) leaves no stamp, so the next run reads the
    new file; an undisturbed run leaves one, which answers the next identical run. In
    process, with the run itself replaced by one that saves the file and finishes verified:
    what is tested is the stamp's timing in ``cli.main``, not the solve."""
    from tofu_solve import cli
    from tofu_solve.workdir import stamp

    root = tmp_path / "root"
    root.mkdir()
    (root / "main.tf").write_text('terraform {\n  required_version = ">= 1.6"\n}\n')
    (root / ".terraform" / "modules").mkdir(parents=True)  # as an init leaves it: the stamp is kept there
    (root / ".terraform" / "modules" / "modules.json").write_text('{"Modules": [{"Key": "", "Source": "", "Dir": "."}]}')
    environ = {"PATH": "/nonexistent", "HOME": str(tmp_path), "TF_PLUGIN_CACHE_DIR": "",
               "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache")}
    argv = [f"-chdir={root}", "init", "-handover=false"]

    def saves_during_the_run(args, settings):
        (root / "main.tf").write_text('terraform {\n  required_version = ">= 1.7"\n}\n# saved meanwhile\n')
        return stamp.Finished(0, "The lock file is up to date.")

    monkeypatch.setattr(cli, "_run", saves_during_the_run)
    assert cli.main(argv, environ) == 0
    assert stamp.fast_path(argv, environ, out=io.StringIO()) is None, "a file saved during the run was stamped"

    monkeypatch.setattr(cli, "_run", lambda args, settings: stamp.Finished(0, "The lock file is up to date."))
    assert cli.main(argv, environ) == 0
    out = io.StringIO()
    assert stamp.fast_path(argv, environ, out=out) == 0 and "up to date" in out.getvalue()
