"""`curator hook session-start`: the Claude Code SessionStart hook.

JSON on stdin, exactly one JSON object on stdout, exit 0 whatever happens.
"""

from __future__ import annotations

import json
import sys
import time

import click

# Claude Code's payload is a few hundred bytes; a larger stdin is not one, and reading
# all of it (100 MB piped in by mistake) would only cost time and memory.
MAX_PAYLOAD_BYTES = 1024 * 1024


@click.group()
def hook() -> None:
    """Claude Code hook entry points."""


@hook.command("session-start")
@click.option("--today", metavar="YYYY-MM-DD", help="Pretend today is this date.")
def session_start_command(today: str | None) -> None:
    """Run the cheap rules, persist findings, print the one-line pointer as hook JSON."""
    started = time.monotonic()
    output: dict[str, object] = {}
    try:
        if today:
            from datetime import date

            from curator import clock

            clock.set_today(date.fromisoformat(today))
        from curator.session.start import session_start

        raw = _read_payload()
        output = session_start(raw, started)
    except Exception as exc:  # the last net: a session start must never see a traceback
        sys.stderr.write(f"curator: hook: internal error: {type(exc).__name__}: {exc}\n")
    try:
        sys.stdout.write(json.dumps(output) + "\n")
        sys.stdout.flush()
    except OSError:
        pass
    sys.exit(0)


def _read_payload() -> str:
    """stdin up to MAX_PAYLOAD_BYTES; anything longer reads as no payload at all."""
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    data = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
    if len(data) > MAX_PAYLOAD_BYTES:
        sys.stderr.write(
            f"curator: hook: stdin is over {MAX_PAYLOAD_BYTES} bytes, not a hook payload; "
            "ignored\n"
        )
        return ""
    return data.decode("utf-8", "replace")
