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


def hook_output(context: str | None) -> dict[str, Any]:
    if not context:
        return dict(EMPTY)
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}}
