"""A dotfiles repository holding one Claude Code store, as the CI and GitHub Action tests
lint it: two memories, and an index (`BROKEN` links a file that is not there)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, memory, write_files

STORE = "claude/projects/-home-me-work-api/memory"
BROKEN = "- [Retries](project_retries.md) — retries\n- [Tests](feedback_test.md) — tests\n"


def dotfiles(root: Path, index: str) -> Path:
    """The repository at `root`, committed, with `index` as the store's MEMORY.md."""
    repo = write_files(
        root,
        {
            f"{STORE}/MEMORY.md": index,
            f"{STORE}/project_retries.md": memory("The queue owns retries.\n", name="r"),
            f"{STORE}/feedback_tests.md": memory("Focused tests first.\n", type="feedback"),
        },
    )
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory")
    return repo
