"""Issue #62 §1: the expressions of a ``*.policy.hcl`` file, evaluated as hclsyntax and
Terraform's functions evaluate them: every listed function, the operators, templates,
``try``/``can``, and the errors, each at its line. Expected values are Terraform's (the
function documentation's examples where it gives one; ``internal/lang/funcs`` and go-cty's
``function/stdlib`` otherwise) and the policy reference's for the ``core::`` functions."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tofu_solve.config import hcl
from tofu_solve.config.hcl.evaluate import EvalContext, EvalError, evaluate
from tofu_solve.config.hcl.functions import known_function, policy_functions
from tofu_solve.config.policy_hcl import read_policy_unit
from tofu_solve.errors import ConfigurationError

NOW = datetime(2026, 11, 28, 12, 0, 0, tzinfo=UTC)
META = {"source": "terraform-aws-modules/vpc/aws", "version": "6.5.1", "address": "module.net.module.vpc",
        "tfe_stack": None}


def ev(expr: str, **variables):
    tree = hcl.parse(f"x = {expr}\n", "t.policy.hcl").attributes[0].expr.tree
    scope = {"meta": META, "attrs": None, "local": {"l": ["a", "b", "c"], "m": {"k": "v"}, "n": 3}, **variables}
    return evaluate(tree, EvalContext(scope, policy_functions(lambda: NOW)))


@pytest.mark.parametrize("expr,value", [
    # the policy language's own
    ('core::semverconstraint("1.2.3", ">= 1.0.0, < 2.0.0")', True),
    ('core::semverconstraint("2.0.0", ">= 1.0.0, < 2.0.0")', False),
    ('core::semverconstraint("2.1.0", "~> 1.0 || ~> 2.1")', True),  # || is OR
    ('core::semverconstraint("4.67.5", "~> 4.67.0")', True),
    ('core::semverconstraint("4.68.0", "~> 4.67.0")', False),
    ('core::semverconstraint("5.0.0", "!= 5.0.0")', False),
    ('core::semvercmp("1.2.0", "1.10.0")', -1),  # numerically, not as text
    ('core::semvercmp("1.10.0", "1.10.0")', 0),
    ('core::semvercmp("2.0.0", "2.0.0-beta")', 1),
    ('core::contains_substring("Managed by Terraform", "Terraform")', True),
    ('core::contains_substring("Managed by Terraform", "terraform")', False),
    ('core::regex_match("prod-web-01", "^prod-[a-z]+-\\\\d+$")', True),
    ('core::regex_match("dev-web", "^prod-")', False),
    # Terraform's, bare and with core::
    ('contains(["a", "b"], "b")', True),
    ('core::contains(["a", "b"], "z")', False),
    ('contains([1, 2], "1")', False),  # == across types is false
    ('startswith(meta.source, "terraform-aws-modules/")', True),
    ('endswith(meta.source, "/aws")', True),
    ('regex("[a-z]+", "53453453.345345aaabbbccc23454")', "aaabbbccc"),
    ('regex("(\\\\d\\\\d\\\\d\\\\d)-(\\\\d\\\\d)-(\\\\d\\\\d)", "2019-02-01")', ["2019", "02", "01"]),
    ('regex("^(?P<ns>[^/]+)/(?P<name>[^/]+)", meta.source)', {"ns": "terraform-aws-modules", "name": "vpc"}),
    ('regexall("[a-z]+", "1234abcd5678efgh9")', ["abcd", "efgh"]),
    ('length(regexall("[a-z]+", "1234abcd5678efgh9"))', 2),
    ('split(",", "foo,bar,baz")', ["foo", "bar", "baz"]),
    ('split(",", "")', [""]),
    ('join(", ", ["foo", "bar", "baz"])', "foo, bar, baz"),
    ('join(", ", ["a"], ["b", "c"])', "a, b, c"),
    ("length(local.l)", 3),
    ("length(local.m)", 1),
    ('length("héllo")', 5),
    ('lower("HELLO")', "hello"),
    ('upper("hello")', "HELLO"),
    ('alltrue(["true", true])', True),
    ("alltrue([])", True),
    ("anytrue([false, true])", True),
    ("anytrue([])", False),
    ('timeadd("2017-11-22T00:00:00Z", "10m")', "2017-11-22T00:10:00Z"),
    ('timeadd("2017-11-22T00:00:00Z", "-1h30m")', "2017-11-21T22:30:00Z"),
    ('timecmp("2017-11-22T00:00:00Z", "2017-11-22T00:00:00Z")', 0),
    ('timecmp("2017-11-22T00:00:00Z", "2017-11-22T01:00:00Z")', -1),
    ('timecmp("2017-11-22T01:00:00+01:00", "2017-11-22T00:00:00Z")', 0),  # one instant, two offsets
    ("timestamp()", "2026-11-28T12:00:00Z"),
    ('try(attrs.tags, "none")', "none"),  # attrs is null for modules: try falls through
    ("try(local.m.missing, local.m.k)", "v"),
    ("can(meta.tfe_stack.stack_name)", False),
    ('can(regex("^6\\\\.", meta.version))', True),
    ("core::try(meta.nope, 1)", 1),
    # operators and constructors
    ("meta.version != null && !startswith(meta.version, \"5.\")", True),
    ('false && regex("(", "x")', False),  # short-circuit: the right side is not evaluated
    ("true || meta.nope", True),
    ("local.n * 2 + 1 - 4 / 2 % 3", 5),
    ("7 / 2", 3.5),
    ('"5" > 3', True),  # strings that spell numbers convert for comparison
    ("-local.n", -3),
    ('meta.version == "6.5.1" ? "yes" : "no"', "yes"),
    ('"${meta.address}@v${meta.version}"', "module.net.module.vpc@v6.5.1"),
    ('"n=${local.n} ok=${true}"', "n=3 ok=true"),
    ('"%{ for s in local.l }${s};%{ endfor }"', "a;b;c;"),
    ('"%{ if local.n > 2 }big%{ else }small%{ endif }"', "big"),
    ('"$${literal}"', "${literal}"),
    ("[for s in local.l : upper(s) if s != \"b\"]", ["A", "C"]),
    ("{for k, v in local.m : v => k}", {"v": "k"}),
    ("local.l[*]", ["a", "b", "c"]),
    ("local.l[1]", "b"),
    ('local.m["k"]', "v"),
    ("{a = 1, \"b\" = [true]}", {"a": 1, "b": [True]}),
    ('[1, "1"] == [1, "1"]', True),
])
def test_values_are_terraforms(expr, value):
    assert ev(expr) == value


@pytest.mark.parametrize("expr,summary", [
    ("meta.nope", "Unsupported attribute"),
    ("attrs.tags", "Attempt to get attribute from null value"),
    ("nope.x", "Unknown variable"),
    ('regex("[a-z]+", "123")', "Error in function call"),  # no match is an error, as Terraform's
    ('regex("(", "x")', "Error in function call"),  # a pattern that does not compile
    ('"a${null}"', "Invalid template interpolation value"),
    ('core::semverconstraint("not a version", ">= 1")', "Error in function call"),
    ('core::semverconstraint("1.0.0", "=> 1")', "Error in function call"),
    ('timeadd("yesterday", "1h")', "Error in function call"),
    ('timeadd("2017-11-22T00:00:00Z", "1 day")', "Error in function call"),
    ("local.l[3]", "Invalid index"),
    ("1 / 0", "Operation failed"),
    ('"a" + 1', "Invalid operand"),
    ("null ? 1 : 2", "Null condition"),
    ('fileexists("x")', "Call to unknown function"),
    ('lower("a", "b")', "Wrong number of arguments"),
    ('try(meta.a, meta.b)', "Error in function call"),
])
def test_errors_are_named_at_their_line(expr, summary):
    with pytest.raises(EvalError) as e:
        ev(expr)
    assert e.value.summary == summary
    assert e.value.line == 1


def test_a_multi_line_expression_names_the_line_at_fault():
    tree = hcl.parse('x = [\n  "a",\n  meta.nope,\n]\n', "t").attributes[0].expr.tree
    with pytest.raises(EvalError) as e:
        evaluate(tree, EvalContext({"meta": {}}, {}))
    assert e.value.line == 3


@pytest.mark.parametrize("name,known", [
    ("startswith", True), ("core::startswith", True), ("core::semverconstraint", True),
    ("semverconstraint", False),  # the policy language's own are core:: only
    ("core::fileexists", False), ("file", False), ("provider::aws::arn_parse", False), ("try", True),
    ("core::can", True),
])
def test_the_callable_names_are_the_listed_ones(name, known):
    assert known_function(name) is known


def test_a_heredoc_message_is_a_template():
    tree = hcl.parse('x = <<-EOT\n    v${meta.version}\n      indented\n    EOT\n', "t").attributes[0].expr.tree
    assert evaluate(tree, EvalContext({"meta": META}, {})) == "v6.5.1\n  indented\n"


# --------------------------------------------------------------------------- bounded (issue #67 §4)


def ev_file(text: str):
    """Every attribute of ``text`` evaluated in one context, as one rule's evaluation is: the
    last one's value; ``local.*`` are the earlier attributes."""
    attrs = hcl.parse(text, "t.policy.hcl").attributes
    scope: dict = {"meta": META, "attrs": None, "local": {}}
    ctx = EvalContext(scope, policy_functions(lambda: NOW))
    v = None
    for a in attrs:
        v = evaluate(a.expr.tree, ctx)
        scope["local"][a.name] = v
    return v


def test_nested_for_expressions_over_a_large_list_stop_at_the_step_budget():
    with pytest.raises(EvalError) as e:
        ev_file("l = " + repr([str(i) for i in range(400)]).replace("'", '"') + "\n"
                "x = length([for a in local.l : [for b in local.l : [for c in local.l : c]]])\n")
    assert e.value.summary == "Expression too costly" and e.value.line == 2


def test_doubling_strings_stop_at_the_size_limit():
    lines = ['a0 = "xxxxxxxxxxxxxxxx"'] + [f'a{i} = "${{local.a{i - 1}}}${{local.a{i - 1}}}"' for i in range(1, 33)]
    with pytest.raises(EvalError) as e:
        ev_file("\n".join(lines) + "\n")
    assert e.value.summary == "Value too large" and e.value.line == 18  # 16 * 2**17 characters > 1 MiB


def test_a_backtracking_pattern_runs_in_linear_time():
    """Python's re took over 40 s on this; RE2 (HashiCorp's engine is Go's) answers at once."""
    assert ev('core::regex_match("' + "a" * 48 + 'b", "^(a+)+$")') is False
    assert ev('regexall("(x+x+)+y", "' + "x" * 5000 + '")') == []


@pytest.mark.parametrize("pattern,reason", [
    ("(a)\\\\1", "invalid escape sequence"),  # a backreference
    ("(?=a)", "invalid perl operator"),  # a lookahead
])
def test_a_pattern_re2_refuses_is_refused_with_its_reason(pattern, reason):
    with pytest.raises(EvalError) as e:
        ev(f'core::regex_match("aa", "{pattern}")')
    assert e.value.summary == "Error in function call" and reason in e.value.detail, e.value.detail


@pytest.mark.parametrize("expr,value", [
    ('split("", "abc")', ["a", "b", "c"]),  # Go's strings.Split: after each character
    ('split("", "")', []),
    ("-5 % 3", -2),  # the dividend's sign, as Go's and cty's
    ("5 % -3", 2),
    ('timeadd("2024-01-01T00:00:00Z", "1.5s")', "2024-01-01T00:00:01Z"),  # RFC 3339: whole seconds
])
def test_what_go_gives(expr, value):
    assert ev(expr) == value


@pytest.mark.parametrize("expr,summary", [
    ("1" * 5000, "Invalid number"),
    ('timeadd("2024-01-01T00:00:00Z", "99999999999999h")', "Error in function call"),
    ("1e308 * 1e308", "Operation failed"),
])
def test_no_input_reaches_an_internal_error(expr, summary):
    with pytest.raises(EvalError) as e:
        ev(expr)
    assert e.value.summary == summary, e.value


def test_a_heredoc_whose_interpolation_holds_a_quoted_string():
    """Issue #69: the guide's info_message heredoc (a quoted string inside ``${ }``) evaluated,
    not refused as a template string."""
    text = 'x = <<EOT\nAllowed: ${join(", ", ["6.5.1", "6.6.0"])} "quoted" \\n\nEOT\n'
    tree = hcl.parse(text, "t").attributes[0].expr.tree
    assert evaluate(tree, EvalContext({}, policy_functions(lambda: NOW))) == 'Allowed: 6.5.1, 6.6.0 "quoted" \\n\n'


@pytest.mark.parametrize("expr, value", [
    # issue #69 §1: the Terraform library functions HashiCorp's policy page lists, as Terraform answers
    ('strcontains("hello world", "o w")', True), ('core::strcontains("a", "b")', False),
    ('format("%-4s|%03d|%.1f|%q|%v|%t|%%", "a", 7, 2.25, "x", [1, 2], true)', 'a   |007|2.2|"x"|[1,2]|true|%'),
    ('formatlist("%s-%s", ["a", "b"], "x")', ["a-x", "b-x"]), ('indent(2, "a\\nb")', "a\n  b"),
    ('range(3)', [0, 1, 2]), ('range(1, 10, 3)', [1, 4, 7]), ('range(3, 0)', [3, 2, 1]),
    ('setproduct(["a", "b"], [1])', [["a", 1], ["b", 1]]), ('setunion(["b"], ["a", "b"])', ["a", "b"]),
    ('setintersection(["a", "b"], ["b", "c"])', ["b"]), ('setsubtract(["a", "b"], ["b"])', ["a"]),
    ('lookup({a = 1}, "b", 2)', 2), ('lookup({a = 1}, "a")', 1), ('title("hello world")', "Hello World"),
    ('flatten([[1, [2]], 3])', [1, 2, 3]), ('parseint("ff", 16)', 255), ('parseint("-101", 2)', -5),
    ('jsonencode({a = "<b>"})', '{"a":"\\u003cb\\u003e"}'), ('jsondecode("{\\"a\\": [1, 2.5]}")', {"a": [1, 2.5]}),
    ('sort(["b", "a", "10", "9"])', ["10", "9", "a", "b"]), ('sum([1, 2.5])', 3.5), ('sum([1, 2])', 3),
    ('replace("a-b-c", "-", "+")', "a+b+c"), ('replace("a-b-c", "/-(b)-/", "[$1]")', "a[b]c"),
    ('substr("hello", -3, 2)', "ll"), ('substr("hello", 1, -1)', "ello"), ('chomp("x\\n\\n")', "x"),
    ('element(["a", "b"], 3)', "b"), ('coalesce("", null, "x")', "x"), ('coalescelist([], ["a"])', ["a"]),
    ('compact(["a", "", null, "b"])', ["a", "b"]), ('concat([1], [2, 3])', [1, 2, 3]),
    ('distinct([1, 2, 1])', [1, 2]), ('keys({b = 1, a = 2})', ["a", "b"]), ('values({b = 1, a = 2})', [2, 1]),
    ('merge({a = 1}, {a = 2, b = 3})', {"a": 2, "b": 3}), ('one([])', None), ('one(["x"])', "x"),
    ('reverse([1, 2])', [2, 1]), ('slice(["a", "b", "c"], 1, 3)', ["b", "c"]), ('zipmap(["a"], [1])', {"a": 1}),
    ('chunklist([1, 2, 3], 2)', [[1, 2], [3]]), ('max(1, 5, 3)', 5), ('min(2, -1)', -1), ('abs(-2.5)', 2.5),
    ('ceil(1.2)', 2), ('floor(-1.2)', -2), ('log(8, 2)', 3), ('pow(2, 10)', 1024), ('signum(-3)', -1),
    ('strrev("abc")', "cba"), ('trim("?!hello?!", "!?")', "hello"), ('trimprefix("v1.2", "v")', "1.2"),
    ('trimsuffix("a.tf", ".tf")', "a"), ('trimspace("  a \\n")', "a"), ('tostring(5)', "5"), ('tonumber("5")', 5),
    ('tobool("true")', True), ('toset(["b", "a", "b"])', ["a", "b"]), ('csvdecode("a,b\\n1,2\\n")', [{"a": "1", "b": "2"}]),
    ('core::can(regex("^v", "x"))', False),
])
def test_the_terraform_library_functions(expr, value):
    assert ev(expr) == value


@pytest.mark.parametrize("name", ["yamldecode", "core::getresources", "core::gethttprequest", "formatdate"])
def test_a_refused_function_says_why_and_lists_what_is_supported(tmp_path, name):
    f = tmp_path / "p.policy.hcl"
    f.write_text(f'module_policy "*" "x" {{\n  enforce {{\n    condition = {name}("a") == 1\n  }}\n}}\n')
    with pytest.raises(ConfigurationError) as e:
        read_policy_unit(f, "p.policy.hcl", {}, lambda: NOW)
    assert e.value.summary == "Call to unsupported function" and e.value.where.line == 3
    assert "strcontains" in e.value.detail and "core::semverconstraint" in e.value.detail
    assert "refuses it:" in e.value.detail


@pytest.mark.parametrize("name,near", [("starts_with", "startswith"), ("core::semver_constraint",
                                                                      "core::semverconstraint"),
                                       ("core::str_contains", "core::strcontains"), ("lenght", "length")])
def test_a_mistyped_function_gets_did_you_mean(tmp_path, name, near):
    """Issue #84 §2: as unknown attributes do, by OpenTofu's name_suggestion rule."""
    f = tmp_path / "p.policy.hcl"
    f.write_text(f'module_policy "*" "x" {{\n  enforce {{\n    condition = {name}("a") == 1\n  }}\n}}\n')
    with pytest.raises(ConfigurationError) as e:
        read_policy_unit(f, "p.policy.hcl", {}, lambda: NOW)
    assert f'Did you mean "{near}"?' in e.value.detail


def test_a_range_past_the_element_bound_is_refused_before_it_is_built():
    with pytest.raises(EvalError, match="at most"):
        ev("range(1e9)")


def test_a_rule_says_what_it_reads_and_whether_the_version_can_change_its_verdict(tmp_path):
    """Issue #84 §2: a refusal names the configuration and the input a rule read, with where
    the input came from; a rule that does not read the version passes no version of a
    subject it fails, so ``check`` promises no move."""
    from tofu_solve.command.check import _next_step
    from tofu_solve.config.policy import PolicyFailure

    f = tmp_path / "p.policy.hcl"
    f.write_text('input "allowed_regions" {\n  type    = list(string)\n  default = ["eu-west-1"]\n}\n'
                 'provider_policy "aws" "regions" {\n  enforcement_level = "mandatory_overridable"\n  enforce {\n'
                 '    condition = contains(input.allowed_regions, attrs.region)\n  }\n}\n'
                 'module_policy "*" "floor" {\n  enforce {\n    condition = meta.version != "1.0.0"\n  }\n}\n')
    unit = read_policy_unit(f, "p.policy.hcl", {}, lambda: NOW)
    regions, floor = unit.rules
    assert regions.reads() == (("input", "allowed_regions"), ("attrs", "region"))
    assert not regions.reads_version and regions.reads_inputs
    assert floor.reads_version and not floor.reads_inputs
    assert unit.scope.input_origins == {"allowed_regions": "its default (p.policy.hcl:3)"}
    given = read_policy_unit(f, "p.policy.hcl", {"allowed_regions": ('["us-east-1"]', "-policy-input allowed_regions")},
                             lambda: NOW)
    assert given.scope.input_origins == {"allowed_regions": "-policy-input allowed_regions"}
    step = _next_step(PolicyFailure(regions, "no"))
    assert step.startswith("no version can pass this rule while what it reads stands (input.allowed_regions, "
                           "attrs.region)") and "-policy-input allowed_regions=VALUE" in step
    assert "-policy-override=regions" in step
    assert _next_step(PolicyFailure(floor, "no")) == "tofu-solve init moves it to the nearest allowed version."
