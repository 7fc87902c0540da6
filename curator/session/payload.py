"""The SessionStart payload as Claude Code sends it, and the answer as it expects it.
Light: both the hook's quick path and its full path start here."""

from __future__ import annotations

import json
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from typing import Any

EMPTY: dict[str, Any] = {}


class Payload:
    """The hook payload's fields curator uses. A plain class (see `config.Config`)."""

    __slots__ = ("cwd", "session_id", "source")

    def __init__(self, session_id: str | None, cwd: Path, source: str | None) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.source = source

    def __repr__(self) -> str:
        return f"Payload({self.session_id!r}, {self.cwd!r}, {self.source!r})"


def parse_payload(raw: str) -> Payload:
    """The fields curator uses; anything missing or malformed falls back to the process's."""
    try:
        data = json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    session = data.get("session_id")
    source = data.get("source")
    cwd_text = data.get("cwd")
    cwd = Path(cwd_text) if isinstance(cwd_text, str) and cwd_text else Path.cwd()
    if not cwd.is_dir():
        cwd = Path.cwd()
    return Payload(
        session if isinstance(session, str) else None,
        cwd,
        source if isinstance(source, str) else None,
    )


def payload_problem(raw: str) -> str | None:
    """What is wrong with a payload that `parse_payload` falls back from, in one line;
    None for a payload whose `cwd` is a folder. Claude Code always sends one and runs the
    hook in the project's folder, so the fallback is that folder."""
    try:
        data = json.loads(raw) if raw.strip() else None
    except (ValueError, RecursionError):
        return "stdin is not JSON, not a hook payload; answering for the working folder"
    if data is None:
        return "no hook payload on stdin; answering for the working folder"
    if not isinstance(data, dict):
        return "stdin is not a JSON object, not a hook payload; answering for the working folder"
    cwd = data.get("cwd")
    if not (isinstance(cwd, str) and cwd and Path(cwd).is_dir()):
        return "the payload's cwd is missing or not a folder; answering for the working folder"
    return None


def hook_output(context: str | None) -> dict[str, Any]:
    if not context:
        return dict(EMPTY)
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}}
