"""Where the onlooker ecosystem keeps things: its folder, the shared event log, curator's caches."""

from __future__ import annotations

import os
from pathlib import Path

from curator.config import Config


def onlooker_dir() -> Path:
    """`$ONLOOKER_DIR`, else `~/.onlooker`."""
    configured = os.environ.get("ONLOOKER_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".onlooker"


def events_log() -> Path:
    """`$ONLOOKER_EVENTS_LOG`, else `<onlooker dir>/logs/onlooker-events.jsonl`."""
    configured = os.environ.get("ONLOOKER_EVENTS_LOG")
    if configured:
        return Path(configured).expanduser()
    return onlooker_dir() / "logs" / "onlooker-events.jsonl"


def cache_dir(config: Config) -> Path:
    """curator's caches: `<storage>/curator/cache/`, storage defaulting to the onlooker dir."""
    return (config.path("storage") or onlooker_dir()) / "curator" / "cache"
