"""The session-start hook's budget is a promise: valid JSON in time, whatever the store
holds, and a scan that overruns finishes in the background (issue #17, item 8)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import CHECKOUT, Run, git, memory, write_files
from tests.helpers.hook_env import CHEAP, POINTER, Env, make_env
from tests.helpers.hostile import assert_clean, changed, hostile_store, snapshot

SCHEMA = json.loads(
    (CHECKOUT / "docs" / "schemas" / "onlooker-events.schema.json").read_text(encoding="utf-8")
)

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


@pytest.fixture
def env(tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]) -> Env:
    return make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)


def hook_output(text: str) -> str:
    return (
        json.dumps(
            {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
        )
        + "\n"
    )


def nested_transcript(env: Env) -> None:
    """A Claude Code transcript of this project whose one line nests past the stack."""
    folder = env.claude / "projects" / env.store.parent.name
    line = "[" * 100_000 + "]" * 100_000
    (folder / "s-0.jsonl").write_text(line + "\n", encoding="utf-8")


def test_the_hook_answers_valid_json_with_every_hostile_input_in_the_store(env: Env) -> None:
    """A FIFO, a symlink loop, 6,000 dated lines in one memory, a 30,000-line MEMORY.md,
    impossible frontmatter dates and a transcript nested past the stack, all at once,
    under the default budget: the answer is valid JSON (the run's subprocess timeout is
    the harness's limit), exit 0, no traceback, nothing written outside curator's folders."""
    (env.store / "MEMORY.md").unlink()
    hostile_store(env.store)
    nested_transcript(env)
    env.config("cheap:\n  skip_if_session_age_under_seconds: 0\n")
    own = (env.onlooker, env.tmp / "home", env.repo / ".git")  # git refreshes its index
    before = snapshot(env.tmp, skip=own)
    run = env.hook()
    assert_clean(run, codes=(0,))
    answer = json.loads(run.stdout)
    assert answer == {} or answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert changed(before, snapshot(env.tmp, skip=own)) == []


def slow_git(folder: Path, seconds: int) -> Path:
    """A `git` that takes `seconds` for `git log` (a huge repository's history), then
    runs the real git: the hook's scan overruns the deadline after the store is found."""
    real = shutil.which("git")
    assert real is not None
    folder.mkdir(parents=True)
    wrapper = folder / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'for a in "$@"; do [ "$a" = log ] && sleep {seconds} && break; done\n'
        f'exec "{real}" "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    return folder


def test_past_the_deadline_the_stored_findings_answer_and_the_scan_goes_on(env: Env) -> None:
    first = env.hook()
    assert first.code == 0 and first.stdout == hook_output(POINTER), first.stderr
    # A new memory with a past deadline and a new commit: the next start must scan again.
    write_files(env.store, {"later.md": memory("Code freeze until 2026-04-01.\n", name="later")})
    (env.repo / "src" / "more.py").write_text("x = 1\n", encoding="utf-8")
    git(env.repo, "add", "-A")
    git(env.repo, "commit", "-qm", "more")
    path = f"{slow_git(env.tmp / 'slow-bin', 8)}{os.pathsep}{os.environ['PATH']}"
    payload = json.dumps({"session_id": "s-2", "cwd": str(env.repo), "source": "startup"})
    # A budget longer than the answer's deadline: the rules run on in the background.
    env.config(
        "cheap:\n  skip_if_session_age_under_seconds: 0\n  budget_ms: 60000\n"
        "  hook_timeout_ms: 2500\n  background_limit_seconds: 120\n"
    )
    places = {
        "XDG_CONFIG_HOME": str(env.tmp / "xdg"),
        "CLAUDE_CONFIG_DIR": str(env.claude),
        "HOME": str(env.tmp / "home"),
    }
    out = subprocess.run(
        [sys.executable, "-m", "curator", "hook", "session-start"],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env.env(PATH=path), **places},
    )
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    # The answer came from what was stored: the first run's two findings.
    assert out.stdout == hook_output(POINTER)
    assert "no answer within 2500 ms; the scan goes on in the background" in out.stderr
    late = [e for e in env.events() if e["event_type"] == "curator.scan.deadline"]
    assert [e["session_id"] for e in late] == ["s-2"]
    assert late[0]["payload"]["deadline_ms"] == 2500
    assert late[0]["payload"]["findings_open"] == 2
    jsonschema.validate(late[0], SCHEMA)
    # The scan finishes on its own and persists what it found.
    waited = time.monotonic()
    while time.monotonic() - waited < 90:
        done = [
            e
            for e in env.events()
            if e["event_type"] == "curator.scan.complete" and e["session_id"] == "s-2"
        ]
        if done:
            break
        time.sleep(0.5)
    assert done, "the background scan never completed"
    assert any(
        f["memory_files"] == ["later.md"] and f["kind"] == "date_decayed" for f in env.findings()
    )


def test_with_git_slow_on_every_call_the_stored_findings_still_answer(env: Env) -> None:
    """Git takes seconds on every call, so the store is not even found by the deadline:
    the hook still points at the findings the last start stored for this folder
    (issue #26, item 9), not `{}`."""
    first = env.hook()
    assert first.code == 0 and first.stdout == hook_output(POINTER), first.stderr
    real = shutil.which("git")
    assert real is not None
    slow = env.tmp / "slow-everything"
    slow.mkdir()
    (slow / "git").write_text(f'#!/bin/sh\nsleep 4\nexec "{real}" "$@"\n', encoding="utf-8")
    (slow / "git").chmod(0o755)
    env.config(CHEAP.replace("hook_timeout_ms: 60000", "hook_timeout_ms: 2500"))
    run = env.hook(PATH=f"{slow}{os.pathsep}{os.environ['PATH']}")
    assert run.code == 0 and "Traceback" not in run.stderr, run.stderr
    assert run.stdout == hook_output(POINTER)
    assert "no answer within 2500 ms; the scan goes on in the background" in run.stderr
    late = [e for e in env.events() if e["event_type"] == "curator.scan.deadline"]
    assert late[-1]["payload"]["findings_open"] == 2
    assert late[-1]["payload"]["store"] == str(env.store)
