"""Finding the project's store the way Claude Code names it; worktrees share one store."""

from __future__ import annotations

import json
from pathlib import Path

from curator.store import discovery
from tests.conftest import git, memory, write_files


def test_slug_replaces_every_non_alphanumeric():
    assert discovery.project_slug("/home/a/my.proj_x") == "-home-a-my-proj-x"


def test_lint_without_paths_finds_the_project_store(git_repo, run_curator, tmp_path):
    repo = git_repo({"README.md": "x\n"}, name="my.proj")
    config = tmp_path / "claude"
    store = config / "projects" / discovery.project_slug(repo) / "memory"
    write_files(store, {"MEMORY.md": "- [Gone](gone.md)\n"})
    out = run_curator("lint", "--output-format", "concise", cwd=repo / "..")
    assert out.code == 2
    assert "no memory store for this project" in out.stderr
    sub = repo / "src"
    sub.mkdir()
    out = run_curator("lint", "--output-format", "json", cwd=sub)
    assert [d["filename"] for d in out.json()] == [str(store.resolve() / "MEMORY.md")]


def test_worktree_shares_the_main_checkout_store(git_repo, run_curator, tmp_path):
    repo = git_repo({"README.md": "x\n"})
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree))
    assert discovery.repo_root(worktree.resolve()) == repo
    store = tmp_path / "claude" / "projects" / discovery.project_slug(repo) / "memory"
    write_files(store, {"MEMORY.md": "- [A](a.md)\n", "a.md": memory()})
    out = run_curator("lint", "--ignore", "CUR300,CUR301", cwd=worktree)
    assert (out.code, out.stdout) == (0, "All checks passed!\n")


def test_long_slug_matches_by_prefix(tmp_path, monkeypatch):
    deep = tmp_path / ("d" * 120) / ("e" * 120)
    deep.mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    slug = discovery.project_slug(deep.resolve())
    store = tmp_path / "claude" / "projects" / (slug[:200] + "-1a2b3c") / "memory"
    store.mkdir(parents=True)
    assert discovery.project_store(deep) == discovery.FoundStore(store, "project")


def test_memory_store_setting_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    custom = tmp_path / "custom"
    custom.mkdir()
    assert discovery.project_store(tmp_path, configured=custom) == discovery.FoundStore(
        custom, "memory_store"
    )
    settings = tmp_path / "claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"autoMemoryDirectory": str(custom)}))
    assert discovery.project_store(Path("/nonexistent")) == discovery.FoundStore(
        custom, "autoMemoryDirectory"
    )


def test_repo_root_through_a_symlink_and_outside_any_repository(git_repo, tmp_path):
    """No `.git` above a folder means no repository, told without running git; a folder
    reached through a symlink into a repository still finds it."""
    repo = git_repo({"sub/README.md": "x\n"})
    link = tmp_path / "linked-sub"
    link.symlink_to(repo / "sub")
    assert discovery.repo_root(link) == repo.resolve()
    plain = tmp_path / "plain" / "memory"
    plain.mkdir(parents=True)
    assert discovery.repo_root(plain) is None


def _settings(path: Path, **values: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values), encoding="utf-8")


def test_auto_memory_directory_is_read_as_claude_code_reads_it(git_repo, run_curator, tmp_path):
    """Claude Code 2.1.328: policy, local, project (both only in a trusted folder), user."""
    repo = git_repo({"README.md": "x\n"})
    shared, local, user = (tmp_path / n for n in ("shared", "local", "user"))
    for store in (shared, local, user):
        write_files(store, {"MEMORY.md": "- [A](a.md) — a\n", "a.md": memory()})
    config = tmp_path / "claude"
    _settings(config / "settings.json", autoMemoryDirectory=str(user))
    _settings(repo / ".claude" / "settings.json", autoMemoryDirectory=str(shared))

    def store_used() -> str:
        run = run_curator("lint", "-v", "--select", "CUR0", cwd=repo)
        assert run.code == 0, run.stderr
        (line,) = [ln for ln in run.stderr.splitlines() if ln.startswith("curator: store ")]
        return line

    # Not trusted: the checked-in setting is not read; the user's is.
    assert (
        store_used() == "curator: store ../user (claude; Claude Code's autoMemoryDirectory setting)"
    )
    _settings(config / ".claude.json", projects={str(repo): {"hasTrustDialogAccepted": True}})
    assert store_used().startswith("curator: store ../shared ")
    _settings(repo / ".claude" / "settings.local.json", autoMemoryDirectory=str(local))
    assert store_used().startswith("curator: store ../local ")


def test_a_setting_claude_code_does_not_read_here_is_named_in_the_error(
    git_repo, run_curator, tmp_path
):
    repo = git_repo({"README.md": "x\n"})
    write_files(tmp_path / "shared", {"MEMORY.md": "- [A](a.md) — a\n", "a.md": memory()})
    checked_in = repo / ".claude" / "settings.json"
    _settings(checked_in, autoMemoryDirectory=str(tmp_path / "shared"))
    run = run_curator("lint", cwd=repo)
    assert run.code == 2
    assert run.stderr.endswith(
        f". {checked_in} sets autoMemoryDirectory, which Claude Code reads only in a folder "
        "you trusted: trust this one in Claude Code, or set it in "
        f"{tmp_path / 'claude' / 'settings.json'}\n"
    )
