"""`curator fix --apply` on a real file system: modes and symlinks kept, one apply at a
time, a killed apply rolled back by the next command, storage faults as one line."""

from __future__ import annotations

import fcntl
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from curator.findings import atomic
from curator.fixes import deltas, recovery
from tests.conftest import memory
from tests.fixes.test_fix import INDEX, STORE, _plans
from tests.helpers import forkserver
from tests.helpers.history_repo import commit
from tests.helpers.hook_env import make_env

FIXED = "# Memory\n- [A](a.md) — a\n- [Lonely](orphan.md) — Prefer small PRs\n"


def _env(tmp_path: Path, storage: Path | None = None, **extra: str) -> dict[str, str]:
    drop = ("GITHUB_ACTIONS", "NO_COLOR", "ONLOOKER_EVENTS_LOG", "CURATOR_NESTED")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(
        ONLOOKER_DIR=str(storage or tmp_path / "onlooker"),
        HOME=str(tmp_path / "home"),
        CLAUDE_CONFIG_DIR=str(tmp_path / "claude"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        **extra,
    )
    return env


def _run(tmp_path: Path, *args: str, storage: Path | None = None, **kw: Any):
    return forkserver.run(args, cwd=tmp_path, env=_env(tmp_path, storage), timeout=120, **kw)


def _store_files(store: Path) -> list[str]:
    return sorted(str(p.relative_to(store)) for p in store.rglob("*"))


# --- item 4: modes, owner and symlinks -------------------------------------------------


@pytest.mark.parametrize("mode", [0o664, 0o640, 0o600, 0o644])
def test_apply_and_undo_keep_the_file_mode(make_store, run_curator, mode):
    store = make_store(STORE)
    (store / "MEMORY.md").chmod(mode)
    run_curator("fix", "memory")
    assert run_curator("fix", "memory", "--apply").code == 0
    assert (store / "MEMORY.md").read_text() == FIXED
    assert (store / "MEMORY.md").stat().st_mode & 0o7777 == mode
    assert run_curator("fix", "memory", "--undo").code == 0
    assert (store / "MEMORY.md").read_text() == INDEX
    assert (store / "MEMORY.md").stat().st_mode & 0o7777 == mode


def test_apply_keeps_the_owner_where_it_may(make_store, run_curator):
    store = make_store(STORE)
    if os.geteuid() != 0:
        pytest.skip("only root may give a file to another user")
    os.chown(store / "MEMORY.md", 1234, 4321)
    run_curator("fix", "memory")
    assert run_curator("fix", "memory", "--apply").code == 0
    st = (store / "MEMORY.md").stat()
    assert (st.st_uid, st.st_gid) == (1234, 4321)


def test_a_symlinked_index_inside_the_store_is_edited_through_the_link(make_store, run_curator):
    store = make_store({**STORE, "MEMORY.md": "x", "real/index.md": INDEX})
    (store / "MEMORY.md").unlink()
    (store / "MEMORY.md").symlink_to("real/index.md")
    run_curator("fix", "memory")
    applied = run_curator("fix", "memory", "--apply")
    assert applied.code == 0, applied.stderr
    assert (store / "MEMORY.md").is_symlink()
    assert os.readlink(store / "MEMORY.md") == "real/index.md"
    assert (store / "real" / "index.md").read_text() == FIXED
    assert run_curator("fix", "memory", "--undo").code == 0
    assert (store / "MEMORY.md").is_symlink()
    assert (store / "real" / "index.md").read_text() == INDEX


def test_a_symlink_leaving_the_store_is_refused(make_store, tmp_path):
    store = make_store(STORE)
    plans = _plans(store)  # planned on a regular file; then swapped for a link out
    outside = tmp_path / "elsewhere.md"
    outside.write_text(INDEX)
    (store / "MEMORY.md").unlink()
    (store / "MEMORY.md").symlink_to(outside)
    outcome = deltas.apply(plans, tmp_path / "curator" / "key" / "journal", store)
    assert outcome.applied == []
    assert outcome.refused == [
        (store / "MEMORY.md", "a symlink to a file outside the store; not changed")
    ]
    assert (store / "MEMORY.md").is_symlink() and outside.read_text() == INDEX


# --- item 11: all or nothing in the function itself ------------------------------------


def test_apply_changes_no_file_when_one_of_two_moved_on(make_store, tmp_path):
    store = make_store({**STORE, "db.md": memory("password: hunter2-Xq9vLr7pWm3k\n")})
    plans = _plans(store)
    assert [p.path.name for p in plans] == ["MEMORY.md", "db.md"]
    (store / "db.md").write_text(memory("password: hunter2-Xq9vLr7pWm3k\nmore\n"))
    outcome = deltas.apply(plans, tmp_path / "curator" / "key" / "journal", store)
    assert outcome.applied == []
    assert [p.name for p, _ in outcome.refused] == ["db.md"]
    assert (store / "MEMORY.md").read_text() == INDEX


# --- item 5: one apply at a time ---------------------------------------------------------


def _lock_file(tmp_path: Path) -> Path:
    base = tmp_path / "onlooker" / "curator"
    (project,) = {p.parent for p in [*base.glob("*/fix_plan.json"), *base.glob("*/journal")]}
    return project / "fix.lock"


@pytest.mark.parametrize("action", ["--apply", "--undo"])
def test_a_second_apply_refuses_while_one_holds_the_lock(make_store, run_curator, tmp_path,
                                                         action):  # fmt: skip
    store = make_store(STORE)
    run_curator("fix", "memory")
    if action == "--undo":
        assert run_curator("fix", "memory", "--apply").code == 0
    before = (store / "MEMORY.md").read_text()
    fd = os.open(_lock_file(tmp_path), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another process, as far as the CLI can tell
        second = run_curator("fix", "memory", action)
    finally:
        os.close(fd)
    assert second.code == 2
    assert second.stderr == (
        "curator: error: another curator is applying or undoing a fix in memory; nothing "
        "done, run it again when that one ends\n"
    )
    assert (store / "MEMORY.md").read_text() == before
    journals = list((tmp_path / "onlooker" / "curator").glob("*/journal/*.json"))
    assert len(journals) == (1 if action == "--undo" else 0)
    assert run_curator("fix", "memory", action).code == 0  # once the lock is free


def test_two_applies_at_once_apply_once(make_store, run_curator, tmp_path):
    store = make_store(STORE)
    run_curator("fix", "memory")
    env = _env(tmp_path)
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "curator", "fix", "memory", "--apply"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for r in runs:
        r.communicate(timeout=120)
    codes = sorted(r.returncode for r in runs)
    assert codes == [0, 2]  # the loser refuses: the lock held, or the plan already gone
    assert (store / "MEMORY.md").read_text() == FIXED
    assert len(list((tmp_path / "onlooker" / "curator").glob("*/journal/*.json"))) == 1
    assert run_curator("fix", "memory", "--undo").code == 0
    assert (store / "MEMORY.md").read_text() == INDEX


# --- item 6: kill -9 in the middle of --apply -------------------------------------------

MEMORIES = 29


def _thirty_files(tmp_path: Path, make_store) -> tuple[Path, Path, dict[str, str]]:
    """A store of 30 files to fix: 29 memories naming a moved file, and the index that
    links none of them."""
    repo = tmp_path / "repo"
    commit(repo, "init", "2026-01-10", files={"src/app/server.py": "x = 1\n"})
    commit(repo, "move", "2026-02-10", rename={"src/app/server.py": "src/app/main.py"})
    files = {"MEMORY.md": "# Memory\n"}
    for n in range(MEMORIES):
        body = f"Note {n}: the entry point is `src/app/server.py`.\n"
        files[f"m{n:02}.md"] = memory(body, name=f"M{n}", description=f"note {n}")
    return make_store(files), repo, files


NEXT_COMMANDS = [("lint",), ("scan", "--no-llm"), ("fix",)]


def _kill_points() -> list[str]:
    points = ["fix:backups", "fix:journal", "fix:temp:0", "fix:file:0"]
    for n in range(1, MEMORIES + 1, 3):  # a temp file written, then a file renamed
        points += [f"fix:temp:{n}", f"fix:file:{min(n + 1, MEMORIES)}"]
    return points


def test_an_apply_killed_anywhere_is_rolled_back_by_the_next_command(make_store, tmp_path):
    store, repo, files = _thirty_files(tmp_path, make_store)
    shown = _run(tmp_path, "fix", "memory", "--repo-root", str(repo))
    assert "fixes in 30 files" in shown.stderr, shown.stderr
    project = next((tmp_path / "onlooker" / "curator").glob("*/fix_plan.json")).parent
    points = _kill_points()
    assert len(points) >= 20
    results = {}
    for point in points:
        env = _env(tmp_path, CURATOR_KILL_AT=point)
        killed = forkserver.run(["fix", "memory", "--apply", "--repo-root", str(repo)],
                                cwd=tmp_path, env=env, timeout=120)  # fmt: skip
        assert killed.returncode == -signal.SIGKILL, (point, killed.stderr)
        new = [n for n, text in files.items() if (store / n).read_text() != text]
        assert _store_files(store) == sorted(files), point  # no temporary file in the store
        if point.startswith("fix:temp:"):  # it lives in curator's own folder
            assert len(list((project / "tmp").iterdir())) == 1, point
        # The next command that touches the store, whichever it is, rolls back.
        command = NEXT_COMMANDS[len(results) % len(NEXT_COMMANDS)]
        linted = _run(tmp_path, *command, "memory", "--repo-root", str(repo))
        assert "Traceback" not in linted.stderr
        recovered = [ln for ln in linted.stderr.splitlines() if "was interrupted" in ln]
        if point == "fix:backups":
            assert new == [] and recovered == []
        else:
            assert recovered == [
                "curator: a `curator fix --apply` was interrupted; rolled back: "
                f"{len(new)} of 30 files put back as they were, temporary files removed"
            ], point
        assert all((store / n).read_text() == text for n, text in files.items()), point
        assert _store_files(store) == sorted(files), point
        assert list((project / "tmp").iterdir()) == [], point
        assert list((tmp_path / "onlooker" / "curator" / "pending").iterdir()) == [], point
        results[point] = len(new)
    print("files changed when killed, then rolled back:", results)
    # The plan still stands: applied to the end, then undone, as if nothing had happened.
    applied = _run(tmp_path, "fix", "memory", "--apply", "--repo-root", str(repo))
    assert applied.returncode == 0, applied.stderr
    assert all((store / n).read_text() != text for n, text in files.items())
    assert _run(tmp_path, "fix", "memory", "--undo").returncode == 0
    assert all((store / n).read_text() == text for n, text in files.items())


def test_undo_removes_the_temporary_files_an_older_version_left_in_the_store(
    make_store, run_curator
):
    store = make_store(STORE)
    run_curator("fix", "memory")
    assert run_curator("fix", "memory", "--apply").code == 0
    (store / ".MEMORY.md.0a1b2c3d4e5f.tmp").write_text("half of an index\n")
    (store / ".notes.tmp").write_text("not curator's: kept\n")
    undone = run_curator("fix", "memory", "--undo")
    assert undone.code == 0
    assert undone.stderr == (
        "curator: removed 1 temporary files an interrupted `curator fix` left in memory\n"
    )
    assert _store_files(store) == sorted([*STORE, ".notes.tmp"])
    assert (store / "MEMORY.md").read_text() == INDEX


def test_an_apply_killed_after_its_last_write_is_kept_not_rolled_back(make_store, tmp_path):
    store = make_store(STORE)
    _run(tmp_path, "fix", "memory")
    env = _env(tmp_path, CURATOR_KILL_AT="fix:applied")
    killed = forkserver.run(["fix", "memory", "--apply"], cwd=tmp_path, env=env, timeout=120)
    assert killed.returncode == -signal.SIGKILL
    linted = _run(tmp_path, "lint", "memory")
    assert "interrupted" not in linted.stderr
    assert (store / "MEMORY.md").read_text() == FIXED  # the apply had finished: kept
    assert list((tmp_path / "onlooker" / "curator" / "pending").iterdir()) == []
    undone = _run(tmp_path, "fix", "memory", "--undo")
    assert undone.stdout == "restored memory/MEMORY.md\n"
    assert (store / "MEMORY.md").read_text() == INDEX


def test_a_fix_clears_what_a_killed_undo_left_in_the_temp_folder(make_store, run_curator,
                                                                  tmp_path):  # fmt: skip
    store = make_store(STORE)
    run_curator("fix", "memory")
    assert run_curator("fix", "memory", "--apply").code == 0
    temps = _lock_file(tmp_path).parent / "tmp"
    (temps / "01ENTRY.undo.tmp").write_text("half of an index\n")  # a killed undo's
    (temps / "review.0a1b2c3d4e5f.tmp").write_text("a review in progress\n")
    assert run_curator("fix", "memory", "--undo").code == 0
    assert sorted(p.name for p in temps.iterdir()) == ["review.0a1b2c3d4e5f.tmp"]
    assert (store / "MEMORY.md").read_text() == INDEX


def test_the_session_start_hook_rolls_back_a_killed_apply(tmp_path, git_repo, run_curator) -> None:
    env = make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)
    assert env.curator("fix", str(env.store)).code == 1
    before = (env.store / "MEMORY.md").read_text()
    killed = env._run("fix", str(env.store), "--apply", cwd=env.repo,
                      env=env.env(CURATOR_KILL_AT="fix:file:0"))  # fmt: skip
    assert killed.code == -9
    assert (env.store / "MEMORY.md").read_text() != before
    run = env.hook()
    assert run.code == 0
    assert json.loads(run.stdout) is not None
    assert (
        "curator: a `curator fix --apply` was interrupted; rolled back: 1 of 1 files put "
        "back as they were, temporary files removed"
    ) in run.stderr.splitlines()
    assert (env.store / "MEMORY.md").read_text() == before


def test_recovery_removes_a_temporary_file_written_beside_the_store(tmp_path):
    """The last resort when the state folder is on another filesystem: the temp file is
    beside the store (or the file); recovery removes it by the name the journal holds."""
    store = tmp_path / "memory"
    store.mkdir()
    (store / "MEMORY.md").write_text(INDEX)
    journal_dir = tmp_path / "storage" / "curator" / "key" / "journal"
    journal = journal_dir / "01ENTRY.json"
    temp = tmp_path / "01ENTRY.0.tmp"  # beside the store
    temp.write_text("half of a new index\n")
    sha = deltas.sha256_bytes(INDEX.encode())
    item = {"path": str(store / "MEMORY.md"), "before_sha256": sha, "after_sha256": "x",
            "backup": str(journal_dir / "01ENTRY" / "0.orig"), "temp": str(temp)}  # fmt: skip
    atomic.write_json(journal, {"id": "01ENTRY", "state": "applying", "files": [item]})
    recovery.mark(journal_dir, "01ENTRY", journal)
    assert recovery.recover(tmp_path / "storage") == [
        "curator: a `curator fix --apply` was interrupted; rolled back: 0 of 1 files put "
        "back as they were, temporary files removed"
    ]
    assert not temp.exists()
    assert (store / "MEMORY.md").read_text() == INDEX
    assert journal.with_suffix(".rolledback").exists()
    assert recovery.recover(tmp_path / "storage") == []  # once


# --- item 7: storage faults --------------------------------------------------------------


def _fault(tmp_path: Path, fault: str) -> tuple[Path, object]:
    """A storage root with `fault`, and what to run the CLI under."""
    if fault == "readonly" and os.geteuid() == 0:
        pytest.skip("root writes into a read-only folder")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    if fault == "file":
        return blocker, None
    if fault == "dev-null":
        return Path("/dev/null"), None
    if fault == "under-file":
        return blocker / "storage", None
    storage = tmp_path / "storage"
    storage.mkdir()
    if fault == "readonly":
        storage.chmod(0o500)
        return storage, None
    return storage, _disk_full  # "full"


def _disk_full() -> None:
    """A full disk, as far as this process can tell: no file may grow past 64 bytes."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write then fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))


COMMANDS = {
    "lint --persist": ("lint", "memory", "--persist"),
    "scan": ("scan", "memory", "--no-llm"),
    "fix": ("fix", "memory"),
}


@pytest.mark.parametrize("fault", ["file", "dev-null", "under-file", "readonly", "full"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_storage_fault_is_one_line_and_touches_nothing(make_store, tmp_path, command, fault):
    store = make_store(STORE)
    storage, preexec = _fault(tmp_path, fault)
    out = _run(tmp_path, *COMMANDS[command], storage=storage, preexec_fn=preexec)
    assert out.returncode == 2, out.stderr
    (line,) = out.stderr.splitlines()
    assert line.startswith(f"curator: error: {storage}")
    cause = {"file": "Not a directory", "dev-null": "Not a directory",
             "under-file": "Not a directory", "readonly": "Permission denied",
             "full": "File too large"}[fault]  # fmt: skip
    assert line.endswith(f": {cause}"), line
    assert out.stdout == ""
    assert {n: (store / n).read_text() for n in STORE} == STORE
    if fault in ("file", "under-file"):
        assert (tmp_path / "a-file").read_text() == "not a folder\n"


@pytest.mark.parametrize("fault", ["journal-is-file", "full"])
def test_a_storage_fault_during_apply_is_one_line_and_changes_no_memory(make_store, tmp_path,
                                                                         fault):  # fmt: skip
    store = make_store(STORE)
    assert _run(tmp_path, "fix", "memory").returncode == 1
    project = next((tmp_path / "onlooker" / "curator").glob("*/fix_plan.json")).parent
    preexec = None
    if fault == "journal-is-file":
        (project / "journal").write_text("in the way\n")
    else:
        preexec = _disk_full
    out = _run(tmp_path, "fix", "memory", "--apply", preexec_fn=preexec)
    assert out.returncode == 2, out.stderr
    (line,) = out.stderr.splitlines()
    assert line.startswith(f"curator: error: {tmp_path / 'onlooker' / 'curator'}"), line
    assert line.endswith((": Not a directory", ": File too large")), line
    assert (store / "MEMORY.md").read_text() == INDEX
    assert (project / "fix_plan.json").exists()  # the plan stands: fix the fault, apply again
    assert list((tmp_path / "onlooker" / "curator" / "pending").glob("*")) == []


def test_a_write_that_fails_halfway_puts_back_the_files_already_changed(make_store, tmp_path,
                                                                        monkeypatch):  # fmt: skip
    store = make_store({**STORE, "db.md": memory("password: hunter2-Xq9vLr7pWm3k\n")})
    plans = _plans(store)
    real, calls = deltas.replacing.replace, []

    def failing(target: Path, data: bytes, temp: Path, kill_at: str = "") -> None:
        calls.append(target.name)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", str(temp))
        real(target, data, temp, kill_at)

    monkeypatch.setattr(deltas.replacing, "replace", failing)
    journal = tmp_path / "curator" / "key" / "journal"
    with pytest.raises(OSError, match="No space left"):
        deltas.apply(plans, journal, store)
    assert calls == ["MEMORY.md", "db.md", "MEMORY.md"]  # the first put back
    assert (store / "MEMORY.md").read_text() == INDEX
    assert [p.suffix for p in journal.glob("*.*")] == [".rolledback"]
    assert list((tmp_path / "curator" / "pending").iterdir()) == []


def test_a_rollback_that_cannot_read_its_backup_says_so_and_lint_still_runs(make_store,
                                                                            tmp_path):  # fmt: skip
    store = make_store(STORE)
    _run(tmp_path, "fix", "memory")
    env = _env(tmp_path, CURATOR_KILL_AT="fix:file:0")
    forkserver.run(["fix", "memory", "--apply"], cwd=tmp_path, env=env, timeout=120)
    (backup,) = (tmp_path / "onlooker" / "curator").glob("*/journal/*/0.orig")
    backup.unlink()
    linted = _run(tmp_path, "lint", "memory")
    assert linted.returncode == 0, linted.stderr  # the lint itself ran, and found nothing
    assert (
        "curator: a `curator fix --apply` was interrupted and could not be rolled back yet: "
        f"{backup}: No such file or directory"
    ) in linted.stderr.splitlines()
    assert (store / "MEMORY.md").read_text() == FIXED  # left as the apply left it
