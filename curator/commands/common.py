"""What several subcommands share: user errors to exit 2, config loading, the clock."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click

from curator import clock
from curator.commands.argv import split_codes as split_codes
from curator.commands.terminal import EXIT_CLEAN as EXIT_CLEAN
from curator.commands.terminal import EXIT_ERROR as EXIT_ERROR
from curator.commands.terminal import EXIT_FINDINGS as EXIT_FINDINGS
from curator.commands.terminal import user_errors as user_errors
from curator.config import Config, load_config


def parse_today(ctx: click.Context, param: click.Parameter, value: str | None) -> date | None:
    if value is None:
        return None
    try:
        parsed = date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter("expected YYYY-MM-DD") from None
    clock.set_today(parsed)
    return parsed


def config_from(path: Path | None) -> Config:
    return load_config(path, Path.cwd())


today_option = click.option(
    "--today",
    callback=parse_today,
    expose_value=True,
    metavar="YYYY-MM-DD",
    help="Pretend today is this date (reproducible runs).",
)
config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Use this configuration file instead of discovering .curator.yaml.",
)
repo_root_option = click.option(
    "--repo-root",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Resolve paths, symbols and links into the repository against this folder.",
)
store_option = click.option(
    "--store",
    "store_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="A store to work on, the same as naming it as an argument (may repeat).",
)
