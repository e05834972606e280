"""Issue #15: day-2 workflows driven end to end in the fixture world: outdated, the graph,
output conventions, monorepos."""

from __future__ import annotations

import functools
import json
import operator

from tests.conftest import require_tool
from tests.e2e.conftest import AWS5_VPC61, VPC6_EKS20, lock_versions, write_root

ROOT_3 = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "6.4.0"
}
module "kms" {
  source  = "terraform-aws-modules/kms/aws"
  version = "3.0.0"
}
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"
}
'''


def _locked_then_loosened(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", ROOT_3)
    assert tofu_solve(root, "init").code == 0
    main = root / "main.tf"
    main.write_text(main.read_text().replace('"6.4.0"', '"~> 6.0"').replace('"3.0.0"', '"~> 3.0"'))
    assert tofu_solve(root, "init").code == 0  # both still allowed: the lock keeps them
    return root


def test_outdated_names_what_holds_each_call_back(tmp_path, tofu_solve):
    root = _locked_then_loosened(tmp_path, tofu_solve)
    lock_before = (root / ".terraform.lock.hcl").read_text()
    r = tofu_solve(root, "outdated", "-json")
    assert r.code == 2, r.err  # something can move
    rows = {i["name"]: i for i in r.json()["items"]}
    assert rows["vpc"]["locked"] == "6.4.0" and rows["vpc"]["can_move_to"] == "6.6.0"
    assert rows["vpc"]["held_by"] == "lock" and rows["vpc"]["can_move"]
    assert rows["kms"]["held_by"] == "lock" and rows["kms"]["newest_allowed"] == "3.1.1"
    # eks 20.37.2 (newest ~> 20.0 allows) needs aws < 6.0 while vpc 6.6.0 needs >= 6.28
    assert rows["eks"]["locked"] == rows["eks"]["can_move_to"] == "20.37.0"
    assert rows["eks"]["newest_allowed"] == "20.37.2" and rows["eks"]["held_by"] == "provider"
    assert '"~> 20.0"' not in rows["eks"]["reason"] and "hashicorp/aws" in rows["eks"]["reason"]
    assert rows["eks"]["newest"].startswith("21.")
    assert rows["eks.kms"]["held_by"] == "constraint"
    aws = rows["registry.opentofu.org/hashicorp/aws"]
    assert aws["kind"] == "provider" and aws["held_by"] is None and not aws["can_move"]
    text = tofu_solve(root, "outdated")
    assert text.code == 2
    assert text.out.splitlines()[0].split() == ["NAME", "LOCKED", "CAN", "MOVE", "TO", "NEWEST", "ALLOWED", "NEWEST",
                                                "HELD", "BACK", "BY"]
    assert "tofu-solve init -upgrade=kms,vpc" in text.out
    assert (root / ".terraform.lock.hcl").read_text() == lock_before  # read-only
    # take what it offers: nothing can move any more
    assert tofu_solve(root, "init", "-upgrade=kms,vpc").code == 0
    again = tofu_solve(root, "outdated", "-json")
    assert again.code == 0 and not again.json()["can_move"]


def test_graph_is_readable_at_16_calls(tmp_path, tofu_solve):
    """The default graph is the module tree, left to right, rendered by Graphviz within a
    sane size; -providers adds providers with de-duplicated labels and the binding
    constraint marked."""
    import re
    import shutil
    import xml.etree.ElementTree as ET

    from tests.e2e.test_explanations import SHARED_8

    require_tool(shutil.which("dot"), "Graphviz dot", "graphviz")
    root = write_root(tmp_path / "root", SHARED_8)
    assert tofu_solve(root, "init").code == 0
    data = tofu_solve(root, "graph", "-json").json()
    modules = [n for n in data["nodes"] if n["kind"] == "module"]
    assert len(modules) >= 16
    assert {n["kind"] for n in data["nodes"]} == {"root", "module"}  # the tree only, by default
    svg = tmp_path / "g.svg"
    r = tofu_solve(root, "graph", "-o", str(svg))
    assert r.code == 0, r.err
    doc = ET.parse(svg).getroot()
    width, height = (float(re.match(r"[\d.]+", doc.get(k)).group()) for k in ("width", "height"))
    assert width <= 1400 and height <= 1000, (width, height)  # was 6983x853 px for 16 calls
    titles = {t.text for t in doc.iter("{http://www.w3.org/2000/svg}title")}
    assert {f"module.{n['call']}" for n in modules} <= titles
    assert "root->module.eks" in titles and "module.eks->module.eks.kms" in titles
    png = tmp_path / "g.png"
    assert tofu_solve(root, "graph", "-o", str(png)).code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    full = tofu_solve(root, "graph", "-json", "-providers", "-opentofu").json()
    kinds = {n["kind"] for n in full["nodes"]}
    assert {"provider", "opentofu"} <= kinds
    aws_edges = [e for e in full["links"] if e["target"] == "provider.registry.opentofu.org/hashicorp/aws"]
    assert all(len(e["constraints"]) == len(set(e["constraints"])) for e in aws_edges)
    eks = next(e for e in aws_edges if e["source"] == "module.eks")
    assert eks["label"].count(">= 6.28") == 1  # four files, one label line
    dot = tofu_solve(root, "graph", "-providers").out
    assert "rankdir=LR" in dot


def test_graph_marks_held_back_calls(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC6_EKS20)
    assert tofu_solve(root, "init").code == 0
    data = tofu_solve(root, "graph", "-json").json()
    eks = next(n for n in data["nodes"] if n["id"] == "module.eks")
    # eks 20.37.0: 20.37.1 and 20.37.2 fence aws 6.x off (vpc 6.6.0 needs aws >= 6.28)
    assert eks["held_back"] == "20.37.2" and eks["fenced_off"] == "20.37.2"
    assert "held back (20.37.2 allowed)" in eks["label"] and "fenced off by 20.37.2" in eks["label"]
    dot = tofu_solve(root, "graph").out
    assert "dashed" in dot and "color=red" in dot


def test_init_json_is_opentofus_json_lines_stream(tmp_path, tofu_solve):
    """init -json: one JSON object per line in tofu's shape (views/json_view.go), the
    version message first, the result document in the last message."""
    import re
    root = write_root(tmp_path / "root", VPC6_EKS20)
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    messages = r.stream()
    assert all({"@level", "@message", "@module", "@timestamp", "type"} <= m.keys() for m in messages)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", m["@timestamp"]) for m in messages)
    assert messages[0]["type"] == "version" and messages[0]["ui"] == "1.2"
    assert messages[1] == {**messages[1], "type": "init_output", "message_code": "initializing_modules_message"}
    # warnings are diagnostics with a summary of their kind
    warn = [m for m in messages if m["type"] == "diagnostic"]
    assert warn and warn[0]["@level"] == "warn"
    assert warn[0]["diagnostic"]["summary"] == "Module version fenced off by its own line"
    assert warn[0]["diagnostic"]["detail"].startswith('Module "eks" is at 20.37.0')
    last = messages[-1]
    assert last["type"] == "init_result" and last["result"]["modules"]
    assert last["result"]["warnings"][0]["summary"] == "Module version fenced off by its own line"
    # issue #48 §3: the selection's value by the stated objective, proven best: eks two versions back, its
    # line fenced off (a fence-free eks would skip more versions, which the objective weighs first)
    assert last["result"]["selection"] == {
        "optimal": True, "bound": None, "improved_by_exact_optimiser": False,
        "objective": {"locks_moved": 0, "module_versions_skipped": 2, "module_versions_skipped_by_depth": [2, 0, 0, 0, 0, 0],
                      "fenced_off": 1, "provider_versions_skipped": 0}}
    assert any(m["type"] == "log" and m["@message"] == "- vpc in terraform-aws-modules/vpc/aws 6.6.0"
               for m in messages)


def test_init_json_progress_messages_carry_their_message_code(isolated, tofu_solve):
    """Progress is typed events (tofu_solve.events); the JSON view gives each its code. With
    an empty cache every package fetched is announced once, as a "log" message."""
    root = write_root(isolated / "root", VPC6_EKS20)
    r = tofu_solve(root, "init", "-json")
    assert r.code == 0, r.err
    fetches = [m for m in r.stream() if m.get("message_code") == "fetching_module_package"]
    assert fetches and all(m["type"] == "log" and m["@message"].startswith("- Fetching ") for m in fetches)
    shown = {m["@message"] for m in fetches}
    assert "- Fetching terraform-aws-modules/vpc/aws 6.6.0" in shown
    assert len(shown) == len(fetches)  # each package version once


def test_json_errors_are_diagnostics_keeping_the_explanation(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", AWS5_VPC61)
    r = tofu_solve(root, "init", "-json")
    assert r.code == 1
    diag = r.stream()[-1]
    assert diag["type"] == "diagnostic" and diag["@level"] == "error"
    assert diag["@message"] == "Error: No consistent set of versions"
    assert diag["diagnostic"]["severity"] == "error" and "hashicorp/aws" in diag["diagnostic"]["detail"]
    assert diag["error"]["kind"] == "ResolutionError"
    assert diag["error"]["explanation"]["suggestions"][0]["edits"]
    # an error at a line carries tofu's range and snippet
    (root / "main.tf").write_text('module "x" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "~> nope"\n}\n')
    bad = tofu_solve(root, "init", "-json").stream()[-1]["diagnostic"]
    assert bad["range"]["filename"] == "main.tf" and bad["range"]["start"]["line"] == 3
    assert bad["range"]["start"]["byte"] == len('module "x" {\n  source  = "terraform-aws-modules/vpc/aws"\n') + 2
    assert bad["snippet"]["code"] == '  version = "~> nope"'


def test_lock_file_would_change_is_its_own_kind(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                         '  version = "~> 3.0"\n}\n')
    r = tofu_solve(root, "init", "-lockfile=readonly", "-json")
    assert r.code == 1 and r.json()["error"]["kind"] == "LockFileWouldChange"
    (root / ".terraform.lock.hcl").write_text('module "kms" {\n  version = \n}\n')
    broken = tofu_solve(root, "init", "-json")
    assert broken.code == 1 and broken.json()["error"]["kind"] == "LockFileError"


def test_json_into_keeps_the_human_output(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                         '  version = "~> 3.0"\n}\n')
    into = tmp_path / "init.jsonl"
    r = tofu_solve(root, "init", f"-json-into={into}")
    assert r.code == 0 and r.out.startswith("Initializing modules...")
    messages = [json.loads(line) for line in into.read_text().splitlines()]
    assert messages[0]["type"] == "version" and messages[-1]["type"] == "init_result"


def _pty_run(args: list[str], env: dict) -> str:
    """Run the CLI on a pseudo-terminal (as a user's terminal) and return what it printed."""
    import os
    import pty
    import subprocess
    import sys
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "tofu_solve.cli", *args], stdin=slave, stdout=slave,
                            stderr=slave, env=env, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(master)
    return b"".join(chunks).decode(errors="replace")


def test_terminal_gets_colour_and_no_color_turns_it_off(tmp_path, running, shared_cache):
    import os
    root = write_root(tmp_path / "root", 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                         '  version = "~> 99.0"\n}\n')
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(shared_cache),
           "TERM": "xterm-256color", "COLUMNS": "120"}
    env.pop("NO_COLOR", None)
    coloured = _pty_run(["init", f"-chdir={root}"], env)
    assert "Unresolvable module version constraint" in coloured
    assert "\x1b[1;31mError: Unresolvable" in coloured  # red, bold, as tofu
    plain = _pty_run(["init", f"-chdir={root}"], {**env, "NO_COLOR": "1"})
    assert "Error: Unresolvable" in plain and "\x1b[1;31m" not in plain and "\x1b[31m" not in plain
    flag = _pty_run(["init", "-no-color", f"-chdir={root}"], env)
    assert "Error: Unresolvable" in flag and "\x1b[1;31m" not in flag


def test_terminal_progress_is_one_live_line(tmp_path, running):
    """On a terminal, progress is one status line updated in place (rich), not a line per
    fetch; on a pipe (the in-process runs above) each message is a plain line."""
    import os
    root = write_root(tmp_path / "root", 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                         '  version = "~> 3.0"\n}\n')
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config),
           "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache"), "TERM": "xterm-256color", "COLUMNS": "120"}
    out = _pty_run(["init", f"-chdir={root}"], env)
    assert "\x1b[2K" in out  # a status line redrawn in place ...
    # ... showing "Working..." until the first event, then the last one with the count fetched
    # (a fast run may update the line before its first refresh draws "Working...")
    assert "Working..." in out or "(1 fetched)" in out
    assert "\n- Fetching" not in out.replace("\r\n", "\n")  # never a line per fetch
    assert "successfully initialized" in out


def test_live_line_counts_what_was_fetched():
    import io

    from tofu_solve.command.views import HumanView
    from tofu_solve.events import FetchingPackage
    err = io.StringIO()
    view = HumanView(color=False, out=io.StringIO(), err=err)
    view.err.force_terminal = True  # as on a terminal
    view.live = True
    with view:
        view.progress(FetchingPackage("terraform-aws-modules/kms/aws", "3.1.1"))
        view.progress(FetchingPackage("terraform-aws-modules/vpc/aws", "6.6.0"))
        assert str(view._status.renderable.text) == "Fetching terraform-aws-modules/vpc/aws 6.6.0 (2 fetched)"
    assert view._status is None  # cleared before results are printed
    assert "- Fetching" not in err.getvalue()


def _monorepo(base):
    write_root(base / "modules" / "net", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                         '  version = "~> 6.0"\n}\n')
    write_root(base / "live" / "prod" / "app", '''
        module "net" {
          source = "../../../modules/net"
        }
        module "kms" {
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 3.0"
        }
    ''')
    write_root(base / "live" / "dev" / "app", 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                               '  version = "~> 2.0"\n}\n')
    # never roots: Terragrunt's cache, a hidden directory
    write_root(base / "live" / "prod" / "app" / ".terragrunt-cache" / "abc", 'module "x" {\n  source = "./nope"\n}\n')
    write_root(base / ".github" / "tf", 'module "x" {\n  source = "./nope"\n}\n')
    return base


def test_find_roots_as_a_user_means_it(tmp_path):
    from tofu_solve.command.monorepo import find_roots
    base = _monorepo(tmp_path / "repo")
    assert [p.relative_to(base).as_posix() for p in find_roots(base)] == ["live/dev/app", "live/prod/app"]


def test_init_recursive_solves_every_root_and_reports_across_them(tmp_path, tofu_solve):
    base = _monorepo(tmp_path / "repo")
    r = tofu_solve(base, "init", "-recursive", "-json")
    assert r.code == 0, r.err
    doc = r.json()
    assert [x["root"] for x in doc["roots"]] == ["live/dev/app", "live/prod/app"]
    assert all(x["ok"] for x in doc["roots"])
    kms = doc["report"]["modules"]["terraform-aws-modules/kms/aws"]
    assert len(kms) == 2 and sorted(functools.reduce(operator.iadd, kms.values(), [])) == ["live/dev/app:kms", "live/prod/app:kms"]
    assert doc["report"]["modules"]["terraform-aws-modules/vpc/aws"] == {"6.6.0": ["live/prod/app:net.vpc"]}
    for root in ("live/dev/app", "live/prod/app"):
        assert (base / root / ".terraform.lock.hcl").is_file()
    assert not (base / "modules" / "net" / ".terraform.lock.hcl").exists()  # a called module is no root
    text = tofu_solve(base, "init", "-recursive")
    assert text.code == 0
    # what matters across roots, one line (issue #59 §1); -verbose: who uses each version
    assert "  terraform-aws-modules/kms/aws: " in text.out and " in 1 root" in text.out, text.out
    assert "terraform-aws-modules/kms/aws  (several versions)" in tofu_solve(base, "init", "-recursive", "-verbose").out
    assert tofu_solve(base, "check", "-recursive").code == 0
    # outdated -recursive: a root where nothing can move is one line, the others their table (issue #50 §1)
    o = tofu_solve(base, "outdated", "-recursive")
    rows = {x.split(":", 1)[0]: x for x in o.out.splitlines() if x.startswith("live/")}
    tables = [x[3:] for x in o.out.splitlines() if x.startswith("== ")]
    assert (sorted(rows), tables) == (["live/dev/app", "live/prod/app"], []), o.out  # just initialised: nothing
    assert all(r.endswith(": nothing can move without changing a constraint") for r in rows.values())
    # one root broken: the others still succeed, the exit status says so
    (base / "live" / "dev" / "app" / "main.tf").write_text(
        'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n  version = "~> 99.0"\n}\n')
    bad = tofu_solve(base, "init", "-recursive")
    assert bad.code == 1
    assert "live/dev/app   error" in bad.out and "live/prod/app  ok" in bad.out
    assert "Unresolvable module version constraint" in bad.err  # no kms release is ~> 99.0
    # files named from the directory -recursive ran in (issue #24), in text and -json, where
    # the json range's byte offset is read from that file
    assert "on live/dev/app/main.tf line 3" in bad.err
    bad_json = tofu_solve(base, "init", "-recursive", "-json")
    diag = next(json.loads(line) for line in bad_json.out.splitlines() if '"diagnostic"' in line
                and json.loads(line)["diagnostic"]["severity"] == "error")["diagnostic"]
    assert diag["range"]["filename"] == "live/dev/app/main.tf" and diag["range"]["start"]["line"] == 3
    assert diag["snippet"]["code"] == '  version = "~> 99.0"'
    assert diag["range"]["start"]["byte"] == len('module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n  ')
    checked = tofu_solve(base, "check", "-recursive", "-json")
    assert checked.code == 1 and not checked.json()["ok"]


def test_files_and_directories_get_the_modes_tofu_gives_them(isolated, tofu_solve):
    """One atomic writer (tofu_solve/lockfile/replacefile.py): 0644 files and 0755 module
    directories less the umask, as terraform writes them on the same root; never mkstemp's
    0600 or mkdtemp's 0700, which another user or a CI container step cannot read."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        root = write_root(isolated / "root", VPC6_EKS20)
        r = tofu_solve(root, "init")
    finally:
        os.umask(old)
    assert r.code == 0, r.err

    def mode(p):
        return stat.S_IMODE(os.stat(p).st_mode)
    for f in (".terraform.lock.hcl", ".terraform/modules/modules.json", ".terraform/tofu-solve.json"):
        assert mode(root / f) == 0o644, f
    for d in (".terraform/modules/vpc", ".terraform/modules/eks"):
        assert mode(root / d) == 0o755, d


def test_module_blocks_a_tool_dropped_from_the_lock_are_kept_and_written_back(isolated, tofu_solve):
    """``tofu providers lock`` (and ``tofu init -upgrade`` when a provider moves) rewrites the
    lock file with provider blocks only (issue #21). The next init keeps the versions the
    last init recorded in .terraform/tofu-solve.json, as locked, writes the blocks back and
    says why; -lockfile=readonly refuses the file as it stands."""
    from tofu_solve.lockfile import parse_lock_text

    root = write_root(isolated / "root", '''
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "~> 6.0"
        }
    ''')
    main = root / "main.tf"
    main.write_text(main.read_text().replace('"~> 6.0"', '"6.4.0"'))
    assert tofu_solve(root, "init").code == 0
    main.write_text(main.read_text().replace('"6.4.0"', '"~> 6.0"'))
    r = tofu_solve(root, "init")
    assert r.code == 0 and lock_versions(r.lock) == {"vpc": "6.4.0"}  # locked; 6.6.0 is newer
    full = r.lock
    lock = root / ".terraform.lock.hcl"
    providers_only = full[:full.index('\nmodule "vpc"')] + full[full.index("\nprovider "):]
    lock.write_text(providers_only)  # what `tofu providers lock` leaves
    assert parse_lock_text(providers_only)[0].modules == {}
    r = tofu_solve(root, "check")
    assert r.code == 1 and 'module "vpc": its module block is missing from the lock file, which the last ' \
        "tofu-solve init locked at 6.4.0" in r.err
    r = tofu_solve(root, "init", "-lockfile=readonly")
    assert r.code == 1 and "Lock file would change" in r.err
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert "Warning: .terraform.lock.hcl had lost the module blocks of vpc" in r.out
    assert lock.read_text() == full  # 6.4.0 kept, block and hashes written back as they were
    r = tofu_solve(root, "init")
    assert "had lost the module blocks" not in r.out  # said once, when it happened


def test_warnings_that_follow_from_the_locked_selection_show_on_every_init(isolated, tofu_solve):
    """Issue #21: "fenced off" once showed only on the run that changed the lock. A re-init
    (which lists nothing: every call is locked) reads the listing an earlier run cached; the
    warning shows again, in text, -json and -recursive, with no network operation."""
    base = isolated / "repo"
    write_root(base / "live" / "app", VPC6_EKS20)
    first = tofu_solve(base / "live" / "app", "init")
    assert first.code == 0
    assert 'Warning: Module "eks" is at 20.37.0, but 20.37.1 of the same line requires' in first.out
    again = tofu_solve(base / "live" / "app", "init", "-json")
    assert again.code == 0
    assert again.json()["network_operations"] == {}  # warm: nothing fetched or listed
    assert [w["summary"] for w in again.json()["warnings"]] == ["Module version fenced off by its own line"]
    rec = tofu_solve(base, "init", "-recursive")
    assert rec.code == 0
    assert "In live/app:" in rec.out and 'Warning: Module "eks" is at 20.37.0' in rec.out
    rec_json = tofu_solve(base, "init", "-recursive", "-json")
    warns = [m for m in rec_json.stream() if m["type"] == "diagnostic" and m["@level"] == "warn"]
    assert warns and warns[0]["root"] == "live/app"


def test_off_a_terminal_progress_is_one_line_per_phase_in_a_stable_order(isolated, tofu_solve, monkeypatch):
    """A CI log (no terminal) gets one line per phase with counts, the same on every run;
    each download is detail for TF_LOG (issue #24)."""
    from tests.e2e.conftest import VPC6_EKS20

    root = write_root(isolated / "root", VPC6_EKS20)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert "- Fetching" not in r.err
    phases = [line.split(":")[0] for line in r.err.splitlines() if line.startswith(("- Modules:", "- Providers:",
                                                                                      "- Install:"))]
    assert phases == ["- Modules", "- Providers", "- Install"]
    assert "- Modules: 3 module calls solved, " in r.err and "- Install: 3 module calls installed" in r.err
    fetched = int(r.err.split("module calls solved, ")[1].split(" ")[0])
    assert fetched > 3  # the solver went back: more packages than calls, counted not listed
    log = isolated / "tf.log"
    monkeypatch.setenv("TF_LOG", "DEBUG")
    monkeypatch.setenv("TF_LOG_PATH", str(log))
    root2 = write_root(isolated / "root2", VPC6_EKS20.replace("~> 6.0", "~> 6.1"))
    r2 = tofu_solve(root2, "init", "-upgrade")
    assert r2.code == 0, r2.err
    assert "- Fetching" not in r2.err and "Fetching terraform-aws-modules/" in log.read_text()


def test_a_syntax_error_in_the_roots_arguments_is_reported_first_and_nothing_is_written(tmp_path, tofu_solve):
    """The root is read for what the solve needs, and read whole meanwhile, in the background
    (issue #23: the parser is off the critical path): a syntax error in an argument the
    solve does not evaluate is still reported as tofu reports it, with file and line; nothing
    is written; it comes before an error of the solve."""
    root = write_root(tmp_path / "root", '''
        module "kms" {
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 2.0"
          aliases = [for a in var.names : "alias/${a}" if]
        }
        ''')
    r = tofu_solve(root, "init")
    assert r.code == 1
    assert "Invalid syntax" in r.err and "on main.tf line 4" in r.err
    assert not (root / ".terraform.lock.hcl").exists() and not (root / ".terraform" / "modules").exists()
    # the solve would fail too (no such version): the syntax error still comes first
    (root / "main.tf").write_text((root / "main.tf").read_text().replace('"~> 2.0"', '"~> 99.0"'))
    r2 = tofu_solve(root, "init")
    assert r2.code == 1 and "on main.tf line 4" in r2.err and "Invalid syntax" in r2.err
    # once mended, it solves
    (root / "main.tf").write_text((root / "main.tf").read_text().replace(' if]', ']').replace('"~> 99.0"', '"~> 2.0"'))
    assert tofu_solve(root, "init").code == 0


def test_versions_the_solver_only_reads_are_never_unpacked(isolated, own_cache, tofu_solve):
    """vpc 6 with eks 20: the search reads eks versions it walks back over, and the versions
    of vpc's line, from their configuration files in memory (issue #23: writing a real
    package out costs more than the rest of what the solve does with it); only the selected
    versions are unpacked into the cache, to be hashed and installed."""
    root = write_root(isolated / "root", VPC6_EKS20)
    r = tofu_solve(root, "init", "-json", "-handover=false")
    assert r.code == 0, r.err
    result = r.json()["result"] if "result" in r.json() else r.json()
    selected = {(m["source"].split("?")[0], m["version"]) for m in result["modules"]
                if not m["source"].startswith("./")}
    # module packages unpacked (the fixture world's carry a README naming them; provider
    # packages live beside them)
    unpacked = sorted((d / "README.md").read_text().splitlines()[0] for d in (own_cache / "packages").glob("*/*")
                      if (d / "README.md").is_file())
    assert result["stats"]["trees_read"] > len(selected) + 2  # the search went back
    assert unpacked == sorted(f"# {p.split('/', 1)[1]} {v}" for p, v in selected)
    # and what is installed is verified against the lock, as always
    assert tofu_solve(root, "check").code == 0


def test_outdated_names_the_provider_clash_when_one_call_name_prefixes_another(tmp_path, tofu_solve, own_cache):
    """Issue #58 §1.3: ``e``'s newest allowed version needs hashicorp/aws ">= 3.0", and the
    call ``e2`` (whose name ``e`` prefixes) needs "< 3.0": the clash is named, from the same
    held-back analysis ``why`` and ``graph`` show, not "does not fit the rest"."""
    from tests.e2e.conftest import make_repo

    def needs(constraint: str) -> dict[str, str]:
        return {"main.tf": 'terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n'
                           f'      version = "{constraint}"\n    }}\n  }}\n}}\n'}
    e = make_repo(tmp_path / "e", [("v1.0.0", needs(">= 1.0")), ("v1.1.0", needs(">= 3.0"))])
    e2 = make_repo(tmp_path / "e2", [("v1.0.0", needs("< 3.0"))])
    root = write_root(tmp_path / "root", f'module "e" {{\n  source  = "git::{e}"\n  version = "~> 1.0"\n}}\n'
                                         f'module "e2" {{\n  source  = "git::{e2}"\n  version = "~> 1.0"\n}}\n')
    assert tofu_solve(root, "init", "-handover=false").code == 0, "init"
    r = tofu_solve(root, "outdated", "-json")
    rows = {i["name"]: i for i in r.json()["items"]}
    assert rows["e"]["can_move_to"] == "v1.0.0" and rows["e"]["newest_allowed"] == "v1.1.0", rows["e"]
    assert rows["e"]["held_by"] == "provider", rows["e"]
    assert 'v1.1.0 needs hashicorp/aws ">= 3.0"' in rows["e"]["reason"]
    assert 'module "e2" v1.0.0 needs "< 3.0"' in rows["e"]["reason"], rows["e"]["reason"]
    why = tofu_solve(root, "why", "e")
    assert ">= 3.0" in why.out and "e2" in why.out, why.out


def test_the_walk_finds_roots_and_only_roots(tmp_path, tofu_solve, monkeypatch):
    """Issue #59 §4: a download cache inside the repository (where a CI cache step puts it),
    ``.terraform``, ``.terragrunt-cache``, hidden directories and what the repository's git
    ignores are never roots, and ``init -recursive`` writes nothing into them."""
    import os
    import subprocess

    from tofu_solve.command.monorepo import find_roots, git_ignored
    from tofu_solve.settings import Settings

    base = _monorepo(tmp_path / "repo")
    cache = base / "ci-cache"  # TOFU_SOLVE_CACHE_DIR inside the repository
    for where in ("ci-cache/packages/x", ".hidden/app", "live/dev/.terragrunt-cache/y", "build/out/app",
                  "live/dev/app/.terraform/modules/z"):
        write_root(base / where, "# a module\n")
    (base / ".gitignore").write_text("/build/\n")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    subprocess.run(["git", "init", "-q", str(base)], check=True, env=env)
    assert git_ignored(base, env) == {"build/"}
    settings = Settings.from_environ({**env, "TOFU_SOLVE_CACHE_DIR": str(cache)})
    found = [p.relative_to(base).as_posix() for p in find_roots(base, skip=(settings.cache_dir,), environ=env)]
    assert found == ["live/dev/app", "live/prod/app"]
    # without the skip and git, the cache's package and the ignored build output are taken for roots
    assert {"ci-cache/packages/x", "build/out/app"} <= {p.relative_to(base).as_posix() for p in find_roots(base)}
    # the real run, with the cache inside the repository: nothing written into the cache's packages
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(cache))
    r = tofu_solve(base, "init", "-recursive", "-json", "-handover=false")
    assert r.code == 0, r.err
    assert [x["root"] for x in r.json()["roots"]] == ["live/dev/app", "live/prod/app"]
    assert not (cache / "packages" / "x" / ".terraform.lock.hcl").exists()
    assert not (base / "build" / "out" / "app" / ".terraform.lock.hcl").exists()


KMS3 = 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n  version = "~> 3.0"\n}\n'


def test_a_monorepo_run_reads_at_a_glance(tmp_path, tofu_solve):
    """Issue #59 §1-3, on 20 roots: a no-op run is a line per root and a few more (none
    longer than 120 characters off a terminal; -quiet drops the progress lines); a failing
    run ties every error to its root and names no next command; a lock change is listed
    under its root as a single-root run lists it; -json gives every diagnostic its root."""
    import json

    base = tmp_path / "repo"
    names = [f"live/env{i}/app" for i in range(20)]
    for name in names:
        write_root(base / name, KMS3)
    first = tofu_solve(base, "init", "-recursive", "-handover=false")
    assert first.code == 0, first.err
    again = tofu_solve(base, "init", "-recursive", "-handover=false")
    assert again.code == 0, again.err
    out, err = again.out.splitlines(), again.err.splitlines()
    # issue #70 §2: N + 5 lines in all, stdout and stderr together: the summary's line per root;
    # progress off a terminal only for a root still running after a few seconds (none here)
    assert err == [] and len(out) + len(err) <= 20 + 5, again.out + again.err
    assert all(len(line) <= 120 for line in out + err), again.out
    assert [line.split()[0] for line in out if line.startswith("live/")] == names  # natural order
    assert all(line.split()[1:5] == ["ok", "1", "1", "up"] for line in out if line.startswith("live/"))
    for command in (("list", "-recursive"), ("init", "-recursive", "-handover=false", "-verbose"),
                    ("check", "-recursive"), ("outdated", "-recursive")):
        r = tofu_solve(base, *command)
        assert all(len(line) <= 120 for line in (r.out + r.err).splitlines()), (command, r.out)
    quiet = tofu_solve(base, "init", "-recursive", "-handover=false", "-quiet")
    assert quiet.err == "" and len(quiet.out.splitlines()) <= 20 + 8
    # a policy denies the locked version: -lockfile=readonly fails in every root, each error under its root
    (base / "tofu-solve-policy.hcl").write_text('deny "module" "terraform-aws-modules/kms/aws" {\n'
                                                '  versions = "3.1.1"\n  reason   = "a bad release"\n}\n')
    ci = tofu_solve(base, "init", "-recursive", "-handover=false", "-lockfile=readonly")
    assert ci.code == 1
    assert "Next" not in ci.out and "20 of 20 root modules failed." in ci.out
    lines = ci.err.splitlines()
    errors = [i for i, line in enumerate(lines) if line.startswith("Error: ")]
    assert len(errors) == 20 and all(lines[i - 1] == f"In {name}:" for i, name in zip(errors, names, strict=True))
    assert all(len(line) <= 120 for line in ci.out.splitlines() + lines), ci.err
    as_json = tofu_solve(base, "init", "-recursive", "-handover=false", "-lockfile=readonly", "-json")
    diagnostics = [m for m in map(json.loads, as_json.out.splitlines()) if m.get("type") == "diagnostic"]
    assert len(diagnostics) == 20 and sorted(m.get("root") for m in diagnostics) == sorted(names), diagnostics
    landed = tofu_solve(base, "init", "-recursive", "-handover=false")
    assert landed.code == 0
    text = " ".join(landed.out.split())
    for name in names:  # each root's change under its root, as a single-root init lists it
        assert f'In {name}: tofu-solve has updated the lock file .terraform.lock.hcl: ~ module "kms" 3.1.1 -> ' in text
    assert text.count("denied by deny") == 20 and text.count("held back kms") == 1  # the rule's warning once
    # one path convention (issue #59 §3): in a root, why (from init -recursive's record) and outdated name the
    # policy file alike, from that root
    why = tofu_solve(base / names[0], "why", "kms")
    one = tofu_solve(base / names[0], "outdated")
    assert "(../../../tofu-solve-policy.hcl:1)" in why.out and "(../../../tofu-solve-policy.hcl:1)" in one.out, \
        why.out + one.out
    # the graph never calls a denied version allowed (issue #59 §6)
    kms = next(n for n in tofu_solve(base / names[0], "graph", "-json").json()["nodes"] if n["id"] == "module.kms")
    assert "held back (3.1.1 denied): by the policy" in kms["label"] and "allowed" not in kms["label"], kms
    # outdated -recursive shows the held-back row with its reason, in every root
    o = tofu_solve(base, "outdated", "-recursive")
    assert o.out.count("policy: the policy denies it: deny") == 20 and "nothing can move" not in o.out, o.out


def test_a_broken_shared_policy_is_said_once_before_any_root(tmp_path, tofu_solve):
    """Issue #59 §3: the policy file every root shares is read once; an error in it is
    reported once, with its file and line, and no root is touched or blamed."""
    base = tmp_path / "repo"
    for i in range(5):
        write_root(base / f"live/env{i}/app", KMS3)
    (base / "tofu-solve-policy.hcl").write_text('deny "module" "terraform-aws-modules/kms/aws" {\n'
                                                '  versions = "3.1.1\n  reason = "x"\n}\n')
    for command in (("init", "-recursive", "-handover=false"), ("check", "-recursive"), ("outdated", "-recursive")):
        r = tofu_solve(base, *command)
        assert r.code == 1, (command, r.out, r.err)
        both = r.out + r.err
        assert both.count("Error: ") == 1, (command, both)
        assert "tofu-solve-policy.hcl" in both and "line 2" in both, (command, both)
        assert "live/env" not in both, (command, both)  # no root blamed
    assert not any((base / f"live/env{i}/app/.terraform.lock.hcl").exists() for i in range(5))
