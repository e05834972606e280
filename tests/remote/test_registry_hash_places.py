"""Where the registry-hash rules are applied (issue #82 §2), in process against the fixture
world's registry on 127.0.0.1 (a world of one provider, built in the test): the package is
checked against the ``packages`` field where ``ProviderPackages.info`` downloads it, the
field's hashes reach the provider lock block, and another platform's ``h1:`` is taken from
it without a download. A few seconds, so that switching either place off fails the fast
suite, not only ``tests/e2e/test_registry_hashes.py``."""

from __future__ import annotations

import hashlib

import pytest

from tofu_solve.addrs.provider import parse_provider_source
from tofu_solve.config.cliconfig import load_cli_config
from tofu_solve.errors import IntegrityError
from tofu_solve.lockfile import LockFile
from tofu_solve.plugins import current_platform
from tofu_solve.plugins.packages import ProviderPackages
from tofu_solve.plugins.provider_locks import plan_provider_locks
from tofu_solve.remote.fetch import Fetcher
from tofu_solve.remote.ops import OpCounter
from tofu_solve.remote.registry import RegistryClient, make_session
from tofu_solve.store.cache import Cache
from tofu_solve.world.build import World
from tofu_solve.world.provider_files import PLATFORMS
from tofu_solve.world.servers import RegistryServer, write_cli_config

NULL = parse_provider_source("hashicorp/null", "registry.opentofu.org")
HERE = current_platform()


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    root = tmp_path_factory.mktemp("world")
    world = World(root, root / "git", {}, {"hashicorp/null": ["3.2.2"]}, [])
    with RegistryServer(world) as reg:
        yield reg


def _packages(tmp_path, registry, registry_hashes: bool = True, plugin_cache=None) -> ProviderPackages:
    tmp_path.mkdir(exist_ok=True)
    rc = write_cli_config(tmp_path / "rc", registry.url)
    cache = Cache(tmp_path / "cache")
    client = RegistryClient(load_cli_config({"TF_CLI_CONFIG_FILE": str(rc), "HOME": str(tmp_path)}), cache=cache)
    counter = OpCounter()
    return ProviderPackages(client, Fetcher(cache, None, make_session(), counter), cache, counter,
                            plugin_cache_dir=plugin_cache, registry_hashes=registry_hashes)


def _plan(packages: ProviderPackages, platforms=(HERE,)):
    return plan_provider_locks({str(NULL): (NULL, "3.2.2")}, {}, LockFile(), packages, platforms, workers=2)


def test_the_fields_hashes_reach_the_lock(tmp_path, registry):
    files = registry.provider_files
    block = _plan(_packages(tmp_path, registry)).providers[str(NULL)]
    assert {h for h in block.hashes if h.startswith("h1:")} == {files.package_h1("hashicorp/null", "3.2.2", p)
                                                                for p in PLATFORMS}
    older = _plan(_packages(tmp_path / "older", registry, registry_hashes=False)).providers[str(NULL)]
    assert {h for h in older.hashes if h.startswith("h1:")} == {files.package_h1("hashicorp/null", "3.2.2", HERE)}


def test_the_package_is_checked_against_the_field(tmp_path, registry):
    def lie(addr, version, packages):
        packages[HERE]["package_size"] += 1
        return packages
    registry.packages_edit = lie
    try:
        with pytest.raises(IntegrityError, match="registry response indicates a package of size"):
            _packages(tmp_path, registry).info(NULL, "3.2.2", HERE)
    finally:
        registry.packages_edit = None


def test_another_platform_is_taken_from_the_field(tmp_path, registry):
    other = next(p for p in PLATFORMS if p != HERE)
    packages = _packages(tmp_path, registry)
    info = packages.info(NULL, "3.2.2", other)
    files = registry.provider_files
    assert info.h1 == files.package_h1("hashicorp/null", "3.2.2", other) and info.directory is None
    assert info.shasum == hashlib.sha256(files.package("hashicorp/null", "3.2.2", other)).hexdigest()
    assert not any(other in p for _, p, _ in registry.log.requests if p.endswith(".zip"))


def test_a_poisoned_plugin_cache_directory_is_replaced_with_the_verified_package(tmp_path, registry):
    """Issue #80 §3, where the package is placed (``ProviderPackages._place``): a directory
    already at the locked version's path that does not hash to the package verified now is
    replaced, not kept because it exists."""
    from tofu_solve.lockfile.hashes import hash_dir

    plugins = tmp_path / "plugins"
    d = plugins / "registry.opentofu.org/hashicorp/null/3.2.2" / HERE
    d.mkdir(parents=True)
    (d / "terraform-provider-null_v3.2.2_x5").write_text("backdoor")
    info = _packages(tmp_path / "p", registry, plugin_cache=plugins).info(NULL, "3.2.2", HERE)
    assert hash_dir(d) == info.h1 and "backdoor" not in (d / "terraform-provider-null_v3.2.2_x5").read_text()


def test_two_placers_replacing_one_poisoned_directory_both_succeed(tmp_path, registry, monkeypatch):
    """Two threads of one run placing the same package over a directory that does not hash
    to it (CI saw "Cannot write the plugin cache: Directory not empty"): the second finds the
    first's copy, verified, and keeps it; neither fails."""
    import shutil
    import threading

    from tofu_solve.lockfile.hashes import hash_dir

    plugins = tmp_path / "plugins"
    d = plugins / "registry.opentofu.org/hashicorp/null/3.2.2" / HERE
    packages = _packages(tmp_path / "p", registry, plugin_cache=plugins)
    info = packages.info(NULL, "3.2.2", HERE)
    from tofu_solve.plugins import packages as module

    inside, most = [0], [0]
    original = module.replace_dir

    def watched(*args, **kwargs):  # how many placers are replacing the directory at once
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        try:
            threading.Event().wait(0.05)  # a window for a second placer to enter
            return original(*args, **kwargs)
        finally:
            inside[0] -= 1
    monkeypatch.setattr(module, "replace_dir", watched)

    def place(go: threading.Barrier, errors: list) -> None:
        go.wait()
        try:
            packages._place(NULL, "3.2.2", HERE, info.directory)
        except Exception as e:
            errors.append(e)

    for _ in range(8):
        shutil.rmtree(d)
        d.mkdir(parents=True)
        (d / "terraform-provider-null_v3.2.2_x5").write_text("backdoor")
        errors: list[Exception] = []
        go = threading.Barrier(2)
        threads = [threading.Thread(target=place, args=(go, errors)) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert hash_dir(d) == info.h1
    assert most[0] == 1  # one placer of a directory at a time in a run


def test_a_merged_block_keeps_only_the_hashes_this_run_verified(tmp_path, registry):
    """Issue #83 §1 (issue #67 §5, where the provider blocks are planned): a block a lock
    merge formed from both sides' hashes keeps only those this run verified; the others are
    dropped and named; a block no merge formed keeps every hash it had."""
    from tofu_solve.lockfile.entries import ProviderLock

    stranger = "zh:" + "0" * 64
    verified = set(_plan(_packages(tmp_path / "first", registry)).providers[str(NULL)].hashes)
    locks = LockFile({str(NULL): ProviderLock(NULL, "3.2.2", "", tuple(sorted(verified | {stranger})))})
    merged = plan_provider_locks({str(NULL): (NULL, "3.2.2")}, {}, locks, _packages(tmp_path / "m", registry), (HERE,),
                                 workers=2, merged=frozenset({str(NULL)}))
    assert stranger not in merged.providers[str(NULL)].hashes and merged.dropped[str(NULL)] == (stranger,)
    kept = plan_provider_locks({str(NULL): (NULL, "3.2.2")}, {}, locks, _packages(tmp_path / "k", registry), (HERE,),
                               workers=2)
    assert stranger in kept.providers[str(NULL)].hashes
