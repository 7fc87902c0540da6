"""The claude-cli provider with the real Claude Code CLI (pinned, from npm) against the fake
Messages API on 127.0.0.1: verdicts become findings, and the user's Claude Code is left as
it was found — no transcript, no tools offered, none of the user's hooks, plugins or
CLAUDE.md text in the request. Skipped, with a reason, only when node/npm are absent."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from curator.interpreter.rulebook import load_rules
from tests.conftest import Run, memory, write_files
from tests.helpers.claude_cli import claude_binary, claude_env
from tests.helpers.fake_messages_api import FakeMessagesAPI, Step, prompt_text, start, stop
from tests.helpers.llm_stores import STORE, VERDICTS

# Text that must never reach the model: the user's and the project's instructions, and
# what the user's hooks would add.
USER_CLAUDE_MD = "USER-INSTRUCTIONS-7f3a: always answer in French."
PROJECT_CLAUDE_MD = "PROJECT-INSTRUCTIONS-9c1e: always answer in French."
HOOK_CONTEXT = "HOOK-CONTEXT-4b2d"
# The switches' whole point: the judge gets no tool but the structured answer itself.
ANSWER_TOOL = "StructuredOutput"
# What the CLI sent for the same question before these switches: 49 KB on 2.1.328.
AGENT_PROMPT = "You are an agent working with the user"


@pytest.fixture
def claude() -> Path:
    return claude_binary()  # skips, saying why, without node/npm


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    fake = start(FakeMessagesAPI(verdicts=dict(VERDICTS)))
    yield fake
    stop(fake)


def hook_settings(log: Path) -> dict[str, Any]:
    """settings.json hooks that leave a line in `log` and add context if they ever run."""
    command = {
        "type": "command",
        "command": f'echo ran >> {log}; echo \'{{"hookSpecificOutput": {{"hookEventName": '
        f'"SessionStart", "additionalContext": "{HOOK_CONTEXT}"}}}}\'',
    }
    return {
        "hooks": {
            "SessionStart": [{"hooks": [command]}],
            "UserPromptSubmit": [{"hooks": [command]}],
        }
    }


class Setup:
    """A user's world: Claude Code's config folder with hooks and a CLAUDE.md, a project
    with its own CLAUDE.md and hooks, a memory store, and curator's config."""

    def __init__(self, tmp_path: Path, api: FakeMessagesAPI, claude: Path) -> None:
        self.tmp = tmp_path
        self.api = api
        self.claude = claude
        self.config_dir = tmp_path / "claude"
        self.hook_log = tmp_path / "hooks.log"
        settings = hook_settings(self.hook_log)
        write_files(
            self.config_dir,
            {"settings.json": json.dumps(settings), "CLAUDE.md": USER_CLAUDE_MD + "\n"},
        )
        self.project = write_files(
            tmp_path / "project",
            {
                "CLAUDE.md": PROJECT_CLAUDE_MD + "\n",
                ".claude/settings.json": json.dumps(settings),
            },
        )
        self.store = write_files(tmp_path / "memory", STORE)

    def config(self, **llm: Any) -> Path:
        settings = {
            "provider": "claude-cli",
            "claude_command": str(self.claude),
            "timeout_seconds": 120,
            "answer_attempts": 1,
            **llm,
        }
        path = self.tmp / "curator.yaml"
        data = {"storage": str(self.tmp / "onlooker"), "llm": settings}
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    def env(self, **extra: str) -> dict[str, str]:
        return {**claude_env(self.api.base_url, self.config_dir, self.tmp / "home"), **extra}

    def lint(self, run_curator: Callable[..., Run], select: str, **llm: Any) -> Run:
        args = ("lint", str(self.store), "--llm", "--select", select, "--output-format", "json")
        run = run_curator(
            *args, "--config", str(self.config(**llm)), cwd=self.project, env=self.env()
        )
        assert run.code in (0, 1), run.stderr
        return run

    def keep(self, *names: str) -> None:
        """Only these memories in the store: one request."""
        for path in self.store.glob("*_*.md"):
            if path.name not in names:
                path.unlink()

    def files(self) -> set[Path]:
        return {p for p in self.config_dir.rglob("*") if p.is_file()}


@pytest.fixture
def world(tmp_path: Path, api: FakeMessagesAPI, claude: Path) -> Setup:
    return Setup(tmp_path, api, claude)


def callable_tools(body: dict[str, Any]) -> set[str]:
    # a deferred placeholder is never shown to the model as a tool it can call
    return {t["name"] for t in body.get("tools", []) if not t.get("defer_loading")}


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system", "")
    return system if isinstance(system, str) else "\n".join(b["text"] for b in system)


def test_verdicts_become_findings_and_the_request_is_a_lean_judge(
    world: Setup, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    run = world.lint(run_curator, "CUR401,CUR402")
    found = sorted(
        (d["code"], d["filename"].split("/")[-1], d["detail"]["rationale"]) for d in run.json()
    )
    assert found == [
        ("CUR401", "project_redux.md", "Redux vs Zustand"),
        ("CUR402", "feedback_no_db_mocks.md", "same rule"),
    ]
    rule = next(r for r in load_rules() if r.code == "CUR401")
    bodies = api.messages()
    assert bodies  # both rules read the verdicts of one sweep
    for body in bodies:
        text = json.dumps(body, ensure_ascii=False)
        assert callable_tools(body) == {ANSWER_TOOL}  # no Bash, Edit, Read, Agent, ...
        assert "<memory number=" in prompt_text(body)
        for foreign in (USER_CLAUDE_MD, PROJECT_CLAUDE_MD, HOOK_CONTEXT, AGENT_PROMPT):
            assert foreign not in text
        assert " ".join(rule.params["system_prompt"].split()) in system_text(body)
        assert str(world.project) not in text  # run from a neutral folder, not the project
    assert not world.hook_log.exists()  # no hook of the user's or the project's ran
    assert not (world.config_dir / "projects").exists()


def test_the_request_is_a_quarter_of_the_agent_request_for_the_same_question(
    world: Setup, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    world.lint(run_curator, "CUR401")
    lean = api.requests[-1]
    # the same question the way the provider asked it before: `claude -p QUERY --model M`,
    # the prompt on stdin, from the project folder, with the user's settings
    import subprocess

    subprocess.run(
        [str(world.claude), "-p", "Reply with the JSON object only.", "--model", "m"],
        input=prompt_text(lean["body"]),
        cwd=world.project,
        env=world.env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    agent = api.requests[-1]
    lean_size, agent_size = (
        int(lean["headers"]["content-length"]),
        int(agent["headers"]["content-length"]),
    )
    assert PROJECT_CLAUDE_MD in json.dumps(agent["body"], ensure_ascii=False)  # it was sent
    assert lean_size * 4 <= agent_size, (lean_size, agent_size)


def test_twenty_questions_leave_no_transcript_and_no_new_file_under_projects(
    world: Setup, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    files = {"MEMORY.md": "# Memory\n"}
    for i in range(20):
        files[f"project_note_{i:02d}.md"] = memory(
            f"Always run the release checklist step {i} before tagging.\n", name=f"Step {i}"
        )
    write_files(world.store, files)
    world.keep(*files)
    api.types = {f"project_note_{i:02d}.md": ("feedback", 0.95) for i in range(0, 20, 5)}
    before = world.files()
    run = world.lint(run_curator, "CUR403")
    assert len(api.messages()) == 20  # one question per memory, each one `claude -p`
    assert sorted(d["filename"].split("/")[-1] for d in run.json()) == [
        f"project_note_{i:02d}.md" for i in range(0, 20, 5)
    ]
    new = world.files() - before
    assert [p for p in new if "projects" in p.relative_to(world.config_dir).parts] == []
    assert not (world.config_dir / "projects").exists()
    assert not list(world.config_dir.rglob("*.jsonl"))  # no transcript anywhere


def test_subscription_login_from_the_credential_store_still_works(
    world: Setup, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    credentials = {
        "claudeAiOauth": {
            "accessToken": "sk-ant-oat01-test-subscription",
            "refreshToken": "sk-ant-ort01-test",
            "expiresAt": 4_102_444_800_000,  # 2100
            "scopes": ["user:inference", "user:profile"],
            "subscriptionType": "max",
        }
    }
    (world.config_dir / ".credentials.json").write_text(json.dumps(credentials))
    bin_dir = world.claude.parent
    env = world.env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    del env["ANTHROPIC_API_KEY"]  # a subscription user has no key
    args = ("lint", str(world.store), "--llm", "--select", "CUR401", "--output-format", "json")
    config = world.config(provider="auto", claude_command="claude")
    run = run_curator(*args, "--config", str(config), cwd=world.project, env=env)
    assert "llm.provider auto: using `claude -p`" in run.stderr
    assert [d["code"] for d in run.json()] == ["CUR401"]
    assert api.requests[-1]["headers"]["authorization"] == "Bearer sk-ant-oat01-test-subscription"


def test_an_api_key_helper_in_the_user_settings_still_signs_in(
    world: Setup, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    # the helper runs under the CLI, so it also shows that curator set CURATOR_NESTED=1
    helper = "echo sk-ant-from-helper-nested-$CURATOR_NESTED"
    settings = {**hook_settings(world.hook_log), "apiKeyHelper": helper}
    (world.config_dir / "settings.json").write_text(json.dumps(settings))
    env = world.env()
    del env["ANTHROPIC_API_KEY"]
    args = ("lint", str(world.store), "--llm", "--select", "CUR401", "--output-format", "json")
    run = run_curator(*args, "--config", str(world.config()), cwd=world.project, env=env)
    assert [d["code"] for d in run.json()] == ["CUR401"], run.stderr
    assert api.requests[-1]["headers"]["x-api-key"] == "sk-ant-from-helper-nested-1"
    assert not world.hook_log.exists()  # the same file's hooks stayed off


def test_a_failing_cli_is_a_note_and_no_finding(
    world: Setup, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    world.keep("project_redux.md", "project_zustand.md")
    api.script = [Step(status=403)]  # the CLI retries a 400 or 401; a 403 it does not
    run = world.lint(run_curator, "CUR401")
    assert run.code == 0 and run.json() == []
    assert "question(s) got no usable answer (`" in run.stderr
    assert "-p` failed: Failed to authenticate. API Error: 403" in run.stderr


def test_an_answer_that_never_fits_the_schema_fails_closed(
    world: Setup, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    world.keep("project_redux.md", "project_zustand.md")
    api.answer = lambda body: {"verdicts": "all fine"}
    run = world.lint(run_curator, "CUR401")
    assert run.json() == []
    assert "no answer matched the schema within the CLI's own retries" in run.stderr


def test_a_cli_that_times_out_is_a_note_and_no_finding(
    world: Setup, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    world.keep("project_redux.md", "project_zustand.md")
    api.script = [Step(delay=60)]
    run = world.lint(run_curator, "CUR401", timeout_seconds=5)
    assert run.code == 0 and run.json() == []
    assert "-p` timed out after 5s" in run.stderr


def wrapper(path: Path, body: str) -> Path:
    path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_cli_without_json_schema_is_asked_for_text_and_parsed(
    world: Setup, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    # the real CLI, whose --help hides --json-schema: an older CLI, as curator sees it
    older = wrapper(
        world.tmp / "claude-older",
        "import os, subprocess, sys\n"
        f"real = {str(world.claude)!r}\n"
        "if '--help' in sys.argv:\n"
        "    out = subprocess.run([real, '--help'], capture_output=True, text=True).stdout\n"
        "    print(out.replace('--json-schema', '--json-shape'))\n"
        "else:\n"
        "    os.execv(real, [real, *sys.argv[1:]])\n",
    )
    run = world.lint(run_curator, "CUR401", claude_command=str(older))
    assert [d["detail"]["rationale"] for d in run.json()] == ["Redux vs Zustand"]
    body = api.messages()[-1]
    assert callable_tools(body) == set()  # no StructuredOutput: the answer came as text
    assert "It must match this JSON schema" in prompt_text(body)


def test_a_cli_too_old_for_the_switches_is_refused_once_with_the_version_needed(
    world: Setup, run_curator: Callable[..., Run]
) -> None:
    log = world.tmp / "old-claude.log"
    old = wrapper(
        world.tmp / "claude-old",
        "import sys\n"
        f"open({str(log)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
        "if '--version' in sys.argv:\n"
        "    print('1.0.3 (Claude Code)')\n"
        "else:\n"
        "    print('Usage: claude [options]\\n  -p, --print\\n  --model <model>\\n"
        "  --output-format <format>\\n  --system-prompt <prompt>')\n",
    )
    run = world.lint(run_curator, "CUR401,CUR403", claude_command=str(old))
    assert run.json() == []
    assert (
        f"`{old}` 1.0.3 has no --no-session-persistence, --tools, --strict-mcp-config, "
        "--setting-sources, --settings, --disable-slash-commands; curator needs a Claude "
        "Code that has them (2.1.328 does: run `claude update`); LLM rules skipped"
    ) in run.stderr
    assert log.read_text().splitlines() == ["--version", "--help"]  # asked once, never -p
