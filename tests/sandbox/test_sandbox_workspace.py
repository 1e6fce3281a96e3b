"""Workspace: a fresh copy per attempt, and paths that cannot leave it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from edgeagent.errors import UserError
from edgeagent.sandbox.workspace import PathRefused, Workspace, WorkspaceError


@pytest.fixture
def repo(tmp_path: Path, outside: Path) -> Path:
    r = tmp_path / "repo"
    (r / "pkg").mkdir(parents=True)
    (r / "pkg" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (r / "README.md").write_text("hello\n")
    os.symlink(outside, r / "escape")
    os.symlink("pkg/calc.py", r / "inner_link.py")
    return r


@pytest.fixture
def ws(repo: Path, tmp_path: Path):
    with Workspace.create(repo, parent=tmp_path / "work") as w:
        yield w


def test_create_copies_repo_and_keeps_symlinks(ws: Workspace, repo: Path, tmp_path: Path) -> None:
    assert ws.root.is_absolute() and ws.root == ws.root.resolve()
    assert ws.root.is_relative_to(tmp_path / "work")
    assert (ws.root / "pkg" / "calc.py").read_text() == (repo / "pkg" / "calc.py").read_text()
    assert (ws.root / "escape").is_symlink()
    assert os.readlink(ws.root / "escape") == str(tmp_path / "outside")
    # A change in the copy leaves the original alone.
    (ws.root / "README.md").write_text("changed\n")
    assert (repo / "README.md").read_text() == "hello\n"


def test_create_missing_repo_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError) as info:
        Workspace.create(tmp_path / "nope", parent=tmp_path)
    assert isinstance(info.value, UserError)
    assert "nope" in str(info.value)


def test_cleanup_removes_copy_and_context_manager(repo: Path, tmp_path: Path) -> None:
    w = Workspace.create(repo, parent=tmp_path / "work")
    root = w.root
    (root / "pkg" / "ro").mkdir()
    os.chmod(root / "pkg", 0o500)
    w.cleanup()
    assert not root.exists()
    w.cleanup()  # idempotent
    with Workspace.create(repo, parent=tmp_path / "work") as w2:
        root2 = w2.root
        assert root2.exists()
    assert not root2.exists()
    assert repo.exists()


def test_wrapping_an_existing_directory_never_deletes_it(repo: Path) -> None:
    w = Workspace(repo)
    w.cleanup()
    assert repo.is_dir()


def test_resolve_inside(ws: Workspace) -> None:
    assert ws.resolve(".") == ws.root
    assert ws.resolve("") == ws.root
    assert ws.resolve("pkg/calc.py") == ws.root / "pkg" / "calc.py"
    assert ws.resolve("pkg/../README.md") == ws.root / "README.md"
    assert ws.resolve("./pkg/new/file.txt") == ws.root / "pkg" / "new" / "file.txt"
    # A symlink that stays inside is followed.
    assert ws.resolve("inner_link.py") == ws.root / "pkg" / "calc.py"


@pytest.mark.parametrize("rel", ["..", "../x", "pkg/../../x", "a/b/../../../etc/passwd"])
def test_resolve_refuses_dotdot(ws: Workspace, rel: str) -> None:
    with pytest.raises(PathRefused, match=r"\.\."):
        ws.resolve(rel)


@pytest.mark.parametrize("rel", ["/etc/passwd", "/", "//tmp"])
def test_resolve_refuses_absolute(ws: Workspace, rel: str) -> None:
    with pytest.raises(PathRefused, match="absolute"):
        ws.resolve(rel)


@pytest.mark.parametrize("rel", ["escape", "escape/secret.txt", "escape/new.txt", "pkg/deep"])
def test_resolve_refuses_symlinks_out(ws: Workspace, rel: str, outside: Path) -> None:
    os.symlink(outside / "sub", ws.root / "pkg" / "deep")  # dangling, and outside
    with pytest.raises(PathRefused, match="symlink"):
        ws.resolve(rel)


def test_resolve_refuses_symlink_to_root_parent(ws: Workspace) -> None:
    os.symlink("..", ws.root / "up")
    with pytest.raises(PathRefused):
        ws.resolve("up/x")


def test_resolve_refuses_nul(ws: Workspace) -> None:
    with pytest.raises(PathRefused):
        ws.resolve("a\x00b")


def test_add_files_overwrites_and_never_writes_through_links(
    ws: Workspace, tmp_path: Path, outside: Path
) -> None:
    hidden = tmp_path / "hidden"
    (hidden / "tests").mkdir(parents=True)
    (hidden / "tests" / "test_calc.py").write_text("def test(): pass\n")
    (hidden / "README.md").write_text("from hidden\n")
    (hidden / "escape").mkdir()
    (hidden / "escape" / "secret.txt").write_text("overwritten?\n")
    # The agent planted links where hidden files go.
    (ws.root / "tests").mkdir()
    os.symlink(outside / "secret.txt", ws.root / "tests" / "test_calc.py")

    ws.add_files(hidden)

    assert (ws.root / "tests" / "test_calc.py").read_text() == "def test(): pass\n"
    assert not (ws.root / "tests" / "test_calc.py").is_symlink()
    assert (ws.root / "README.md").read_text() == "from hidden\n"
    assert not (ws.root / "escape").is_symlink()
    assert (ws.root / "escape" / "secret.txt").read_text() == "overwritten?\n"
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_add_files_missing_dir(ws: Workspace, tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError):
        ws.add_files(tmp_path / "none")
