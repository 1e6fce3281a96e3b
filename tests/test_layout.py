"""The house rules of the code layout (docs/architecture.md), checked on the source itself:
public seams between packages, the engine below the agent and the sandbox, argv parsed only
in cli/, every package's public names stated, and every module listed in the architecture."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "edgeagent"
# code that imports edgeagent from outside the package
CONSUMERS = (ROOT / "tests", ROOT / "tools", ROOT / "tasks" / "generators")
SKIP_PARTS = {"fixtures", "__pycache__", "large_repo_parts", "example_external_suite"}


def _python_files(root: Path) -> list[Path]:
    return sorted(f for f in root.rglob("*.py") if not SKIP_PARTS & set(f.parts))


def _module_name(path: Path) -> tuple[str, bool]:
    """(dotted name, is a package __init__) for a file under ROOT."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _imports(path: Path, source: str | None = None) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, absolute module, names) of every import in the file, nested ones included."""
    module, is_package = _module_name(path)
    found = []
    text = source if source is not None else path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name, ()) for a in node.names]
    return found


def _package_dir(module: str) -> str:
    """The package (directory) a dotted module lives in: edgeagent.cli.run -> edgeagent.cli."""
    path = ROOT.joinpath(*module.split("."))
    return module if path.is_dir() else module.rpartition(".")[0]


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports_across_packages(
    files: list[Path], sources: dict[Path, str] | None = None
) -> list[str]:
    problems = []
    for path in files:
        importer = _module_name(path)[0]
        importer_dir = _package_dir(importer) if importer.startswith("edgeagent") else importer
        for line, target, names in _imports(path, (sources or {}).get(path)):
            if not target.startswith("edgeagent"):
                continue
            target_dir = _package_dir(target)
            if target_dir == importer_dir:
                continue  # a package's modules may share their private names
            private = [n for n in names if _is_private(n)]
            private += [p for p in target.split(".") if _is_private(p)]
            if private:
                problems.append(f"{path.relative_to(ROOT)}:{line}: {target} -> "
                                f"{', '.join(private)}")
    return problems


def test_no_private_name_is_imported_across_packages() -> None:
    files = _python_files(PACKAGE) + [f for c in CONSUMERS if c.is_dir()
                                       for f in _python_files(c)]
    assert private_imports_across_packages(files) == []


def test_the_check_catches_a_private_import() -> None:
    # the rule itself, on a module of agent/ that breaks it once (the second import stays
    # inside its own package)
    probe = PACKAGE / "agent" / "probe.py"
    source = "from ..engine.llamacpp import _TokenLog\nfrom .loop import _live_tokens\n"
    problems = private_imports_across_packages([probe], {probe: source})
    assert len(problems) == 1 and "_TokenLog" in problems[0]


def _public_names(package: str) -> set[str]:
    return set(importlib.import_module(package).__all__)


def imports_around_front_doors(
    files: list[Path], sources: dict[Path, str] | None = None
) -> list[str]:
    """Imports inside edgeagent that reach into another package's module, or take a name its
    `__all__` does not state. The top-level modules (config.py, events.py, ...) are each their
    own front door; a package's own modules may import each other directly."""
    problems = []
    for path in files:
        importer_dir = _package_dir(_module_name(path)[0])
        for line, target, names in _imports(path, (sources or {}).get(path)):
            target_dir = _package_dir(target) if target.startswith("edgeagent.") else ""
            if target_dir in ("", "edgeagent", importer_dir):
                continue
            where = f"{path.relative_to(ROOT)}:{line}: {target}"
            if target != target_dir:
                problems.append(f"{where}: import from {target_dir} instead")
                continue
            unstated = sorted(set(names) - _public_names(target_dir))
            if unstated:
                problems.append(f"{where}: {', '.join(unstated)} not in its __all__")
    return problems


def test_packages_are_entered_only_through_their_all() -> None:
    problems = imports_around_front_doors(_python_files(PACKAGE))
    assert problems == [], "\n".join(problems)


def test_the_check_catches_an_import_around_the_front_door() -> None:
    # a module of agent/ that reaches into engine/base.py, asks engine for a name it does not
    # state, and imports its own package's module and engine's front door as it should
    probe = PACKAGE / "agent" / "probe.py"
    source = ("from ..engine.base import Message\nfrom ..engine import json\n"
              "from .loop import run_agent\nfrom ..engine import ToolCall\n"
              "import edgeagent.replay.score\n")
    problems = imports_around_front_doors([probe], {probe: source})
    assert len(problems) == 3, problems
    assert "import from edgeagent.engine instead" in problems[0]
    assert "json not in its __all__" in problems[1]
    assert "import from edgeagent.replay instead" in problems[2]


def _run_dir_names() -> set[str]:
    from edgeagent.rundir import files

    # the file names (the folders' names, mlperf and trajectories, are words used otherwise)
    return {v for k, v in vars(files).items() if k.endswith("_FILE")}


# their own SQLite files: the retrieval index, the doctor's probe of sqlite-vec
OWN_SQLITE = {"retrieval", "doctor.py"}


def run_dir_outside_rundir(files: list[Path], sources: dict[Path, str] | None = None
                           ) -> list[str]:
    """A module outside rundir/ that spells a run-directory file's name or opens SQLite."""
    names, problems = _run_dir_names(), []
    for path in files:
        parts = path.relative_to(PACKAGE).parts
        if parts[0] == "rundir":
            continue
        text = (sources or {}).get(path) or path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Constant) and node.value in names:
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
        if parts[0] not in OWN_SQLITE and any(t == "sqlite3" for _, t, _ in
                                              _imports(path, (sources or {}).get(path))):
            problems.append(f"{path.relative_to(ROOT)}: imports sqlite3")
    return problems


def test_only_rundir_names_the_run_directorys_files_or_opens_run_db() -> None:
    problems = run_dir_outside_rundir(_python_files(PACKAGE))
    assert problems == [], "use edgeagent.rundir's names and readers:\n" + "\n".join(problems)


def test_the_check_catches_a_run_db_opened_outside_rundir() -> None:
    probe = PACKAGE / "results" / "probe.py"
    source = 'import sqlite3\n\nDB = "run.db"\nNOTE = "config.yaml is the settings"\n'
    problems = run_dir_outside_rundir([probe], {probe: source})
    assert len(problems) == 2, problems
    assert "'run.db'" in problems[0] and "imports sqlite3" in problems[1]


def call_sites(files: list[Path], callee: str, sources: dict[Path, str] | None = None
               ) -> list[str]:
    """Where `callee` (a name, or `Name.attr`) is called with arguments of its own: reading
    a stored record back (`TaskRecord(**row)`) is not building one."""
    found = []
    for path in files:
        text = (sources or {}).get(path) or path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = (f.id if isinstance(f, ast.Name) else
                    f"{f.value.id}.{f.attr}" if isinstance(f, ast.Attribute)
                    and isinstance(f.value, ast.Name) else "")
            only_unpacked = not node.args and all(k.arg is None for k in node.keywords)
            if name == callee and not only_unpacked:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_one_driver_opens_every_session_and_one_builder_makes_every_task_record() -> None:
    files = _python_files(PACKAGE)
    assert [s.split(":")[0] for s in call_sites(files, "RunSession.open")] == [
        "edgeagent/run/driver.py"]
    assert [s.split(":")[0] for s in call_sites(files, "TaskRecord")] == [
        "edgeagent/run/task_records.py"]


def test_the_check_counts_a_second_session_and_a_hand_built_record() -> None:
    probe = PACKAGE / "run" / "probe.py"
    source = ("s = RunSession.open(config, run_dir)\nr = TaskRecord(task_id='t', attempt=0)\n"
              "kept = TaskRecord(**row)\n")
    assert len(call_sites([probe], "RunSession.open", {probe: source})) == 1
    assert len(call_sites([probe], "TaskRecord", {probe: source})) == 1


def test_the_engine_imports_neither_the_agent_nor_the_sandbox() -> None:
    upward = ("edgeagent.agent", "edgeagent.sandbox", "edgeagent.run", "edgeagent.cli",
              "edgeagent.tui", "edgeagent.suite", "edgeagent.replay", "edgeagent.results")
    problems = [
        f"{path.relative_to(ROOT)}:{line}: {target}"
        for path in _python_files(PACKAGE / "engine")
        for line, target, _ in _imports(path)
        if target.startswith(upward)
    ]
    assert problems == []


def test_only_the_cli_parses_argv() -> None:
    problems = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _python_files(PACKAGE)
        if "cli" not in path.relative_to(PACKAGE).parts[:1]
        for line, target, _ in _imports(path)
        if target == "argparse"
    ]
    assert problems == []


def _packages() -> list[str]:
    return sorted(_module_name(p)[0] for p in PACKAGE.rglob("__init__.py")
                  if not SKIP_PARTS & set(p.parts))


@pytest.mark.parametrize("package", _packages())
def test_every_package_states_its_public_names(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__doc__, f"{package}/__init__.py has no docstring saying what it offers"
    assert isinstance(getattr(module, "__all__", None), list), f"{package} has no __all__"
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name} does not resolve"


def shadowed_names(package: str) -> set[str]:
    """Public names of `package` that are also its submodules' names: once the submodule is
    imported, the package attribute is the module, and `from package import name` returns
    the module instead of the name (a lazy package's __getattr__ is never asked)."""
    module = importlib.import_module(package)
    path = getattr(module, "__path__", None)
    if path is None:
        return set()
    import pkgutil

    return {m.name for m in pkgutil.iter_modules(path)} & set(module.__all__)


@pytest.mark.parametrize("package", [p for p in _packages() if p != "edgeagent.cli"])
def test_no_public_name_is_also_a_module_of_its_package(package: str) -> None:
    # edgeagent.cli binds `main` eagerly, after its module: `from edgeagent.cli import main`
    # is the function there
    assert shadowed_names(package) == set(), "rename the module (or the name)"


def _documented_modules() -> set[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Modules", 1)[1]
    return set(re.findall(r"^[-*] `(edgeagent/[\w/]+\.py)`", section, flags=re.M))


def test_the_architecture_lists_every_module() -> None:
    modules = {str(p.relative_to(ROOT)) for p in _python_files(PACKAGE)}
    documented = _documented_modules()
    assert sorted(modules - documented) == [], "add these to docs/architecture.md ## Modules"
    assert sorted(documented - modules) == [], "these no longer exist"


def repeated_module_names(paths: list[Path]) -> dict[str, list[str]]:
    """Module file names used in more than one package, apart from `__init__.py` and the
    CLI's one module per command (cli/replay.py is the command `replay`, beside the package
    that does the work)."""
    seen: dict[str, list[str]] = {}
    for path in paths:
        rel = path.relative_to(ROOT)
        if path.name != "__init__.py" and rel.parts[:2] != ("edgeagent", "cli"):
            seen.setdefault(path.name, []).append(str(rel))
    return {name: where for name, where in seen.items() if len(where) > 1}


def test_a_module_name_says_one_thing() -> None:
    assert repeated_module_names(_python_files(PACKAGE)) == {}, "rename one of them"


def test_the_check_catches_a_repeated_module_name() -> None:
    probe = [PACKAGE / "meter" / "host_state.py", PACKAGE / "harness" / "host_state.py",
             PACKAGE / "cli" / "run.py", PACKAGE / "run" / "driver.py"]
    assert list(repeated_module_names(probe)) == ["host_state.py"]


_PROVENANCE_BY_KEY = re.compile(r"\bprov(enance)?(\.get\(|\[[\"'])")


def provenance_read_by_key(files: list[Path], sources: dict[Path, str] | None = None
                           ) -> list[str]:
    """Lines outside rundir/ that read a run's provenance by string key instead of through
    its record (rundir.Provenance)."""
    found = []
    for path in files:
        if path.is_relative_to(PACKAGE / "rundir"):
            continue
        text = (sources or {}).get(path) or path.read_text(encoding="utf-8")
        for n, line in enumerate(text.splitlines(), 1):
            if _PROVENANCE_BY_KEY.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    return found


def test_provenance_is_read_through_its_record() -> None:
    assert provenance_read_by_key(_python_files(PACKAGE)) == []


def test_the_check_catches_provenance_read_by_key() -> None:
    probe = PACKAGE / "results" / "probe.py"
    source = 'total = (data.provenance.get("power") or {}).get("total")\n'
    assert len(provenance_read_by_key([probe], {probe: source})) == 1


# --- function length -------------------------------------------------------------------------

MAX_FUNCTION_LINES = 80


def long_functions(files: list[Path], sources: dict[Path, str] | None = None,
                   limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """Every def / async def (methods and nested functions included) longer than `limit`
    lines, counted from the `def` line to its last line (decorators not counted)."""
    problems = []
    for path in files:
        text = (sources or {}).get(path)
        tree = ast.parse(text if text is not None else path.read_text(encoding="utf-8"))
        stack: list[tuple[ast.AST, str]] = [(tree, "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                name = prefix
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}."
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    assert child.end_lineno is not None
                    length = child.end_lineno - child.lineno + 1
                    if length > limit:
                        problems.append(f"{path.relative_to(ROOT)}:{child.lineno}: "
                                        f"{name[:-1]} is {length} lines (at most {limit})")
                stack.append((child, name))
    return sorted(problems)


def test_no_function_is_longer_than_80_lines() -> None:
    problems = long_functions(_python_files(PACKAGE))
    assert problems == [], "split these functions:\n" + "\n".join(problems)


def test_the_check_catches_a_long_function() -> None:
    def function(name: str, lines: int, indent: str = "") -> str:
        body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines - 1))
        return f"{indent}def {name}(*args):\n{body}"

    probe = PACKAGE / "agent" / "probe.py"
    source = (function("fits", 80) + "\n\nclass Holder:\n" + function("too_long", 81, "    ")
              + "\n\n@staticmethod\n" + function("decorated_fits", 80))
    problems = long_functions([probe], {probe: source})
    assert len(problems) == 1 and "Holder.too_long is 81 lines" in problems[0], problems


# --- import cycles ---------------------------------------------------------------------------

def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import that runs, at module level or inside a function (lazy imports count);
    those only under `if TYPE_CHECKING:` do not."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda n: n.lineno)


class ImportGraph:
    """The imports between edgeagent's modules, and between its top-level packages and
    modules, from the source alone. A name imported from a package whose `__init__`
    re-exports it (`lazy_exports` or `from .module import name`) counts as an import of the
    module that defines it."""

    def __init__(self, files: list[Path], sources: dict[Path, str] | None = None) -> None:
        self.trees: dict[str, tuple[Path, bool, ast.AST]] = {}
        for path in files:
            text = (sources or {}).get(path)
            module, is_package = _module_name(path)
            self.trees[module] = (path, is_package, ast.parse(
                text if text is not None else path.read_text(encoding="utf-8")))
        self.exports = {m: self._exports(m) for m, (_, pkg, _) in self.trees.items() if pkg}
        # module -> {imported module: first (file:line) that imports it}
        self.edges: dict[str, dict[str, str]] = {m: {} for m in self.trees}
        for module in self.trees:
            self._collect(module)

    def _absolute(self, module: str, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        is_package = self.trees[module][1]
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))

    def _exports(self, package: str) -> dict[str, str]:
        """name -> the module of `package` it comes from, as its __init__ says."""
        tree = self.trees[package][2]
        where: dict[str, str] = {}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports"
                    and len(node.args) == 2 and isinstance(node.args[1], ast.Dict)):
                for key, value in zip(node.args[1].keys, node.args[1].values, strict=True):
                    if isinstance(key, ast.Constant) and isinstance(value, (ast.Tuple, ast.List)):
                        for elt in value.elts:
                            if isinstance(elt, ast.Constant):
                                where[elt.value] = f"{package}.{key.value}"
        for node in _runtime_imports(tree):
            if isinstance(node, ast.ImportFrom):
                target = self._absolute(package, node)
                for alias in node.names:
                    if target in self.trees and target != package:
                        where[alias.asname or alias.name] = target
        return where

    def _existing(self, dotted: str) -> str | None:
        """The module itself, or its longest prefix that is an edgeagent module."""
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            if ".".join(parts[:i]) in self.trees:
                return ".".join(parts[:i])
        return None

    def _defining(self, package: str, name: str) -> str:
        """The module a name imported from `package` really comes from (re-exports
        followed; the package itself where its __init__ defines the name or does not say)."""
        seen = set()
        while package in self.exports and name in self.exports[package] and package not in seen:
            seen.add(package)
            package = self.exports[package][name]
        return package

    def _collect(self, module: str) -> None:
        path = self.trees[module][0]
        for node in _runtime_imports(self.trees[module][2]):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [t for a in node.names if (t := self._existing(a.name) or "")]
            else:
                base = self._absolute(module, node)
                for alias in node.names:
                    if f"{base}.{alias.name}" in self.trees:  # from package import module
                        targets.append(f"{base}.{alias.name}")
                    elif base in self.trees:
                        targets.append(self._defining(base, alias.name))
                    elif (found := self._existing(base)) is not None:
                        targets.append(found)
            for target in targets:
                if target != module:
                    self.edges[module].setdefault(
                        target, f"{path.relative_to(ROOT)}:{node.lineno}")

    @staticmethod
    def node_of(module: str) -> str:
        """The package-graph node: edgeagent.<subpackage> or edgeagent.<top-level module>."""
        return ".".join(module.split(".")[:2])

    def package_edges(self) -> dict[str, dict[str, str]]:
        edges: dict[str, dict[str, str]] = {}
        for module, targets in self.edges.items():
            a = self.node_of(module)
            edges.setdefault(a, {})
            for target, where in targets.items():
                b = self.node_of(target)
                if a != b:
                    edges[a].setdefault(b, f"{module} -> {target} ({where})")
        return edges


def _cycles(edges: dict[str, dict[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def _shortest_cycle(edges: dict[str, dict[str, str]], component: list[str]) -> list[str]:
    """One shortest cycle through the component's first node, for the message."""
    start, members = component[0], set(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(edges.get(node, {})):
            if child == start:
                return paths[node] + [start]
            if child in members and child not in paths:
                paths[child] = paths[node] + [child]
                queue.append(child)
    return component


def cycle_report(edges: dict[str, dict[str, str]]) -> list[str]:
    """One entry per cycle: a shortest loop, then every import inside the component."""
    report = []
    for component in _cycles(edges):
        loop = _shortest_cycle(edges, component)
        lines = [" -> ".join(loop)]
        lines += [f"    {a} -> {b}: {edges[a][b]}" for a in component
                  for b in sorted(edges[a]) if b in component]
        report.append("\n".join(lines))
    return report


def test_no_import_cycle_between_modules() -> None:
    graph = ImportGraph(_python_files(PACKAGE))
    problems = cycle_report(graph.edges)
    assert problems == [], "module import cycles:\n" + "\n".join(problems)


def test_no_import_cycle_between_packages() -> None:
    graph = ImportGraph(_python_files(PACKAGE))
    problems = cycle_report(graph.package_edges())
    assert problems == [], "package import cycles:\n" + "\n".join(problems)


def test_the_check_catches_an_import_cycle() -> None:
    a, b, c = (PACKAGE / "probe_a.py", PACKAGE / "probe_b.py", PACKAGE / "probe_c.py")
    graph = ImportGraph([a, b, c], {
        a: "from . import probe_b\n",
        b: "def later():\n    from .probe_a import thing\n",  # a lazy import counts
        c: "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .probe_a import x\n"
           "from .probe_b import later\n",  # c -> b only; the TYPE_CHECKING import is not one
    })
    assert _cycles(graph.edges) == [["edgeagent.probe_a", "edgeagent.probe_b"]]
    assert "probe_c" not in "".join(cycle_report(graph.edges))


def test_the_check_resolves_re_exports_and_sees_package_cycles() -> None:
    # a package whose __init__ re-exports lazily: importing a name from it is an import of
    # the module that defines it; edgeagent.probe_q -> edgeagent.probe_p.m -> probe_q is a
    # module cycle, edgeagent.probe_p.n -> probe_r -> probe_p.o only a package cycle
    init, m, n, o = (PACKAGE / "probe_p" / f for f in ("__init__.py", "m.py", "n.py", "o.py"))
    q, r = PACKAGE / "probe_q.py", PACKAGE / "probe_r.py"
    graph = ImportGraph([init, m, n, o, q, r], {
        init: "from ..exports import lazy_exports\n__all__, __getattr__ = lazy_exports("
              "__name__, {'m': ('f',), 'o': ('g',)})\n",
        m: "from ..probe_q import h\n",
        n: "import edgeagent.probe_r\n",
        o: "",
        q: "from .probe_p import f\n",
        r: "from edgeagent.probe_p import g\n",
    })
    assert graph.edges["edgeagent.probe_r"] == {"edgeagent.probe_p.o": "edgeagent/probe_r.py:1"}
    assert _cycles(graph.edges) == [["edgeagent.probe_p.m", "edgeagent.probe_q"]]
    assert _cycles(graph.package_edges()) == [
        ["edgeagent.probe_p", "edgeagent.probe_q", "edgeagent.probe_r"]]


# --- the architecture's data-flow diagram names code that exists ----------------------------

def _data_flow_section(text: str) -> str:
    return text.split("## How data flows", 1)[1].split("\n## ", 1)[0]


def _dotted_names(text: str) -> list[str]:
    return sorted(set(re.findall(r"\bedgeagent(?:\.[A-Za-z_]\w*)+", text)))


def unresolved_names(names: list[str]) -> list[str]:
    """The dotted names that do not resolve: the longest importable module prefix, then
    getattr for the rest (a class's method, say)."""
    problems = []
    for name in names:
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ModuleNotFoundError as exc:
                if exc.name is not None and not name.startswith(exc.name):
                    problems.append(f"{name}: importing it needs {exc.name}, not installed")
                    break
                continue
            for attr in parts[i:]:
                if not hasattr(obj, attr):
                    problems.append(f"{name}: {'.'.join(parts[:i])} has no {attr!r}")
                    break
                obj = getattr(obj, attr)
            break
    return problems


def test_the_data_flow_diagram_names_existing_code() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    names = _dotted_names(_data_flow_section(text))
    assert len(names) > 10, "the data flow names too little code to check"
    problems = unresolved_names(names)
    assert problems == [], "docs/architecture.md, How data flows:\n" + "\n".join(problems)


def test_the_check_catches_a_made_up_name() -> None:
    section = _data_flow_section("## How data flows\n\nedgeagent.agent.loop.run_agent, "
                                 "edgeagent.agent.loop.run_agnet, edgeagent.run.session."
                                 "RunSession.emit, edgeagent.nowhere.thing\n## Next\n"
                                 "edgeagent.not.checked\n")
    problems = unresolved_names(_dotted_names(section))
    assert len(problems) == 2, problems
    assert "run_agnet" in problems[0] and "nowhere" in problems[1]
