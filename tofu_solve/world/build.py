"""Build the fixture world: one bare git repository per corpus module (one tagged commit per
version, generated with ``git fast-import``), plus the indexes the registry server serves.

The world is keyed by a hash of the corpus files and the generator, so it is built once per
machine and reused (``$TOFU_SOLVE_WORLD_DIR``, default under the cache directory).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..errors import TofuSolveError
from ..lockfile.replacefile import replace_dir
from . import write_module
from .provider_files import signing_key

GENERATOR_VERSION = "1"
_GITHUB_RE = re.compile(r"^git::https://github\.com/([^/]+)/([^/?]+?)(?:\.git)?(\?.*)?$")


@dataclass(frozen=True)
class World:
    """A built world on disk.

    Attributes:
        root: the world directory.
        git_dir: bare repositories, ``<org>/<repo>.git``.
        modules: registry address -> {"repo": "org/repo", "versions": {version: tag}}.
        providers: provider address (``hashicorp/aws``) -> list of versions.
        opentofu_versions: OpenTofu releases known to the corpus, oldest first.
        module_dates, provider_dates: address -> {version: release time, RFC 3339}, from
            the corpus's dates (the tag dates), which the registry serves as
            ``published_at`` (issue #25); versions without a date are absent.
    """

    root: Path
    git_dir: Path
    modules: dict
    providers: dict
    opentofu_versions: list
    module_dates: dict = field(default_factory=dict)
    provider_dates: dict = field(default_factory=dict)

    def repo_path(self, repo: str) -> Path:
        return self.git_dir / f"{repo}.git"


def default_world_dir() -> Path:
    env = os.environ.get("TOFU_SOLVE_WORLD_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tofu-solve" / "world"


def _code_of(module) -> bytes:
    """What a module's code is, to key a world on the code that generated it: its source
    file, else (a frozen executable, which carries no sources) its compiled code."""
    try:
        return Path(module.__file__).read_bytes()
    except (OSError, TypeError):
        code = module.__spec__.loader.get_code(module.__name__)
        return marshal.dumps(code)


def _corpus_key(corpus: Path) -> str:
    h = hashlib.sha256(GENERATOR_VERSION.encode())
    for name in ("modules.json", "providers.json"):
        h.update(hashlib.sha256((corpus / name).read_bytes()).digest())
    h.update(hashlib.sha256(_code_of(write_module)).digest())
    h.update(hashlib.sha256(_code_of(sys.modules[__name__])).digest())
    return h.hexdigest()[:16]


def _epoch(date: str | None) -> int:
    if not date:
        return 1577836800
    return int(datetime.fromisoformat(date.replace("Z", "+00:00")).timestamp())


def _rfc3339(date: str) -> str:
    """A corpus date (``2025-08-06`` or an ISO time with offset) as RFC 3339 in UTC."""
    return datetime.fromtimestamp(_epoch(date), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class _FastImport:
    """Writes a ``git fast-import`` stream for one repository."""

    def __init__(self, repo: Path):
        subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
        self.proc = subprocess.Popen(["git", "fast-import", "--quiet", "--done"], cwd=repo,
                                     stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        self.mark = 0

    def _w(self, data: bytes) -> None:
        assert self.proc.stdin is not None  # opened with stdin=PIPE
        self.proc.stdin.write(data)

    def commit(self, files: dict[str, str], message: str, when: int) -> int:
        self.mark += 1
        msg = message.encode()
        self._w(f"commit refs/heads/main\nmark :{self.mark}\n"
                f"committer Fixture World <world@tofu-solve.invalid> {when} +0000\n"
                f"data {len(msg)}\n".encode() + msg + b"\ndeleteall\n")
        for path, text in sorted(files.items()):
            data = text.encode()
            self._w(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
        self._w(b"\n")
        return self.mark

    def tag(self, name: str, mark: int, annotated: bool, when: int) -> None:
        if annotated:
            msg = f"Release {name}\n".encode()
            self._w(f"tag {name}\nfrom :{mark}\ntagger Fixture World <world@tofu-solve.invalid> {when} +0000\n"
                    f"data {len(msg)}\n".encode() + msg + b"\n")
        else:
            self._w(f"reset refs/tags/{name}\nfrom :{mark}\n\n".encode())

    def close(self) -> None:
        self._w(b"done\n")
        assert self.proc.stdin is not None and self.proc.stderr is not None  # both PIPE
        self.proc.stdin.close()
        err = self.proc.stderr.read()
        if self.proc.wait() != 0:
            raise TofuSolveError("Failed to build fixture world", f"git fast-import failed: {err.decode()}")


def build_world(corpus: str | os.PathLike, out: str | os.PathLike | None = None, *, force: bool = False) -> World:
    """Build (or reuse) the world for ``corpus`` under ``out``.

    Raises:
        TofuSolveError: git is missing or fast-import fails.
    """
    corpus = Path(corpus)
    out = Path(out) if out else default_world_dir()
    key = _corpus_key(corpus)
    final = out / key
    manifest = final / "world.json"
    if manifest.exists() and not force:
        signing_key(final)
        return _load(final)
    if shutil.which("git") is None:
        raise TofuSolveError("git not found", "Building the fixture world needs git on PATH.")
    replace_dir(final, lambda tmp: _build(corpus, tmp, final))
    signing_key(final)  # the provider registry's OpenPGP key, made with the world
    return _load(final)


def _load(root: Path) -> World:
    data = json.loads((root / "world.json").read_text())
    return World(root, root / "git", data["modules"], data["providers"], data["opentofu_versions"],
                 data.get("module_dates", {}), data.get("provider_dates", {}))


def _build(corpus: Path, tmp: Path, final: Path) -> None:
    modules = json.loads((corpus / "modules.json").read_text())
    providers = json.loads((corpus / "providers.json").read_text())
    git_dir = tmp / "git"
    final_git = final / "git"
    repos = {e["repo"] for e in modules.values()}
    stub_refs: dict[str, set[str]] = {}

    def rewrite(source: str) -> str:
        m = _GITHUB_RE.match(source)
        if not m:
            return source
        repo = f"{m.group(1)}/{m.group(2)}"
        query = m.group(3) or ""
        if repo not in repos:
            ref = dict(p.split("=", 1) for p in query[1:].split("&") if "=" in p).get("ref", "")
            stub_refs.setdefault(repo, set()).add(ref)
        return f"git::file://{final_git}/{repo}.git{query}"

    index, module_dates = {}, {}
    for addr, entry in sorted(modules.items()):
        repo = entry["repo"]
        fi = _FastImport(git_dir / f"{repo}.git")
        annotated = addr.startswith("cloudposse/")
        versions = sorted(entry["versions"].items(), key=lambda kv: (_epoch(kv[1].get("date")), kv[0]))
        for version, v in versions:
            files = {}
            for name, text in write_module.render_dir(v, rewrite).items():
                files[name] = text
            targets = set()
            for sub, sd in v.get("submodules", {}).items():
                for name, text in write_module.render_dir(sd, rewrite).items():
                    files[f"{sub}/{name}"] = text
            for d in [v] + list(v.get("submodules", {}).values()):
                for c in d.get("module_calls", []):
                    if c.get("source_type") == "local" and c.get("local_target"):
                        targets.add(c["local_target"].strip("/"))
            for t in targets:
                if not any(f.startswith(t + "/") for f in files):
                    files[f"{t}/main.tf"] = "# Placeholder: this directory is not part of the corpus data.\n"
            files["README.md"] = f"# {addr} {version}\n\nGenerated from the tofu-solve corpus ({repo} {v['tag']}).\n"
            when = _epoch(v.get("date"))
            mark = fi.commit(files, f"{addr} {version}", when)
            fi.tag(v["tag"], mark, annotated, when)
        fi.close()
        index[addr] = {"repo": repo, "versions": {ver: v["tag"] for ver, v in entry["versions"].items()}}
        module_dates[addr] = {ver: _rfc3339(v["date"]) for ver, v in entry["versions"].items() if v.get("date")}
    for repo, refs in sorted(stub_refs.items()):
        fi = _FastImport(git_dir / f"{repo}.git")
        for ref in sorted(r for r in refs if r):
            tag = ref[len("tags/"):] if ref.startswith("tags/") else ref
            mark = fi.commit({"main.tf": f"# Stub of {repo} at {ref}: not part of the corpus.\n"}, ref, 1577836800)
            fi.tag(tag, mark, False, 1577836800)
        if not any(refs):
            fi.commit({"main.tf": "# Stub.\n"}, "stub", 1577836800)
        fi.close()
    prov = {k: v["versions"] for k, v in providers.items() if not k.startswith("_") and v.get("kind") != "core"}
    tofu = list(providers.get("opentofu/opentofu", {}).get("versions", []))
    provider_dates = {k: {ver: _rfc3339(d) for ver, d in (providers[k].get("dates") or {}).items()} for k in prov}
    (tmp / "world.json").write_text(json.dumps({"modules": index, "providers": prov, "opentofu_versions": tofu,
                                                "module_dates": module_dates, "provider_dates": provider_dates}))
