"""`curator lint`: run the cheap rules (and the LLM rules with --llm) and report.

The options are declared here for click, and for `--help`; `commands.lint_run` does the
work, and `commands.argv` parses the common forms without click (`cli.main`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from curator.commands.common import config_option, repo_root_option, store_option, today_option
from curator.commands.lint_run import run
from curator.reporters import FORMATS


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@store_option
@click.option(
    "--select", multiple=True, help="Rule codes, prefixes or names to run (comma-separated)."
)
@click.option("--extend-select", multiple=True, help="Add to the selected rules.")
@click.option("--ignore", multiple=True, help="Rule codes, prefixes or names to skip.")
@config_option
@click.option(
    "--output-format",
    type=click.Choice(sorted(FORMATS)),
    default=None,
    help="Output format [default: full; github inside GitHub Actions].",
)
@click.option(
    "--output-file",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the report to this file instead of stdout.",
)
@click.option("--statistics", "show_statistics", is_flag=True, help="Count diagnostics per rule.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    default=None,
    help="Lowest severity that makes the exit code 1 [default: warning].",
)
@click.option("--llm/--no-llm", default=False, help="Also run the LLM-tier rules.")
@click.option(
    "--batch",
    is_flag=True,
    help="Send the pair sweep's requests as one Message Batch (Anthropic API; with --llm).",
)
@today_option
@repo_root_option
@click.option(
    "--all",
    "all_stores",
    is_flag=True,
    help="Lint every store under <config>/projects/, or found by content under the given folders.",
)
@click.option(
    "--persist",
    is_flag=True,
    help="Record the diagnostics as findings (and events), as the hook and scan do.",
)
@click.option(
    "--color/--no-color",
    default=None,
    help="Colour the output [default: on a terminal, unless NO_COLOR].",
)
@click.option(
    "--show-silenced",
    is_flag=True,
    help="List on stderr what the rules held back as right as written, and why.",
)
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Say on stderr which folders were taken as stores, and why.",
)
def lint(**params: Any) -> None:
    """Lint memory stores or single memory files.

    With no PATHS, lints the current project's store
    (<config>/projects/<slug>/memory). A memory file is linted in the context of its
    store; only diagnostics about the named files are reported. With --all, every
    folder under PATHS that holds a store (found by content) is linted.

    Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage, config or rule error.
    """
    run(**params)
