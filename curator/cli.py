"""The `curator` command. Thin: each subcommand lives in `curator/commands/` and is imported
only when it runs, so `curator hook session-start` pays for nothing else."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from curator import __version__

# name -> "module:attribute"; the help line is shown without importing the module.
COMMANDS: dict[str, tuple[str, str]] = {
    "calibrate": (
        "curator.commands.calibrate:calibrate_command",
        "Measure the pair sweep against labelled pairs.",
    ),
    "doctor": (
        "curator.commands.doctor:doctor",
        "Show what curator uses here; find the original plugin's settings to move.",
    ),
    "findings": (
        "curator.commands.findings:findings",
        "List, show, acknowledge, resolve findings.",
    ),
    "fix": ("curator.commands.fix:fix", "Show, apply or undo exact fixes to memory files."),
    "history": (
        "curator.commands.history:history",
        "Index a repository's history (evidence for stale references).",
    ),
    "hook": ("curator.commands.hook:hook", "Claude Code hook entry points (session-start)."),
    "install-hook": (
        "curator.commands.install_hook:install_hook",
        "Add the SessionStart hook to Claude Code settings.",
    ),
    "lint": ("curator.commands.lint:lint", "Lint memory stores or files."),
    "review": ("curator.commands.review:review", "Walk through open findings interactively."),
    "rule": ("curator.commands.rules:rule", "Show a rule's documentation."),
    "rules": ("curator.commands.rules:rules", "List rules or run their self-tests."),
    "scan": ("curator.commands.scan:scan", "Scan with every rule and persist findings."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        target, _ = COMMANDS[cmd_name]
        module_name, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="curator")
def cli() -> None:
    """curator: a linter for the memory AI coding agents keep between sessions."""


def main(argv: list[str] | None = None) -> Any:
    try:
        return cli.main(args=argv, prog_name="curator")
    except KeyboardInterrupt:
        sys.exit(130)
