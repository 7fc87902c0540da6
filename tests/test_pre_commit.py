"""curator's pre-commit hooks, installed from this checkout by the real `pre-commit` into a
throwaway dotfiles repository, refusing and accepting real `git commit`s."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import git, memory, snapshot_checkout, write_files

API = "claude/projects/-home-me-work-api/memory"
NOTES = "claude/projects/-home-me-notes/memory"


def test_hook_refuses_a_broken_index_and_accepts_a_clean_memory(tmp_path: Path) -> None:
    hook_repo = tmp_path / "curator-src"
    rev = snapshot_checkout(hook_repo)

    dotfiles = tmp_path / "dotfiles"
    write_files(
        dotfiles,
        {
            f"{API}/MEMORY.md": "- [Retries](project_retries.md) — who owns retries\n",
            f"{API}/project_retries.md": memory("The queue owns retries.\n", name="retries"),
            f"{NOTES}/MEMORY.md": "- [Role](user_role.md) — who I am\n",
            f"{NOTES}/user_role.md": memory("I lead the billing team.\n", type="user"),
            # Already committed and never linked: the per-file hook must not report it
            # when other files are committed; the whole-store hook does.
            f"{NOTES}/user_stray.md": memory("A stray note.\n", type="user", name="stray"),
            ".pre-commit-config.yaml": (
                "repos:\n"
                f"  - repo: {hook_repo}\n"
                f"    rev: {rev}\n"
                "    hooks:\n"
                "      - id: curator\n"
                "      - id: curator-store\n"
                "        stages: [manual]\n"
            ),
        },
    )
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    env.pop("GITHUB_ACTIONS", None)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, cwd=dotfiles, env=env, capture_output=True, text=True, timeout=600
        )

    git(dotfiles, "init", "-q", "-b", "main")
    git(dotfiles, "add", "-A")
    git(dotfiles, "commit", "-q", "--no-verify", "-m", "stores")
    installed = run(sys.executable, "-m", "pre_commit", "install")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    # Build the hook's environment once, outside the commit, so a failure shows its log.
    setup = run(sys.executable, "-m", "pre_commit", "install-hooks")
    assert setup.returncode == 0, setup.stdout + setup.stderr

    # A new memory whose index line has a typo: the commit is refused with the diagnostic.
    write_files(
        dotfiles,
        {
            f"{API}/feedback_tests.md": memory("Run the focused tests first.\n", type="feedback"),
            f"{API}/MEMORY.md": (
                "- [Retries](project_retries.md) — who owns retries\n"
                "- [Tests](feedback_test.md) — focused tests first\n"
            ),
        },
    )
    git(dotfiles, "add", "-A")
    refused = run("git", "commit", "-m", "add a feedback memory")
    out = refused.stdout + refused.stderr
    assert refused.returncode != 0, out
    assert "curator (memory files)" in out and "Failed" in out
    assert (
        f"{API}/MEMORY.md:2:3: CUR010 MEMORY.md links 'feedback_test.md', which does not exist"
        in out
    )
    assert f"{API}/feedback_tests.md:1:1: CUR011" in out  # orphaned by the same typo
    assert "user_stray.md" not in out  # another store's old finding is not this commit's
    assert git(dotfiles, "rev-list", "--count", "HEAD").strip() == "1"

    # The index fixed: the same commit is accepted.
    (dotfiles / API / "MEMORY.md").write_text(
        "- [Retries](project_retries.md) — who owns retries\n"
        "- [Tests](feedback_tests.md) — focused tests first\n",
        encoding="utf-8",
    )
    git(dotfiles, "add", "-A")
    accepted = run("git", "commit", "-m", "add a feedback memory")
    out = accepted.stdout + accepted.stderr
    assert accepted.returncode == 0, out
    assert "curator (memory files)" in out and "Passed" in out
    assert git(dotfiles, "rev-list", "--count", "HEAD").strip() == "2"

    # The whole-store hook sees every store, so it finds the stray memory.
    whole = run(
        sys.executable, "-m", "pre_commit", "run", "curator-store", "--hook-stage", "manual",
        "--all-files",
    )  # fmt: skip
    out = whole.stdout + whole.stderr
    assert whole.returncode == 1, out
    assert f"{NOTES}/user_stray.md:1:1: CUR011" in out
    assert f"== {API}: clean ==" in out
