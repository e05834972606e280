"""The language server on a repository someone just cloned (issue #67 §6): it answers from
the files, the lock and the cache, and asks no registry, git host or store until the user
turns its network on or runs one of its actions; a solve has a time budget; only ``file``
documents are the working tree; outside text in a hover is escaped Markdown. The server runs
as its own process (``python -m tofu_solve lsp``), driven by pytest-lsp's client."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

from tests.e2e.conftest import write_root
from tests.e2e.test_lsp import diagnostics_of, opened
from tofu_solve.lsp.analysis import analyse, markdown
from tofu_solve.settings import Settings

REPO = Path(__file__).resolve().parents[2]
VPC = 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "~> 6.0"\n}\n'


async def _client(running, tmp_path, options: dict | None):
    env = {**os.environ, "TF_CLI_CONFIG_FILE": str(running.cli_config), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    client = make_test_lsp_client()

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params) -> None:  # as VS Code, which these capabilities are
        return None
    await client.start_io(sys.executable, "-m", "tofu_solve", "lsp", env=env)
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri(),
        initialization_options=options))
    return client


@pytest_asyncio.fixture
async def offline_lsp(running, tmp_path):
    client = await _client(running, tmp_path, None)
    yield client
    await client.shutdown_session()


@pytest.mark.asyncio
async def test_opening_a_repository_asks_no_registry_until_network_is_turned_on(offline_lsp, running, tmp_path):
    root = write_root(tmp_path / "cloned", VPC)
    asked = running.registry.log.count()
    uri = opened(offline_lsp, root / "main.tf")
    said = await diagnostics_of(offline_lsp, uri, lambda d: any(x.code == "offline" for x in d))
    assert "turn its network on" in said[0].message
    assert running.registry.log.count() == asked  # opening the file reached no registry
    # turned on for the workspace: the same root is solved with the registry's answers
    offline_lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"tofu-solve": {"network": True}}))
    await diagnostics_of(offline_lsp, uri, lambda d: not any(x.code == "offline" for x in d))
    assert running.registry.log.count() > asked


@pytest.mark.asyncio
async def test_a_document_that_is_not_a_file_is_not_the_working_tree(offline_lsp, tmp_path):
    root = write_root(tmp_path / "r", VPC)
    diff_view = f"git:{root / 'main.tf'}?%7B%22ref%22%3A%22HEAD%22%7D"
    offline_lsp.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=diff_view, language_id="terraform", version=1, text='module "x" {\n  source = \n}\n')))
    real = opened(offline_lsp, root / "main.tf")
    await diagnostics_of(offline_lsp, real, lambda d: any(x.code == "offline" for x in d))
    assert diff_view not in offline_lsp.diagnostics  # never published, never solved as the file
    assert not any(x.code == "configuration" for x in offline_lsp.diagnostics[real])  # the disk's text was solved
    hover = await offline_lsp.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(diff_view), types.Position(0, 1)))
    assert hover is None
    await asyncio.sleep(0)


def test_a_solve_past_its_time_budget_stops_with_a_note(running, tmp_path, monkeypatch):
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(running.cli_config))
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "cache"))
    root = write_root(tmp_path / "r", VPC)
    report = analyse(root, {}, Settings.from_environ(dict(os.environ)), network=True, deadline=time.monotonic() - 1)
    assert [f.code for f in report.findings if f.severity == "information"] == ["time budget"], report.findings
    assert "Solve stopped" in report.findings[0].message


@pytest.mark.parametrize("text,shown", [
    ("[click](command:workbench.action.terminal.new)", "\\[click\\]\\(command\\:workbench.action.terminal.new\\)"),
    ("![x](http://evil.example/p.png)", "\\!\\[x\\]\\(http\\://evil.example/p.png\\)"),
    ("<img src=x onerror=alert(1)>", "\\<img src=x onerror=alert\\(1\\)\\>"),
    ("a\nb", "a\\\\nb"),
])
def test_outside_text_in_a_hover_is_shown_never_followed(text, shown):
    assert markdown(text) == shown


@pytest.mark.asyncio
async def test_a_position_outside_the_document_is_invalid_params(offline_lsp, tmp_path):
    root = write_root(tmp_path / "r", VPC)
    uri = opened(offline_lsp, root / "main.tf")
    with pytest.raises(Exception) as e:
        await offline_lsp.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                      types.Position(500, 0)))
    assert "-32602" in str(e.value) or "outside" in str(e.value)


@pytest.mark.asyncio
async def test_a_request_after_shutdown_is_an_invalid_request(running, tmp_path):
    client = await _client(running, tmp_path, None)
    root = write_root(tmp_path / "r", VPC)
    uri = opened(client, root / "main.tf")
    await client.protocol.send_request_async(types.SHUTDOWN, None)
    with pytest.raises(Exception) as e:
        await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri), types.Position(0, 1))), 10)
    assert "-32600" in str(e.value) or "shut down" in str(e.value), e.value
    client.protocol.notify(types.EXIT, None)
    await client.stop()
