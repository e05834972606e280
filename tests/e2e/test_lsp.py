"""``tofu-solve lsp`` driven by a real LSP client (issue #61 §6): pytest-lsp's client with VS
Code's capabilities, the server as a subprocess (``python -m tofu_solve lsp``), fixture-world
roots served on 127.0.0.1. Open an impossible root and see an Error on each clashing line;
apply a verified quick fix, save, see them gone and the lock unchanged until an init; a
held-back hint with its upgrade command, run; a policy deny; a lock edited by hand; hover and
lenses. A Neovim-driven test is in ``test_lsp_neovim.py``."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

from tests.e2e.conftest import AWS5_VPC61, write_root

REPO = Path(__file__).resolve().parents[2]
VPC = 'module "vpc" {{\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "{}"\n}}\n'


@pytest_asyncio.fixture
async def lsp(running, tmp_path):
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}  # no client on PATH: nothing is handed over
    client = make_test_lsp_client()
    _tell_code_actions_from_commands(client)
    client.lens_refreshes = 0

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params) -> None:  # VS Code pulls the lenses again when told they changed
        client.lens_refreshes += 1
    await client.start_io(sys.executable, "-m", "tofu_solve", "lsp", env=env)
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri(),
        workspace_folders=[types.WorkspaceFolder(tmp_path.as_uri(), "tmp")],
        initialization_options={"network": True}))  # these roots are fetched as the editor solves them
    yield client
    await client.shutdown_session()


def _tell_code_actions_from_commands(client) -> None:
    """lsprotocol 2025.0.0 reads any code action result that has a "command" key as a bare
    ``Command``, even a ``CodeAction`` whose "command" is an object; VS Code and Neovim tell
    them apart by the key's type, as the specification does. The test client does too."""
    from typing import Union

    converter = client.protocol._converter

    def hook(obj, _):
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)
    converter.register_structure_hook(Union[types.Command, types.CodeAction], hook)  # noqa: UP007 (the key it was registered under)


async def diagnostics_of(client, uri: str, want, timeout: float = 60.0) -> list[types.Diagnostic]:
    """Wait until the diagnostics published for ``uri`` satisfy ``want``; return them."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        got = list(client.diagnostics.get(uri, []))
        if want(got):
            return got
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"diagnostics of {uri} never satisfied the test: {got}")
        await asyncio.sleep(0.05)


def opened(client, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="terraform", version=version, text=text if text is not None else path.read_text())))
    return uri


def changed(client, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangeWholeDocument(text=text)]))


@pytest.mark.asyncio
async def test_a_conflict_is_shown_at_each_line_and_a_verified_fix_removes_it(lsp, tmp_path):
    root = write_root(tmp_path / "root", AWS5_VPC61)
    uri = opened(lsp, root / "main.tf")
    errors = await diagnostics_of(lsp, uri, lambda d: len([x for x in d if x.severity == 1]) >= 2)
    lines = {d.range.start.line + 1: d for d in errors if d.severity == types.DiagnosticSeverity.Error}
    assert {5, 12} <= set(lines), errors
    text = (root / "main.tf").read_text().splitlines()
    assert text[11][lines[12].range.start.character:lines[12].range.end.character] == '"~> 6.1"'
    assert lines[12].related_information and lines[12].related_information[0].location.range.start.line == 4
    assert lines[12].source == "tofu-solve" and "No consistent set of versions" in lines[12].message
    actions = await lsp.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), lines[12].range, types.CodeActionContext(diagnostics=[lines[12]])))
    fixes = [a for a in actions if a.edit is not None]
    assert fixes and fixes[0].kind == types.CodeActionKind.QuickFix
    # issue #70 §3: from either clashing line, init's verified suggestions in init's order, short
    # titles; the fenced-off one ("~> 6.1" to "~> 6.0": vpc 6.0.0 is fenced off) is not offered
    assert [a.title for a in fixes] == ['Change "~> 5.0" to "~> 6.0" (main.tf:5)'], [a.title for a in fixes]
    from_line_5 = await lsp.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), lines[5].range, types.CodeActionContext(diagnostics=[lines[5]])))
    assert [a.title for a in from_line_5 if a.edit is not None] == [a.title for a in fixes]
    (change,) = fixes[0].edit.document_changes  # versioned: the client refuses it on a newer text
    assert change.text_document.uri == uri and change.text_document.version == 1
    new_text = (root / "main.tf").read_text()
    for e in change.edits:  # apply the fix as the editor would
        lines_ = new_text.splitlines(keepends=True)
        ln = lines_[e.range.start.line]
        lines_[e.range.start.line] = ln[:e.range.start.character] + e.new_text + ln[e.range.end.character:]
        new_text = "".join(lines_)
    changed(lsp, uri, new_text, 2)
    # until the solve of version 2 is published, the fixes computed for version 1 are stale: none
    stale = await lsp.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), lines[12].range, types.CodeActionContext(diagnostics=[lines[12]])))
    assert not [a for a in stale if a.edit is not None]
    await diagnostics_of(lsp, uri, lambda d: not [x for x in d if x.severity == types.DiagnosticSeverity.Error])
    (root / "main.tf").write_text(new_text)  # saved: the lock is not written until an init
    lsp.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    await asyncio.sleep(0.5)
    assert not (root / ".terraform.lock.hcl").exists()


@pytest.mark.asyncio
async def test_a_held_back_version_hint_hover_lens_and_the_upgrade_command(lsp, tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC.format("6.5.1"))
    assert tofu_solve(root, "init", "-handover=false").code == 0
    (root / "main.tf").write_text(VPC.format("~> 6.0"))
    uri = opened(lsp, root / "main.tf")
    diags = await diagnostics_of(lsp, uri, lambda d: any(x.code == "held-back" for x in d))
    hint = next(d for d in diags if d.code == "held-back")
    assert hint.range.start.line == 2 and hint.message.startswith('6.5.1 locked; 6.6.0 allowed by "~> 6.0"')
    hover = await lsp.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                  types.Position(0, 3)))
    assert hover is not None and "6.5.1" in hover.contents.value
    assert lsp.lens_refreshes >= 1  # told after the solve, so that the editor asks again
    lenses = await lsp.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    assert [lens.command.title for lens in lenses] == ["6.5.1 locked · 1 newer allowed · 0 newer outside the constraint"]
    actions = await lsp.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), hint.range, types.CodeActionContext(diagnostics=[hint])))
    upgrade = next(a for a in actions if a.command is not None and a.command.command == "tofu-solve.upgrade")
    await lsp.workspace_execute_command_async(types.ExecuteCommandParams(upgrade.command.command,
                                                                         upgrade.command.arguments))
    for _ in range(400):  # the init runs on the server's worker, then the root is solved again
        if 'version     = "6.6.0"' in (root / ".terraform.lock.hcl").read_text():
            break
        await asyncio.sleep(0.05)
    assert 'version     = "6.6.0"' in (root / ".terraform.lock.hcl").read_text()
    await diagnostics_of(lsp, uri, lambda d: not any(x.code == "held-back" for x in d))
    assert any("module vpc 6.5.1 -> 6.6.0" in m.message for m in lsp.messages), lsp.messages


@pytest.mark.asyncio
async def test_a_policy_deny_and_a_hand_edited_lock(lsp, tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC.format("~> 6.0"))
    assert tofu_solve(root, "init", "-handover=false").code == 0
    lock = root / ".terraform.lock.hcl"
    (root / "tofu-solve-policy.hcl").write_text('deny "module" "terraform-aws-modules/vpc/aws" {\n'
                                                '  versions = "6.6.0"\n  reason   = "breaks the NAT gateways"\n}\n')
    uri = opened(lsp, root / "main.tf")
    diags = await diagnostics_of(lsp, uri, lambda d: any(x.code == "lock" for x in d))
    moved = next(d for d in diags if d.code == "lock")
    assert "denied by" in moved.message and "breaks the NAT gateways" in moved.message
    lock_diags = await diagnostics_of(lsp, lock.as_uri(), lambda d: any(x.code == "policy" for x in d))
    assert "which the policy denies" in lock_diags[0].message
    (root / "tofu-solve-policy.hcl").unlink()
    edited = lock.read_text().replace('version     = "6.6.0"', 'version     = "6.99.0"', 1)
    lock_uri = opened(lsp, lock, edited)  # an unsaved edit of the lock
    lock_diags = await diagnostics_of(lsp, lock_uri, lambda d: any("6.99.0" in x.message for x in d))
    gone = next(d for d in lock_diags if "6.99.0" in d.message)
    assert "Locked version no longer available" in gone.message and gone.severity == types.DiagnosticSeverity.Error
