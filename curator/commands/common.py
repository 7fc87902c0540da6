"""What several subcommands share: user errors to exit 2, config loading, the clock."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

import click

from curator import clock
from curator.config import Config, load_config
from curator.errors import UserError

F = TypeVar("F", bound=Callable[..., Any])

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def user_errors(func: F) -> F:
    """Print a UserError once, as `curator: error: file:line: message`, and exit 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except UserError as exc:
            click.echo(f"curator: error: {exc}", err=True)
            sys.exit(EXIT_ERROR)

    return wrapper  # type: ignore[return-value]


def parse_today(ctx: click.Context, param: click.Parameter, value: str | None) -> date | None:
    if value is None:
        return None
    try:
        parsed = date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter("expected YYYY-MM-DD") from None
    clock.set_today(parsed)
    return parsed


def split_codes(values: tuple[str, ...]) -> list[str]:
    return [code.strip() for value in values for code in value.split(",") if code.strip()]


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
