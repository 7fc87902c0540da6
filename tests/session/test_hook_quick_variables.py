"""The hook's quick path (test_hook_quick.py), for the environment: a change of any
variable the record lists runs the full path. A file of its own, so that two test
workers share the quick path's tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers.hook_env import Env
from tests.session.test_hook_quick import env, start_with, until_quick

__all__ = ["env"]  # the fixture, shared with test_hook_quick.py


def _variable_values(tmp: Path) -> dict[str, str]:
    """Another value for each variable the record's digest lists (`quick._ENV_NAMES`,
    `_ENV_SET`), one that keeps the hook working."""
    return {
        "HOME": str(tmp / "home2"),
        "PATH": os.environ["PATH"] + os.pathsep + str(tmp / "bin"),
        "XDG_CONFIG_HOME": str(tmp / "xdg2"),
        "CLAUDE_CONFIG_DIR": str(tmp / "claude2"),
        "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",
        "CLAUDE_CODE_SANDBOXED": "1",
        "ONLOOKER_DIR": str(tmp / "onlooker2"),
        "ONLOOKER_EVENTS_LOG": str(tmp / "other.jsonl"),
        "CURATOR_TODAY": "2026-06-02",
        "CURATOR_NESTED": "0",  # "1" skips the hook altogether
        "CURATOR_KILL_AT": "no-such-point",
        "ANTHROPIC_API_KEY": "sk-ant-test-not-real",
    }


def test_every_variable_the_record_lists_is_parametrized() -> None:
    from curator.session import quick

    assert set(_variable_values(Path("/"))) == set(quick._ENV_NAMES) | set(quick._ENV_SET)


@pytest.mark.parametrize(
    "name",
    [
        "HOME",
        "PATH",
        "XDG_CONFIG_HOME",
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
        "CLAUDE_CODE_SANDBOXED",
        "ONLOOKER_DIR",
        "ONLOOKER_EVENTS_LOG",
        "CURATOR_TODAY",
        "CURATOR_NESTED",
        "CURATOR_KILL_AT",
        "ANTHROPIC_API_KEY",
    ],
)
def test_a_change_of_any_variable_the_record_lists_runs_the_full_path(env: Env, name: str) -> None:
    until_quick(env)
    _run, path = start_with(env, **{name: _variable_values(env.tmp)[name]})
    assert path == "full", name
