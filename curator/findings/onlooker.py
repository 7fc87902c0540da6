"""Where the onlooker ecosystem keeps things: its folder, curator's storage root, the
shared event log, curator's caches. The one place these paths are decided."""

from __future__ import annotations

import os
from pathlib import Path

from curator.config import Config


def onlooker_dir() -> Path:
    """`$ONLOOKER_DIR`, else `~/.onlooker`."""
    configured = os.environ.get("ONLOOKER_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".onlooker"


def storage_root(config: Config | None = None) -> Path:
    """Config `storage`, else the onlooker folder."""
    configured = config.path("storage") if config is not None else None
    return configured if configured is not None else onlooker_dir()


def events_log(config: Config | None = None) -> Path:
    """`$ONLOOKER_EVENTS_LOG`, else `<storage root>/logs/onlooker-events.jsonl`."""
    configured = os.environ.get("ONLOOKER_EVENTS_LOG")
    if configured:
        return Path(configured).expanduser()
    return storage_root(config) / "logs" / "onlooker-events.jsonl"


def cache_dir(config: Config | None = None) -> Path:
    """curator's caches: `<storage root>/curator/cache/`."""
    return storage_root(config) / "curator" / "cache"


def secret_salt_file(config: Config | None = None) -> Path:
    """The installation's salt for hashing secrets: `<storage root>/curator/secret_salt`."""
    return storage_root(config) / "curator" / "secret_salt"
