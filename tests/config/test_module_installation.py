"""The CLI configuration's ``module_installation`` block, the syntax of OpenTofu's module-
cooldown RFC (opentofu/opentofu PR #4444, rfc/20260807-module-dependency-cooldown.md): a
``direct`` method with ``cooldown_period``, ``include`` and ``exclude`` (four-segment module
patterns, in the style of ``provider_installation``'s)."""

from __future__ import annotations

import pytest

from tofu_solve.addrs.module_source import parse_source
from tofu_solve.config.cliconfig import ModuleInstallation, ModulePattern, load_cli_config
from tofu_solve.errors import ConfigurationError


def _load(tmp_path, text: str):
    rc = tmp_path / "rc.tfrc"
    rc.write_text(text)
    return load_cli_config({"TF_CLI_CONFIG_FILE": str(rc), "HOME": str(tmp_path)}), rc


def test_the_rfc_example_is_read(tmp_path):
    cfg, rc = _load(tmp_path, 'module_installation {\n  direct {\n    cooldown_period = "7d"\n'
                              '    include = ["registry.opentofu.org/*/*/*"]\n'
                              '    exclude = ["acme/*/*"]\n  }\n}\n')
    mi = cfg.module_installation
    assert mi == ModuleInstallation("7d", (ModulePattern("registry.opentofu.org", "*", "*", "*"),),
                                    (ModulePattern("registry.opentofu.org", "acme", "*", "*"),), f"{rc} line 2")
    assert mi.covers(parse_source("terraform-aws-modules/vpc/aws"))
    assert not mi.covers(parse_source("acme/net/aws"))  # excluded
    assert not mi.covers(parse_source("app.terraform.io/corp/net/aws"))  # another registry: not included
    assert not mi.covers(parse_source("git::https://example.com/net.git"))  # include names registry modules only


def test_without_include_everything_is_covered_but_what_is_excluded(tmp_path):
    cfg, _ = _load(tmp_path, 'module_installation {\n  direct {\n    cooldown_period = "36h"\n'
                             '    exclude = ["Registry.OpenTofu.org:443/acme/net/*"]\n  }\n}\n')
    mi = cfg.module_installation
    assert mi is not None and mi.cooldown_period == "36h"
    assert mi.covers(parse_source("git::https://example.com/net.git"))  # tofu-solve knows a git tag's age too
    assert mi.covers(parse_source("oci://example.com/modules/net"))
    assert mi.covers(parse_source("acme/dns/aws"))
    assert not mi.covers(parse_source("acme/net/aws"))  # the host compared as addresses compare hosts


def test_no_block_no_cooldown(tmp_path):
    cfg, _ = _load(tmp_path, 'plugin_cache_dir = "/tmp"\n')
    assert cfg.module_installation is None


@pytest.mark.parametrize(("text", "message"), [
    ('module_installation {\n  direct {}\n}\nmodule_installation {\n  direct {}\n}\n',
     "line 4: only one module_installation block is allowed"),
    ('module_installation {\n  network_mirror {\n    url = "https://x/"\n  }\n}\n',
     'line 2: unknown installation method "network_mirror"'),
    ('module_installation {\n  direct {}\n  direct {}\n}\n', "line 3: only one direct block is allowed"),
    ('module_installation {\n  direct {\n    cooldown = "7d"\n  }\n}\n', 'line 3: unknown argument "cooldown"'),
    ('module_installation {\n  direct {\n    cooldown_period = 7\n  }\n}\n',
     'line 3: cooldown_period must be a string, such as "7d"'),
    ('module_installation {\n  direct {\n    include = "acme/*/*"\n  }\n}\n', "line 3: direct include must be a list of strings"),
    ('module_installation {\n  direct {\n    include = ["acme/*"]\n  }\n}\n',
     '"acme/*" is not a module pattern: write HOST/NAMESPACE/NAME/SYSTEM'),
    ('module_installation {\n  direct {\n    exclude = ["bad host!/a/b/c"]\n  }\n}\n', "is not a module pattern"),
])
def test_a_malformed_block_is_an_error_naming_file_and_line(tmp_path, text, message):
    with pytest.raises(ConfigurationError) as e:
        _load(tmp_path, text)
    assert message in e.value.detail and "rc.tfrc" in e.value.detail, e.value.detail


def test_two_cooldowns_in_one_configuration_is_an_error(tmp_path):
    with pytest.raises(ConfigurationError) as e:
        _load(tmp_path, 'tofu_solve_min_age = "7d"\nmodule_installation {\n  direct {\n'
                        '    cooldown_period = "3d"\n  }\n}\n')
    assert e.value.summary == "Two release cooldowns configured"
    assert "line 1" in e.value.detail and "line 3" in e.value.detail
