"""Host names in the comparison form OpenTofu uses (``svchost.ForComparison`` from
hashicorp/terraform-svchost ``svchost.go``, called by OpenTofu's
``internal/addrs/module_source.go`` and ``provider.go``): IDNA 2008 (UTS #46,
non-transitional). Terraform 1.11, which uses the same svchost, lists
``straße.example/ns/name/aws`` at ``xn--strae-oqa.example`` (TF_LOG=trace), where Python's
built-in IDNA 2003 codec gives ``strasse.example``."""

from __future__ import annotations

import pytest

from tofu_solve.addrs.hosts import for_comparison, for_display
from tofu_solve.addrs.module_source import parse_source
from tofu_solve.addrs.provider import parse_provider_source
from tofu_solve.config.cliconfig import CliConfig


@pytest.mark.parametrize("given, expected", [
    ("straße.example", "xn--strae-oqa.example"),
    ("Bücher.Example", "xn--bcher-kva.example"),
    ("REGISTRY.example.com", "registry.example.com"),
    ("registry.example.com:443", "registry.example.com"),
    ("registry.example.com:8443", "registry.example.com:8443"),
    ("127.0.0.1:5000", "127.0.0.1:5000"),
    ("bad host.example", None),
    ("example.com:port", None),
    ("", None),
])
def test_comparison_form(given, expected):
    assert for_comparison(given) == expected


def test_a_module_source_with_an_international_host():
    src = parse_source("straße.example/ns/name/aws")
    assert src.package.host == "xn--strae-oqa.example"
    assert str(src) == "straße.example/ns/name/aws"  # shown in Unicode, as ForDisplay
    assert for_display("xn--strae-oqa.example:8443") == "straße.example:8443"


def test_a_provider_source_with_an_international_host():
    assert str(parse_provider_source("straße.example/acme/thing")) == "xn--strae-oqa.example/acme/thing"


def test_a_token_for_an_international_host_is_found_by_either_form():
    """TF_TOKEN_<host>: "Punycode or Unicode is accepted" (reference §3, svcauth)."""
    cfg = CliConfig(env={"TF_TOKEN_xn____strae__oqa_example": "t1"})
    assert cfg.token("straße.example") == "t1"
    assert cfg.token("xn--strae-oqa.example") == "t1"
    assert cfg.token("strasse.example") is None
