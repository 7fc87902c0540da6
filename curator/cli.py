"""The `curator` command. Thin: each subcommand lives in `curator/commands/` and is imported
only when it runs. `curator hook session-start`, exactly as Claude Code runs it, does not
even load click: it goes straight to `session.entry`; nor does `curator lint` in the forms
`commands.argv` parses the way click would."""

from __future__ import annotations

import importlib
import os
import sys
from functools import lru_cache

from curator import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from typing import Any

    import click

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
_COMPLETE = "_CURATOR_COMPLETE"  # click's shell completion asks through this variable


@lru_cache(maxsize=1)
def command_group() -> click.Group:
    """The click command tree (built on first use: the hook's own path never needs it)."""
    import click

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

    return cli


def main(argv: list[str] | None = None) -> Any:
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["hook", "session-start"]:
        from curator.session.entry import run_hook

        run_hook(None)  # never returns: one JSON object on stdout, exit 0
    if args[:1] == ["lint"] and _COMPLETE not in os.environ:
        from curator.commands.argv import lint_params

        params = lint_params(args[1:])
        if params is not None:  # the common forms: the same run, without loading click
            from curator.commands.lint_run import run
            from curator.commands.terminal import plain_main

            plain_main(run, params)  # never returns
    try:
        return command_group().main(args=argv, prog_name="curator")
    except KeyboardInterrupt:
        sys.exit(130)
