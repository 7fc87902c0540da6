"""A memory's write date and where it came from: frontmatter, its last commit in the
repository that holds the store, its mtime; and the JSON cache of commit dates."""

from __future__ import annotations

import json
import os
from datetime import date, datetime
from pathlib import Path

import pytest

from curator.config import Config
from curator.interpreter.context import Context
from curator.interpreter.write_dates import WriteDate, write_date
from curator.store.reading import read_store
from tests.conftest import git, memory, write_files
from tests.helpers.history_repo import commit

TODAY = date(2026, 12, 1)
NEXT_WEEK = memory("Revisit the cache design next week.\n", name="cache")


@pytest.fixture
def dotfiles(tmp_path: Path) -> Path:
    """A repository holding a store, every memory committed on 2026-03-10, mtimes today."""
    repo = tmp_path / "dotfiles"
    write_files(
        repo,
        {
            "claude/memory/plain.md": NEXT_WEEK,
            "claude/memory/modified.md": memory("x\n", extra="modified: 2026-02-01"),
            "claude/memory/promoted.md": memory(
                "x\n", extra="promoted_at: 2026-01-02T10:00:00Z\ncreated_at: 2025-12-01"
            ),
            "claude/memory/created.md": memory("x\n", extra="created_at: 2025-12-01"),
            "claude/memory/sub/nested.md": NEXT_WEEK,
            "claude/memory/bom.md": "\ufeff" + NEXT_WEEK,
        },
    )
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "memories", "2026-03-10")
    return repo


def dates_of(store: Path) -> dict[str, WriteDate]:
    ctx = Context(store=read_store(store), config=Config(), today=TODAY)
    return {m.rel: write_date(ctx, m) for m in ctx.store.memories}


def test_frontmatter_then_commit_then_mtime(dotfiles: Path) -> None:
    store = dotfiles / "claude" / "memory"
    (store / "edited.md").write_text(NEXT_WEEK)
    commit(dotfiles, "edited", "2026-03-12")
    (store / "edited.md").write_text(NEXT_WEEK + "Changed since.\n")
    (store / "untracked.md").write_text(NEXT_WEEK)
    today = date.today()

    found = {rel: (w.day, w.source) for rel, w in dates_of(store).items()}

    assert found == {
        "modified.md": (date(2026, 2, 1), "modified"),
        "promoted.md": (date(2026, 1, 2), "promoted_at"),
        "created.md": (date(2025, 12, 1), "created_at"),
        "plain.md": (date(2026, 3, 10), "commit"),
        "sub/nested.md": (date(2026, 3, 10), "commit"),
        "bom.md": (date(2026, 3, 10), "commit"),
        "untracked.md": (today, "mtime"),
        "edited.md": (today, "mtime"),  # changed since its commit: the mtime is the witness
    }
    labels = {rel: w.label for rel, w in dates_of(store).items()}
    assert labels["plain.md"] == "the commit of 2026-03-10"
    assert labels["modified.md"] == "modified: 2026-02-01"
    assert labels["untracked.md"] == f"the file's mtime ({today.isoformat()})"


def test_the_last_commit_that_touched_the_file_counts(dotfiles: Path) -> None:
    store = dotfiles / "claude" / "memory"
    (store / "plain.md").write_text(NEXT_WEEK + "Second thought.\n")
    commit(dotfiles, "second", "2026-04-20")
    (dotfiles / "elsewhere.txt").write_text("unrelated\n")
    commit(dotfiles, "unrelated", "2026-05-30")

    found = dates_of(store)

    assert (found["plain.md"].day, found["plain.md"].source) == (date(2026, 4, 20), "commit")
    assert found["sub/nested.md"].day == date(2026, 3, 10)


def test_a_store_outside_git_uses_mtimes(tmp_path: Path) -> None:
    store = write_files(tmp_path / "memory", {"a.md": NEXT_WEEK})
    mtime = datetime(2026, 2, 3, 12).timestamp()
    os.utime(store / "a.md", (mtime, mtime))
    assert dates_of(store)["a.md"] == WriteDate(date(2026, 2, 3), "mtime")


def test_commit_dates_are_cached_as_json_per_head(dotfiles: Path, tmp_path: Path) -> None:
    store = dotfiles / "claude" / "memory"
    dates_of(store)
    (cache,) = (tmp_path / "onlooker" / "curator" / "cache" / "commit-dates").glob("*.json")
    data = json.loads(cache.read_text())
    head = git(dotfiles, "rev-parse", "HEAD").strip()
    assert data["head"] == head
    assert data["files"]["plain.md"][1] == "2026-03-10"
    assert set(data["files"]) >= {"plain.md", "sub/nested.md", "modified.md"}

    # The cache is what answers while HEAD stays: a date planted in it is read back.
    data["files"]["plain.md"][1] = "2026-01-05"
    cache.write_text(json.dumps(data))
    assert dates_of(store)["plain.md"].day == date(2026, 1, 5)

    # A new HEAD: a file whose blob changed is dated again; the others keep their dates,
    # so `git log` only walks back to the change.
    (store / "sub" / "nested.md").write_text(NEXT_WEEK + "Edited.\n")
    commit(dotfiles, "edit nested", "2026-06-01")
    found = dates_of(store)
    assert found["sub/nested.md"].day == date(2026, 6, 1)
    assert found["plain.md"].day == date(2026, 1, 5)
    assert json.loads(cache.read_text())["head"] == git(dotfiles, "rev-parse", "HEAD").strip()

    # A torn cache is only a miss: everything is dated from git again.
    cache.write_text("{not json")
    found = dates_of(store)
    assert (found["plain.md"].day, found["sub/nested.md"].day) == (
        date(2026, 3, 10),
        date(2026, 6, 1),
    )


def test_impossible_frontmatter_dates_fall_back(tmp_path: Path) -> None:
    store = write_files(
        tmp_path / "memory",
        {
            "feb30.md": memory("x\n", extra="modified: 2026-02-30\ncreated_at: 2026-01-04"),
            "far.md": memory("x\n", extra="modified: 9999-12-31T23:59:59Z\ncreated_at: 2026-01-05"),
            "zero.md": memory("x\n", extra="modified: 0000-00-00\npromoted_at: 2026-01-06"),
            "old.md": memory("x\n", extra="created_at: 1900-01-01"),
        },
    )
    found = {rel: (w.day, w.source) for rel, w in dates_of(store).items()}
    assert found["feb30.md"] == (date(2026, 1, 4), "created_at")
    assert found["far.md"] == (date(2026, 1, 5), "created_at")
    assert found["zero.md"] == (date(2026, 1, 6), "promoted_at")
    assert found["old.md"][1] == "mtime"
