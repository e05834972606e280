"""OpenTofu's own test tables and test data, run against tofu-solve (issue #14).

Data in ``tests/conformance/opentofu/`` (see its README: copied or transcribed, never
code, from opentofu/opentofu at f831fa1aa4). Every case passes; where tofu-solve reads less
than OpenTofu on purpose (an error in an argument that selects no version is ``tofu
validate``'s to report), the case asserts what tofu-solve does instead (issue #35: no case
is skipped).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tofu_solve.addrs.module_source import parse_registry, parse_remote, parse_source
from tofu_solve.errors import TofuSolveError
from tofu_solve.lockfile import parse_lock_text

DATA = Path(__file__).parent / "conformance" / "opentofu"
TABLES = json.loads((DATA / "module_sources.json").read_text(encoding="utf-8"))

def _cases(table: str):
    for c in TABLES[table]:
        yield pytest.param(c, id=c["name"])


@pytest.mark.parametrize("case", list(_cases("TestParseModuleSource")))
def test_parse_module_source(case):
    """internal/addrs/module_source_test.go TestParseModuleSource: String() of the parsed
    address, or an error (OpenTofu's message is kept in the data for reference)."""
    if "error" in case:  # OpenTofu's words, within tofu-solve's diagnostic (issue #50 §4)
        with pytest.raises(TofuSolveError) as e:
            parse_source(case["input"])
        assert case["error"] in f"{e.value.summary}: {e.value.detail}"
    else:
        assert str(parse_source(case["input"])) == case["string"]


@pytest.mark.parametrize("case", list(_cases("TestParseModuleSourceRemote")))
def test_parse_module_source_remote(case):
    if "error" in case:
        with pytest.raises(TofuSolveError) as e:
            parse_remote(case["input"])
        assert case["error"] in f"{e.value.summary}: {e.value.detail}"
        return
    assert str(parse_remote(case["input"])) == case["string"]


@pytest.mark.parametrize("case", list(_cases("TestParseModuleSourceRegistry")))
def test_parse_module_source_registry(case):
    if "error" in case:  # OpenTofu's words (issue #50 §4)
        with pytest.raises(TofuSolveError) as e:
            parse_registry(case["input"])
        assert e.value.detail == case["error"]
        return
    got = parse_registry(case["input"])
    assert str(got) == case["string"]
    if "for_display" in case:
        assert got.for_display == case["for_display"]


def _expected(text: str) -> dict[tuple[str, int], str]:
    """The ``# ERROR: <summary>`` / ``# WARNING: <summary>`` comments, by line (as
    locks_file_test.go TestLoadLocksFromFile reads them)."""
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        for prefix, sev in (("# ERROR: ", "error"), ("# WARNING: ", "warning")):
            if prefix in line:
                out[(sev, n)] = line.split(prefix, 1)[1]
    return out


@pytest.mark.parametrize("name", sorted(p.name for p in (DATA / "depsfile").glob("*.hcl")))
def test_lock_file_testdata(name):
    text = (DATA / "depsfile" / name).read_text(encoding="utf-8")
    try:
        _, diags = parse_lock_text(text, name)
        got = {(d.severity, d.line): d.summary for d in diags}
    except TofuSolveError as e:  # a file-level HCL error
        got = {("error", e.where.line if e.where else 0): e.summary}
    assert got == _expected(text)


# ---------------------------------------------------------------------------- configuration testdata
# internal/configs/testdata, verbatim (parser_config_test.go, parser_test.go: every file in
# valid-files and every directory in valid-modules loads without error; every one in
# invalid-files, invalid-modules and error-files fails). tofu-solve reads only what selects
# versions, so an error about anything else is tofu validate's to report:

_NOT_READ = ("the error is in arguments tofu-solve does not read (it reads module calls, provider requirements, "
             "OpenTofu version constraints and the variables and locals they use): tofu validate reports it")
_SOLVER = ("an OpenTofu version the module excludes is refused by the solver, as a constraint on the version solved "
           "for, not while loading")
CONFIG_NOT_APPLICABLE = {
    **dict.fromkeys(("data-count-and-for_each-and-enabled.tf", "data-count-and-for_each.tf", "data-invalid-provider-reference.tf", "data-reserved-locals.tf", "data-resource-lifecycle.tf", "empty-deprecated-output-attr.tf", "ephemeral-count-and-for_each-and-enabled.tf", "precondition-postcondition-badref.tf", "precondition-postcondition-missing-condition.tf", "resource-count-and-for_each-and-enabled.tf", "resource-count-and-for_each.tf", "resource-invalid-provider-reference.tf", "resource-lifecycle-badbool.tf", "resource-name-invalid.tf", "resource-reserved-locals.tf", "resources-ignorechanges-all-legacymix.tf", "triggered-invalid-each.tf", "triggered-invalid-expression.tf", "variable-bad-default.tf", "variable-bad-sensitive.tf", "variable-complex-bad-default-inner-obj.tf", "variable-type-unknown.tf", "variable-validation-condition-noref.tf", "destroy-provisioners.tf", "duplicate-block-in-provisioner.tf", "ignore_changes.tf", "invalid-keyword-in-provisioner.tf", "precondition-postcondition-constant.tf", "precondition-postcondition-selfref.tf", "variable_type_quoted.tf", "vendor_provisioners.tf", "invalid_language_edition.tf", "unsupported_language_edition.tf", "nullable-with-default-null", "override-cloud-duplicates", "override-nonexist-variable", "override-variable-causes-bad-default", "provider-meta-invalid-interpolation", "provider-meta-invalid-name"), _NOT_READ),
    **dict.fromkeys(("unsupported_version.tf", "unsupported_version_legacy.tofu", "unsupported-version-and-other-error"), _SOLVER),
}
CONFIGS = DATA / "configs"


def _config_cases(read: bool):
    """Every file and directory of the testdata: those tofu-solve reads as OpenTofu does
    (``read``), or those listed in :data:`CONFIG_NOT_APPLICABLE`."""
    for group in ("valid-files", "valid-modules", "invalid-files", "invalid-modules", "error-files"):
        for entry in sorted((CONFIGS / group).iterdir()):
            if (entry.name not in CONFIG_NOT_APPLICABLE) == read:
                yield pytest.param(group, entry, id=f"{group}/{entry.name}")


def _directory(entry: Path, tmp_path: Path) -> Path:
    if entry.is_file():  # LoadConfigFile: the file alone
        (tmp_path / entry.name).write_bytes(entry.read_bytes())
        return tmp_path
    return entry


@pytest.mark.parametrize("group,entry", list(_config_cases(read=True)))
def test_configuration_testdata(group, entry, tmp_path):
    from tofu_solve.config import load_module_dir
    directory = _directory(entry, tmp_path)
    if group.startswith("valid"):
        load_module_dir(directory)  # no error
    else:
        with pytest.raises(TofuSolveError):
            load_module_dir(directory)


@pytest.mark.parametrize("group,entry", list(_config_cases(read=False)))
def test_configuration_testdata_tofu_solve_reads_differently(group, entry, tmp_path):
    """The cases whose OpenTofu error lies outside what tofu-solve reads load without error
    here, as CONFIG_NOT_APPLICABLE says (the error is ``tofu validate``'s); a module that
    excludes the OpenTofu version loads too, and its constraint excludes the newest OpenTofu,
    which is how the solver refuses it."""
    from tofu_solve.addrs.product import OPENTOFU
    from tofu_solve.config import load_module_dir
    from tofu_solve.versions.target import newest_release
    assert group.startswith(("invalid", "error")), "only OpenTofu's failing cases are read differently"
    config = load_module_dir(_directory(entry, tmp_path))
    if CONFIG_NOT_APPLICABLE[entry.name] == _SOLVER:
        assert any(not c.constraint.allows(newest_release(OPENTOFU)) for c in config.core_requirements)


# ---------------------------------------------------------------------------- messages
# Where OpenTofu's tests name the diagnostic, tofu-solve's first error is that one: summary,
# detail and line (it stops at the first error; OpenTofu lists them all).

def _first_error(directory: Path) -> tuple[str, str, int]:
    from tofu_solve.config import load_module_dir
    with pytest.raises(TofuSolveError) as e:
        load_module_dir(directory)
    return e.value.summary, e.value.detail, e.value.where.line if e.value.where else 0


def test_error_files_report_the_summary_opentofu_expects(tmp_path):
    """internal/configs/parser_config_test.go TestParserLoadConfigFileError: the
    ``# ERROR: <summary>`` comment of each error file names the diagnostic and its line."""
    checked = 0
    for entry in sorted((CONFIGS / "error-files").iterdir()):
        if entry.name in CONFIG_NOT_APPLICABLE:
            continue
        want = {line: summary for (sev, line), summary in _expected(entry.read_text(encoding="utf-8")).items()
                if sev == "error"}
        d = tmp_path / entry.name
        d.mkdir()
        (d / entry.name).write_bytes(entry.read_bytes())
        summary, _, line = _first_error(d)
        assert want.get(line) == summary, (entry.name, line, summary, want)
        checked += 1
    assert checked >= 6


def test_an_unknown_top_level_block_is_refused_in_opentofus_words(tmp_path):
    """invalid-files/unexpected-block.tf (issue #50 §4): HCL's "Unsupported block type" at
    the block's line, with the suggestion OpenTofu's schema gives."""
    (tmp_path / "unexpected-block.tf").write_bytes((CONFIGS / "invalid-files" / "unexpected-block.tf").read_bytes())
    assert _first_error(tmp_path) == ("Unsupported block type",
                                      'Blocks of type "varyable" are not expected here. Did you mean "variable"?', 1)
    (tmp_path / "unexpected-block.tf").write_text('zzzzzz "a" {\n}\n')
    assert _first_error(tmp_path) == ("Unsupported block type", 'Blocks of type "zzzzzz" are not expected here.', 1)


@pytest.mark.parametrize("source", ["foo/bar/baz/bitsy", "foo//bar", "/aws"])
def test_a_malformed_provider_source_string_in_opentofus_words(tmp_path, source):
    """internal/configs/provider_requirements_test.go "bad source structure" (issue #50 §4):
    a source with more than three parts, or an empty one, is ParseProviderSourceString's
    "Invalid provider source string", at the source line."""
    (tmp_path / "main.tf").write_text('terraform {\n  required_providers {\n    x = {\n'
                                      f'      source = "{source}"\n    }}\n  }}\n}}\n')
    assert _first_error(tmp_path) == ("Invalid provider source string",
                                      'The "source" attribute must be in the format "[hostname/][namespace/]name"', 4)


def test_module_calls_repetition_messages(tmp_path):
    """internal/configs/module_call_test.go TestLoadModuleCall: module-calls.tf:19 (count and
    for_each), then :34 (count and lifecycle { enabled })."""
    detail = ("The {} meta-arguments are mutually-exclusive. Only one should be used to be explicit about the "
              "number of module instances to be created.")
    text = (CONFIGS / "invalid-files" / "module-calls.tf").read_text(encoding="utf-8")
    (tmp_path / "module-calls.tf").write_text(text)
    assert _first_error(tmp_path) == ('Invalid combination of "count" and "for_each"',
                                      detail.format('"count" and "for_each"'), 19)
    lines = text.splitlines()
    start = lines.index('module "baz" {')
    end = lines.index("}", start)
    lines[start:end + 1] = [""] * (end + 1 - start)  # the first error gone, the lines kept
    (tmp_path / "module-calls.tf").write_text("\n".join(lines) + "\n")
    assert _first_error(tmp_path) == ('Invalid combination of "count" and "enabled"',
                                      detail.format('"count" and "enabled"'), 34)


def test_provider_block_messages(tmp_path):
    """internal/configs/provider_test.go TestProviderReservedNames (config.tf:10, the first
    error) and provider-localname-normalization.tf (provider.go checkProviderNameNormalized,
    at the block: line 9)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "config.tf").write_bytes((CONFIGS / "invalid-files" / "provider-reserved.tf").read_bytes())
    assert _first_error(tmp_path / "a") == (
        "Reserved argument name in provider block",
        'The provider argument name "count" is reserved for use by OpenTofu in a future version.', 10)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "main.tf").write_bytes(
        (CONFIGS / "invalid-files" / "provider-localname-normalization.tf").read_bytes())
    assert _first_error(tmp_path / "b") == (
        "Invalid provider local name", 'Provider names must be normalized. Replace "TEST" with "test" to fix this '
        "error.", 9)


OCI = json.loads((DATA / "oci_sources.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("source", OCI["accepted"])
def test_oci_getter_accepts(source):
    assert str(parse_source(source)) == source


@pytest.mark.parametrize("case", OCI["rejected"], ids=[c["source"] for c in OCI["rejected"]])
def test_oci_getter_rejects_with_its_words(case, tmp_path):
    """internal/getmodules/oci_getter_test.go TestOCIGetter: the getter's error, word for
    word, inside the installer's "Failed to download module" (internal/initwd/module_install.go)."""
    from tofu_solve.addrs.module_source import OciGetterError, split_package_subdir
    with pytest.raises(OciGetterError) as e:
        parse_source(case["source"])
    assert e.value.getter_error == case["error"]
    (tmp_path / "main.tf").write_text(f'module "m" {{\n  source = "{case["source"]}"\n}}\n')
    package = split_package_subdir(case["source"])[0]
    assert _first_error(tmp_path) == (
        "Failed to download module",
        f'Could not download module "m" (main.tf:1) source code from "{package}": {case["error"]}', 1)


REQUIRED_PROVIDERS = json.loads((DATA / "required_providers.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"])
                                  for c in REQUIRED_PROVIDERS["TestDecodeRequiredProvidersBlock"]])
def test_decode_required_providers_block(case, tmp_path):
    """internal/configs/provider_requirements_test.go TestDecodeRequiredProvidersBlock: the
    providers decoded, or the summary of the first error, OpenTofu's words (issue #60 §5:
    an invalid local name, one in capitals and an object with other attributes included)."""
    from tofu_solve.config import load_module_dir

    (tmp_path / "main.tf").write_text('variable "unknown" {}\nterraform {\n  required_providers {\n    '
                                      + case["entry"] + "\n  }\n}\n")
    if "error" in case:
        summary, _, line = _first_error(tmp_path)
        assert summary == case["error"] and line >= 4
        return
    got = [[p.local_name, str(p.address), p.constraint.text if p.constraint else None]
           for p in load_module_dir(tmp_path).provider_requirements]
    assert got == case["want"]


def test_the_report_counts_every_case():
    """The conformance README's report: how many cases each table holds and how many apply
    (every one not applicable is listed with its reason in CONFIG_NOT_APPLICABLE)."""
    configs = sum(1 for g in ("valid-files", "valid-modules", "invalid-files", "invalid-modules", "error-files")
                  for _ in (CONFIGS / g).iterdir())
    counts = {
        "module sources": sum(len(TABLES[t]) for t in TABLES if t.startswith("Test")),
        "OCI sources": len(OCI["accepted"]) + len(OCI["rejected"]),
        "lock files": len(list((DATA / "depsfile").glob("*.hcl"))),
        "configuration files and modules": configs,
        "required_providers blocks": len(REQUIRED_PROVIDERS["TestDecodeRequiredProvidersBlock"]),
    }
    applicable = dict(counts, **{"configuration files and modules": configs - len(CONFIG_NOT_APPLICABLE)})
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for name, n in counts.items():
        assert f"| {name} | {n} | {applicable[name]} |" in readme, name


# internal/configs/module_call_test.go TestModuleCallWithSource (PR #3946), transcribed: the
# module call `source = var.path` with each declaration of `path`, and the error expected.
_MOD = 'module "foo" {\n  source = var.path\n}\n'
_PATH = {"path.tf": 'variable "path" {\n  type = string\n  default = "./path"\n}\n',
         "path_const.tf": 'variable "path" {\n  type = string\n  const = true\n  default = "./path"\n}\n',
         "path_notconst.tf": 'variable "path" {\n  type = string\n  const = false\n  default = "./path"\n}\n'}


@pytest.mark.parametrize("name,path_file,err", [
    ("success, pre-const", "path.tf", None),
    ("success, post-const", "path_const.tf", None),
    ("failure, post-const", "path_notconst.tf",
     'The variable "path" cannot be used in a static context, because it is declared as "const = false'),
])
def test_module_call_with_source(name, path_file, err, tmp_path):
    from tofu_solve.config import load_module_dir
    (tmp_path / "mod.tf").write_text(_MOD)
    (tmp_path / path_file).write_text(_PATH[path_file])
    if err is None:
        assert str(load_module_dir(tmp_path).module_calls[0].source) == "./path"
        return
    summary, detail, line = _first_error(tmp_path)
    assert err in detail and summary == "Unable to use variable in static context" and line == 2
