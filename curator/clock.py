"""The one clock. `--today` and tests set it; everything else asks it."""

from __future__ import annotations

import os
from datetime import date, datetime, timezone

_today: date | None = None


def set_today(value: date | None) -> None:
    global _today
    _today = value


def today() -> date:
    """The pinned date, else `CURATOR_TODAY` (YYYY-MM-DD), else the local date."""
    if _today is not None:
        return _today
    pinned = os.environ.get("CURATOR_TODAY")
    if pinned:
        try:
            return date.fromisoformat(pinned)
        except ValueError:
            pass
    return date.today()


def now() -> datetime:
    """Aware UTC now, moved to the pinned day when one is set (tests and `--today`)."""
    current = datetime.now(timezone.utc)
    pinned = today()
    if pinned != current.date():
        current = current.replace(year=pinned.year, month=pinned.month, day=pinned.day)
    return current
