"""The pre-scan (tofu_solve/config/scan.py) and reading only the blocks the solve needs
(hcl.parse_blocks): block boundaries through HCL's lexical structure (hclsyntax
scan_tokens.rl: quoted templates and their ``${ }``/``%{ }`` sequences, heredocs,
comments), and the same blocks, lines and expressions as a whole-file parse."""

from __future__ import annotations

from pathlib import Path

import pytest
from lark import Tree

from tofu_solve.config import hcl, load_module_dir
from tofu_solve.config.read_hcl import _wanted
from tofu_solve.config.scan import top_level_blocks
from tofu_solve.errors import ConfigurationError

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent


@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    """Every chunk of text handed to the HCL parser during the test, in order."""
    chunks: list[str] = []
    real = hcl.lalr_parser()

    class Counting:
        def parse(self, chunk):
            chunks.append(chunk)
            return real.parse(chunk)
    monkeypatch.setattr(hcl.grammar, "lalr_parser", lambda: Counting())
    return chunks


def test_blocks_are_found_through_templates_heredocs_and_comments():
    text = '''# a comment with { a brace
resource "x" "y" {
  a = "${merge(var.a, {b = "}"})}"
  b = <<EOT
}} ${ "}" } $${ not a sequence
EOT
  c = "%{ if true }}%{ endif }"
  d = "$${" # an escaped sequence, then a real one: ${"}"}
  /* } */
}
module "m" { source = "s" }
locals {
  e = "${
    var.x
  }"
  f = <<-EOT
    ${ "{" }
    EOT
}
'''
    blocks = top_level_blocks(text)
    assert [(b.type, b.labels, b.line) for b in blocks] == [
        ("resource", ("x", "y"), 2), ("module", ("m",), 11), ("locals", (), 12)]
    assert text[blocks[1].start:blocks[1].end] == 'module "m" { source = "s" }'
    assert text[blocks[2].end - 1] == "}" and text[blocks[2].end:] == "\n"


@pytest.mark.parametrize("text", [
    'x = 1\n',  # a top-level argument: the full parser reports it
    'module "a" {\n',  # unclosed
    'module "a" {\n  source = "x\n}\n',  # an unterminated string
    'resource "a" "${x}" {}\n',  # a template in a label
    'module "a\\"b" {}\n',  # an escape in a label
    'locals {\n  a = <<EOT\nno end\n}\n',  # an unterminated heredoc
])
def test_what_the_scanner_cannot_follow_is_left_to_the_whole_parse(text):
    assert top_level_blocks(text) is None


def test_a_syntax_error_in_a_block_the_solve_reads_is_reported_as_before():
    text = 'resource "a" "b" {\n  x = 1\n}\nmodule "m" {\n  source = \n}\n'
    with pytest.raises(ConfigurationError) as whole:
        hcl.parse(text, "main.tf")
    body = hcl.parse_blocks(text, "main.tf", _wanted)
    with pytest.raises(ConfigurationError) as part:
        hcl.force(body)
    assert (part.value.summary, part.value.detail, part.value.where) == \
        (whole.value.summary, whole.value.detail, whole.value.where)


def test_an_argument_is_parsed_when_read_and_its_error_is_the_files():
    text = ('variable "v" {\n  default = "x"\n}\nvariable "broken" {\n  default = [1,\n}\n'
            'module "m" {\n  source = "./m"\n  inputs = { a = [for x in var.v : x] }\n}\n')
    body = hcl.parse_blocks(text, "variables.tf", _wanted)
    v, broken, m = body.blocks
    assert isinstance(v.body, hcl.LazyBody) and not v.body.loaded
    default = v.body.attribute("default")
    assert isinstance(default, hcl.LazyAttribute) and not default.loaded and default.line == 2
    assert default.expr.literal() == "x" and default.expr.text == '"x"' and default.expr.line == 2
    inputs = m.body.attribute("inputs")
    assert m.body.attribute("source").expr.literal() == "./m" and not inputs.loaded
    assert inputs.expr.text == "{ a = [for x in var.v : x] }" and inputs.expr.line == 9
    with pytest.raises(ConfigurationError) as e:
        broken.body.attribute("default").expr  # noqa: B018 - reading it parses it
    assert e.value.where.line == 6  # where hclsyntax stops: the block's "}" inside the list


def test_a_package_is_read_for_what_the_solve_needs_and_the_root_whole(tmp_path):
    """A syntax error in an argument the solve does not evaluate (a module call's inputs): a
    package (read_module_tree's ``confine``) is read without seeing it, the user's root
    reports it as tofu would (file and line)."""
    from tofu_solve.config.tree import read_module_tree

    (tmp_path / "main.tf").write_text('module "m" {\n  source = "./m"\n  inputs = { a = 1 +  }\n}\n')
    (tmp_path / "m").mkdir()
    tree = read_module_tree(tmp_path, confine=True)
    assert [c.call.name for c in tree.local_calls] == ["m"]
    with pytest.raises(ConfigurationError) as e:
        read_module_tree(tmp_path, confine=False)
    assert (e.value.where.file, e.value.where.line) == ("main.tf", 3)


def test_blocks_the_solve_does_not_read_are_not_parsed(parsed):
    """A generated root: thousands of resources cost a scan, not a parse tree."""
    resources = "".join(f'resource "aws_instance" "r{i}" {{\n  ami = "ami-{i}"\n  tags = {{ Name = "n{i}" }}\n}}\n'
                        for i in range(3000))
    text = 'module "vpc" {\n  source = "terraform-aws-modules/vpc/aws"\n}\n' + resources + \
        'resource "aws_eip" "e" {\n  provider = aws.west\n}\n'
    body = hcl.parse_blocks(text, "main.tf", _wanted)
    assert len(body.blocks) == 3002
    assert sum(map(len, parsed)) < 200  # the module block and the one resource with a provider argument
    assert body.blocks[-1].body.attribute("provider").expr.traversal() == ("aws", "west")
    assert body.blocks[1].labels == ["aws_instance", "r0"] and body.blocks[1].line == 4


def test_a_packages_calls_and_provider_requirements_read_without_the_parser(parsed):
    """What the solve reads of a typical package (module calls' source and version, its
    required_providers entries) is plain: no parse tree is built for it, and the values and
    lines are the parser's."""
    text = ('terraform {\n  required_version = ">= 1.5.7"\n  required_providers {\n    aws = {\n'
            '      source  = "hashicorp/aws"\n\n      version = ">= 6.28"\n    }\n    random = {\n'
            '      source = "hashicorp/random",\n    }\n  }\n}\n'
            'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n  version = "4.0.0"\n'
            '  aliases = ["eks/${var.name}"]\n  tags    = merge(var.tags, { x = 1 })\n}\n')
    whole = hcl.parse(text, "versions.tf")
    parsed.clear()  # the whole parse, made to compare
    body = hcl.parse_blocks(text, "versions.tf", _wanted)
    rp = body.blocks[0].body.blocks_of("required_providers")[0]
    aws = rp.body.attribute("aws").expr
    assert aws.literal() == {"source": "hashicorp/aws", "version": ">= 6.28"}
    assert {k: e.line for k, e in aws.object_items().items()} == {"source": 5, "version": 7}
    assert rp.body.attribute("random").expr.literal() == {"source": "hashicorp/random"}
    kms = body.blocks[1].body
    assert (kms.attribute("source").expr.literal(), kms.attribute("version").expr.literal()) == \
        ("terraform-aws-modules/kms/aws", "4.0.0")
    assert parsed == []
    assert _shape(body.blocks[0]) == _shape(whole.blocks[0]) and _shape(body.blocks[1]) == _shape(whole.blocks[1])
    assert len(parsed) == 2  # the two arguments that are not plain, read only to compare


def _tree(t) -> str:
    """A parse tree without its newlines and comments (which python-hcl2 keeps inside some
    operators' trees, up to the next line's indentation)."""
    if isinstance(t, Tree):
        kids = [_tree(c) for c in t.children if not (isinstance(c, Tree) and c.data == "new_line_or_comment")]
        return f"{t.data}({', '.join(kids)})"
    return repr(t)


def _meaning(expr: hcl.Expr) -> tuple:
    """What an expression means to a reader: its value, or its tree and what the readers of
    expressions take from it."""
    try:
        return ("literal", repr(expr.literal()), sorted((k, e.line) for k, e in (expr.object_items() or {}).items()))
    except hcl.NotLiteral:
        return ("tree", _tree(expr.tree), expr.traversal(), expr.template_parts(),
                sorted((k, _meaning(v)) for k, v in (expr.object_items() or {}).items()))


def _shape(item) -> tuple:
    if isinstance(item, hcl.Block):
        return ("block", item.type, tuple(item.labels), item.line, item.start, item.end,
                tuple(_shape(i) for i in item.body.items))
    return ("attr", item.name, item.line, item.expr.text, item.expr.line, _meaning(item.expr))


HCL_FILES = sorted(p for p in list(TESTS.rglob("*.tf")) + list((REPO / "fixtures").rglob("*.tf"))
                   + list(TESTS.rglob("*.tofu")) if p.is_file())


@pytest.mark.parametrize("path", HCL_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_configuration_in_the_suite_reads_as_a_whole_parse_reads_it(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        whole = hcl.parse(text, path.name)
    except ConfigurationError as e:
        try:
            hcl.force(hcl.parse_blocks(text, path.name, _wanted))  # as the user's own root is read
        except ConfigurationError as part:
            assert part.where == e.where
            return
        # read without error: the error lies only in blocks the solve does not read (tofu
        # validate reports those)
        assert e.where is not None
        read = [(b.line, text.count("\n", 0, b.end) + 1) for b in top_level_blocks(text) if _wanted(b, text)]
        assert not any(first <= e.where.line <= last for first, last in read), e.where
        return
    part = hcl.parse_blocks(text, path.name, _wanted)
    assert len(part.items) == len(whole.items)
    for w, p in zip(whole.items, part.items, strict=False):
        if isinstance(p, hcl.Block) and not isinstance(p.body, hcl.LazyBody) and not p.body.items and w.body.items:
            assert (p.type, p.labels, p.line, p.start, p.end) == (w.type, w.labels, w.line, w.start, w.end)
        else:
            assert _shape(p) == _shape(w)


CLI_AND_VARIABLES = [
    'plugin_cache_dir = "/var/cache/tofu"\ndisable_checkpoint = true\n',
    'credentials "app.example.com" {\n  token = "xxxx.atlasv1.zzz"\n}\nhost "example.com" {\n  services = {\n'
    '    "modules.v1" = "https://example.com/v1/modules/"\n    "providers.v1" = "/v1/providers/"\n  }\n}\n',
    'provider_installation {\n  filesystem_mirror {\n    path    = "/usr/share/tofu/providers"\n'
    '    include = ["example.com/*/*"]\n  }\n  direct {\n    exclude = ["example.com/*/*"]\n  }\n}\n',
    'region = "eu-west-1"\nazs = ["a", "b"]\ntags = { Team = "x", Env = "prod" }\ncount = 3 # a comment\n',
    'name = "x"\nbroken = [1,\n',
    'a = 1\nb = \n',
    'π = 3.14\n',
    'name = "no newline at the end"',
]


def _whole_or_the_same_error(text: str, filename: str) -> hcl.Body | None:
    """``text`` parsed whole; None when that fails, once the lazy read with every argument
    read has failed with the same error (summary, file and line)."""
    try:
        return hcl.parse(text, filename)
    except ConfigurationError as e:
        with pytest.raises(ConfigurationError) as part:
            hcl.force(hcl.parse_lazily(text, filename))
        assert (part.value.summary, part.value.where) == (e.summary, e.where)
        return None


@pytest.mark.parametrize("text", CLI_AND_VARIABLES + [p.read_text() for p in HCL_FILES[:40]])
def test_a_whole_file_read_lazily_reads_as_a_whole_parse(text):
    """CLI configuration and variables files (top-level arguments and blocks) are read with
    hcl.parse_lazily: plain values without a parse tree, so that a cold cache does not build
    the parser for them (issue #23); with every argument read, the same items, values and
    lines as a whole parse, or the same error."""
    whole = _whole_or_the_same_error(text, "x.hcl")
    if whole is None:
        return
    part = hcl.parse_lazily(text, "x.hcl")
    hcl.force(part)
    assert [_shape(i) for i in part.items] == [_shape(i) for i in whole.items]


def test_a_template_sequence_across_lines_is_read_as_opentofu_reads_it(tmp_path):
    """``"${`` followed by a newline is valid HCL (OpenTofu reads it; 65 of 3,476 real module
    versions hold one, e.g. cloudposse/dynamic-subnets 0.2.3 outputs.tf) that python-hcl2's
    grammar refuses; tofu-solve's grammar allows newlines and comments around the expression
    inside ``${ }`` (hclsyntax parseTemplateInterp), in what the solve reads and elsewhere."""
    (tmp_path / "main.tf").write_text('locals {\n  name = "${\n    var.prefix # the team\n  }-vpc"\n}\n'
                                      'module "m" {\n  source = "./${local.name}"\n}\n'
                                      'variable "prefix" {\n  default = "blue"\n}\n')
    (tmp_path / "outputs.tf").write_text('output "o" {\n  value = "${\n    join(",", var.x)\n  }"\n}\n')
    (tmp_path / "blue-vpc").mkdir()
    cfg = load_module_dir(tmp_path)
    assert [(c.name, c.source_text) for c in cfg.module_calls] == [("m", "./blue-vpc")]
    whole = hcl.parse((tmp_path / "outputs.tf").read_text(), "outputs.tf")
    assert whole.blocks[0].body.attribute("value").expr.text == '"${\n    join(",", var.x)\n  }"'


LOCK_FILES = sorted((TESTS / "conformance" / "opentofu" / "depsfile").glob("*.hcl"))


def _lock_text(providers: int, modules: int) -> str:
    out = ['# This file is maintained automatically by "tofu init".\n']
    for i in range(providers):
        out.append(f'\nprovider "registry.opentofu.org/acme/p{i}" {{\n  version     = "1.{i}.0"\n'
                   f'  constraints = ">= 1.0.0, < 2.0.0"\n  hashes = [\n    "h1:{"a" * 43}=",\n'
                   f'    "zh:{i:064x}",\n  ]\n}}\n')
    for i in range(modules):
        out.append(f'\nmodule "m{i}" {{\n  version     = "1.0.{i}"\n  source      = "registry.opentofu.org/acme/m/aws"\n'
                   f'  constraints = "~> 1.0"\n  hashes = [\n    "h1:{"b" * 43}=",\n  ]\n}}\n')
    out.append('\nprovider "registry.opentofu.org/acme/odd" {\n  version = "1.0.0" # a comment: parsed\n  hashes = []\n}\n')
    return "".join(out)


@pytest.mark.parametrize("text", [p.read_text() for p in LOCK_FILES] + [_lock_text(40, 40)],
                         ids=[p.name for p in LOCK_FILES] + ["generated"])
def test_lock_files_read_without_a_parse_tree_read_as_a_whole_parse_reads_them(text):
    """Blocks in tofu's own lock-file layout are read without a parse tree (a 2.4 MB lock file
    once took 14 s and 295 MB to parse; bench/RESULTS.md); every value, line and text must be
    what the whole-file parse gives."""
    from tofu_solve.lockfile.read import _every_block

    def shape(item):
        if isinstance(item, hcl.Block):
            return ("block", item.type, tuple(item.labels), item.line, item.start, item.end,
                    tuple(shape(i) for i in item.body.items))
        return ("attr", item.name, item.line, item.expr.line, repr(item.expr.literal()), item.expr.text)

    whole = hcl.parse(text, "x.hcl")
    part = hcl.parse_blocks(text, "x.hcl", _every_block)
    assert [shape(i) for i in part.items] == [shape(i) for i in whole.items]


def test_tofus_lock_layout_is_read_without_the_parser(parsed):
    from tofu_solve.lockfile.read import _every_block

    body = hcl.parse_blocks(_lock_text(40, 40), "x.hcl", _every_block)
    hcl.force(body)
    assert len(body.blocks) == 81
    # every value in the layout tofu writes is plain: nothing reaches the parser (not even
    # the block with a comment, nor its empty list)
    assert parsed == []
    assert body.blocks[0].body.attribute("hashes").expr.literal() == ["h1:" + "a" * 43 + "=", "zh:" + "0" * 64]


ONE_LINE = [
    '{ source = "hashicorp/aws" }',
    '{ source = "hashicorp/aws", version = "~> 5.0" }',
    '{source="hashicorp/aws",version=">= 6.28"}',
    '{ "source" : "hashicorp/aws", count = 3, enabled = true, none = null }',
    '{ source = "hashicorp/aws" ,  version = "~> 5.0"   }',
]
NOT_PLAIN = [
    '{ source = "hashicorp/aws", }',  # a comma after the last item: left to the parser
    '{ source = "hashicorp/aws" version = "1.0" }',  # no comma: an error the parser reports
    '{ source = "a", source = "b" }',  # a repeated key: the parser's error
    '{ source = var.x }',
    '{ version = 1.5 }',
    '{ source = "${var.x}" }',
    '{}',
]


@pytest.mark.parametrize("obj", ONE_LINE + NOT_PLAIN)
def test_an_object_on_one_line_reads_as_a_whole_parse_reads_it(obj, parsed):
    """``aws = { source = "hashicorp/aws" }``, as many write required_providers entries: plain
    items on one line are read without a parse tree (a warm re-init of such a root builds no
    parser, issue #36); anything else goes to the parser, with the same value, lines and text
    as a whole parse, or the same error."""
    text = f'terraform {{\n  required_providers {{\n    aws = {obj}\n  }}\n}}\n'
    whole = _whole_or_the_same_error(text, "versions.tf")
    if whole is None:
        assert obj in NOT_PLAIN
        return
    parsed.clear()
    body = hcl.parse_lazily(text, "versions.tf")
    hcl.force(body)
    assert (parsed == []) == (obj in ONE_LINE)
    assert [_shape(i) for i in body.items] == [_shape(i) for i in whole.items]


def test_a_packages_variables_are_looked_into_only_when_referred_to(tmp_path, monkeypatch):
    """config/loader._VariableDefault: a package's variable block is scanned for its
    ``default`` only when an expression the solve evaluates refers to it (a real module
    has hundreds, almost none referred to by a call's source or version); the user's root
    follows every body at once, as a whole parse would. Both give the default and its line."""
    from tofu_solve.config import scan
    from tofu_solve.config.tree import read_module_tree

    many = "".join(f'variable "v{i}" {{\n  type    = string\n  default = "d{i}"\n}}\n' for i in range(40))
    (tmp_path / "variables.tf").write_text(many + 'variable "ver" {\n  description = "x"\n\n  default = "~> 5.0"\n}\n'
                                           'variable "broken" {\n  = 3\n}\n')
    (tmp_path / "main.tf").write_text('module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                      '  version = var.ver\n}\n')
    scanned: list[tuple[str, ...]] = []
    real = scan.body_items

    def counting(text, top):
        scanned.append((top.type, *top.labels))
        return real(text, top)
    monkeypatch.setattr(scan, "body_items", counting)
    from tofu_solve.config.hcl import lazy
    monkeypatch.setattr(lazy, "body_items", counting)
    tree = read_module_tree(tmp_path, strict=False)
    (call,) = tree.remote_calls
    assert call.call.version.text == "~> 5.0"
    assert [s for s in scanned if s[0] == "variable"] == [("variable", "ver")]  # the one a call refers to
    with pytest.raises(ConfigurationError) as e:  # the root is followed whole: its error, file and line
        read_module_tree(tmp_path, strict=True)
    assert (e.value.where.file, e.value.where.line) == ("variables.tf", 167)
