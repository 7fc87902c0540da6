"""Memory events in the ecosystem event log, read from the end back to the usage window.

The log is shared by every plugin and grows without bound, so it is read backwards in
blocks and reading stops at the first event older than the window (less a day of slack,
since concurrent writers append slightly out of order).
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from curator.findings.jsonl import lines_backward

PATH_KEYS = ("memory_file", "memory_path", "file_path", "file", "path")
LIST_KEYS = ("memory_files", "files")
SCOPE_KEYS = ("store", "memory_dir", "cwd", "project_dir")
SLACK = timedelta(days=1)


@dataclass
class EventUses:
    """Memory file references found in the window, each with its latest timestamp."""

    found: bool = False  # the log holds at least one wanted event in the window
    uses: dict[str, str] = field(default_factory=dict)
    # bare names with the folders their event was about: (scope, name) -> timestamp
    scoped: dict[tuple[tuple[str, ...], str], str] = field(default_factory=dict)
    malformed: int = 0


def read_events(log: Path, since: date, event_types: frozenset[str]) -> EventUses:
    """Wanted events from `since` on. Absolute paths go to `uses`; bare names need a scope."""
    result = EventUses()
    first = since.isoformat()
    stop = (since - SLACK).isoformat()
    try:
        if not stat.S_ISREG(os.stat(log).st_mode):
            return result  # a FIFO or a device would block the read, and cannot seek
        fh = log.open("rb")
    except OSError:
        return result
    with fh:
        for line in lines_backward(fh):
            try:
                event = json.loads(line)
            except (ValueError, RecursionError):  # nested past Python's stack: skipped
                result.malformed += 1
                continue
            if not isinstance(event, dict):
                result.malformed += 1
                continue
            stamp = event.get("timestamp")
            if not isinstance(stamp, str):
                continue
            if stamp[:10] < stop:
                break
            if stamp[:10] < first or event.get("event_type") not in event_types:
                continue
            payload = event.get("payload")
            if isinstance(payload, dict):
                result.found = True
                _collect(payload, stamp, result)
    return result


def _names(payload: dict[str, Any]) -> list[str]:
    names = [payload[k] for k in PATH_KEYS if isinstance(payload.get(k), str)]
    for key in LIST_KEYS:
        value = payload.get(key)
        if isinstance(value, list):
            names.extend(v for v in value if isinstance(v, str))
    return names


def scope_of(payload: dict[str, Any]) -> tuple[str, ...]:
    """The folders an event says it is about (its store or working directory)."""
    return tuple(payload[k] for k in SCOPE_KEYS if isinstance(payload.get(k), str))


def _collect(payload: dict[str, Any], stamp: str, result: EventUses) -> None:
    scope = scope_of(payload)
    for name in _names(payload):
        if name.startswith(("/", "~")):
            if stamp > result.uses.get(name, ""):
                result.uses[name] = stamp
        elif scope:
            key = (scope, name)
            if stamp > result.scoped.get(key, ""):
                result.scoped[key] = stamp
