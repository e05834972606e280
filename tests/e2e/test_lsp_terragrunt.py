"""The language server where Terragrunt and policy teams edit (issue #85), as its own process
(``python -m tofu_solve lsp``) driven by pytest-lsp's client, speaking as VS Code (started
with ``--stdio``, as its language client starts a server) and as Emacs's eglot (no flag), on
a live repository of the layout Terragrunt recommends (``root.hcl``, ``_envcommon/``,
``live/{dev,prod}/vpc``) and a policy set in ``policies/``:

* a unit's ``terragrunt.hcl``: what ``init`` and ``check`` would say of the unit, at the
  line of the include where the range is written;
* a shared include: every unit that reads it is solved, and each one's finding is shown on
  the include, naming the unit; an edit to the include clears them;
* a unit whose source only Terragrunt's run knows: "Unit left out", with its reason;
* a policy file: its errors at their lines, and a lens on each rule naming the roots whose
  locked versions it refuses today;
* a client that asks for another transport: a clear error and exit status 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

from tests.e2e.test_lsp import changed, diagnostics_of, opened

REPO = Path(__file__).resolve().parents[2]
ROOT_HCL = 'locals {\n  region = "eu-west-1"\n}\n'
ENVCOMMON = 'terraform {\n  source  = "tfr:///terraform-aws-modules/vpc/aws"\n  version = "RANGE"\n}\n'
UNIT = textwrap.dedent('''\
    include "root" {
      path = find_in_parent_folders("root.hcl")
    }
    include "envcommon" {
      path = "${dirname(find_in_parent_folders("root.hcl"))}/_envcommon/vpc.hcl"
    }
    ''')


def live_repo(base: Path, range_: str) -> Path:
    for name, text in {"root.hcl": ROOT_HCL, "_envcommon/vpc.hcl": ENVCOMMON.replace("RANGE", range_),
                       "live/dev/vpc/terragrunt.hcl": UNIT, "live/prod/vpc/terragrunt.hcl": UNIT}.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(text)
    subprocess.run(["git", "init", "-q", str(base)], check=True)
    return base


def _env(running, tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache"),
            "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}


async def _start(running, workspace: Path, tmp_path: Path, editor: str, *flags: str):
    client = make_test_lsp_client()

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params) -> None:
        return None
    await client.start_io(sys.executable, "-m", "tofu_solve", "lsp", *flags, env=_env(running, tmp_path))
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(editor), root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(workspace.as_uri(), workspace.name)],
        initialization_options={"network": True}))
    return client


@pytest_asyncio.fixture
async def vscode(running, tmp_path):
    """VS Code's capabilities, started as its language client starts a stdio server."""
    workspace = tmp_path / "repo"
    workspace.mkdir()
    client = await _start(running, workspace, tmp_path, "visual-studio-code", "--stdio")
    client.workspace = workspace
    yield client
    await client.shutdown_session()


@pytest_asyncio.fixture
async def eglot(running, tmp_path):
    """Emacs 29's eglot, which starts the server as its command line says (no flag)."""
    workspace = tmp_path / "repo"
    workspace.mkdir()
    client = await _start(running, workspace, tmp_path, "emacs")
    client.workspace = workspace
    yield client
    await client.shutdown_session()


def _errors(d) -> list:
    return [x for x in d if x.severity == types.DiagnosticSeverity.Error]


@pytest.mark.asyncio
async def test_a_units_range_in_an_include_is_shown_where_it_is_written(vscode):
    repo = live_repo(vscode.workspace, "~> 99.0")
    opened(vscode, repo / "live/dev/vpc/terragrunt.hcl")
    include = (repo / "_envcommon/vpc.hcl").as_uri()
    found = await diagnostics_of(vscode, include, lambda d: bool(_errors(d)))
    (err,) = _errors(found)
    assert err.range.start.line == 2  # version = "~> 99.0", in the include
    assert "~> 99.0" in err.message and err.message.startswith("live/dev/vpc: ")


@pytest.mark.asyncio
async def test_a_shared_include_shows_every_unit_it_affects_and_an_edit_clears_them(eglot):
    repo = live_repo(eglot.workspace, "~> 99.0")
    uri = opened(eglot, repo / "_envcommon/vpc.hcl")
    found = await diagnostics_of(eglot, uri, lambda d: len(_errors(d)) >= 2)
    assert sorted(x.message.split(":", 1)[0] for x in _errors(found)) == ["live/dev/vpc", "live/prod/vpc"]
    assert {x.range.start.line for x in _errors(found)} == {2}
    changed(eglot, uri, ENVCOMMON.replace("RANGE", "~> 6.0"), 2)  # unsaved: what the units read now
    await diagnostics_of(eglot, uri, lambda d: not _errors(d))


@pytest.mark.asyncio
async def test_a_locked_unit_has_its_lens_and_hover_where_its_source_is_and_an_edit_that_moves_it(vscode, tofu_solve):
    repo = live_repo(vscode.workspace, "~> 6.0")
    unit = repo / "live/dev/vpc"
    assert tofu_solve(unit, "init").code == 0
    uri = opened(vscode, repo / "_envcommon/vpc.hcl")
    lenses = []
    for _ in range(400):
        lenses = await vscode.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
        if any("locked" in x.command.title for x in lenses):
            break
        await __import__("asyncio").sleep(0.05)
    assert any(x.range.start.line == 1 and x.command.title.startswith("6.6.0 locked") for x in lenses), lenses
    hover = await vscode.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                     types.Position(1, 4)))
    assert hover is not None and "6.6.0" in hover.contents.value
    changed(vscode, uri, ENVCOMMON.replace("RANGE", "~> 5.0"), 2)
    found = await diagnostics_of(vscode, uri, lambda d: any(x.code == "lock" for x in d))
    moved = next(x for x in found if x.code == "lock")
    assert moved.message.startswith("live/dev/vpc: The lock holds unit at 6.6.0") and moved.range.start.line == 2


@pytest.mark.asyncio
async def test_a_unit_left_out_says_why(vscode):
    repo = live_repo(vscode.workspace, "~> 6.0")
    unit = repo / "live/dev/app/terragrunt.hcl"
    unit.parent.mkdir(parents=True)
    unit.write_text('dependency "vpc" {\n  config_path = "../vpc"\n}\n'
                    'terraform {\n  source = "tfr:///terraform-aws-modules/${dependency.vpc.outputs.name}/aws?version=1.0.0"\n}\n')
    uri = opened(vscode, unit)
    found = await diagnostics_of(vscode, uri, lambda d: any(x.code == "unit left out" for x in d))
    left = next(x for x in found if x.code == "unit left out")
    assert left.range.start.line == 4 and "dependency.vpc (another unit's outputs)" in left.message


@pytest.mark.asyncio
async def test_a_policy_files_errors_and_the_roots_each_rule_refuses(vscode, tofu_solve):
    repo = vscode.workspace
    root = repo / "envs/prod"
    root.mkdir(parents=True)
    (root / "main.tf").write_text('module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "6.5.1"\n}\n')
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert tofu_solve(root, "init", "-handover=false").code == 0
    policy = repo / "vpc.policy.hcl"
    text = ('module_policy "terraform-aws-modules/vpc/aws" "vpc_floor" {\n'
            '  enforce {\n    condition     = core::semverconstraint(meta.version, ">= 6.6.0")\n'
            '    error_message = "vpc below 6.6.0"\n  }\n}\n')
    policy.write_text(text)
    uri = opened(vscode, policy)
    lenses = []
    for _ in range(200):
        lenses = await vscode.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
        if lenses:
            break
        await __import__("asyncio").sleep(0.05)
    assert [(x.range.start.line, x.command.title) for x in lenses] == [(0, "refuses today: envs/prod (vpc 6.5.1)")]
    changed(vscode, uri, text.replace("core::semverconstraint", "core::semver_constraint"), 2)
    found = await diagnostics_of(vscode, uri, lambda d: bool(_errors(d)))
    assert found[0].range.start.line == 2 and "semver_constraint" in found[0].message
    changed(vscode, uri, text, 3)
    await diagnostics_of(vscode, uri, lambda d: not _errors(d))
    # a test file of the set: its own errors at their lines
    tests = repo / "vpc.policytest.hcl"
    tests.write_text('policytest {\n  targets = ["vpc.policy.hcl"]\n}\n\nmodule "old" {\n  meta = {\n'
                     '    source  = "terraform-aws-modules/vpc/aws"\n    version = 6.5.1\n  }\n}\n')
    found = await diagnostics_of(vscode, opened(vscode, tests), lambda d: bool(_errors(d)))
    assert found[0].range.start.line == 4 and "Unsupported block type" in found[0].message, found


def test_a_transport_other_than_stdio_is_refused_by_name(running, tmp_path):
    for flag in ("--socket=9000", "--node-ipc", "--pipe=/tmp/x"):
        done = subprocess.run([sys.executable, "-m", "tofu_solve", "lsp", flag], env=_env(running, tmp_path),
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 2 and "Error: Unsupported transport" in done.stderr
        assert flag in done.stderr and done.stdout == ""
