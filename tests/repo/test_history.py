"""The history index: what a repository had and lost, from real commits with set dates."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from curator.repo.history import open_index
from tests.conftest import lint_json, memory
from tests.helpers.history_repo import commit, git, recording_git

EXCLUDE = ("*.md",)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    commit(
        root,
        "init",
        "2026-01-10",
        files={
            "src/ingest.py": "class FlushQueue:\n    pass\n\ndef drain_all():\n    pass\n",
            "docs/setup.md": "# Setup\n",
            "tools/viewer.py": "def view(): ...\n",
            "notes.md": "FlushQueue is documented here; DocOnlyName too.\n",
        },
    )
    commit(root, "rename setup", "2026-02-01", rename={"docs/setup.md": "docs/install.md"})
    commit(root, "drop the old ingest", "2026-03-02", delete=("src/ingest.py",))
    commit(root, "viewer to tools/view", "2026-03-05", rename={"tools/viewer.py": "tools/view.py"})
    commit(root, "viewer into app", "2026-03-06", rename={"tools/view.py": "app/viewer_main.py"})
    commit(root, "notes trimmed", "2026-03-07", files={"notes.md": "Nothing here.\n"})
    return root.resolve()


def present_in(root: Path):  # type: ignore[no-untyped-def]
    tracked = set(git(root, "ls-files").split())
    return lambda rel: rel in tracked or os.path.lexists(root / rel)


def test_gone_paths_have_their_fate(repo: Path, tmp_path: Path) -> None:
    index = open_index(repo, tmp_path / "cache", EXCLUDE)
    assert index is not None and index.stats.mode == "built"
    present = present_in(repo)

    deleted = index.fate("src/ingest.py", present)
    assert deleted is not None and deleted.event == "deleted"
    assert (deleted.commit.subject, deleted.commit.time) == ("drop the old ingest", 1772452800)
    assert len(deleted.commit.short) == 7 and deleted.commit.sha.startswith(deleted.commit.short)

    moved = index.fate("docs/setup.md", present)
    assert moved is not None and (moved.event, moved.target) == ("moved", "docs/install.md")
    assert moved.commit.subject == "rename setup"

    # a -> b -> c reports c, with the commit of the last move
    twice = index.fate("tools/viewer.py", present)
    assert twice is not None and (twice.target, twice.commit.subject) == (
        "app/viewer_main.py",
        "viewer into app",
    )
    assert index.fate("docs/install.md", present) is None  # here today
    assert index.fate("never/was.py", present) is None


def test_removed_identifiers_name_their_file_and_commit(repo: Path, tmp_path: Path) -> None:
    index = open_index(repo, tmp_path / "cache", EXCLUDE)
    assert index is not None
    found = index.removals(["FlushQueue", "drain_all", "DocOnlyName", "NeverThere"])
    assert sorted(found) == ["FlushQueue", "drain_all"]  # markdown is not code
    flush = found["FlushQueue"]
    assert (flush.file, flush.commit.subject, flush.defined) == (
        "src/ingest.py",
        "drop the old ingest",
        True,
    )


def test_a_removed_definition_keeps_its_own_commit_and_file(tmp_path: Path) -> None:
    """The newest removal of a name may be a call; where its definition went is kept too
    (what CUR202 cites when only comments still mention the name), and an update's newer
    definition removal replaces the indexed one."""
    root = tmp_path / "repo"
    app = "from a import load_map\nload_map()\n"
    commit(root, "init", "2026-01-10", files={"a.py": "def load_map():\n    pass\n", "app.py": app})
    commit(
        root, "move", "2026-02-01", files={"a.py": "\n", "b.py": "def load_map():\n    return 1\n"}
    )
    commit(root, "drop", "2026-03-01", delete=("b.py",))
    commit(root, "unhook", "2026-04-01", files={"app.py": "print(1)\n"})
    cache = tmp_path / "cache"
    index = open_index(root, cache, EXCLUDE)
    assert index is not None
    gone = index.removals(["load_map"])["load_map"]
    assert (gone.commit.subject, gone.file, gone.defined) == ("unhook", "app.py", True)
    assert gone.defined_commit is not None
    assert (gone.defined_commit.subject, gone.defined_file) == ("drop", "b.py")
    index.close()

    commit(root, "back", "2026-05-01", files={"c.py": "def load_map():\n    return 2\n"})
    commit(root, "gone again", "2026-05-02", delete=("c.py",))
    updated = open_index(root, cache, EXCLUDE)
    assert updated is not None and updated.stats.mode == "updated"
    again = updated.removals(["load_map"])["load_map"]
    assert again.defined_commit is not None
    assert (again.defined_commit.subject, again.defined_file) == ("gone again", "c.py")
    updated.close()


def test_a_path_deleted_and_added_back_is_present(tmp_path: Path) -> None:
    root = tmp_path / "r"
    commit(root, "a", "2026-01-01", files={"x.py": "X = 1\n"})
    commit(root, "gone", "2026-01-02", delete=("x.py",))
    commit(root, "back", "2026-01-03", files={"x.py": "X = 2\n"})
    index = open_index(root, tmp_path / "cache", EXCLUDE)
    assert index is not None
    assert index.fate("x.py", present_in(root.resolve())) is None


def test_a_path_that_left_in_a_merge_has_a_fate(tmp_path: Path) -> None:
    root = tmp_path / "r"
    commit(root, "base", "2026-01-01", files={"keep.py": "K = 1\n", "old.py": "O = 1\n"})
    git(root, "checkout", "-q", "-b", "side")
    commit(root, "side work", "2026-01-02", files={"side.py": "S = 1\n"})
    git(root, "checkout", "-q", "main")
    commit(root, "main work", "2026-01-03", files={"main.py": "M = 1\n"})
    git(root, "merge", "-q", "--no-ff", "--no-commit", "side")
    git(root, "rm", "-q", "old.py")  # dropped while resolving the merge: no delete commit
    git(root, "commit", "-q", "-m", "merge side", day="2026-01-04")
    index = open_index(root, tmp_path / "cache", EXCLUDE)
    assert index is not None
    fate = index.fate("old.py", present_in(root.resolve()))
    assert fate is not None and (fate.event, fate.commit.subject) == ("deleted", "merge side")


def test_the_cache_is_reused_updated_and_rebuilt(repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = open_index(repo, cache, EXCLUDE)
    assert first is not None and first.stats.mode == "built"
    first.close()
    again = open_index(repo, cache, EXCLUDE)
    assert again is not None and again.stats.mode == "cached"
    again.close()

    commit(repo, "install goes", "2026-04-01", delete=("docs/install.md",))
    updated = open_index(repo, cache, EXCLUDE)
    assert updated is not None and updated.stats.mode == "updated"
    fate = updated.fate("docs/setup.md", present_in(repo))
    assert fate is not None and fate.event == "deleted"
    assert (fate.commit.subject, fate.last_path) == ("install goes", "docs/install.md")
    updated.close()

    # The hook's limit: more new commits than it may index itself means no index now.
    for n in range(3):
        commit(repo, f"c{n}", "2026-04-02", files={f"f{n}.py": "x = 1\n"})
    assert open_index(repo, cache, EXCLUDE, allow_build=False, max_update_commits=2) is None

    # A HEAD that does not descend from the indexed one is rebuilt.
    git(repo, "reset", "-q", "--hard", "HEAD~5")
    commit(repo, "another line", "2026-04-03", files={"other.py": "o = 1\n"})
    rebuilt = open_index(repo, cache, EXCLUDE)
    assert rebuilt is not None and rebuilt.stats.mode == "built"
    assert rebuilt.fate("docs/setup.md", present_in(repo)).event == "moved"  # type: ignore[union-attr]


def test_a_corrupt_cache_is_rebuilt_silently(repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert open_index(repo, cache, EXCLUDE) is not None
    (stored,) = cache.glob("*.sqlite")
    stored.write_bytes(b"this is not a database" * 100)
    index = open_index(repo, cache, EXCLUDE)
    assert index is not None and index.stats.mode == "built"
    assert index.fate("src/ingest.py", present_in(repo)) is not None
    with sqlite3.connect(stored) as db:  # and the file on disk is a good index again
        assert db.execute("SELECT value FROM meta WHERE key='head'").fetchone()[0]


def test_a_shallow_clone_says_so(repo: Path, tmp_path: Path) -> None:
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    index = open_index(clone, tmp_path / "cache", EXCLUDE)
    assert index is not None
    assert any("shallow clone" in limit and "fetch-depth: 0" in limit for limit in index.limits)
    assert (
        index.fate("src/ingest.py", present_in(clone.resolve())) is None
    )  # not in what was fetched


def test_a_partial_clone_is_not_read_for_identifiers(repo: Path, tmp_path: Path) -> None:
    git(repo, "config", "remote.origin.promisor", "true")
    index = open_index(repo, tmp_path / "cache", EXCLUDE)
    assert index is not None
    assert any("partial clone" in limit for limit in index.limits)
    assert index.removals(["FlushQueue"]) == {}
    assert index.fate("src/ingest.py", present_in(repo)) is not None  # paths still known


def test_an_unreadable_object_is_said_and_the_rest_of_history_still_read(
    repo: Path, tmp_path: Path
) -> None:
    # Remove the blob of the first version of notes.md: git stops at the commit whose
    # diff needs it; the index goes on past it and says history is incomplete.
    blob = git(repo, "rev-parse", "HEAD~5:notes.md").strip()
    loose = repo / ".git" / "objects" / blob[:2] / blob[2:]  # fresh commits are loose objects
    assert loose.exists()
    loose.unlink()
    index = open_index(repo, tmp_path / "cache", EXCLUDE)
    assert index is not None
    assert any("could not read all of history" in limit for limit in index.limits)
    fate = index.fate("src/ingest.py", present_in(repo))
    assert fate is not None and fate.commit.subject == "drop the old ingest"


def test_a_path_added_and_deleted_in_the_same_second_is_deleted(tmp_path: Path) -> None:
    """A rebase or a script writes both commits within one second: log order (newest
    first), not the equal commit times, says which event is the last."""
    root = tmp_path / "r"
    commit(root, "base", "2026-01-01", files={"keep.py": "K = 1\n"})
    commit(root, "add it", "2026-01-02", files={"tmp.py": "T = 1\n"})
    commit(root, "drop it", "2026-01-02", delete=("tmp.py",))
    index = open_index(root, tmp_path / "cache", EXCLUDE)
    assert index is not None
    fate = index.fate("tmp.py", present_in(root.resolve()))
    assert fate is not None and (fate.event, fate.commit.subject) == ("deleted", "drop it")


def test_a_delete_in_the_same_second_as_the_indexed_add_wins_on_update(tmp_path: Path) -> None:
    """The index was built after the add; the delete comes in an update with an equal
    commit time: the update is newer, whatever the clock says."""
    root = tmp_path / "r"
    commit(root, "add it", "2026-01-02", files={"tmp.py": "T = 1\n"})
    assert open_index(root, tmp_path / "cache", EXCLUDE) is not None
    commit(root, "drop it", "2026-01-02", delete=("tmp.py",))
    index = open_index(root, tmp_path / "cache", EXCLUDE)
    assert index is not None and index.stats.mode == "updated"
    fate = index.fate("tmp.py", present_in(root.resolve()))
    assert fate is not None and (fate.event, fate.commit.subject) == ("deleted", "drop it")


def test_what_a_commit_added_is_asked_of_git_once(tmp_path: Path, make_store, run_curator) -> None:
    root = tmp_path / "repo"
    commit(root, "init", "2026-01-10", files={"src/billing.py": "class FlushQueue: ...\n"})
    commit(root, "queue rewrite", "2026-05-11", files={"src/billing.py": "class DrainQueue: ...\n"})
    calls, env = recording_git(tmp_path)
    store = make_store({"project_code.md": memory("- `FlushQueue()` drains it\n")})
    messages, shows = [], []
    for _ in range(2):
        run = lint_json(run_curator, store, "CUR202", "--repo-root", str(root.resolve()), env=env)
        messages.append([d["message"] for d in run.json()])
        shows.append(sum(" show " in f" {c} " for c in calls.read_text().splitlines()))
        calls.unlink()
    assert "renamed to 'DrainQueue'?" in messages[0][0]
    assert messages[1] == messages[0]
    assert shows == [1, 0]  # the second run reads it from the index
