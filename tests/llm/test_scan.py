"""The LLM tier in a user's day: `curator scan` persists contradictions and records the
sweep; the session-start hook starts one detached sweep when it is due, and no more."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Run, write_files
from tests.helpers.fake_messages_api import FakeMessagesAPI, start, stop
from tests.helpers.hook_env import Env, fake_api_config, make_env
from tests.helpers.llm_stores import PAIR


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    fake = start(
        FakeMessagesAPI(
            verdicts={
                frozenset(PAIR): ("contradict", "Redux vs Zustand"),
            }
        )
    )
    yield fake
    stop(fake)


@pytest.fixture
def env(
    tmp_path: Path,
    git_repo: Callable[..., Path],
    run_curator: Callable[..., Run],
    api: FakeMessagesAPI,
) -> Env:
    made = make_env(tmp_path, git_repo({"README.md": "x\n"}), run_curator)
    index = "# Memory\n- [Redux](project_redux.md) — r\n- [Zustand](project_zustand.md) — z\n"
    write_files(made.store, {**PAIR, "MEMORY.md": index})
    (made.store / "freeze.md").unlink()
    made.config(fake_api_config(api.base_url))
    return made


def with_key(env: Env) -> dict[str, str]:
    return env.env(ANTHROPIC_API_KEY="test-key")


def test_scan_persists_llm_findings_and_records_the_sweep(env: Env, api: FakeMessagesAPI):
    run = env._run("scan", "--output-format", "json", cwd=env.repo, env=with_key(env))
    assert run.code == 0, run.stderr
    kinds = sorted(f["kind"] for f in env.findings())
    assert "contradiction" in kinds
    contradiction = next(f for f in env.findings() if f["kind"] == "contradiction")
    assert contradiction["memory_files"] == ["project_redux.md", "project_zustand.md"]
    mark = json.loads((env.project / "last_llm_sweep.json").read_text())
    assert mark["requests"] == api.count > 0
    asked = api.count
    again = env._run("scan", "--output-format", "json", cwd=env.repo, env=with_key(env))
    assert again.code == 0, again.stderr
    assert api.count == asked  # every verdict came from the cache
    assert sorted(f["kind"] for f in env.findings()) == kinds


def test_scan_without_a_provider_records_no_sweep(env: Env, api: FakeMessagesAPI):
    env.config("llm:\n  provider: auto\n  claude_command: no-such-claude\n")
    run = env._run("scan", cwd=env.repo, env=env.env())
    assert run.code == 0, run.stderr
    assert "no ANTHROPIC_API_KEY" in run.stderr
    assert not (env.project / "last_llm_sweep.json").exists()
    assert api.count == 0


def _wait_for(path: Path, seconds: float = 90) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists():
            return True
        time.sleep(0.2)
    return False


def test_hook_starts_one_detached_sweep_when_due(env: Env, api: FakeMessagesAPI):
    first = env.hook(ANTHROPIC_API_KEY="test-key")
    assert first.code == 0
    assert json.loads(first.stdout) == {}  # no cheap finding to point at
    # The hook returned at once; the sweep it started records itself when done.
    assert _wait_for(env.project / "last_llm_sweep.json"), "no background sweep finished"
    assert _wait_for_gone(env.project / "llm_sweep.claim")
    asked = api.count
    assert asked > 0
    assert any(f["kind"] == "contradiction" for f in env.findings())
    env.hook(ANTHROPIC_API_KEY="test-key")  # within llm.interval_days: not due
    time.sleep(1.5)
    assert api.count == asked
    assert not (env.project / "llm_sweep.claim").exists()


def _wait_for_gone(path: Path, seconds: float = 30) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not path.exists():
            return True
        time.sleep(0.2)
    return False


def test_a_held_claim_stops_a_second_sweep(env: Env, api: FakeMessagesAPI):
    env.project.mkdir(parents=True, exist_ok=True)
    (env.project / "llm_sweep.claim").write_text("another session's sweep")
    assert env.hook(ANTHROPIC_API_KEY="test-key").code == 0
    time.sleep(2)
    assert api.count == 0
    assert not (env.project / "last_llm_sweep.json").exists()


def test_llm_findings_stay_open_when_no_provider_can_answer(env: Env, api: FakeMessagesAPI):
    assert env._run("scan", cwd=env.repo, env=with_key(env)).code == 0
    assert any(f["kind"] == "contradiction" for f in env.findings())
    env.config("llm:\n  provider: auto\n  claude_command: no-such-claude\n")
    assert env._run("scan", cwd=env.repo, env=env.env()).code == 0
    status = {f["kind"]: f["status"] for f in env.findings()}
    assert status["contradiction"] == "open"


def test_malformed_answers_fail_closed_with_an_event(env: Env, api: FakeMessagesAPI):
    api.answer = lambda body: {"pairs": [{"a": 1, "b": 2, "verdict": "clash", "rationale": "?"}]}
    run = env._run("scan", cwd=env.repo, env=with_key(env))
    assert run.code == 0, run.stderr
    assert not any(f["kind"] in ("contradiction", "redundant_pair") for f in env.findings())
    failed = [e for e in env.events() if e["event_type"] == "curator.llm.answer_failed"]
    assert failed
    assert {"rule", "memory_files", "reason"} <= set(failed[0]["payload"])
    assert any("malformed" in e["payload"]["reason"] for e in failed)
