"""`curator install-hook` and the plugin files: Claude Code's hook schema, merged safely."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Run

ROOT = Path(__file__).resolve().parents[2]
OURS = {
    "matcher": "startup|resume|clear|compact",
    "hooks": [{"type": "command", "command": "curator hook session-start", "timeout": 10}],
}


def test_creates_settings_when_there_are_none(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    run = run_curator("install-hook")
    assert run.code == 0, run.stderr
    settings = json.loads((tmp_path / "claude" / "settings.json").read_text())
    assert settings == {"hooks": {"SessionStart": [OURS]}}


def test_merges_beside_other_hooks_with_a_backup_and_is_idempotent(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    path = tmp_path / "claude" / "settings.json"
    path.parent.mkdir(parents=True)
    theirs = {
        "model": "opus",
        "hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}],
        },
    }
    original = json.dumps(theirs, indent=4)
    path.write_text(original)

    first = run_curator("install-hook")
    assert first.code == 0, first.stderr
    merged = json.loads(path.read_text())
    assert merged["model"] == "opus"
    assert merged["hooks"]["PreToolUse"] == theirs["hooks"]["PreToolUse"]
    assert merged["hooks"]["SessionStart"] == [*theirs["hooks"]["SessionStart"], OURS]
    backups = list(path.parent.glob("settings.json.curator-backup-*"))
    assert [b.read_text() for b in backups] == [original]

    second = run_curator("install-hook")
    assert second.code == 0
    assert "already installed" in second.stdout
    assert json.loads(path.read_text()) == merged
    assert len(list(path.parent.glob("settings.json.curator-backup-*"))) == 1


def test_invalid_settings_are_left_untouched(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    path = tmp_path / "claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {,}')
    run = run_curator("install-hook")
    assert run.code == 2
    assert run.stderr.startswith(f"curator: error: {path}: not valid JSON")
    assert path.read_text() == '{"hooks": {,}'
    assert list(path.parent.iterdir()) == [path]


def test_claude_config_dir_is_respected(tmp_path: Path, run_curator: Callable[..., Run]) -> None:
    other = tmp_path / "elsewhere"
    run = run_curator("install-hook", env={"CLAUDE_CONFIG_DIR": str(other)})
    assert run.code == 0, run.stderr
    assert json.loads((other / "settings.json").read_text())["hooks"]["SessionStart"] == [OURS]


def test_the_plugin_hook_fires_when_the_installed_one_does() -> None:
    """The plugin runs the same command through its launcher (hooks/session-start.sh),
    on the same events and with the same timeout."""
    [group] = json.loads((ROOT / "hooks" / "hooks.json").read_text())["hooks"]["SessionStart"]
    [hook] = group["hooks"]
    assert group["matcher"] == OURS["matcher"]
    assert (hook["type"], hook["timeout"]) == ("command", OURS["hooks"][0]["timeout"])
    launcher = (ROOT / "hooks" / "session-start.sh").read_text()
    assert '"$candidate" hook session-start' in launcher


def test_a_custom_command_is_installed_once(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    command = "/opt/curator/bin/curator hook session-start"
    assert run_curator("install-hook", "--command", command).code == 0
    assert run_curator("install-hook", "--command", command).code == 0
    settings = json.loads((tmp_path / "claude" / "settings.json").read_text())
    [group] = settings["hooks"]["SessionStart"]
    assert group["hooks"][0]["command"] == command
