"""`curator lint --llm` end to end: the real CLI, the real anthropic SDK, and a fake
Messages API on 127.0.0.1 that counts requests. The claude-cli provider, with the real
Claude Code CLI, is tested in test_claude_cli.py."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run, write_files
from tests.helpers.fake_messages_api import FakeMessagesAPI, Step, start, stop
from tests.helpers.llm_stores import STORE, VERDICTS


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    fake = start(FakeMessagesAPI(verdicts=dict(VERDICTS)))
    yield fake
    stop(fake)


@pytest.fixture
def setup(tmp_path: Path, api: FakeMessagesAPI) -> Callable[..., tuple[Path, Path]]:
    """(store, config file) with the anthropic provider pointed at the fake API."""

    def make(files: dict[str, str] | None = None, **llm: Any) -> tuple[Path, Path]:
        store = write_files(tmp_path / "memory", files or STORE)
        settings = {
            "provider": "anthropic",
            "base_url": api.base_url,
            "timeout_seconds": 5,
            "max_retries": 1,
            "answer_attempts": 2,
            **llm,
        }
        config = tmp_path / "curator.yaml"
        config.write_text(
            json.dumps({"storage": str(tmp_path / "onlooker"), "llm": settings}),
            encoding="utf-8",
        )
        return store, config

    return make


def lint(run_curator: Callable[..., Run], store: Path, config: Path, select: str = "CUR4") -> Run:
    env = {"ANTHROPIC_API_KEY": "test-key", "ONLOOKER_DIR": str(store.parent / "unused")}
    return run_curator(
        "lint",
        str(store),
        "--llm",
        "--select",
        select,
        "--config",
        str(config),
        "--output-format",
        "json",
        env=env,
    )


def found(run: Run) -> list[tuple[str, str, tuple[str, ...]]]:
    return sorted(
        (d["code"], d["path"].split("/")[-1], tuple(d["memory_files"])) for d in run.json()
    )


PAIR_FINDINGS = [
    ("CUR401", "project_redux.md", ("project_redux.md", "project_zustand.md")),
    ("CUR402", "feedback_no_db_mocks.md", ("feedback_no_db_mocks.md", "feedback_real_db.md")),
]


def test_pair_findings_then_a_second_run_makes_zero_requests(
    setup: Callable[..., tuple[Path, Path]], api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    api.types = {}  # type drift: every memory reads as `project` (0.9)
    store, config = setup()
    first = lint(run_curator, store, config)
    assert first.code == 1, first.stderr
    findings = found(first)
    assert [f for f in findings if f[0] != "CUR403"] == PAIR_FINDINGS
    drift = [d for d in first.json() if d["code"] == "CUR403"]
    assert {d["path"].split("/")[-1] for d in drift} == {
        "feedback_no_db_mocks.md",
        "feedback_real_db.md",
    }
    assert drift[0]["location"]["row"] == 4  # the `type:` line
    contradiction = next(d for d in first.json() if d["code"] == "CUR401")
    assert contradiction["message"] == (
        "Memories project_redux.md and project_zustand.md contradict each other: Redux vs Zustand"
    )
    assert len(contradiction["detail"]["body_sha256_a"]) == 64
    assert contradiction["detail"]["body_sha256_a"] != contradiction["detail"]["body_sha256_b"]

    # the request the real SDK sent
    sent = api.requests[0]
    assert sent["path"] == "/v1/messages"
    headers = sent["headers"]
    # this SDK version sends the key as a Bearer token; older ones as x-api-key
    assert "test-key" in headers.get("x-api-key", headers.get("authorization", ""))
    body = sent["body"]
    assert body["model"] == "claude-haiku-4-5-20251001"
    assert body["tools"][0]["strict"] is True
    assert body["tool_choice"] == {"type": "tool", "name": body["tools"][0]["name"]}
    assert "<memory number=" in body["messages"][0]["content"]
    assert "You may list\n" in body["messages"][0]["content"]  # the sweep is not exhaustive
    calls = api.count
    assert calls == 2 + 4  # two topical groups (one per pair), four type questions

    second = lint(run_curator, store, config)
    assert api.count == calls  # every verdict came from the cache
    assert second.code == 1
    assert found(second) == findings

    # editing one memory re-judges only what depends on it
    (store / "project_zustand.md").write_text(
        STORE["project_zustand.md"].replace("small", "tiny"), encoding="utf-8"
    )
    lint(run_curator, store, config)
    assert api.count == calls + 2  # the group and that memory's type question


def test_malformed_answer_is_retried_then_used(
    setup: Callable[..., tuple[Path, Path]], api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store, config = setup()
    api.script = [Step(tool_input={"pairs": [{"a": 1, "b": 2, "verdict": "clash"}]})]
    run = lint(run_curator, store, config, "CUR401,CUR402")
    assert found(run) == PAIR_FINDINGS
    assert api.count == 3  # two groups, and one retry after the malformed answer


@pytest.mark.parametrize(
    "bad",
    [
        {"pairs": [{"a": 1, "b": 2, "verdict": "contradict", "rationale": "x", "extra": 1}]},
        {"pairs": [{"a": 1, "b": 9, "verdict": "contradict", "rationale": "x"}]},
        {"verdict": "contradict", "rationale": "x"},
        {"pairs": [{"a": "1", "b": 2, "verdict": "contradict", "rationale": "x"}]},
    ],
)
def test_answers_that_stay_malformed_fail_closed(
    bad: Any,
    setup: Callable[..., tuple[Path, Path]],
    api: FakeMessagesAPI,
    run_curator: Callable[..., Run],
) -> None:
    store, config = setup()
    api.answer = lambda body: bad
    run = lint(run_curator, store, config, "CUR401,CUR402")
    assert run.code == 0, run.stderr
    assert run.json() == []
    assert "malformed answer after 2 attempt(s)" in run.stderr
    assert "no findings for them" in run.stderr
    assert api.count == 4  # two groups, two attempts each
    # nothing malformed was cached: the next run asks again
    lint(run_curator, store, config, "CUR401,CUR402")
    assert api.count == 8


def test_a_200_that_is_not_a_message_fails_closed(
    setup: Callable[..., tuple[Path, Path]], api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store, config = setup(answer_attempts=1)
    api.script = [Step(body="this is not json")]
    run = lint(run_curator, store, config, "CUR401")
    assert "Traceback" not in run.stderr, run.stderr
    assert "pair sweep: 1 question(s) got no usable answer (malformed answer" in run.stderr
    assert "unreadable response: JSONDecodeError" in run.stderr
    assert found(run) == PAIR_FINDINGS[:1]  # the other group was still judged


def test_rate_limit_is_retried_by_the_sdk(
    setup: Callable[..., tuple[Path, Path]], api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store, config = setup()
    api.script = [Step(status=429)]
    run = lint(run_curator, store, config, "CUR401,CUR402")
    assert found(run) == PAIR_FINDINGS
    assert api.count == 3  # the 429, the SDK's retry, the second group


@pytest.mark.parametrize("status", [500, 529, 429])
def test_server_errors_never_crash_the_lint(
    status: int,
    setup: Callable[..., tuple[Path, Path]],
    api: FakeMessagesAPI,
    run_curator: Callable[..., Run],
) -> None:
    store, config = setup()
    api.answer = None
    api.script = [Step(status=status)] * 10
    run = lint(run_curator, store, config, "CUR401,CUR402")
    assert run.code == 0
    assert run.json() == []
    assert f"API error {status}" in run.stderr
    assert "Traceback" not in run.stderr
    assert api.count == 4  # per group: the first try and the SDK's retry (max_retries: 1)


def test_a_timeout_is_a_note_not_a_crash(
    setup: Callable[..., tuple[Path, Path]], api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store, config = setup(timeout_seconds=1, max_retries=0)
    api.script = [Step(delay=3), Step(delay=3)]
    run = lint(run_curator, store, config, "CUR401,CUR402")
    assert run.code == 0
    assert "request timed out" in run.stderr
    assert api.count == 2


def test_budget_leaves_requests_not_evaluated_and_the_next_run_continues(
    tmp_path: Path,
    setup: Callable[..., tuple[Path, Path]],
    api: FakeMessagesAPI,
    run_curator: Callable[..., Run],
) -> None:
    store, config = setup(max_pairs=1)
    rules = tmp_path / "rules"
    rules.mkdir()
    # a group size of 2 makes each candidate pair its own request
    overrides = {"rules": {"CUR401": {"params": {"group_size": 2}}}}
    data = json.loads(config.read_text(encoding="utf-8"))
    config.write_text(json.dumps({**data, **overrides}), encoding="utf-8")
    first = lint(run_curator, store, config, "CUR401")
    assert "requests not evaluated (llm.max_pairs=1)" in first.stderr
    assert api.count == 1
    lint(run_curator, store, config, "CUR401")
    assert api.count == 2  # the cached answer is free; the budget goes to the next pair


def test_no_provider_skips_with_a_note(
    setup: Callable[..., tuple[Path, Path]], api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store, config = setup(provider="none")
    run = lint(run_curator, store, config)
    assert run.code == 0
    assert run.json() == []
    assert "CUR401 contradiction skipped: no LLM provider" in run.stderr
    assert api.count == 0


BROKEN_PROMPT_RULE = """code: TEAM401
name: broken_prompt
check: llm
tier: llm
severity: info
summary: a rule whose prompt does not parse
message: "x"
prompt: |
  {% for m in %}
docs: |
  ## What it does
  Nothing.
"""


def test_a_broken_prompt_is_exit_2_only_when_llm_rules_run(
    tmp_path: Path, setup: Callable[..., tuple[Path, Path]], run_curator: Callable[..., Run]
) -> None:
    store, config = setup(provider="none")
    rules = tmp_path / "team"
    rules.mkdir()
    (rules / "broken_prompt.yaml").write_text(BROKEN_PROMPT_RULE, encoding="utf-8")
    data = json.loads(config.read_text(encoding="utf-8"))
    config.write_text(json.dumps({**data, "rule_paths": [str(rules)]}), encoding="utf-8")
    cheap = run_curator("lint", str(store), "--config", str(config), "--select", "CUR0")
    assert cheap.code in (0, 1), cheap.stderr
    run = run_curator("lint", str(store), "--llm", "--config", str(config))
    assert run.code == 2
    assert "broken_prompt.yaml:8: bad prompt: template syntax error" in run.stderr


def test_lint_result_carries_the_sweep_counts(
    tmp_path: Path, api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    from curator.clock import today
    from curator.config import load_config
    from curator.interpreter.rulebook import load_rules
    from curator.linting import lint as run_lint
    from curator.linting import target_for

    store = write_files(tmp_path / "memory", STORE)
    config_file = tmp_path / "c.yaml"
    settings = {"provider": "anthropic", "base_url": api.base_url, "max_retries": 0}
    config_file.write_text(
        json.dumps({"storage": str(tmp_path / "s"), "llm": settings}), encoding="utf-8"
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    config = load_config(config_file)
    rules = load_rules(config)
    selected = [r for r in rules if r.code in ("CUR401", "CUR402")]
    api.script = [Step(status=500)]
    target = target_for(store, config, tmp_path)
    result = run_lint([target], rules, selected, config, today())
    assert result.llm == {
        "questions": 2,
        "requests": 2,
        "cache_hits": 0,
        "retries": 0,
        "not_evaluated": 0,
        "batched": 0,
        "failed": 1,
    }
    assert [f.reason for f in result.llm_failures] == ["API error 500"]
    again = run_lint([target], rules, selected, config, today())
    assert again.llm["cache_hits"] == 1 and again.llm["requests"] == 1


def test_progress_bar_only_on_a_terminal(
    tmp_path: Path, setup: Callable[..., tuple[Path, Path]], run_curator: Callable[..., Run]
) -> None:
    import pty
    import subprocess

    store, config = setup()
    args = [sys.executable, "-m", "curator", "lint", str(store), "--llm", "--select", "CUR401"]
    args += ["--config", str(config)]
    env = {**os.environ, "ANTHROPIC_API_KEY": "k", "HOME": str(tmp_path / "home")}
    master, slave = pty.openpty()
    try:
        subprocess.run(args, stderr=slave, stdout=subprocess.PIPE, env=env, timeout=120)
    finally:
        os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert b"curator: contradiction pair sweep" in seen
    assert "pair sweep" not in run_curator(*args[3:], env={"ANTHROPIC_API_KEY": "k"}).stderr


def test_batch_sends_the_pair_sweep_as_one_message_batch(
    setup: Callable[..., tuple[Path, Path]], api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store, config = setup(batch_poll_seconds=0)
    args = ("lint", str(store), "--llm", "--batch", "--select", "CUR401,CUR402")
    run = run_curator(
        *args, "--config", str(config), "--output-format", "json", env={"ANTHROPIC_API_KEY": "k"}
    )
    assert found(run) == PAIR_FINDINGS, run.stderr
    paths = [r["path"] for r in api.requests]
    assert paths[0] == "/v1/messages/batches"
    assert "/v1/messages" not in paths  # no single requests
    assert paths[-1] == "/v1/messages/batches/msgbatch_1/results"
    sent = api.requests[0]["body"]["requests"]
    assert len(sent) == 2
    assert sent[0]["params"]["tools"][0]["strict"] is True
    count = api.count
    again = run_curator(*args, "--config", str(config), env={"ANTHROPIC_API_KEY": "k"})
    assert again.code == 1 and api.count == count  # all from the cache


def test_batch_answers_that_fail_are_asked_one_by_one(
    setup: Callable[..., tuple[Path, Path]], api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store, config = setup(batch_poll_seconds=0)
    api.script = [Step(tool_input={"pairs": "bad"}), Step(status=500)]
    args = ("lint", str(store), "--llm", "--batch", "--select", "CUR401,CUR402")
    run = run_curator(
        *args, "--config", str(config), "--output-format", "json", env={"ANTHROPIC_API_KEY": "k"}
    )
    assert found(run) == PAIR_FINDINGS, run.stderr
    paths = [r["path"] for r in api.requests]
    assert paths.count("/v1/messages") == 2  # the malformed and the errored batch answers


def test_a_batch_that_does_not_end_in_time_falls_back_to_single_requests(
    setup: Callable[..., tuple[Path, Path]], api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store, config = setup(batch_poll_seconds=0, batch_wait_seconds=0)
    args = ("lint", str(store), "--llm", "--batch", "--select", "CUR401,CUR402")
    run = run_curator(
        *args, "--config", str(config), "--output-format", "json", env={"ANTHROPIC_API_KEY": "k"}
    )
    assert found(run) == PAIR_FINDINGS, run.stderr
    paths = [r["path"] for r in api.requests]
    assert paths[0] == "/v1/messages/batches"
    assert paths.count("/v1/messages") == 2


def _lint_text(
    run_curator: Callable[..., Run], store: Path, config: Path, env: dict[str, str]
) -> Run:
    return run_curator(
        "lint", str(store), "--llm", "--select", "CUR401,CUR402", "--config", str(config),
        env={"ONLOOKER_DIR": str(store.parent / "unused"), **env},
    )  # fmt: skip


def test_no_provider_is_not_all_checks_passed(
    setup: Callable[..., tuple[Path, Path]], api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store, config = setup(provider="auto", claude_command="no-such-claude")
    run = _lint_text(run_curator, store, config, {"ANTHROPIC_API_KEY": ""})
    assert (run.code, run.stdout) == (
        0,
        "No findings, but not every selected rule ran: CUR401, CUR402 "
        "(the notes on stderr say why).\n",
    )
    assert (
        "curator: LLM rules skipped: no provider (llm.provider auto found no "
        "ANTHROPIC_API_KEY and no `claude` on PATH); set llm.provider or ANTHROPIC_API_KEY\n"
    ) in run.stderr
    assert api.count == 0


def test_questions_that_all_failed_are_not_all_checks_passed(
    setup: Callable[..., tuple[Path, Path]], api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store, config = setup()
    api.answer = None
    api.script = [Step(status=500)] * 10
    run = _lint_text(run_curator, store, config, {"ANTHROPIC_API_KEY": "test-key"})
    assert run.code == 0
    assert run.stdout == (
        "No findings, but not every selected rule ran: CUR401, CUR402 "
        "(the notes on stderr say why).\n"
    )
    assert "API error 500" in run.stderr
