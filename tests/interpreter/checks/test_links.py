"""Links between memories (CUR017) and orphans (CUR011), on stores inside real repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Run, git, locate, memory, write_files


def repo_with_store(tmp_path: Path, files: dict[str, str]) -> Path:
    root = write_files(tmp_path / "project", {"docs/deploy.md": "# Deploy\n", **files})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root.resolve()


def diagnostics(run: Run, code: str) -> list[tuple[str, int, int, str]]:
    assert run.code in (0, 1), run.stderr
    return sorted(
        (d["filename"].split("/memory/", 1)[1], d["location"]["row"], d["location"]["column"],
         d["message"])
        for d in run.json()
        if d["code"] == code
    )  # fmt: skip


def test_broken_links_between_memories_at_their_line_and_column(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    body = (
        "Ship with [the runbook](project_runbook.md) and [docs](../../docs/deploy.md).\n"
        "Old: [gone docs](../../docs/old.md), [[rollback-steps]], [[Release Train|train]].\n"
        "Also [[nowhere]] and [the tag list](tags.md#list).\n"
    )
    deploys = memory(body, name="deploys")
    root = repo_with_store(
        tmp_path,
        {
            ".claude/memory/MEMORY.md": "- [Deploys](deploys.md) — how we ship\n",
            ".claude/memory/deploys.md": deploys,
            ".claude/memory/rollback_steps.md": memory(name="rollback"),
            ".claude/memory/project_train.md": memory(name="release train"),
            ".claude/memory/tags.md": memory(name="tags"),
        },
    )

    run = run_curator(
        "lint", ".claude/memory", "--output-format", "json", "--select", "CUR017", cwd=root
    )

    assert diagnostics(run, "CUR017") == [
        ("deploys.md", *locate(deploys, "[the runbook]"),
         "Link to 'project_runbook.md' leads nowhere: there is no project_runbook.md"),
        ("deploys.md", *locate(deploys, "[gone docs]"),
         "Link to '../../docs/old.md' leads nowhere: there is no docs/old.md"),
        ("deploys.md", *locate(deploys, "[[nowhere]]"),
         "Link to '[[nowhere]]' leads nowhere: no memory has the file name or name 'nowhere', and no skill has that name"),
    ]  # fmt: skip


def test_a_link_out_of_the_store_is_not_judged_without_a_repository(
    make_store, run_curator: Callable[..., Run]
) -> None:
    store = make_store(
        {"MEMORY.md": "- [A](a.md)\n", "a.md": memory("See [x](../elsewhere/x.md).\n")}
    )
    run = run_curator("lint", str(store), "--output-format", "json", "--select", "CUR017")
    assert run.code == 0 and run.json() == []


def test_orphans_count_mentions_and_reachable_links(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    index = (
        "# Memory\n"
        "- [Deploys](deploys.md) — how we ship\n"
        "- Testing: see `feedback_testing.md`; details in user_profile.\n"
    )
    root = repo_with_store(
        tmp_path,
        {
            "memory/MEMORY.md": index,
            "memory/deploys.md": memory("Rollbacks: [[rollback]].\n", name="deploys"),
            "memory/rollback.md": memory("Older notes: [old](old_rollback.md).\n"),
            "memory/old_rollback.md": memory(),
            "memory/feedback_testing.md": memory(type="feedback"),
            "memory/user_profile.md": memory(type="user"),
            "memory/lonely.md": memory("Points to [[stray]].\n"),
            "memory/stray.md": memory(),
        },
    )

    run = run_curator("lint", "memory", "--output-format", "json", "--select", "CUR011", cwd=root)

    assert diagnostics(run, "CUR011") == [
        ("lonely.md", 1, 1, "'lonely.md' is neither linked nor named in MEMORY.md, nor in any "
         "memory it reaches, so the agent is never pointed to it"),
        ("stray.md", 1, 1, "'stray.md' is linked or named only in 'lonely.md', which MEMORY.md "
         "does not reach either, so the agent is never pointed to it"),
    ]  # fmt: skip
