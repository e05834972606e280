"""Symbol libraries (OpenTofu 1.13's ``symbol_libraries`` experiment, RFC opentofu/opentofu#4052,
implemented in PR #4474): ``symbols`` blocks read, checked and followed as OpenTofu does.

Facts from opentofu/opentofu branch ``symbol_libraries_experiment_2`` (8baa3d6835):
``internal/configs/symlib/symbols.go`` (the block's schema, "Invalid symbol name"),
``internal/configs/module.go`` (NewModule: "Language Experiment not enabled"; appendFile:
"Duplicate symbols"; mergeFile reads no ``symbols`` from override files),
``internal/configs/symlib/compiler.go`` ("Duplicate symbols definition" in a library),
``internal/configs/language.go`` (decodeReservedExperimentsAttr),
``internal/configs/parser_config_dir.go`` (``*.sym.hcl``: a library's only files) and
``internal/configs/config_build.go`` (``symbolLoader``: the call path ``symbols:NAME`` under
its parent's path, the static fields decoded with an empty module's evaluator).
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from tofu_solve.addrs.identifiers import valid_call_path
from tofu_solve.addrs.product import TERRAFORM
from tofu_solve.config import load_module_dir
from tofu_solve.config.loader import load_symbol_dir
from tofu_solve.config.tree import read_module_tree, tree_from_dict, tree_to_dict
from tofu_solve.errors import ConfigurationError

ENABLE = "language {\n  experiments = [symbol_libraries]\n}\n"
CONFORMANCE = Path(__file__).parent.parent / "conformance" / "opentofu" / "symbols"


def write(d: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip())
    return d


def error(d: Path, **kw) -> ConfigurationError:
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(d, **kw)
    return e.value


def test_a_symbols_block_is_a_module_call_named_by_its_path_segment(tmp_path):
    cfg = load_module_dir(write(tmp_path, {"main.tofu": ENABLE + '''
        symbols "lib" {
          source  = "acme/lib/tofu"
          version = "~> 1.2"
        }
        '''}))
    (call,) = cfg.module_calls
    assert (call.name, call.label, call.symbols) == ("symbols:lib", "lib", True)
    assert call.source_text == "acme/lib/tofu" and call.version.text == "~> 1.2"
    assert (call.where.file, call.where.line, call.version_where.line) == ("main.tofu", 5, 7)


def test_the_experiment_must_be_enabled(tmp_path):
    e = error(write(tmp_path, {"main.tofu": 'symbols "lib" {\n  source = "./lib"\n}\n'}))
    assert e.summary == "Language Experiment not enabled"
    assert e.detail == ('This module depends on features that are not yet stable and are only available with the '
                        '"symbol_libraries" experiment enabled')
    assert (e.where.file, e.where.line) == ("main.tofu", 1)


@pytest.mark.parametrize("value,summary,detail", [
    ("[unsupported]", "Unknown experiment keyword", 'There is no current experiment with the keyword "unsupported".'),
    ('["symbol_libraries"]', "Invalid experiment keyword",
     'Elements of "experiments" must all be keywords representing active experiments.'),
    ('"symbol_libraries"', "Invalid expression", "A static list expression is required."),
])
def test_experiment_keywords_are_checked(tmp_path, value, summary, detail):
    e = error(write(tmp_path, {"main.tofu": f"language {{\n  experiments = {value}\n}}\n"}))
    assert (e.summary, e.detail, e.where.line) == (summary, detail, 2)


def test_an_empty_experiments_list_and_a_trailing_comma_are_fine(tmp_path):
    assert load_module_dir(write(tmp_path / "a", {"main.tf": "language {\n  experiments = []\n}\n"})).module_calls == ()
    # a comment and a trailing comma: the experiment is enabled, so the symbols block is read
    cfg = load_module_dir(write(tmp_path / "b", {"main.tofu": "language {\n  experiments = [\n    symbol_libraries, # x\n"
                                                               '  ]\n}\nsymbols "lib" {\n  source = "./l"\n}\n'}))
    assert [c.name for c in cfg.module_calls] == ["symbols:lib"]


@pytest.mark.parametrize("block,summary,line", [
    ('symbols "1lib" {\n  source = "./x"\n}\n', "Invalid symbol name", 1),
    ('symbols {\n  source = "./x"\n}\n', "Missing name for symbols", 1),
    ('symbols "a" "b" {\n  source = "./x"\n}\n', "Extraneous label for symbols", 1),
    ('symbols "lib" {\n  version = "1.0.0"\n}\n', "Missing required argument", 1),
    ('symbols "lib" {\n  source = "./x"\n  count = 2\n}\n', "Unsupported argument", 3),
    ('symbols "lib" {\n  source = "./x"\n}\nsymbols "lib" {\n  source = "./y"\n}\n', "Duplicate symbols", 4),
])
def test_symbols_blocks_are_checked_as_opentofu_checks_them(tmp_path, block, summary, line):
    e = error(write(tmp_path, {"main.tofu": block + ENABLE}))
    assert (e.summary, e.where.line) == (summary, line)


def test_a_duplicate_names_the_first_one(tmp_path):
    e = error(write(tmp_path, {"a.tofu": ENABLE + 'symbols "lib" {\n  source = "./x"\n}\n',
                               "b.tofu": 'symbols "lib" {\n  source = "./y"\n}\n'}))
    assert e.detail == ('A symbols named "lib" was already defined at a.tofu:4. Symbol calls must have unique '
                        "names within a module.")


def test_source_and_version_take_no_variable(tmp_path):
    """symbolLoader decodes the static fields with an empty module's evaluator (the
    "BAD HACK" comment in config_build.go): no variable or local can be referred to."""
    e = error(write(tmp_path, {"main.tofu": ENABLE + '''
        variable "src" {
          type    = string
          default = "./lib"
        }
        symbols "lib" {
          source = var.src
        }
        '''}))
    assert e.summary == "Reference to undeclared input variable" and e.where.line == 10


def test_version_only_on_registry_sources(tmp_path):
    e = error(write(tmp_path, {"main.tofu": ENABLE + '''
        symbols "lib" {
          source  = "git::https://example.com/lib.git"
          version = "~> 1.0"
        }
        '''}))
    assert e.summary == "Invalid registry module source address" and e.where.line == 6  # at source
    assert e.detail.startswith("Failed to parse module registry address:") and "?ref=" in e.detail
    e = error(write(tmp_path / "local", {"main.tofu": ENABLE + 'symbols "lib" {\n  source = "./l"\n'
                                                                 '  version = "1.0.0"\n}\n'}))
    assert "can't use local directory \"./l\" as a module registry address" in e.detail


def test_override_files_add_no_symbols_and_terraform_reads_none(tmp_path):
    d = write(tmp_path, {"main.tofu": ENABLE, "x_override.tofu": 'symbols "lib" {\n  source = "./x"\n}\n',
                         "main.tf": 'symbols "tf" {\n  source = "./y"\n}\n'})
    assert load_module_dir(d).module_calls == ()  # main.tofu replaces main.tf; the override is not merged
    d2 = write(tmp_path / "tf", {"main.tf": 'symbols "lib" {\n  source = "./x"\n}\n'})
    assert load_module_dir(d2, product=TERRAFORM).module_calls == ()  # Terraform's error to report


def test_json_configuration(tmp_path):
    cfg = load_module_dir(write(tmp_path, {"main.tofu.json": '''
        {
          "language": {"experiments": ["symbol_libraries"]},
          "symbols": {"lib": {"source": "acme/lib/tofu", "version": "1.0.0"}}
        }
        '''}))
    (call,) = cfg.module_calls
    assert (call.name, call.version.text, call.where.line) == ("symbols:lib", "1.0.0", 3)


def test_a_library_is_read_for_its_sym_hcl_files_only(tmp_path):
    lib = write(tmp_path, {
        "a.sym.hcl": 'symbols "inner" {\n  source  = "acme/inner/tofu"\n  version = "~> 2.0"\n}\n'
                     'values {\n  x = 1\n}\n',
        "main.tf": 'module "ignored" {\n  source = "acme/ignored/aws"\n}\n',
        ".hidden.sym.hcl": 'symbols "hidden" {\n  source = "./h"\n}\n',
        "sub/b.sym.hcl": 'symbols "deeper" {\n  source = "./d"\n}\n',
    })
    (call,) = load_symbol_dir(lib, display_prefix="lib/")
    assert (call.name, call.symbols, call.where.file, call.where.line) == ("symbols:inner", True, "lib/a.sym.hcl", 1)
    dup = write(tmp_path / "dup", {"a.sym.hcl": 'symbols "x" {\n  source = "./a"\n}\n',
                                   "b.sym.hcl": 'symbols "x" {\n  source = "./b"\n}\n'})
    with pytest.raises(ConfigurationError) as e:
        load_symbol_dir(dup)
    assert e.value.summary == "Duplicate symbols definition" and e.value.where.file == "b.sym.hcl"


def test_the_tree_follows_libraries_under_their_call_paths(tmp_path):
    root = write(tmp_path, {
        "main.tofu": ENABLE + '''
            symbols "lib" {
              source = "./lib"
            }
            module "net" {
              source = "./net"
            }
            ''',
        "lib/a.sym.hcl": 'symbols "util" {\n  source = "./util"\n}\n'
                         'symbols "remote" {\n  source  = "acme/remote/tofu"\n  version = "~> 1.0"\n}\n',
        "lib/util/u.sym.hcl": 'symbols "deep" {\n  source = "git::https://example.com/deep.git?ref=v1.0.0"\n}\n',
        "lib/main.tf": 'module "never" {\n  source = "acme/never/aws"\n}\n',
        "net/main.tofu": ENABLE + 'symbols "lib" {\n  source  = "acme/netlib/tofu"\n  version = "1.0.0"\n}\n',
    })
    tree = read_module_tree(root, confine=False)
    assert [".".join(lc.path) for lc in tree.local_calls] == ["net", "symbols:lib", "symbols:lib.symbols:util"]
    paths = [".".join(r.rel_path) for r in tree.remote_calls]
    assert paths == ["net.symbols:lib", "symbols:lib.symbols:util.symbols:deep", "symbols:lib.symbols:remote"]
    assert all(valid_call_path(p) for p in paths)
    assert not tree.providers  # a library's main.tf (its module "never") is not read
    assert tree_from_dict(tree_to_dict(tree)) == tree  # the metadata cache keeps the flag


def test_a_library_package_tree(tmp_path):
    pkg = write(tmp_path, {"lib.sym.hcl": 'symbols "x" {\n  source = "./x"\n}\n', "x/y.sym.hcl": "",
                           "versions.tf": 'terraform {\n  required_version = ">= 99"\n}\n'})
    tree = read_module_tree(pkg, symbols=True)
    assert [".".join(lc.path) for lc in tree.local_calls] == ["symbols:x"] and not tree.core
    assert read_module_tree(pkg).core  # read as a module, its versions.tf counts


def test_opentofu_e2e_testdata(tmp_path):
    """internal/command/e2etest/testdata/symbols (TestSymbolLibraries), verbatim."""
    root = tmp_path / "symbols"
    shutil.copytree(CONFORMANCE, root)
    tree = read_module_tree(root, confine=False)
    assert [(".".join(lc.path), lc.dir) for lc in tree.local_calls] == [("symbols:lib", "local-lib")]
    assert tree.remote_calls == ()


def test_call_paths_with_symbols_segments():
    assert valid_call_path("symbols:lib") and valid_call_path("vpc.symbols:lib.symbols:x")
    assert not valid_call_path("symbols:") and not valid_call_path("symbols:symbols:x")
    assert not valid_call_path("symbols:../x") and not valid_call_path("other:lib")
