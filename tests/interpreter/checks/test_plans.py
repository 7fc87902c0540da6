"""CUR207 plan_done: a plan names a file a commit after the memory's last change added."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import lint_json, memory
from tests.helpers.history_repo import commit

PLAN = (
    "# Session hook: the plan\n"
    "\n"
    "## Phase 1 (done)\n"
    "\n"
    "- `scripts/setup.sh` sets the machine up.\n"
    "\n"
    "## Roadmap\n"
    "\n"
    "### Phase 2 (planned): session hook\n"
    "\n"
    "- Keep `scripts/setup.sh` as it is.\n"
    "- ✅ `scripts/lint.sh` added first.\n"
    "- Write `scripts/session-start.sh` and wire it into settings.\n"
    "\n"
    "## Notes\n"
    "\n"
    "- `scripts/notes.sh` prints them.\n"
)


def plan_repo(root: Path) -> Path:
    """A memory committed on 2026-04-20 beside `scripts/setup.sh`; two days later a commit
    adds the scripts it plans, and one it only notes."""
    commit(
        root,
        "plan the hook",
        "2026-04-20",
        files={
            "memory/project_hook.md": memory(PLAN),
            "scripts/setup.sh": "echo setup\n",
        },
    )
    new = {f"scripts/{n}.sh": f"echo {n}\n" for n in ("session-start", "lint", "notes")}
    commit(root, "add the session hook", "2026-04-22", files=new)
    return root.resolve()


def plan_hits(run) -> list[tuple[int, str]]:
    assert run.code in (0, 1), run.stderr
    return [(d["location"]["row"], d["message"]) for d in run.json() if d["code"] == "CUR207"]


def test_a_plan_whose_file_a_later_commit_added_is_reported_at_the_plan(tmp_path, run_curator):
    repo = plan_repo(tmp_path / "repo")
    run = lint_json(run_curator, repo / "memory", "CUR207", "--today", "2026-12-02")
    # The nearest plan holds it: the phase, not the roadmap around it.
    heading = memory(PLAN).splitlines().index("### Phase 2 (planned): session hook") + 1
    sha = run.json()[0]["detail"]["commit"]
    assert plan_hits(run) == [
        (
            heading,
            "'Phase 2 (planned): session hook' has moved on: 'scripts/session-start.sh' "
            f'(line {heading + 4}) was added in {sha} (2026-04-22, "add the session hook"), '
            "after the memory's last change ("
            + run.json()[0]["detail"]["last_change"]
            + "); mark what is done or retire the plan",
        )
    ]
    assert run.json()[0]["severity"] == "info"


def test_a_memory_changed_since_is_newer_than_the_commit(tmp_path, run_curator):
    """Edited after the scripts landed (uncommitted: its mtime is today), the plan is the
    owner's current word."""
    repo = plan_repo(tmp_path / "repo")
    path = repo / "memory" / "project_hook.md"
    path.write_text(path.read_text() + "Still to wire into settings.\n")
    run = lint_json(run_curator, repo / "memory", "CUR207", "--today", "2026-12-02")
    assert plan_hits(run) == []


def test_a_dotfiles_store_that_names_its_own_folder_names_its_checkout(tmp_path, run_curator):
    """A store at `claude/memory` of a dotfiles repository whose memory says
    `~/dotfiles/claude/memory/` is kept in `~/dotfiles`: `~/dotfiles/claude/...` paths are
    this repository's, for CUR207 and CUR201 alike."""
    body = (
        "Memory lives in `~/dotfiles/claude/memory/` on every host.\n"
        "\n"
        "## Next steps\n"
        "\n"
        "- Hook script `~/dotfiles/claude/scripts/start.sh`.\n"
        "- Sync with `~/dotfiles/claude/scripts/sync.sh` as before.\n"
    )
    repo = tmp_path / "dotfiles"
    commit(
        repo,
        "memory",
        "2026-04-20",
        files={
            "claude/memory/project_sync.md": memory(body),
            "claude/scripts/sync.sh": "echo sync\n",
            "claude/settings.json": "{}\n",
        },
    )
    commit(repo, "hook", "2026-04-22", files={"claude/scripts/start.sh": "echo start\n"})
    commit(repo, "sync goes", "2026-05-02", delete=("claude/scripts/sync.sh",))
    store = repo.resolve() / "claude" / "memory"
    run = lint_json(run_curator, store, "CUR207,CUR201", "--today", "2026-12-02")
    found = sorted((d["code"], d["location"]["row"], d["detail"]["path"]) for d in run.json())
    lines = memory(body).splitlines()
    assert found == [
        ("CUR201", len(lines), "~/dotfiles/claude/scripts/sync.sh"),
        ("CUR207", lines.index("## Next steps") + 1, "~/dotfiles/claude/scripts/start.sh"),
    ], run.stderr
    assert {os.path.basename(d["filename"]) for d in run.json()} == {"project_sync.md"}


def test_a_store_committed_elsewhere_is_dated_by_the_day_of_its_commit(tmp_path, run_curator):
    """A store in a dotfiles repository, about a project in another: only the day of the
    memory's commit is known, so a file the project added that same day proves nothing."""
    body = "## Next steps\n\n- Add `scripts/same-day.sh`.\n- Then `scripts/next-day.sh`.\n"
    dotfiles = tmp_path / "dotfiles"
    commit(dotfiles, "memory", "2026-04-20", files={"memory/project_p.md": memory(body)})
    project = tmp_path / "project"
    commit(project, "init", "2026-04-01", files={"README.md": "p\n"})
    commit(project, "same day", "2026-04-20", files={"scripts/same-day.sh": "echo\n"})
    commit(project, "next day", "2026-04-22", files={"scripts/next-day.sh": "echo\n"})
    store = dotfiles.resolve() / "memory"
    run = lint_json(
        run_curator, store, "CUR207", "--today", "2026-12-02", "--repo-root", str(project.resolve())
    )
    assert [(d["detail"]["path"], d["detail"]["last_change"]) for d in run.json()] == [
        ("scripts/next-day.sh", "its commit of 2026-04-20")
    ], run.stderr


def test_hostile_plans_and_home_paths_do_not_hang(tmp_path, run_curator):
    """Thousands of plans naming paths, and a line of `~/a/` repeated that a naive pattern
    for the store's own folder reads in quadratic time, finish promptly (run_curator's
    subprocess timeout is the guard, not a timing assertion)."""
    body = "## TODO\n- `scripts/x.sh`\n" * 5_000 + "~/a/" * 100_000 + "\n"
    repo = tmp_path / "dotfiles"
    commit(repo, "memory", "2026-04-20", files={"claude/memory/project_p.md": memory(body)})
    commit(repo, "script", "2026-04-22", files={"scripts/x.sh": "echo\n"})
    store = repo.resolve() / "claude" / "memory"
    run = lint_json(run_curator, store, "CUR201,CUR207", "--today", "2026-12-02")
    assert run.code in (0, 1), run.stderr
    assert len([d for d in run.json() if d["code"] == "CUR207"]) == 5_000
