"""The package's layout holds: one folder per stage, imports only along the data flow.

Read from the code's own imports (every ``import`` and ``from ... import`` anywhere in a
file: at module level, inside functions and under ``TYPE_CHECKING``), so that a later change
cannot bring back a cycle or an import against the stage order without this failing.
The order is the one ``docs/architecture.md`` describes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tofu_solve"

# Each stage may import the stages before it, never one after it; stages of one rank do
# not import each other. ``world`` (the fixture world) stands aside: only ``command`` uses it.
STAGES: list[tuple[str, ...]] = [
    ("_lazy", "output_edge"),
    ("_version", "errors", "events"),
    ("_threads", "confined"),
    ("settings",),
    ("addrs",),
    ("versions",),
    ("config",),
    ("lockfile",),
    ("store",),
    ("remote",),
    ("terragrunt",),
    ("providers",),
    ("solver",),
    ("explain", "plugins"),
    ("workdir",),
    ("world",),
    ("command",),
    ("lsp",),
    ("cli",),
    ("__main__", ""),
]
RANK = {name: i for i, names in enumerate(STAGES) for name in names}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def stage_of(module: str) -> str:
    """``tofu_solve.remote.git`` -> ``remote``; the package itself -> ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def imports_of(path: Path) -> set[str]:
    """Every tofu_solve module ``path`` imports (a ``from X import name`` counts as an
    import of ``X.name`` when that is a module, else of ``X``)."""
    mod = module_name(path)
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "tofu_solve")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "tofu_solve":
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.add(sub if sub in ALL_MODULES else target)
    return out - {mod}


ALL_MODULES = {module_name(p) for p in PACKAGE.rglob("*.py")}
GRAPH = nx.DiGraph()
for _path in PACKAGE.rglob("*.py"):
    GRAPH.add_node(module_name(_path))
    for _target in imports_of(_path):
        GRAPH.add_edge(module_name(_path), _target)


def test_every_top_level_name_has_a_stage():
    unknown = {stage_of(m) for m in ALL_MODULES} - set(RANK)
    assert not unknown, f"files or folders outside the stage order: {sorted(unknown)} (add them to STAGES and docs)"


def test_every_import_names_a_module_that_exists():
    missing = sorted(f"{m} -> {t}" for m, t in GRAPH.edges if t not in ALL_MODULES)
    assert not missing, "imports of modules that do not exist: " + ", ".join(missing)


def test_commands_do_not_import_each_other():
    """``command/`` holds one file per command; they share only ``views`` and ``arguments``
    (as OpenTofu's ``internal/command/views`` and ``arguments``), ``monorepo`` (the
    ``-recursive`` fan-out, with ``exclusions``, its exclude patterns) and ``logs``."""
    shared = {"tofu_solve.command", "tofu_solve.command.monorepo", "tofu_solve.command.exclusions",
              "tofu_solve.command.logs"}
    common = ("tofu_solve.command.views", "tofu_solve.command.arguments")
    wrong = sorted(f"{m} -> {t}" for m, t in GRAPH.edges
                   if m.startswith("tofu_solve.command.") and t.startswith("tofu_solve.command.")
                   and not t.startswith(common) and t not in shared and not m.startswith(common))
    assert not wrong, "commands importing other commands: " + ", ".join(wrong)


def test_no_import_cycle():
    cycles = list(nx.simple_cycles(GRAPH))
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c + [c[0]]) for c in cycles[:5])


@pytest.mark.parametrize("module", sorted(ALL_MODULES))
def test_imports_follow_the_stage_order(module):
    here = stage_of(module)
    wrong = []
    for target in GRAPH.successors(module):
        there = stage_of(target)
        if there == here:
            continue
        if there == "" and target == "tofu_solve":
            wrong.append(f"{target} (the package root re-exports later stages; import the module itself)")
        elif RANK[there] >= RANK[here]:
            wrong.append(f"{target} ({there} does not come before {here or 'the package root'})")
    assert not wrong, f"{module} imports against the data flow: " + ", ".join(wrong)


def test_the_package_root_is_flat_no_more():
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "_lazy.py", "_threads.py", "_version.py", "cli.py", "confined.py",
                     "errors.py", "events.py", "output_edge.py", "settings.py"]


def test_no_library_module_reads_the_process_environment():
    """The environment is read once, at the edge (``cli``), into :class:`Settings`: no other
    module touches ``os.environ``/``os.getenv`` (``world``, the fixture world, stands aside)."""
    readers = []
    for path in PACKAGE.rglob("*.py"):
        mod = module_name(path)
        if mod == "tofu_solve.cli" or stage_of(mod) == "world":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os" \
                    and node.attr in ("environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"):
                readers.append(f"{mod}:{node.lineno} (os.{node.attr})")
            elif isinstance(node, ast.ImportFrom) and node.module == "os" and \
                    {a.name for a in node.names} & {"environ", "environb", "getenv", "getenvb"}:
                readers.append(f"{mod}:{node.lineno} (from os import ...)")
    assert not readers, "modules reading the environment themselves: " + ", ".join(sorted(readers))


def test_the_solver_has_a_front_door_and_nobody_reaches_past_its_provider_hooks():
    """Issue #51 §3: ``tofu_solve.solver`` exports its public names (each importable), and
    no module outside ``solver/`` subclasses the resolvelib provider or touches one of its
    private members: other searches use its hooks (``module_order``, ``lenient_providers``)."""
    import tofu_solve.solver as solver
    from tofu_solve.solver.resolvelib_provider import TofuSolveProvider

    assert solver.__doc__ and "Reading order" in solver.__doc__
    for name in solver.__all__:
        assert getattr(solver, name) is not None, name
    private = {n for n in vars(TofuSolveProvider) if n.startswith("_") and not n.startswith("__")}
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "solver" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    getattr(b, "id", getattr(b, "attr", None)) == "TofuSolveProvider" for b in node.bases):
                offenders.append(f"{path.name}: class {node.name}(TofuSolveProvider)")
            if isinstance(node, ast.Attribute) and node.attr in private:
                offenders.append(f"{path.name}:{node.lineno}: .{node.attr}")
    assert not offenders, offenders


def _function_level_imports(tree: ast.AST):
    """(import node, the enclosing function's body) for every import inside a function, not
    under ``if TYPE_CHECKING``."""
    found = []

    def visit(node, body):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and isinstance(child.test, ast.Name) and child.test.id == "TYPE_CHECKING":
                for x in child.orelse:
                    visit(x, body)
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child)
            elif isinstance(child, (ast.Import, ast.ImportFrom)) and body is not None:
                found.append((child, body))
            else:
                visit(child, body)
    visit(tree, None)
    return found


def _guarded_names(node, module: str, is_pkg: bool) -> list[str]:
    """The absolute modules an import inside a function must have loaded through the guard
    first: every module it names that is not in the standard library."""
    import importlib.util
    import sys
    package = module if is_pkg else module.rpartition(".")[0]
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif node.level == 0:
        names = [node.module]
    else:
        base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
        names = [base] if node.module else [
            f"{base}.{a.name}" if f"{base}.{a.name}" in ALL_MODULES else base for a in node.names]
    return [n for n in names if n.split(".")[0] not in sys.stdlib_module_names and n != "__future__"]


def test_every_import_after_start_up_goes_through_the_one_guard():
    """Issue #68: a first import of a package on one thread while another thread imports it
    can fail with "partially initialized module". Every import inside a function (made
    after start-up, when other threads may run) of a module outside the standard library is
    preceded, in the same function, by ``load("that.module")`` (``tofu_solve._lazy``), which
    imports it under the process's one import lock."""
    unguarded = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in ("_lazy.py",):
            continue
        module = module_name(path)
        tree = ast.parse(path.read_text())
        for node, body in _function_level_imports(tree):
            loaded = {c.args[0].value for c in ast.walk(body)
                      if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "load"
                      and c.args and isinstance(c.args[0], ast.Constant) and c.lineno < node.lineno}
            for name in _guarded_names(node, module, path.name == "__init__.py"):
                if name not in loaded:
                    unguarded.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {name}")
    assert not unguarded, "imports inside functions without load() first: " + ", ".join(unguarded)


def test_every_thread_is_started_where_its_imports_are_prepared():
    """Issue #68: threads are started only by ``tofu_solve._threads`` (``worker_pool``,
    ``start_thread``), which imports what they need first; ``world`` (the fixture world's
    servers) stands aside."""
    starters = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_threads.py" or path.relative_to(PACKAGE).parts[0] == "world":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                if name in ("Thread", "ThreadPoolExecutor", "ProcessPoolExecutor", "start_new_thread"):
                    starters.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {name}")
    assert not starters, "threads started outside tofu_solve._threads: " + ", ".join(starters)


def test_commands_word_no_warning_themselves():
    """Issue #71 §2: a command conducts and its views speak: every warning a command adds is
    worded in ``command/views/`` (a ``WarningText`` or ``RepairWarning`` built elsewhere in
    ``command/`` is named here)."""
    worded = []
    for path in sorted((PACKAGE / "command").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                    "WarningText", "RepairWarning", "RuleWarning"):
                worded.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert not worded, "warnings worded outside command/views/: " + ", ".join(worded)


# Every module that reads a file a repository holds (configuration, policy, lock, variables,
# version, exclude, override, Terragrunt files) reads it through tofu_solve.confined (issue #67
# §3; issue #83 §1: a reader that took a plain read_text passed every test). Each line here
# that reads a file otherwise, with why it may.
CONFINED_READERS = ("config/files.py", "config/policy.py", "config/policy_hcl.py", "config/policy_test.py",
                    "config/policy_overrides.py", "config/variables.py", "lockfile/read.py", "terragrunt/read.py",
                    "terragrunt/stack.py", "terragrunt/unit.py", "versions/target.py", "command/exclusions.py",
                    "command/policy.py")
PLAIN_READS_ALLOWED = {
    # the package's own data, not a repository's
    'data = json.loads(resources.files("tofu_solve").joinpath("data/opentofu_versions.json").read_text())',
    # after confined.check on the line above (lock_product reads the header only)
    'text = path.read_text(encoding="utf-8", errors="replace")',
    # the confined reader's own subclass: its parent reads through confined
    "return text if text is not None else super().read_text(name, shown)",
}


@pytest.mark.parametrize("module", CONFINED_READERS)
def test_every_reader_of_a_repositorys_files_reads_through_the_confined_reader(module):
    import re

    source = (PACKAGE / module).read_text()
    assert re.search(r"\bconfined\b", source), f"{module} does not use tofu_solve.confined"
    plain = [line.strip() for line in source.splitlines()
             if re.search(r"\.read_text\(|\.read_bytes\(|(?<![\w.])open\(", line) and "confined." not in line
             and not line.strip().startswith("#") and line.strip() not in PLAIN_READS_ALLOWED]
    assert not plain, f"{module} reads files without the confined reader: {plain}"
