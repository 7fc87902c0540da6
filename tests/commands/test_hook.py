"""`curator hook session-start`'s last net (curator/commands/hook.py): whatever raises,
Claude Code gets one valid JSON object on stdout and exit 0."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.helpers.hook_env import Env, make_env


@pytest.fixture
def env(tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]) -> Env:
    return make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)


def test_an_error_before_the_hook_library_runs_still_answers_empty_json(env: Env) -> None:
    """`--today garbage` raises in the command itself, outside `session_start`'s own guard."""
    payload = json.dumps({"session_id": "s-1", "cwd": str(env.repo), "source": "startup"})
    run = env._run("hook", "session-start", "--today", "garbage", input=payload, env=env.env())
    assert run.code == 0
    assert run.stdout == "{}\n"
    assert json.loads(run.stdout) == {}
    assert "Traceback" not in run.stdout + run.stderr
    assert run.stderr.startswith("curator: hook: internal error: ValueError: ")
    assert "'garbage'" in run.stderr
    assert env.findings() == []  # it stopped before scanning anything
