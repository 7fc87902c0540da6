"""Claude Code's own settings, read as the pinned Claude Code CLI (2.1.328) reads them:
where a project's auto-memory lives (`autoMemoryDirectory`) and whether it is on
(`autoMemoryEnabled`, `CLAUDE_CODE_DISABLE_AUTO_MEMORY`).

From the CLI's bundled code: `autoMemoryDirectory` is taken from the first of policy
(managed-settings.json), flag (`--settings`), local (`.claude/settings.local.json`),
project (`.claude/settings.json`) and user (`<config>/settings.json`) settings that sets
it, where local and project count only in a folder the user trusted (the trust dialog
accepted for it or a folder above, in `<config>/.claude.json`, or `claude -p`). curator
sees no flags and is never `claude -p`, so it reads policy, local and project (trusted
folders only), user. `autoMemoryEnabled: false` in the merged settings, or a true
`CLAUDE_CODE_DISABLE_AUTO_MEMORY` (a false one forces it on), turns auto-memory off:
Claude Code then neither reads nor writes the store.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, NamedTuple

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


class SettingsFile(NamedTuple):
    """One settings source: its name as Claude Code calls it, and its file."""

    source: str  # policySettings, localSettings, projectSettings, userSettings
    path: Path


def claude_config_dir() -> Path:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".claude"


def managed_settings_path() -> Path:
    """Where an administrator's managed-settings.json is (Claude Code's policy settings)."""
    if sys.platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode/managed-settings.json")
    if sys.platform == "win32":
        return Path("C:/Program Files/ClaudeCode/managed-settings.json")
    return Path("/etc/claude-code/managed-settings.json")


def global_config_path() -> Path:
    """Claude Code's own state file, which records the folders the user trusted."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(configured).expanduser() if configured else Path.home()) / ".claude.json"


def sources(project: Path) -> list[SettingsFile]:
    """The settings files `autoMemoryDirectory` is read from, first match wins."""
    return [
        SettingsFile("policySettings", managed_settings_path()),
        SettingsFile("localSettings", project / ".claude" / "settings.local.json"),
        SettingsFile("projectSettings", project / ".claude" / "settings.json"),
        SettingsFile("userSettings", claude_config_dir() / "settings.json"),
    ]


def read_settings(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def trusted(project: Path) -> bool:
    """Whether the user accepted Claude Code's trust dialog for `project` or a folder
    above it (as Claude Code checks before it reads the folder's settings)."""
    if os.environ.get("CLAUDE_CODE_SANDBOXED"):
        return True
    projects = read_settings(global_config_path()).get("projects")
    if not isinstance(projects, dict):
        return False
    for folder in (project, *project.parents):
        entry = projects.get(str(folder))
        if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True:
            return True
    return False


class MemorySetting(NamedTuple):
    """Where `autoMemoryDirectory` came from (None: nowhere), and whether auto-memory is on."""

    directory: Path | None
    source: SettingsFile | None
    enabled: bool
    # A checked-in or local setting Claude Code does not read here (the folder is not
    # trusted): said in the "no memory store" message.
    unread: SettingsFile | None = None


def memory_setting(project: Path) -> MemorySetting:
    """`autoMemoryDirectory` and `autoMemoryEnabled` for the project at `project` (its
    repository root, else the folder), as Claude Code reads them."""
    is_trusted: bool | None = None
    directory: Path | None = None
    found: SettingsFile | None = None
    unread: SettingsFile | None = None
    enabled: bool | None = None
    for settings in sources(project):
        if settings.source in ("localSettings", "projectSettings"):
            if not settings.path.is_file():
                continue
            if is_trusted is None:
                is_trusted = trusted(project)
            if not is_trusted:
                if unread is None and _directory(read_settings(settings.path)) is not None:
                    unread = settings
                continue
        data = read_settings(settings.path)
        value = _directory(data)
        if directory is None and value is not None:
            directory, found = value, settings
        flag = data.get("autoMemoryEnabled")
        if enabled is None and isinstance(flag, bool):
            enabled = flag  # the highest-priority source that sets it wins, as merged
    env = os.environ.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "").strip().lower()
    if env in TRUE:
        enabled = False
    elif env in FALSE:
        enabled = True
    return MemorySetting(directory, found, enabled is not False, unread)


def _directory(data: dict[str, Any]) -> Path | None:
    """The setting's folder: absolute or `~/`; anything else Claude Code ignores."""
    value = data.get("autoMemoryDirectory")
    if not isinstance(value, str) or not value:
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else None
