"""Claude Code session transcripts in their real shape, for the usage tests and the bench."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any


def envelope(kind: str, cwd: str, stamp: str, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": cwd,
        "sessionId": "00000000-0000-4000-8000-000000000000",
        "version": "2.0.14",
        "gitBranch": "main",
        "type": kind,
        "message": message,
        "uuid": str(uuid.uuid4()),
        "timestamp": stamp,
    }


def user_line(cwd: str, stamp: str, text: str) -> str:
    return json.dumps(envelope("user", cwd, stamp, {"role": "user", "content": text}))


def tool_use_line(cwd: str, stamp: str, tool: str, file_path: str) -> str:
    """An assistant message whose content holds a `tool_use` block with `input.file_path`."""
    message = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "text", "text": "Let me look at that memory."},
            {
                "type": "tool_use",
                "id": "toolu_01",
                "name": tool,
                "input": {"file_path": file_path},
            },
        ],
        "stop_reason": "tool_use",
    }
    return json.dumps(envelope("assistant", cwd, stamp, message))


def tool_result_line(cwd: str, stamp: str, content: str) -> str:
    message = {
        "role": "user",
        "content": [{"tool_use_id": "toolu_01", "type": "tool_result", "content": content}],
    }
    return json.dumps(envelope("user", cwd, stamp, message))


def write_transcript(folder: Path, lines: list[str], name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name or f"{uuid.uuid4()}.jsonl")
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path
