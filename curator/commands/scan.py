"""`curator scan`: a full sweep, LLM tier included, that ignores rate gates and the LLM
interval gate and persists findings."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import click

from curator import clock
from curator.commands.common import (
    config_from,
    config_option,
    repo_root_option,
    store_option,
    today_option,
    user_errors,
)
from curator.commands.terminal import echo
from curator.config import Config
from curator.findings.events import EventLog, event_log
from curator.findings.project import project_dir
from curator.fixes.recovery import report_recovered
from curator.interpreter.rulebook import check_prompts, load_rules
from curator.interpreter.selection import select_rules
from curator.linting import resolve_targets
from curator.models import Rule
from curator.session.scan import scan_target


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@store_option
@config_option
@today_option
@repo_root_option
@click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    help="Summary format.",
)
@click.option("--quiet", "-q", is_flag=True, help="Print nothing (for detached runs).")
@click.option("--no-llm", is_flag=True, help="Leave out the LLM tier.")
@click.option(
    "--release-claim",
    is_flag=True,
    hidden=True,
    help="Release the session-start hook's sweep claim when done.",
)
@user_errors
def scan(
    paths: tuple[Path, ...],
    store_paths: tuple[Path, ...],
    config_path: Path | None,
    today: date | None,
    repo_root: Path | None,
    output_format: str,
    quiet: bool,
    no_llm: bool,
    release_claim: bool,
) -> None:
    """Scan stores with every rule, LLM tier included, and persist the findings (no rate
    gate, no budget, no LLM interval gate).

    With no PATHS, scans the current project's store.
    """
    paths = paths + store_paths  # `--store S` names a store as `S` does
    cwd = Path.cwd()
    config = config_from(config_path)
    report_recovered(config)
    rules = load_rules(config)
    selected = select_rules(
        rules,
        list(config.get("select")) or None,
        list(config.get("extend_select")),
        list(config.get("ignore")),
        include_llm=not no_llm and bool(config.get("llm.enabled")),
    )
    check_prompts([r for r in selected if r.tier == "llm"])
    events = event_log(config)
    summaries = []
    try:
        summaries = _scan_all(paths, config, rules, selected, events, cwd, today, repo_root, quiet)
    finally:
        if release_claim:
            _release_claims(paths, config, cwd, repo_root)
    if quiet:
        return
    if output_format == "json":
        echo(json.dumps(summaries, indent=2))
        return
    for s in summaries:
        echo(
            f"{s['store']}: {s['findings_new']} new, {s['findings_resolved']} resolved, "
            f"{s['findings_open']} open"
        )


def _release_claims(
    paths: tuple[Path, ...], config: Config, cwd: Path, repo_root: Path | None
) -> None:
    from curator.llm.gate import release_sweep

    for target in resolve_targets(list(paths), config, cwd, repo_root=repo_root):
        release_sweep(project_dir(config, target.repo.root, target.store).root)


def _scan_all(
    paths: tuple[Path, ...],
    config: Config,
    rules: list[Rule],
    selected: list[Rule],
    events: EventLog,
    cwd: Path,
    today: date | None,
    repo_root: Path | None,
    quiet: bool,
) -> list[dict[str, object]]:
    summaries = []
    for target in resolve_targets(list(paths), config, cwd, repo_root=repo_root):
        result, report = scan_target(
            target,
            rules,
            selected,
            config,
            today or clock.today(),
            mode="scan",
            events=events,
        )
        for note in result.notes:
            if not quiet:
                echo(f"curator: {note}", err=True)
        summaries.append(report.payload(target.store) | {"open": [f.id for f in report.open]})
    return summaries
