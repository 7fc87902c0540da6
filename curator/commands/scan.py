"""`curator scan`: a full sweep that ignores rate gates and persists findings.

Today it runs every cheap rule; the LLM tier joins when it lands.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import click

from curator import clock
from curator.commands.common import config_from, config_option, today_option, user_errors
from curator.events import event_log
from curator.linting import resolve_targets
from curator.rulebook import load_rules
from curator.scanning import scan_target
from curator.selection import select_rules


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@config_option
@today_option
@click.option(
    "--repo-root",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Resolve paths and symbols against this repository.",
)
@click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    help="Summary format.",
)
@click.option("--quiet", "-q", is_flag=True, help="Print nothing (for detached runs).")
@user_errors
def scan(
    paths: tuple[Path, ...],
    config_path: Path | None,
    today: date | None,
    repo_root: Path | None,
    output_format: str,
    quiet: bool,
) -> None:
    """Scan stores with every rule and persist the findings (no rate gate, no budget).

    With no PATHS, scans the current project's store.
    """
    cwd = Path.cwd()
    config = config_from(config_path)
    rules = load_rules(config)
    selected = select_rules(
        rules,
        list(config.get("select")) or None,
        list(config.get("extend_select")),
        list(config.get("ignore")),
    )
    events = event_log(config)
    summaries = []
    for target in resolve_targets(list(paths), config, cwd):
        result, report = scan_target(
            target,
            rules,
            selected,
            config,
            today or clock.today(),
            mode="scan",
            events=events,
            cwd=cwd,
            repo_root=repo_root,
        )
        for note in result.notes:
            if not quiet:
                click.echo(f"curator: {note}", err=True)
        summaries.append(report.payload(target.store) | {"open": [f.id for f in report.open]})
    if quiet:
        return
    if output_format == "json":
        click.echo(json.dumps(summaries, indent=2))
        return
    for s in summaries:
        click.echo(
            f"{s['store']}: {s['findings_new']} new, {s['findings_resolved']} resolved, "
            f"{s['findings_open']} open"
        )
