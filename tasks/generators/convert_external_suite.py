"""Convert a folder of buggy programs with unittest/pytest tests into an edgeagent suite.

Input layout (see tasks/generators/example_external_suite/README.md):

    programs/<name>.py   fixed/<name>.py   tests/test_<name>.py   descriptions/<name>.md

For each program this writes tasks/<prefix><name>/ with task.yaml, repo/ (the buggy program
and its tests, as visible tests), hidden_tests/tests_hidden/ (the same tests, graded), and an
oracle that reads the program, writes the fixed version, runs the tests and submits. The
FAIL_TO_PASS and PASS_TO_PASS lists are measured, not guessed: every test id is run against
the buggy and the fixed program, exactly as `edgeagent tasks validate` will run them.

    python tasks/generators/convert_external_suite.py SRC OUT [--prefix ext-]
"""

from __future__ import annotations

import argparse
import ast
import shutil
import sys
import tempfile
from pathlib import Path

import yaml

from edgeagent.sandbox.process import ProcessLimits
from edgeagent.sandbox.workspace import Workspace
from edgeagent.suite import TASK_KINDS, TIERS, run_test_ids

TEST_COMMAND = "python -m unittest discover -s tests -t . -q"
HIDDEN_COMMAND = "python -m unittest discover -s tests_hidden -t . -q"
LIMITS = ProcessLimits(timeout_s=60.0)


def parse_description(path: Path) -> tuple[str, str, str, str]:
    """(title, kind, tier, issue) from '# title', 'kind: K', 'tier: T' lines and the body."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith("# "):
        sys.exit(f"{path}: the first line must be '# title'")
    title, kind, tier, body = lines[0][2:].strip(), "one-line-bug", "easy", []
    for line in lines[1:]:
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("kind", "tier") and not body:
            if key.strip() == "kind":
                kind = value.strip()
            else:
                tier = value.strip()
        elif line.strip() or body:
            body.append(line)
    if kind not in TASK_KINDS:
        sys.exit(f"{path}: kind {kind!r} is not one of {', '.join(TASK_KINDS)}")
    if tier not in TIERS:
        sys.exit(f"{path}: tier {tier!r} is not one of {', '.join(TIERS)}")
    return title, kind, tier, "\n".join(body).strip() + "\n"


def test_ids(test_file: Path, package: str) -> list[str]:
    """package.module.Class.test_method for every test method of every TestCase-like class."""
    tree = ast.parse(test_file.read_text(encoding="utf-8"))
    ids = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                    ids.append(f"{package}.{test_file.stem}.{node.name}.{item.name}")
    return ids


def outcomes(repo: Path, hidden: Path, ids: list[str]) -> dict[str, str]:
    with Workspace.create(repo) as ws:
        ws.add_files(hidden)
        results, _ = run_test_ids(ids, ws, LIMITS, test_timeout_s=10.0)
    return {o.id: o.status for o in results}


def convert_one(src: Path, name: str, out: Path, prefix: str) -> str:
    program = src / "programs" / f"{name}.py"
    fixed = src / "fixed" / f"{name}.py"
    tests = src / "tests" / f"test_{name}.py"
    title, kind, tier, issue = parse_description(src / "descriptions" / f"{name}.md")
    for needed in (fixed, tests):
        if not needed.is_file():
            sys.exit(f"{needed}: missing (every program needs a fixed version and tests)")
    task_id = f"{prefix}{name}"
    task = out / task_id
    repo = task / "repo"
    hidden = task / "hidden_tests" / "tests_hidden"
    (repo / "tests").mkdir(parents=True)
    hidden.mkdir(parents=True)
    shutil.copy(program, repo / program.name)
    shutil.copy(tests, repo / "tests" / tests.name)
    (repo / "tests" / "__init__.py").write_text("")
    shutil.copy(tests, hidden / tests.name)
    (hidden / "__init__.py").write_text("")

    ids = test_ids(tests, "tests_hidden")
    before = outcomes(repo, hidden.parent, ids)
    with tempfile.TemporaryDirectory() as tmp:
        fixed_repo = Path(tmp) / "repo"
        shutil.copytree(repo, fixed_repo)
        shutil.copy(fixed, fixed_repo / program.name)
        after = outcomes(fixed_repo, hidden.parent, ids)
    fail_to_pass = [i for i in ids if before[i] != "pass" and after[i] == "pass"]
    pass_to_pass = [i for i in ids if before[i] == "pass" and after[i] == "pass"]
    broken = [i for i in ids if after[i] != "pass"]
    if broken:
        print(f"warning: {task_id}: left out tests that fail with the fix: {broken}")
    if not fail_to_pass:
        shutil.rmtree(task)
        print(f"skipped {name}: no test fails on the buggy program")
        return ""

    spec = {
        "id": task_id,
        "title": title,
        "tier": tier,
        "tags": [kind, "python", "external"],
        "issue": issue,
        "test_command": TEST_COMMAND,
        "hidden_test_command": HIDDEN_COMMAND,
        "fail_to_pass": fail_to_pass,
        **({"pass_to_pass": pass_to_pass} if pass_to_pass else {}),
        "limits": {"max_steps": 12, "wall_s": 600, "command_timeout_s": 60},
    }
    (task / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False, width=100))
    oracle = [
        {"tool": "read_file", "args": {"path": program.name}},
        {"tool": "write_file",
         "args": {"path": program.name, "content": fixed.read_text(encoding="utf-8")}},
        {"tool": "run_tests", "args": {}},
        {"tool": "submit", "args": {}},
    ]
    (task / "oracle.yaml").write_text(yaml.safe_dump(oracle, sort_keys=False, width=100))
    print(f"wrote {task_id}: {len(fail_to_pass)} FAIL_TO_PASS, {len(pass_to_pass)} PASS_TO_PASS")
    return task_id


def convert(src: Path, out: Path, prefix: str = "ext-") -> list[str]:
    if not (src / "programs").is_dir():
        sys.exit(
            f"{src}: no programs/ directory"
            " (see tasks/generators/example_external_suite/README.md)"
        )
    if out.exists() and any(out.iterdir()):
        sys.exit(f"{out}: exists and is not empty (give a new directory)")
    out.mkdir(parents=True, exist_ok=True)
    names = sorted(p.stem for p in (src / "programs").glob("*.py"))
    return [t for t in (convert_one(src, n, out, prefix) for n in names) if t]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path, help="the external suite")
    parser.add_argument("out", type=Path, help="a new directory for the edgeagent suite")
    parser.add_argument("--prefix", default="ext-", help="task id prefix (default ext-)")
    args = parser.parse_args()
    done = convert(args.src, args.out, args.prefix)
    print(f"{len(done)} tasks written to {args.out}")


if __name__ == "__main__":
    main()
