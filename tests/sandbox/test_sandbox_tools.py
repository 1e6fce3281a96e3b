"""Toolbox: every tool through `call`, refusals and bad arguments as error results."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from edgeagent.sandbox.process import ProcessLimits
from edgeagent.sandbox.tools import TOOL_SPECS, Toolbox, ToolResult
from edgeagent.sandbox.workspace import Workspace

CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"


@pytest.fixture
def ws(tmp_path: Path, outside: Path):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "calc.py").write_text(CALC)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_calc.py").write_text(
        "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / ".git").mkdir()
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "__pycache__").mkdir()
    (repo / "blob.bin").write_bytes(b"\x00\x01\x02")
    os.symlink(outside, repo / "escape_dir")
    os.symlink(outside / "secret.txt", repo / "escape_file")
    with Workspace.create(repo, parent=tmp_path / "work") as w:
        yield w


@pytest.fixture
def tools(ws: Workspace) -> Toolbox:
    return Toolbox(ws, "python -m pytest -q -p no:cacheprovider", ProcessLimits(timeout_s=20))


def ok(result: ToolResult) -> str:
    assert isinstance(result, ToolResult)
    assert not result.error, result.output
    assert result.wall_ms >= 0
    return result.output


def err(result: ToolResult) -> str:
    assert isinstance(result, ToolResult)
    assert result.error, result.output
    assert "\n" not in result.output and result.output
    assert not result.submitted
    return result.output


def test_specs_are_simple_json_schemas() -> None:
    names = [s.name for s in TOOL_SPECS]
    assert names == [
        "list_dir", "read_file", "grep", "edit", "write_file", "run", "run_tests", "submit"
    ]
    for spec in TOOL_SPECS:
        assert "\n" not in spec.description and len(spec.description) < 100
        assert spec.parameters["type"] == "object"
        assert set(spec.parameters["required"]) <= set(spec.parameters["properties"])
        for prop in spec.parameters["properties"].values():
            assert prop["type"] in ("string", "integer")
    by_name = {s.name: s for s in TOOL_SPECS}
    assert by_name["edit"].parameters["required"] == ["path", "old", "new"]
    assert set(by_name["read_file"].parameters["properties"]) == {"path", "start_line", "end_line"}


# -- refusals --

ESCAPES = ["../outside/secret.txt", "/etc/passwd", "escape_file", "escape_dir/secret.txt"]


@pytest.mark.parametrize("path", ESCAPES)
def test_read_file_refuses_escapes(tools: Toolbox, path: str) -> None:
    out = err(tools.call("read_file", {"path": path}))
    assert out.startswith("path escapes the workspace:")
    assert "secret" not in out.replace("secret.txt", "")


@pytest.mark.parametrize("path", ESCAPES + ["escape_dir/new.txt"])
def test_write_file_refuses_escapes(tools: Toolbox, path: str, outside: Path) -> None:
    out = err(tools.call("write_file", {"path": path, "content": "pwned\n"}))
    assert out.startswith("path escapes the workspace:")
    assert (outside / "secret.txt").read_text() == "secret\n"
    assert not (outside / "new.txt").exists()


@pytest.mark.parametrize("path", ESCAPES)
def test_edit_refuses_escapes(tools: Toolbox, path: str, outside: Path) -> None:
    out = err(tools.call("edit", {"path": path, "old": "secret", "new": "pwned"}))
    assert out.startswith("path escapes the workspace:")
    assert (outside / "secret.txt").read_text() == "secret\n"


@pytest.mark.parametrize("path", ["..", "../outside", "/", "/etc", "escape_dir"])
def test_list_dir_refuses_escapes(tools: Toolbox, path: str) -> None:
    out = err(tools.call("list_dir", {"path": path}))
    assert out.startswith("path escapes the workspace:")
    assert "secret.txt" not in out


@pytest.mark.slow
def test_grep_refuses_escapes_and_skips_links_out(tools: Toolbox) -> None:
    assert err(tools.call("grep", {"pattern": "secret", "path": ".."})).startswith("path escapes")
    out = ok(tools.call("grep", {"pattern": "secret"}))
    assert out.startswith("no matches")


# -- list_dir / read_file / grep --

def test_list_dir(tools: Toolbox) -> None:
    out = ok(tools.call("list_dir", {}))
    assert out.splitlines() == ["blob.bin", "escape_dir", "escape_file", "pkg/", "tests/"]
    assert ok(tools.call("list_dir", {"path": "pkg"})).splitlines() == ["__init__.py", "calc.py"]
    assert "not a directory" in err(tools.call("list_dir", {"path": "pkg/calc.py"}))
    assert "no such" in err(tools.call("list_dir", {"path": "nope"}))


def test_list_dir_is_bounded(tools: Toolbox, ws: Workspace) -> None:
    (ws.root / "many").mkdir()
    for i in range(250):
        (ws.root / "many" / f"f{i:03d}").write_text("")
    lines = ok(tools.call("list_dir", {"path": "many"})).splitlines()
    assert len(lines) == 201 and lines[0] == "f000"
    assert lines[-1] == "[... 50 more entries not shown]"


def test_read_file_whole_and_ranges(tools: Toolbox) -> None:
    out = ok(tools.call("read_file", {"path": "pkg/calc.py"}))
    assert out.splitlines() == [f"{i}| {line}" for i, line in enumerate(CALC.splitlines(), 1)]
    # a part of the file says what lies outside it, so line 1 alone is not taken for the file
    whole = "read_file without start_line and end_line shows the whole file]"
    out = ok(tools.call("read_file", {"path": "pkg/calc.py", "start_line": 2, "end_line": 3}))
    assert out == f"2|     return a - b\n3| \n[pkg/calc.py has 6 lines; showed 2-3; {whole}"
    out = ok(tools.call("read_file", {"path": "pkg/calc.py", "start_line": 1, "end_line": 1}))
    assert out.splitlines()[1] == f"[pkg/calc.py has 6 lines; showed 1-1; {whole}"
    out = ok(tools.call("read_file", {"path": "pkg/calc.py", "start_line": 5}))
    assert out == ("5| def sub(a, b):\n6|     return a - b\n"
                   f"[pkg/calc.py has 6 lines; showed 5-6; {whole}")
    out = ok(tools.call("read_file", {"path": "pkg/calc.py", "end_line": 99}))
    assert len(out.splitlines()) == 6
    out = ok(tools.call("read_file", {"path": "pkg/calc.py", "start_line": 1, "end_line": None}))
    assert len(out.splitlines()) == 6


def test_read_file_bad_ranges_and_files(tools: Toolbox, ws: Workspace) -> None:
    assert "past the end" in err(tools.call("read_file", {"path": "pkg/calc.py", "start_line": 7}))
    assert "1 or more" in err(tools.call("read_file", {"path": "pkg/calc.py", "start_line": 0}))
    bad = {"path": "pkg/calc.py", "start_line": 4, "end_line": 2}
    assert "before start_line" in err(tools.call("read_file", bad))
    assert "binary" in err(tools.call("read_file", {"path": "blob.bin"}))
    assert "directory" in err(tools.call("read_file", {"path": "pkg"}))
    assert "no such file" in err(tools.call("read_file", {"path": "missing.py"}))
    (ws.root / "empty.txt").write_text("")
    assert "empty" in ok(tools.call("read_file", {"path": "empty.txt"}))


def test_read_file_is_bounded(tools: Toolbox, ws: Workspace) -> None:
    (ws.root / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 1001)))
    lines = ok(tools.call("read_file", {"path": "long.txt"})).splitlines()
    assert len(lines) == 401 and lines[399] == "400| line 400"
    assert "start_line=401" in lines[-1] and "1000 lines" in lines[-1]
    lines = ok(tools.call("read_file", {"path": "long.txt", "start_line": 901})).splitlines()
    assert len(lines) == 101 and lines[-2] == "1000| line 1000"
    assert lines[-1].startswith("[long.txt has 1000 lines; showed 901-1000;")
    (ws.root / "wide.txt").write_text("z" * 5000 + "\n")
    assert len(ok(tools.call("read_file", {"path": "wide.txt"}))) < 700


@pytest.mark.slow
def test_grep(tools: Toolbox) -> None:
    out = ok(tools.call("grep", {"pattern": r"return a - b"}))
    assert out.splitlines() == [
        "pkg/calc.py:2:     return a - b",
        "pkg/calc.py:6:     return a - b",
    ]
    out = ok(tools.call("grep", {"pattern": r"def \w+", "path": "tests"}))
    assert out == "tests/test_calc.py:4: def test_add():"
    out = ok(tools.call("grep", {"pattern": "add", "path": "pkg/calc.py"}))
    assert out == "pkg/calc.py:1: def add(a, b):"
    assert ok(tools.call("grep", {"pattern": "refs/heads"})).startswith("no matches")  # .git
    assert "no such" in err(tools.call("grep", {"pattern": "x", "path": "nope"}))


def test_grep_bad_regex(tools: Toolbox) -> None:
    out = err(tools.call("grep", {"pattern": "def (add"}))
    assert out.startswith("invalid regex") and "missing )" in out


@pytest.mark.slow
def test_grep_is_bounded(tools: Toolbox, ws: Workspace) -> None:
    (ws.root / "many.txt").write_text("needle\n" * 500)
    lines = ok(tools.call("grep", {"pattern": "needle"})).splitlines()
    assert len(lines) == 101 and lines[0] == "many.txt:1: needle"
    assert "stopped after 100 matches" in lines[-1]


# -- edit / write_file --

def test_edit_success(tools: Toolbox, ws: Workspace) -> None:
    out = ok(tools.call("edit", {
        "path": "pkg/calc.py",
        "old": "def add(a, b):\n    return a - b",
        "new": "def add(a, b):\n    return a + b",
    }))
    assert out == "edited pkg/calc.py: replaced 1 occurrence (lines 1-2)"
    assert (ws.root / "pkg" / "calc.py").read_text() == CALC.replace("a - b", "a + b", 1)
    out = ok(tools.call("edit", {"path": "pkg/calc.py", "old": "def sub", "new": "# x\ndef sub"}))
    assert out == "edited pkg/calc.py: replaced 1 occurrence (lines 5-5); the new text is lines 5-6"


def test_edit_zero_matches_leaves_file(tools: Toolbox, ws: Workspace) -> None:
    out = err(tools.call("edit", {"path": "pkg/calc.py", "old": "import os", "new": "x"}))
    assert out.startswith("old text not found in pkg/calc.py")
    # a miss that resembles a line: the file's real lines come back, numbered, to copy from
    result = tools.call("edit", {"path": "pkg/calc.py", "old": "def  sub(a,b):", "new": "x"})
    assert result.error
    head, *lines = result.output.split("\n")
    assert head.startswith("old text not found in pkg/calc.py; the closest lines")
    assert "5| def sub(a, b):" in lines and "6|     return a - b" in lines
    assert (ws.root / "pkg" / "calc.py").read_text() == CALC


def test_edit_forgives_line_numbers_and_indentation(tools: Toolbox, ws: Workspace) -> None:
    """The two slips a small model makes copying from read_file: kept `N| ` prefixes, and
    wrong indentation. Each applies only when it picks out one place, and says so."""
    out = ok(tools.call("edit", {
        "path": "pkg/calc.py", "old": "1| def add(a, b):\n2|     return a - b",
        "new": "1| def add(a, b):\n2|     return a + b",
    }))
    assert out.endswith("(removed the 'N| ' line-number prefixes)")
    assert (ws.root / "pkg" / "calc.py").read_text() == CALC.replace("a - b", "a + b", 1)
    out = ok(tools.call("edit", {
        "path": "pkg/calc.py", "old": "def sub(a, b):\nreturn a - b",
        "new": "def sub(a, b):\nreturn b - a",
    }))
    assert out.endswith("(matched ignoring indentation)")
    assert (ws.root / "pkg" / "calc.py").read_text().endswith(
        "def sub(a, b):\n    return b - a\n")
    # ambiguous once indentation is ignored: refused, the file unchanged
    (ws.root / "twice.py").write_text("if a:\n    x = 1\nif b:\n        x = 1\n")
    assert "2 times" in err(tools.call("edit", {"path": "twice.py", "old": "x = 1 ", "new": "y"}))
    # a forgiven match that changes nothing is still "the same"
    out = err(tools.call("edit", {"path": "pkg/calc.py", "old": "1| def add(a, b):",
                                  "new": "def add(a, b):"}))
    assert "the same" in out


def test_edit_two_matches_leaves_file(tools: Toolbox, ws: Workspace) -> None:
    out = err(tools.call("edit", {"path": "pkg/calc.py", "old": "return a - b", "new": "x"}))
    assert out == (
        "old text matches 2 times in pkg/calc.py; include more surrounding lines to make it unique"
    )
    assert (ws.root / "pkg" / "calc.py").read_text() == CALC


def test_edit_other_refusals(tools: Toolbox) -> None:
    assert "empty" in err(tools.call("edit", {"path": "pkg/calc.py", "old": "", "new": "x"}))
    assert "same" in err(tools.call("edit", {"path": "pkg/calc.py", "old": "a", "new": "a"}))
    assert "write_file" in err(tools.call("edit", {"path": "new.py", "old": "a", "new": "b"}))
    assert "binary" in err(tools.call("edit", {"path": "blob.bin", "old": "a", "new": "b"}))


def test_edit_keeps_crlf_and_non_utf8_bytes(tools: Toolbox, ws: Workspace) -> None:
    (ws.root / "dos.txt").write_bytes(b"caf\xe9 = 1\r\nx = 2\r\n")
    ok(tools.call("edit", {"path": "dos.txt", "old": "x = 2", "new": "x = 3"}))
    assert (ws.root / "dos.txt").read_bytes() == b"caf\xe9 = 1\r\nx = 3\r\n"


def test_write_file_creates_dirs_and_overwrites(tools: Toolbox, ws: Workspace) -> None:
    out = ok(tools.call("write_file", {"path": "a/b/c.txt", "content": "one\ntwo\n"}))
    assert out == "created a/b/c.txt (2 lines, 8 bytes)"
    assert (ws.root / "a" / "b" / "c.txt").read_text() == "one\ntwo\n"
    out = ok(tools.call("write_file", {"path": "a/b/c.txt", "content": "three"}))
    assert out.startswith("overwrote a/b/c.txt")
    assert (ws.root / "a" / "b" / "c.txt").read_text() == "three"
    assert "directory" in err(tools.call("write_file", {"path": "pkg", "content": "x"}))


def test_write_through_inside_symlink_stays_inside(tools: Toolbox, ws: Workspace) -> None:
    os.symlink("pkg/calc.py", ws.root / "link.py")
    ok(tools.call("write_file", {"path": "link.py", "content": "X = 1\n"}))
    assert (ws.root / "pkg" / "calc.py").read_text() == "X = 1\n"


# -- run / run_tests / submit --

@pytest.mark.slow
def test_run(tools: Toolbox, ws: Workspace) -> None:
    r = tools.call("run", {"command": "echo hello; exit 2"})
    assert not r.error and r.exit_code == 2
    assert r.output == "exit code: 2\nhello\n"
    r = tools.call("run", {"command": "pwd"})
    assert r.exit_code == 0 and r.output == f"exit code: 0\n{ws.root}\n"
    assert tools.call("run", {"command": "true"}).output == "exit code: 0\n(no output)"
    assert "empty" in err(tools.call("run", {"command": "  "}))


@pytest.mark.slow
def test_run_timeout(ws: Workspace) -> None:
    box = Toolbox(ws, "true", ProcessLimits(timeout_s=0.5))
    r = box.call("run", {"command": "sleep 30"})
    assert r.exit_code is None and r.output.startswith("timed out after 0.5 s")


@pytest.mark.slow
def test_run_tests_uses_the_test_command(tools: Toolbox, ws: Workspace) -> None:
    r = tools.call("run_tests", {})
    assert not r.error and r.exit_code == 1 and "1 failed" in r.output
    (ws.root / "pkg" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    r = tools.call("run_tests", {})
    assert r.exit_code == 0 and "1 passed" in r.output
    assert not list(ws.root.rglob("*.pyc"))  # PYTHONDONTWRITEBYTECODE reached the tests
    assert "no test command" in err(Toolbox(ws, "", ProcessLimits()).call("run_tests", {}))


@pytest.mark.slow
def test_run_python_is_our_interpreter(tools: Toolbox) -> None:
    r = tools.call("run", {"command": "python -c 'import sys; print(sys.prefix)'"})
    assert r.output == f"exit code: 0\n{sys.prefix}\n"


def test_submit(tools: Toolbox) -> None:
    r = tools.call("submit", {})
    assert r == ToolResult("submitted", None, False, r.wall_ms, submitted=True)
    assert ok(tools.call("submit", None)) == "submitted"


# -- bad calls never raise --

@pytest.mark.parametrize(
    ("name", "args", "needle"),
    [
        ("delete_everything", {}, "unknown tool 'delete_everything'; available tools: list_dir"),
        (None, {}, "unknown tool"),
        ("read_file", {}, "missing required argument 'path'"),
        ("read_file", {"path": None}, "missing required argument 'path'"),
        ("read_file", {"path": "a", "lines": 3}, "unknown argument 'lines'"),
        ("read_file", {"path": 7}, "'path' must be a string, got integer"),
        ("read_file", {"path": "a", "start_line": "5"}, "'start_line' must be an integer"),
        ("read_file", {"path": "a", "start_line": True}, "got boolean"),
        ("read_file", {"path": "a", "end_line": 2.5}, "got number"),
        ("edit", {"path": "pkg/calc.py", "old": "x"}, "missing required argument 'new'"),
        ("write_file", {"path": ["a"], "content": "x"}, "got array"),
        ("run", "ls", "must be a JSON object"),
        ("submit", {"why": "done"}, "unknown argument 'why'"),
        ("grep", {"pattern": {}}, "got object"),
    ],
)
def test_bad_calls_are_error_results(tools: Toolbox, name, args, needle: str) -> None:
    assert needle in err(tools.call(name, args))


def test_unreadable_path_is_an_error_result(tools: Toolbox, ws: Workspace) -> None:
    os.symlink("loop", ws.root / "loop")
    err(tools.call("read_file", {"path": "loop"}))
    err(tools.call("write_file", {"path": "loop", "content": "x"}))
    err(tools.call("write_file", {"path": "pkg/calc.py/inner.txt", "content": "x"}))
