"""`curator install-hook`: add the SessionStart hook to Claude Code's user settings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click

from curator import clock
from curator.commands.common import user_errors
from curator.commands.terminal import echo
from curator.findings import atomic
from curator.session.settings_merge import HOOK_COMMAND, has_hook, merge_hook, parse_settings
from curator.store.discovery import claude_config_dir


@click.command("install-hook")
@click.option(
    "--settings",
    "settings_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Settings file [default: $CLAUDE_CONFIG_DIR/settings.json or ~/.claude/settings.json].",
)
@click.option(
    "--command",
    "hook_command",
    default=HOOK_COMMAND,
    show_default=True,
    help="The command Claude Code runs (use an absolute path if curator is not on PATH).",
)
@user_errors
def install_hook(settings_path: Path | None, hook_command: str) -> None:
    """Merge curator's SessionStart hook into Claude Code's settings.json.

    Idempotent; other settings and hooks are kept; the old file is backed up first;
    a settings file that is not valid JSON is left untouched (exit 2).
    """
    path = settings_path or claude_config_dir() / "settings.json"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    settings = parse_settings(text, str(path))
    if has_hook(settings, hook_command):
        echo(f"curator: hook already installed in {path}")
        return
    merged = merge_hook(settings, hook_command, str(path))
    if path.is_file():
        stamp = clock.now().strftime("%Y%m%dT%H%M%S")
        backup = path.with_name(f"{path.name}.curator-backup-{stamp}")
        shutil.copy2(path, backup)
        echo(f"curator: backed up {path} to {backup}")
    atomic.write_text(path, json.dumps(merged, indent=2) + "\n")
    echo(f"curator: added the SessionStart hook ({hook_command}) to {path}")
