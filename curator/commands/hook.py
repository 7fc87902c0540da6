"""`curator hook session-start`: the Claude Code SessionStart hook (see `session.entry`;
run exactly as Claude Code runs it, it skips click altogether)."""

from __future__ import annotations

import click


@click.group()
def hook() -> None:
    """Claude Code hook entry points."""


@hook.command("session-start")
@click.option("--today", metavar="YYYY-MM-DD", help="Pretend today is this date.")
def session_start_command(today: str | None) -> None:
    """Run the cheap rules, persist findings, print the one-line pointer as hook JSON."""
    from curator.session.entry import run_hook

    run_hook(today)
