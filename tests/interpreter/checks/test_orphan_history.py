"""CUR011 reads the history of MEMORY.md: an orphan whose index line a commit removed."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import lint_json, memory
from tests.helpers.history_repo import commit

INDEX = (
    "- [Deploys](deploy.md) — how we ship\n"
    "- [Lessons](lessons.md) — what went wrong before\n"
    "- [Style](style.md) — naming\n"
)


def test_an_orphan_whose_index_line_a_commit_removed_says_so(tmp_path: Path, run_curator):
    repo = tmp_path / "project"
    files = {
        ".claude/memory/MEMORY.md": INDEX,
        ".claude/memory/deploy.md": memory("Ship on Fridays.\n"),
        ".claude/memory/lessons.md": memory("Never skip the canary.\n"),
        ".claude/memory/style.md": memory("snake_case.\n"),
        ".claude/memory/scratch.md": memory("Never indexed.\n"),
    }
    commit(repo, "start the memory", "2026-03-01", files=files)
    # One commit rewords a line (the memory is still pointed to), the next drops one.
    reworded = INDEX.replace("naming\n", "naming rules\n")
    commit(repo, "reword style", "2026-04-01", files={".claude/memory/MEMORY.md": reworded})
    trimmed = reworded.replace("- [Lessons](lessons.md) — what went wrong before\n", "")
    commit(repo, "trim memory index", "2026-05-02", files={".claude/memory/MEMORY.md": trimmed})

    run = lint_json(run_curator, repo / ".claude/memory", "CUR011", "--today", "2026-12-02")

    by_file = {Path(d["filename"]).name: d for d in run.json()}
    assert sorted(by_file) == ["lessons.md", "scratch.md"]
    lessons = by_file["lessons.md"]["message"]
    assert lessons.startswith("'lessons.md' is neither linked nor named in MEMORY.md")
    assert lessons.endswith(
        '(2026-05-02, "trim memory index"); delete the file, or restore the line'
    )
    assert ": its index line was removed in " in lessons
    # A file no line ever pointed to has no such history.
    assert "removed" not in by_file["scratch.md"]["message"]
    # The fix restores the line history removed; the other adds a new one.
    assert by_file["lessons.md"]["fix"]["description"] == "restore the index line for lessons.md"
    assert by_file["scratch.md"]["fix"]["description"] == "add an index line for scratch.md"
