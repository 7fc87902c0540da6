"""The LLM sweep's interval gate: a due check and the watermark `last_llm_sweep.json`.

The session-start hook calls `sweep_due` before starting a background sweep and the
sweep calls `record_sweep` when it is done; `curator scan` ignores the gate.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from typing import Any

WATERMARK = "last_llm_sweep.json"
CLAIM = "llm_sweep.claim"
CLAIM_STALE_SECONDS = 6 * 3600  # a sweep that died without releasing its claim


def last_sweep(watermark: Path) -> datetime | None:
    try:
        data = json.loads(watermark.read_text(encoding="utf-8"))
        stamp = datetime.fromisoformat(str(data["finished_at"]))
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None  # none yet, or unreadable: treat as never swept
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)


def sweep_due(watermark: Path, interval_days: int, now: datetime) -> bool:
    """True when no sweep finished within the last `interval_days` (0 or less: always)."""
    last = last_sweep(watermark)
    if last is None or interval_days <= 0:
        return True
    return now - last >= timedelta(days=interval_days)


def record_sweep(watermark: Path, now: datetime, summary: dict[str, Any]) -> None:
    """Write the watermark atomically."""
    import tempfile  # the hook only reads the watermark

    watermark.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=watermark.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump({"finished_at": now.isoformat(), **summary}, handle)
    os.replace(tmp, watermark)


def claim_sweep(folder: Path, now: datetime) -> bool:
    """Take the right to start a background sweep (O_EXCL), so that sessions starting
    together start one sweep, not one each. A claim older than six hours is stale."""
    claim = folder / CLAIM
    folder.mkdir(parents=True, exist_ok=True)
    try:
        if now.timestamp() - claim.stat().st_mtime > CLAIM_STALE_SECONDS:
            claim.unlink(missing_ok=True)
    except OSError:
        pass  # no claim yet
    try:
        fd = os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    os.write(fd, now.isoformat().encode())
    os.close(fd)
    return True


def release_sweep(folder: Path) -> None:
    (folder / CLAIM).unlink(missing_ok=True)
