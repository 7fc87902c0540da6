"""Merge curator's SessionStart hook into a Claude Code `settings.json`, safely.

Claude Code's shape: `{"hooks": {"SessionStart": [{"matcher": "...", "hooks":
[{"type": "command", "command": "..."}]}]}}`. Other keys, events and hooks are kept as
they are; a settings file that is not valid JSON is never rewritten.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from curator.errors import UserError

HOOK_COMMAND = "curator hook session-start"
MATCHER = "startup|resume|clear|compact"
TIMEOUT_SECONDS = 10


def parse_settings(text: str, source: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UserError(f"not valid JSON ({exc}); left untouched", source) from None
    if not isinstance(data, dict):
        raise UserError("settings must be a JSON object; left untouched", source)
    return data


def has_hook(settings: dict[str, Any], command: str) -> bool:
    for group in settings.get("hooks", {}).get("SessionStart", []) or []:
        for hook in (group.get("hooks") or []) if isinstance(group, dict) else []:
            if isinstance(hook, dict) and hook.get("command") == command:
                return True
    return False


def merge_hook(settings: dict[str, Any], command: str, source: str) -> dict[str, Any]:
    """A copy of `settings` with curator's SessionStart hook added (unchanged if present)."""
    merged = copy.deepcopy(settings)
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UserError("'hooks' must be a JSON object; left untouched", source)
    groups = hooks.setdefault("SessionStart", [])
    if not isinstance(groups, list):
        raise UserError("'hooks.SessionStart' must be a JSON array; left untouched", source)
    if has_hook(merged, command):
        return merged
    entry = {"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}
    groups.append({"matcher": MATCHER, "hooks": [entry]})
    return merged
