"""The onlooker event log: one JSON object a line, appended with a single write(2).

`${ONLOOKER_EVENTS_LOG:-<storage root>/logs/onlooker-events.jsonl}` (`curator.onlooker`).
Each event is encoded first and written with one `os.write` on an `O_APPEND`
descriptor (`atomic.append_line`), so lines from concurrent sessions interleave whole
and never tear, and a line another writer left torn cannot swallow the next event.
"""

from __future__ import annotations

import json
from pathlib import Path

from curator import clock
from curator.config import Config
from curator.findings import atomic
from curator.findings.ulid import new_ulid

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from typing import Any

SCHEMA_VERSION = 1
_TEXT_EVENTS = ("curator.finding.", "curator.llm.")  # events that quote memories or models
RUNTIME = "claude-code"
PLUGIN = "curator"


def envelope(event_type: str, payload: dict[str, Any], session_id: str | None) -> dict[str, Any]:
    return {
        "id": new_ulid(),
        "schema_version": SCHEMA_VERSION,
        "runtime": RUNTIME,
        "plugin": PLUGIN,
        "timestamp": clock.now().isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "session_id": session_id,
        "event_type": event_type,
        "payload": payload,
    }


class EventLog:
    """Appends events to one log file. Failures to log never break the caller."""

    def __init__(self, path: Path, session_id: str | None = None) -> None:
        self.path = path
        self.session_id = session_id

    def emit(self, event_type: str, payload: dict[str, Any]) -> bool:
        if event_type.startswith(_TEXT_EVENTS):
            # Findings are masked already; masking their events again means no event,
            # whoever emits it, carries a secret into a log other tools read. Scan events
            # hold counts and paths: the hook's fast path does not pay for this.
            from curator.store.masking import mask_value

            payload = mask_value(payload)
        event = envelope(event_type, payload, self.session_id)
        line = json.dumps(event, default=str) + "\n"
        atomic.kill_point(f"event:{event_type}")
        # No fsync: a killed process loses nothing it wrote, and the hook's budget has no
        # room for a disk flush per event (a power cut may cost the last few lines).
        return atomic.append_line(self.path, line.encode("utf-8"))


def event_log(config: Config, session_id: str | None = None) -> EventLog:
    """The event log for this configuration's storage root."""
    from curator.findings.onlooker import events_log

    return EventLog(events_log(config), session_id)
