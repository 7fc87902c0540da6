"""`curator hook session-start`: JSON on stdin, exactly one JSON object on stdout, exit 0
whatever happens. The quick path (`session.quick`) answers an unchanged project from
its record; anything else runs the full hook (`session.start`)."""

from __future__ import annotations

import json
import os
import sys
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from typing import Any, NoReturn

# Claude Code's payload is a few hundred bytes; a larger stdin is not one, and reading
# all of it (100 MB piped in by mistake) would only cost time and memory.
MAX_PAYLOAD_BYTES = 1024 * 1024


def run_hook(today: str | None) -> NoReturn:
    """Answer one session start and exit 0 (`today`: `--today`, for tests)."""
    started = time.monotonic()
    output: dict[str, Any] = {}
    try:
        if today:
            from datetime import date

            from curator import clock

            clock.set_today(date.fromisoformat(today))
        raw = _read_payload()
        if raw is None:
            raw = ""  # said why on stderr already
        else:
            from curator.session.payload import payload_problem

            problem = payload_problem(raw)
            if problem is not None:
                sys.stderr.write(f"curator: hook: {problem}\n")
        answer = _quick(raw, started)
        if answer is None:
            from curator.session.start import session_start

            answer = session_start(raw, started)
        output = answer
    except Exception as exc:  # the last net: a session start must never see a traceback
        sys.stderr.write(f"curator: hook: internal error: {type(exc).__name__}: {exc}\n")
    try:
        sys.stdout.write(json.dumps(output) + "\n")
        sys.stdout.flush()
    except OSError:
        pass
    sys.exit(0)


def _quick(raw: str, started: float) -> dict[str, Any] | None:
    """The quick path's answer; None (the full path runs) on any doubt or error."""
    if os.environ.get("CURATOR_NESTED") == "1":
        return None  # the full path stays out of curator's own `claude -p` sessions
    try:
        from curator.session.quick import quick_answer

        return quick_answer(raw, started)
    except Exception:  # a shortcut that fails is no shortcut: the full path decides
        return None


def _read_payload() -> str | None:
    """stdin up to MAX_PAYLOAD_BYTES; None (said on stderr) for anything longer."""
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    data = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
    if len(data) > MAX_PAYLOAD_BYTES:
        sys.stderr.write(
            f"curator: hook: stdin is over {MAX_PAYLOAD_BYTES} bytes, not a hook payload; ignored\n"
        )
        return None
    return data.decode("utf-8", "replace")
