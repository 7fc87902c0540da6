"""The plugin as a Claude Code user installs it, with the real CLI: the marketplace added
from a clone of this repository, the plugin installed from it, then `claude -p` sessions
against a local fake API, with and without `curator` on the PATH Claude Code sees."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, snapshot_checkout
from tests.helpers.claude_cli import claude_binary, claude_env
from tests.helpers.fake_claude_api import FakeClaudeAPI, serving
from tests.helpers.hook_env import POINTER
from tests.helpers.plugin_env import INSTALL_LINE, VENV_BIN, Project, make_project, tools_path


@dataclass
class Installed:
    """Claude Code's folder with the curator marketplace added and the plugin installed."""

    root: Path
    clone: Path
    config: Path
    home: Path

    def claude(self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
               ) -> subprocess.CompletedProcess[str]:  # fmt: skip
        base = claude_env("http://127.0.0.1:9", self.config, self.home)
        return subprocess.run(
            [str(claude_binary()), *args],
            env={**base, **(env or {})},
            cwd=cwd or self.root,
            capture_output=True,
            text=True,
            timeout=300,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    claude_binary()  # installs the pinned CLI, or skips when node is missing
    root = tmp_path_factory.mktemp("claude-code")
    snapshot_checkout(root / "upstream")
    git(root, "clone", "-q", str(root / "upstream"), "curator")
    made = Installed(root, root / "curator", root / "claude", root / "home")
    made.home.mkdir()

    added = made.claude("plugin", "marketplace", "add", str(made.clone))
    assert added.returncode == 0, added.stdout + added.stderr
    assert "Successfully added marketplace: curator" in added.stdout

    plugin = made.claude("plugin", "install", "curator@curator")
    assert plugin.returncode == 0, plugin.stdout + plugin.stderr
    assert "Successfully installed plugin: curator@curator" in plugin.stdout

    listed = made.claude("plugin", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return made


@dataclass
class Session:
    result: dict[str, Any]
    debug_log: str
    api: FakeClaudeAPI

    def hook_lines(self) -> list[str]:
        return [line for line in self.debug_log.splitlines() if "Hook" in line]

    def sent_to_model(self) -> str:
        return json.dumps(self.api.messages())


def session(installed: Installed, project: Project, name: str, **on_path: Path) -> Session:
    """`claude -p "say hi"` in the project, with a PATH of ordinary programs and `on_path`."""
    log = project.root / f"{name}-debug.log"
    with serving() as api:
        env = {
            **claude_env(api.base_url, installed.config, installed.home),
            **project.env(),
            "PATH": tools_path(project.root / f"{name}-bin", **on_path),
        }
        done = subprocess.run(
            [str(claude_binary()), "-p", "say hi", "--output-format", "json",
             "--debug-file", str(log)],
            cwd=project.repo, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return Session(json.loads(done.stdout), log.read_text(encoding="utf-8"), api)


def assert_hook_ran_cleanly(run: Session, installed: Installed) -> None:
    """One curator SessionStart hook, status 0, no hook error, and the session answered."""
    finished = [line for line in run.hook_lines() if "SessionStart:startup [" in line]
    assert len(finished) == 1, run.hook_lines()
    command = re.escape(f'[sh "{installed.clone}/hooks/session-start.sh"]')
    assert re.search(command + r" \(plugin curator@curator\) finished with status 0 ", finished[0])
    errors = [line for line in run.debug_log.splitlines() if "[ERROR]" in line and "Hook" in line]
    assert errors == []
    assert (run.result["is_error"], run.result["result"]) == (False, "hi")


def test_the_plugin_is_installed_from_the_marketplace(installed: Installed) -> None:
    listed = installed.claude("plugin", "list", "--json")
    [plugin] = json.loads(listed.stdout)
    assert (plugin["id"], plugin["version"], plugin["enabled"]) == (
        "curator@curator",
        "0.1.0",
        True,
    )


def test_without_curator_on_path_the_hook_succeeds_and_says_how_to_install_once(
    installed: Installed, tmp_path: Path
) -> None:
    shutil.rmtree(installed.config / "plugins" / "data", ignore_errors=True)
    project = make_project(tmp_path, claude=installed.config)

    first = session(installed, project, "first")
    assert_hook_ran_cleanly(first, installed)
    assert INSTALL_LINE in first.sent_to_model()
    assert "Curator:" not in first.sent_to_model()

    second = session(installed, project, "second")
    assert_hook_ran_cleanly(second, installed)
    assert INSTALL_LINE not in second.sent_to_model()


def test_with_curator_on_path_the_pointer_reaches_the_model(
    installed: Installed, tmp_path: Path
) -> None:
    project = make_project(tmp_path, claude=installed.config)
    run = session(installed, project, "installed", curator=VENV_BIN / "curator")
    assert_hook_ran_cleanly(run, installed)
    assert f"SessionStart hook additional context: {POINTER}" in run.sent_to_model()
    assert INSTALL_LINE not in run.sent_to_model()
