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


def _documented_modules() -> set[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Modules", 1)[1]
    return set(re.findall(r"^[-*] `(edgeagent/[\w/]+\.py)`", section, flags=re.M))


def test_the_architecture_lists_every_module() -> None:
    modules = {str(p.relative_to(ROOT)) for p in _python_files(PACKAGE)}
    documented = _documented_modules()
    assert sorted(modules - documented) == [], "add these to docs/architecture.md ## Modules"
    assert sorted(documented - modules) == [], "these no longer exist"
