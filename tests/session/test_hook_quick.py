"""The hook's quick path: an unchanged project's answer again, from the record the full
path left, and the full path the moment anything the answer depends on changes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run, git, memory, write_files
from tests.helpers.hook_env import CHEAP, POINTER, Env, make_env


@pytest.fixture
def env(tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]) -> Env:
    return make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)


def imported(run: Run) -> set[str]:
    """The modules a run imported, from `-X importtime` on its stderr."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in run.stderr.splitlines()
        if line.startswith("import time:")
    }


def start(env: Env) -> tuple[Run, str]:
    """One session start, and which path answered it: `quick` (no store discovery, no
    CLI, no YAML) or `full`."""
    return start_with(env)


def start_with(env: Env, **variables: str) -> tuple[Run, str]:
    """`start`, with these environment variables set for the hook."""
    run = env.hook(PYTHONPROFILEIMPORTTIME="1", **variables)
    assert run.code == 0, run.stderr
    modules = imported(run)
    assert "curator.session.quick" in modules
    full = "curator.store.discovery" in modules
    if not full:
        assert not modules & {"click", "yaml", "dataclasses", "typing", "curator.models"}
    return run, "full" if full else "quick"


def until_quick(env: Env) -> Run:
    """Start until the quick path answers (a first scan, then a reused one that writes
    the record); it must within three starts."""
    for _ in range(3):
        run, path = start(env)
        if path == "quick":
            return run
    raise AssertionError("the quick path never answered an unchanged project")


def test_an_unchanged_project_is_answered_quickly_and_logged_as_reused(env: Env) -> None:
    first, path = start(env)
    assert path == "full"
    run = until_quick(env)
    assert run.stdout == first.stdout  # byte for byte, key order included
    assert json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"] == POINTER
    events = env.events()
    assert [e["event_type"] for e in events[-2:]] == [
        "curator.scan.started",
        "curator.scan.complete",
    ]
    complete = events[-1]["payload"]
    assert (complete["outcome"], complete["reused"], complete["findings_open"]) == ("ok", True, 2)
    assert events[-1]["session_id"] == "s-1"
    watermark = json.loads((env.project / "last_cheap_scan.json").read_text())
    assert watermark["outcome"] == "ok" and watermark["findings_open"] == 2
    assert watermark["signature"]


def test_a_per_session_variable_does_not_cost_the_quick_path(env: Env) -> None:
    """Claude Code gives every SessionStart hook its own CLAUDE_ENV_FILE; the record made
    in one session serves the next."""
    for session in range(3):
        run = env.hook(PYTHONPROFILEIMPORTTIME="1", CLAUDE_ENV_FILE=f"/tmp/session-{session}.sh")
    assert "curator.store.discovery" not in imported(run)
    assert json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"] == POINTER


def test_a_variable_curator_reads_runs_the_full_path(env: Env) -> None:
    until_quick(env)
    run = env.hook(PYTHONPROFILEIMPORTTIME="1", ONLOOKER_EVENTS_LOG=str(env.tmp / "other.jsonl"))
    assert "curator.store.discovery" in imported(run)
    assert (env.tmp / "other.jsonl").is_file()  # the events went where the variable says


def changes(env: Env) -> dict[str, Callable[[], None]]:
    def edit_keeping_mtime() -> None:
        path = env.store / "MEMORY.md"
        info = path.stat()
        path.write_text("# Memory\n- [Freeze](freeze.md) — the merge freeze\n")
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))

    def commit() -> None:
        (env.repo / "src" / "new.py").write_text("x = 1\n")
        git(env.repo, "add", "-A")
        git(env.repo, "commit", "-qm", "new")

    def dirty() -> None:
        (env.repo / "src" / "app.py").write_text("print('changed')\n")

    def config() -> None:
        env.config(CHEAP + "surfacer:\n  max_pointer_chars: 150\n")

    def project_config() -> None:
        (env.repo / ".curator.yaml").write_text(CHEAP)

    def acknowledge() -> None:
        broken = next(f for f in env.findings() if f["kind"] == "broken_index")
        assert env.curator("findings", "ack", broken["id"]).code == 0

    def new_memory() -> None:
        write_files(env.store, {"later.md": memory("Freeze until 2026-04-01.\n", name="later")})

    return {
        "memory edited under the same mtime": edit_keeping_mtime,
        "new memory": new_memory,
        "commit": commit,
        "dirty working tree": dirty,
        "user config": config,
        "project .curator.yaml": project_config,
        "finding acknowledged": acknowledge,
    }


@pytest.mark.parametrize(
    "change",
    [
        "memory edited under the same mtime",
        "new memory",
        "commit",
        "dirty working tree",
        "user config",
        "project .curator.yaml",
        "finding acknowledged",
    ],
)
def test_any_change_the_answer_depends_on_runs_the_full_path(env: Env, change: str) -> None:
    # Git ignores a project config, so only the config's own stat can tell it appeared.
    (env.repo / ".git" / "info" / "exclude").write_text(".curator.yaml\n")
    until_quick(env)
    changes(env)[change]()
    run, path = start(env)
    assert path == "full", change
    # The full path's answer, not the record's: what changed shows.
    expected = {
        "memory edited under the same mtime": "1 open finding (1 date-decayed)",
        "new memory": "4 open findings (2 date-decayed, 1 broken-index, 1 orphaned-memory)",
        "finding acknowledged": "1 open finding (1 date-decayed)",
    }.get(change, "2 open findings (1 broken-index, 1 date-decayed)")
    assert expected in run.stdout, run.stdout


def test_after_a_change_every_later_start_says_what_changed(env: Env) -> None:
    """The record is of one answer: once a full run has answered a changed store, no
    later start may fall back to the record made before the change."""
    until_quick(env)
    write_files(env.store, {"later.md": memory("Freeze until 2026-04-01.\n", name="later")})
    now = "4 open findings (2 date-decayed, 1 broken-index, 1 orphaned-memory)"
    for _ in range(4):
        run, _path = start(env)
        assert now in run.stdout, run.stdout
    assert _path == "quick"  # and the quick path answers again, with the new answer


def test_a_file_added_to_a_rule_folder_runs_the_full_path(env: Env) -> None:
    rules = env.tmp / "rules"
    write_files(rules, {"README.txt": "my rules\n"})
    env.config(CHEAP + f"rule_paths: [{rules}]\n")
    until_quick(env)
    write_files(rules, {"notes.txt": "not a rule, but the folder changed\n"})
    assert start(env)[1] == "full"


def test_another_day_and_another_session_folder_run_the_full_path(env: Env) -> None:
    until_quick(env)
    env.today = "2026-06-02"  # CURATOR_TODAY: the day the answer was made for has passed
    assert start(env)[1] == "full"
    sub = env.repo / "src"
    payload = json.dumps({"session_id": "s-1", "cwd": str(sub), "source": "startup"})
    run = env.hook(payload, PYTHONPROFILEIMPORTTIME="1")
    assert "curator.store.discovery" in imported(run)  # no record for that folder yet


def test_a_torn_or_foreign_record_runs_the_full_path(env: Env) -> None:
    until_quick(env)
    records = list((env.onlooker / "curator" / "cache" / "quick").glob("*.json"))
    assert len(records) == 1
    text = records[0].read_text()
    records[0].write_text(text[: len(text) // 2])
    run, path = start(env)
    assert path == "full" and json.loads(run.stdout)["hookSpecificOutput"]
    record = json.loads(records[0].read_text())  # the full path wrote it whole again
    record["version"] = "0.0.0"
    records[0].write_text(json.dumps(record))
    assert start(env)[1] == "full"


def test_a_configured_storage_is_never_written_around(env: Env) -> None:
    storage = env.tmp / "elsewhere"
    env.config(CHEAP + f"storage: {storage}\n")
    for _ in range(3):
        assert start(env)[1] == "full"
    assert not (env.onlooker / "curator" / "cache" / "quick").exists()
    assert list((storage / "curator").glob("*/findings/*.json"))


def test_a_slow_git_status_cannot_hold_the_quick_path_past_the_deadline(env: Env) -> None:
    """`git status` turns slow (20 s: a huge work tree) after the record was written:
    the answer still comes by the deadline (the subprocess timeout of 15 s is the
    harness's limit), from the findings stored, with the full path's note."""
    env.config(
        "cheap:\n  skip_if_session_age_under_seconds: 0\n  budget_ms: 60000\n"
        "  hook_timeout_ms: 2500\n  background_limit_seconds: 60\n"
    )
    marker = env.tmp / "git-is-slow"
    real = shutil.which("git")
    wrapper = env.tmp / "slow-bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ -e "{marker}" ]; then for a in "$@"; do [ "$a" = status ] && sleep 20; done; fi\n'
        f'exec "{real}" "$@"\n'
    )
    wrapper.chmod(0o755)
    path = f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"
    runs = [env.hook(PATH=path, PYTHONPROFILEIMPORTTIME="1") for _ in range(3)]
    assert "curator.store.discovery" not in imported(runs[-1])  # the quick path answers
    marker.write_text("")
    # The environment `env.hook` runs with (the record is kept per environment), but
    # under this test's own timeout.
    drop = ("GITHUB_ACTIONS", "NO_COLOR", "ONLOOKER_EVENTS_LOG", "CURATOR_NESTED")
    base = {k: v for k, v in os.environ.items() if k not in drop}
    base.setdefault("HOME", str(env.tmp / "home"))
    base["CLAUDE_CONFIG_DIR"] = base.get("CLAUDE_CONFIG_DIR_TEST", str(env.claude))
    base["XDG_CONFIG_HOME"] = str(env.tmp / "xdg")
    out = subprocess.run(
        [sys.executable, "-m", "curator", "hook", "session-start"],
        input=json.dumps({"session_id": "s-1", "cwd": str(env.repo), "new": 1}),
        capture_output=True,
        text=True,
        timeout=15,
        env={**base, **env.env(PATH=path)},
    )
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"] == POINTER
    assert "no answer within 2500 ms" in out.stderr


def test_claude_codes_settings_moving_the_store_run_the_full_path(env: Env) -> None:
    """`autoMemoryDirectory` in Claude Code's user settings names another store: the
    record's answer is of the old one."""
    until_quick(env)
    other = env.tmp / "elsewhere"
    write_files(other, {"MEMORY.md": "# Memory\n- [Gone](gone.md) — removed\n"})
    settings = env.claude / "settings.json"
    settings.write_text(json.dumps({"autoMemoryDirectory": str(other)}), encoding="utf-8")
    _run, path = start(env)
    assert path == "full"
    started = [e for e in env.events() if e["event_type"] == "curator.scan.started"]
    assert started[-1]["payload"]["store"] == str(other)  # the store the settings name
