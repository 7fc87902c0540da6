"""OpenClaw workspaces, recognised by what they hold: what is linted there and what is not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from curator.store.reading import read_store
from tests.conftest import Run, git, memory, write_files

PROSE_INDEX = (
    "# MEMORY.md - long-term memory\n\n## About me\n- Name: Kire.\n- Likes short answers.\n"
)
WORKSPACE = {
    "MEMORY.md": PROSE_INDEX,
    "AGENTS.md": "# Agents\nRead memory/ at start.\n",
    "SOUL.md": "# Soul\n",
    "docs/guide.md": "# A guide, not a memory\n",
    "memory/2026-03-01.md": "# 2026-03-01\n\n- Bootstrapped identity.\n",
    "memory/2026-03-02-deploy.md": "# Deploy\n\nThe release cut is planned for 2026-03-20.\n",
    "memory/learnings/git.md": "# Git\n\nSee [rebase notes](rebase.md).\n",
    "memory/projects/release.md": "# Release\n\nThe release cut is planned for 2026-03-20.\n",
}


def workspace(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    root = write_files(tmp_path / "ws", files or WORKSPACE)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "workspace")
    return root.resolve()


def found(run: Run) -> set[tuple[str, str, int]]:
    assert run.code in (0, 1), run.stderr
    return {
        (d["code"], d["filename"].split("/ws/", 1)[1], d["location"]["row"]) for d in run.json()
    }


def test_a_workspace_is_read_as_its_daily_notes(tmp_path: Path) -> None:
    store = read_store(workspace(tmp_path))
    assert store.layout == "openclaw"
    assert [m.rel for m in store.memories] == [
        "memory/2026-03-01.md",
        "memory/2026-03-02-deploy.md",
        "memory/learnings/git.md",
        "memory/projects/release.md",
    ]  # AGENTS.md, SOUL.md and docs/ are the workspace's, not memories
    assert store.index is not None and store.index.lines[0].startswith("# MEMORY.md")


def test_a_claude_store_with_dated_names_stays_a_claude_store(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "mem",
        {
            "MEMORY.md": "- [Log](memory/2026-03-01.md)\n",
            "memory/MEMORY.md": "- [Day](2026-03-01.md)\n",  # its own index: a store
            "memory/2026-03-01.md": "# Day\n",
        },
    )
    assert read_store(root).layout == "claude"
    framed = write_files(tmp_path / "framed", {"memory/2026-03-01.md": memory(), "AGENTS.md": ""})
    assert read_store(framed).layout == "claude"  # dated, but with frontmatter


def test_lint_a_workspace_checks_dates_links_and_budget_not_frontmatter(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    files = dict(WORKSPACE, **{"MEMORY.md": PROSE_INDEX + "- more\n" * 250})
    root = workspace(tmp_path, files)

    run = run_curator("lint", ".", "--output-format", "json", "--today", "2026-06-01", cwd=root)

    got = found(run)
    assert ("CUR101", "memory/projects/release.md", 3) in got  # a plan that decayed
    # A daily note is a log: its dates are history, right as written (skip_dated_files).
    assert not any(path == "memory/2026-03-02-deploy.md" for _, path, _ in got)
    assert ("CUR017", "memory/learnings/git.md", 3) in got  # a link to a missing note
    assert ("CUR013", "MEMORY.md", 201) in got  # the budget Claude-style loaders apply
    codes = {code for code, _, _ in got}
    assert not codes & {"CUR001", "CUR002", "CUR003", "CUR005", "CUR011", "CUR014", "CUR016"}
    assert not any(path.startswith(("docs/", "AGENTS")) for _, path, _ in got)


def test_the_notes_folder_is_linted_in_its_workspace(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    root = workspace(tmp_path, {k: v for k, v in WORKSPACE.items() if k != "MEMORY.md"})

    run = run_curator("lint", "memory", "--output-format", "json", "--today", "2026-03-05",
                      cwd=root)  # fmt: skip

    assert found(run) == {("CUR017", "memory/learnings/git.md", 3)}  # no CUR016, no CUR011
    one = run_curator("lint", "memory/learnings/git.md", "--output-format", "json", cwd=root)
    assert [(d["code"], d["store"]) for d in one.json()] == [("CUR017", str(root))]


def test_a_store_without_an_index_says_one_memory(make_store, run_curator) -> None:
    store = make_store({"a.md": memory()})
    run = run_curator("lint", str(store), "--select", "CUR016", "--output-format", "json")
    [diagnostic] = run.json()
    assert diagnostic["message"] == "The store has 1 memory but no MEMORY.md index"
