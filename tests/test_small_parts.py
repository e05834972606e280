"""Unit tests for the small parts: CLI config and tokens, URL hygiene, archive sniffing,
Docker-style OCI credentials."""

import base64
import io
import json
import tarfile
import zipfile

import pytest

from tofu_solve.addrs.redact import is_loopback_host, redact, url_key
from tofu_solve.config.cliconfig import load_cli_config
from tofu_solve.errors import ConfigurationError, IntegrityError
from tofu_solve.remote.archives import extract_archive, sniff_archive
from tofu_solve.remote.oci import find_credentials


def test_cli_config_hosts_and_credentials(tmp_path):
    rc = tmp_path / "rc"
    rc.write_text('host "Registry.Example.com:443" {\n  services = {\n    "modules.v1" = "http://127.0.0.1:1/m/"\n  }\n}\n'
                  'credentials "registry.example.com" {\n  token = "from-file"\n}\n')
    cfg = load_cli_config({"TF_CLI_CONFIG_FILE": str(rc), "HOME": str(tmp_path)})
    assert cfg.services("registry.example.com") == {"modules.v1": "http://127.0.0.1:1/m/"}
    assert cfg.token("registry.example.com") == "from-file"
    env = {"TF_CLI_CONFIG_FILE": str(rc), "HOME": str(tmp_path), "TF_TOKEN_registry_example_com": "from-env",
           "TF_TOKEN_my__host_example_com": "dashed"}
    cfg = load_cli_config(env)
    assert cfg.token("registry.example.com") == "from-env"  # TF_TOKEN_ wins
    assert cfg.token("my-host.example.com") == "dashed"  # "__" is "-", "_" is "."


def test_cli_config_home_files_and_errors(tmp_path):
    (tmp_path / ".terraformrc").write_text('credentials "a.example.com" {\n  token = "t1"\n}\n')
    (tmp_path / ".terraform.d").mkdir()
    (tmp_path / ".terraform.d/credentials.tfrc.json").write_text(json.dumps({"credentials": {"b.example.com": {"token": "t2"}}}))
    cfg = load_cli_config({"HOME": str(tmp_path)})
    assert cfg.token("a.example.com") == "t1" and cfg.token("b.example.com") == "t2"
    (tmp_path / ".tofurc").write_text("host {\n")  # .tofurc first, and broken
    with pytest.raises(ConfigurationError) as e:
        load_cli_config({"HOME": str(tmp_path)})
    assert e.value.where is not None


def test_url_hygiene():
    assert redact("https://user:pw@example.com/x?token=abc&ref=v1") == "https://example.com/x?token=***&ref=v1"
    assert redact("git::https://u:p@h.example/r.git?ref=v1") == "git::https://h.example/r.git?ref=v1"
    assert url_key("https://u:p@h/r") == url_key("https://h/r")
    assert is_loopback_host("127.0.0.1:5000") and is_loopback_host("localhost") and is_loopback_host("[::1]:80")
    assert not is_loopback_host("10.0.0.1") and not is_loopback_host("registry.example.com")


def _zip(entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, c in entries.items():
            zf.writestr(n, c)
    return buf.getvalue()


def test_sniff_and_extract(tmp_path):
    z = _zip({"main.tf": "x"})
    assert sniff_archive(z) == "zip"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        data = b"y"
        info = tarfile.TarInfo("main.tf")
        info.size = 1
        tf.addfile(info, io.BytesIO(data))
    assert sniff_archive(buf.getvalue()) == "tar.gz"
    extract_archive(buf.getvalue(), "tar.gz", tmp_path / "t")
    assert (tmp_path / "t/main.tf").read_bytes() == b"y"
    with pytest.raises(IntegrityError, match="not a zip"):
        sniff_archive(b"plain text")
    with pytest.raises(IntegrityError, match=r"Corrupt module package|could not be read"):
        extract_archive(b"PK\x03\x04garbage", "zip", tmp_path / "bad")
    evil = io.BytesIO()
    with tarfile.open(fileobj=evil, mode="w:gz") as tf:
        info = tarfile.TarInfo("../escape.tf")
        info.size = 0
        tf.addfile(info, io.BytesIO(b""))
    with pytest.raises(IntegrityError, match="outside the package"):
        extract_archive(evil.getvalue(), "tar.gz", tmp_path / "e")
    assert not (tmp_path / "escape.tf").exists()


def test_docker_credentials(tmp_path):
    d = tmp_path / "docker"
    d.mkdir()
    enc = lambda s: base64.b64encode(s.encode()).decode()  # noqa: E731
    (d / "config.json").write_text(json.dumps({"auths": {
        "reg.example.com": {"auth": enc("host:level")},
        "reg.example.com/team": {"auth": enc("team:level")},
        "https://other.example.com/": {"username": "u", "password": "p"}}}))
    env = {"DOCKER_CONFIG": str(d), "HOME": str(tmp_path)}
    assert find_credentials("reg.example.com", "team/mod", env).username == "team"  # most specific wins
    assert find_credentials("reg.example.com", "else/mod", env).username == "host"
    assert find_credentials("other.example.com", "x", env).password == "p"
    assert find_credentials("none.example.com", "x", env) is None
    # containers auth.json is searched first
    (tmp_path / ".config/containers").mkdir(parents=True)
    (tmp_path / ".config/containers/auth.json").write_text(json.dumps({"auths": {"reg.example.com": {"auth": enc("podman:x")}}}))
    assert find_credentials("reg.example.com", "else/mod", env).username == "podman"


@pytest.mark.parametrize("name", ["..\\..\\evil.tf", "C:/evil.tf", "a/../../evil.tf"])
def test_windows_style_escapes_are_refused(tmp_path, name):
    with pytest.raises(IntegrityError, match="outside the package"):
        extract_archive(_zip({name: "x"}), "zip", tmp_path / "pkg")
    assert not list(tmp_path.rglob("evil.tf"))


def test_redaction_rule_covers_presigned_urls_and_keeps_ssh_user_names():
    cases = {
        "https://b.s3.amazonaws.com/m.zip?X-Amz-Credential=AK%2F1&X-Amz-Signature=f00&versionId=3":
            "https://b.s3.amazonaws.com/m.zip?X-Amz-Credential=***&X-Amz-Signature=***&versionId=3",
        "https://storage.googleapis.com/b/m.zip?X-Goog-Signature=abc&x=1":
            "https://storage.googleapis.com/b/m.zip?X-Goog-Signature=***&x=1",
        "https://acct.blob.core.windows.net/c/m.zip?sv=2020&sig=Zm9v": "https://acct.blob.core.windows.net/c/m.zip?sv=2020&sig=***",
        "git::ssh://git@github.com/o/r.git?ref=v1&sshkey=LS0t": "git::ssh://git@github.com/o/r.git?ref=v1&sshkey=***",
        "git::ssh://git:hunter2@host/r.git": "git::ssh://host/r.git",
        "https://x-access-token:ghs_abc@github.com/o/r": "https://github.com/o/r",
        "see https://u:p@h/x and http://h2/y?password=pw": "see https://h/x and http://h2/y?password=***",
        "terraform-aws-modules/vpc/aws": "terraform-aws-modules/vpc/aws",
    }
    for raw, want in cases.items():
        assert redact(raw) == want, raw
        assert redact(want) == want  # idempotent


def test_install_paths_stay_inside_the_modules_directory(tmp_path):
    from tofu_solve.errors import TofuSolveError
    from tofu_solve.workdir.install import inside
    assert inside(tmp_path, "vpc.nested") == tmp_path / "vpc.nested"
    for bad in ("../victim", "a/../../b", "/etc", "", "a..b"):
        with pytest.raises(TofuSolveError):
            inside(tmp_path, bad)


def test_limits_from_environment():
    from tofu_solve.errors import ConfigurationError
    from tofu_solve.settings import Limits
    lim = Limits.from_env({"TOFU_SOLVE_MAX_EXTRACTED_BYTES": "1024", "TOFU_SOLVE_DOWNLOAD_DEADLINE": "2.5"})
    assert (lim.extracted_bytes, lim.deadline, lim.entries) == (1024, 2.5, 100_000)
    for bad in ("0", "-1", "ten"):
        with pytest.raises(ConfigurationError, match="TOFU_SOLVE_MAX_ARCHIVE_ENTRIES"):
            Limits.from_env({"TOFU_SOLVE_MAX_ARCHIVE_ENTRIES": bad})


def test_relaxed_call_tries_its_own_lines_then_each_other_lines_newest_nearest_first():
    """The what-if order for a relaxed module call (issues #13 and #24): what the old
    constraint admitted, the rest of those lines, then the newest and the oldest release of
    each other line, nearest line first, then everything else by distance: one wave of reads
    reaches a line that works however far it is, and a line whose early releases work
    though its newest does not comes before a farther line."""
    from tofu_solve.addrs.module_source import parse_source
    from tofu_solve.explain.whatif import nearest_order
    from tofu_solve.providers.base import AvailableVersion
    from tofu_solve.solver.model import ModuleCandidate
    from tofu_solve.versions.hashicorp_go_version import GoVersion

    source = parse_source("terraform-aws-modules/eks/aws")
    texts = ["21.1.0", "21.0.0", "20.2.0", "20.1.0", "20.0.0", "19.2.0", "19.1.0", "18.0.0", "0.26.0", "0.25.2",
             "0.25.1", "0.25.0"]
    cands = [ModuleCandidate("eks", source, AvailableVersion(t, GoVersion.parse(t)), "eks") for t in texts]
    order = [c.version_text for c in nearest_order(cands, "~> 21.0")]
    assert order == ["21.1.0", "21.0.0", "20.2.0", "20.0.0", "19.2.0", "19.1.0", "18.0.0", "0.26.0", "0.25.2",
                     "0.25.0", "20.1.0", "0.25.1"]
    # the rest of an admitted line comes before other lines: ~> 21.1 still reaches 21.0.0 first
    assert [c.version_text for c in nearest_order(cands, "~> 21.1")][:3] == ["21.1.0", "21.0.0", "20.2.0"]


def test_cache_scratch_left_by_a_killed_run_is_swept(tmp_path):
    """Downloads and git fetches in flight live in the cache's tmp/; what a killed run left
    there more than a day ago is removed by the next run, what is recent is kept (it may
    belong to a run still going)."""
    import os
    import time

    from tofu_solve.store.cache import STALE_SCRATCH_SECONDS, Cache

    tmp = tmp_path / "cache" / "tmp"
    (tmp / "git-fetch-old" / "objects").mkdir(parents=True)
    (tmp / "download-old").write_bytes(b"x")
    (tmp / "download-new").write_bytes(b"y")
    old = time.time() - STALE_SCRATCH_SECONDS - 60
    for name in ("git-fetch-old", "download-old"):
        os.utime(tmp / name, (old, old))
    assert Cache(tmp_path / "cache").tmp_dir() == tmp
    assert sorted(p.name for p in tmp.iterdir()) == ["download-new"]


def test_a_rule_held_back_across_roots_counts_each_root_once():
    """Issue #69 §3: a root whose warning names a subject several times (a provider held back
    for several of its calls) is one root, not three."""
    from tofu_solve.command.views.init_view import across_roots
    from tofu_solve.errors import RuleWarning

    held = (("hashicorp/aws", "6.49.0", ("6.50.0",)),) * 3
    def warning(held_back):
        w = RuleWarning("Policy", "x")
        w.rule, w.why, w.held = "r", ": pinned", held_back
        return w

    w, other = warning(held), warning(held[:1])
    text = across_roots("r", [("live/dev/eks", w), ("live/dev/eks", w), ("live/prod/eks", other)])
    assert text == "r held back hashicorp/aws at 6.49.0 in 2 roots (live/dev/eks, live/prod/eks): pinned."
