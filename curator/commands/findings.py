"""`curator findings list|show|ack|resolve`: the scriptable side of review.

The `/curator` skill drives these with `--output-format json`.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from curator.commands.common import config_from, config_option, user_errors
from curator.commands.terminal import echo
from curator.errors import UserError
from curator.findings.project import ProjectDir
from curator.findings.store import STATUSES, Finding, FindingsStore, load, open_store, timestamp
from curator.reporters.printable import visible
from curator.store.masking import mask, mask_value

FORMAT = click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    help="Output format.",
)
# The store is named as `curator lint` names it: a positional STORE; `--store` is kept as
# an alias. Both go through `linting.resolve_targets`, which says what is not a store.
STORE_ARGUMENT = click.argument(
    "named_store", required=False, type=click.Path(path_type=Path), metavar="[STORE]"
)
STORE = click.option(
    "--store",
    "store_path",
    type=click.Path(path_type=Path),
    help="The memory store (same as STORE) [default: the current project's].",
)


def one_store(positional: Path | None, option: Path | None) -> Path | None:
    """The store named by STORE or by --store (one of them, or both the same)."""
    if positional is not None and option is not None and positional != option:
        raise click.UsageError("name the store once: STORE or --store, not both")
    return positional if positional is not None else option


def split_store(args: tuple[str, ...], option: Path | None) -> tuple[Path | None, list[str]]:
    """`[STORE] ID...`: a first argument that is a path (and not the only one) is the store."""
    if len(args) > 1 and Path(args[0]).exists():
        return one_store(Path(args[0]), option), list(args[1:])
    return option, list(args)


def project_of(store_path: Path | None, config_path: Path | None) -> ProjectDir:
    """The state folder of the store named, else of the current project's store."""
    from curator.findings.project import project_dir
    from curator.linting import resolve_targets

    config = config_from(config_path)
    target = resolve_targets([store_path] if store_path else [], config, Path.cwd())[0]
    return project_dir(config, target.repo.root, target.store)


def where_of(finding: Finding) -> str:
    return f"{finding.file}:{finding.line}" if finding.file else ",".join(finding.memory_files)


def line_of(finding: Finding, short: str) -> str:
    """One finding in a line, named by its short id (`FindingsStore.short_ids`)."""
    head = f"{short:<9} {finding.status:<12} {finding.code} {finding.kind:<20}"
    return f"{head} {visible(where_of(finding))}  {visible(mask(finding.message))}"


def as_json(chosen: list[Finding]) -> str:
    """Findings as JSON. They are stored masked; masking again covers any kept before
    secrets were masked, so no output repeats one."""
    return json.dumps([mask_value(f.to_json()) for f in chosen], indent=2)


@click.group()
def findings() -> None:
    """List, show, acknowledge and resolve persisted findings."""


@findings.command("list")
@click.option(
    "--status",
    type=click.Choice([*STATUSES, "all"]),
    default="open",
    help="Which findings to list [default: open].",
)
@STORE_ARGUMENT
@STORE
@config_option
@FORMAT
@user_errors
def list_command(
    status: str,
    named_store: Path | None,
    store_path: Path | None,
    config_path: Path | None,
    output_format: str,
) -> None:
    """List findings of STORE (default: the current project's store), oldest first."""
    project = project_of(one_store(named_store, store_path), config_path)
    store = load(project)
    chosen = store.sorted(None if status == "all" else status)
    if output_format == "json":
        echo(as_json(chosen))
        return
    short = store.short_ids()
    for finding in chosen:
        echo(line_of(finding, short[finding.id]))
    label = "" if status == "all" else f"{status} "
    echo(f"{len(chosen)} {label}finding(s)")


@findings.command("show")
@click.argument("ids", nargs=-1, required=True, metavar="[STORE] ID...")
@STORE
@config_option
@FORMAT
@user_errors
def show_command(
    ids: tuple[str, ...], store_path: Path | None, config_path: Path | None, output_format: str
) -> None:
    """Show findings in full (ids or unique id prefixes; STORE as for `list`)."""
    named, wanted = split_store(ids, store_path)
    store = load(project_of(named, config_path))
    chosen = [_find(store, i) for i in wanted]
    if output_format == "json":
        echo(as_json(chosen))
        return
    short = store.short_ids()
    for finding in chosen:
        echo(line_of(finding, short[finding.id]))
        echo(f"    id: {finding.id}")
        for key, value in sorted(mask_value(finding.detail).items()):
            echo(f"    {key}: {visible(str(value))}")
        if finding.resolution:
            echo(f"    resolution: {json.dumps(finding.resolution)}")


def _find(store: FindingsStore, finding_id: str) -> Finding:
    """The one finding an id, id prefix or short id names; else an error that says whether
    none or several matched, and lists the several."""
    found = store.matching(finding_id)
    if len(found) == 1:
        return found[0]
    if not found:
        raise UserError(
            f"no finding with id '{finding_id}' in this store "
            "(`curator findings list --status all` shows every id)"
        )
    short = store.short_ids()
    listed = "; ".join(f"{short[f.id]} {f.code} {where_of(f)}" for f in found[:10])
    more = f"; and {len(found) - 10} more" if len(found) > 10 else ""
    raise UserError(
        f"id '{finding_id}' is ambiguous: {len(found)} findings match ({listed}{more}); "
        "give more of it"
    )


def change_status(
    project: ProjectDir,
    ids: list[str],
    status: str,
    reason: str | None,
    by: str = "user",
    action: str | None = None,
) -> list[Finding]:
    """Set findings to `acknowledged` or `resolved` under the project lock, with events.
    A resolution says how (`action`: prune, edit, reclassify, defer)."""
    from curator.config import load_config
    from curator.findings.events import event_log
    from curator.findings.payloads import status_payload

    changed = []
    with open_store(project) as store:
        chosen = [_find(store, i) for i in ids]
        for finding in chosen:
            if finding.status == status:
                continue  # a second session acknowledging the same finding changes nothing
            finding.status = status
            finding.resolution = {"by": by, "at": timestamp(), "reason": reason, "status": status}
            if action is not None:
                finding.resolution["action"] = action
            store.touch(finding)
            changed.append(finding)
    events = event_log(load_config(None, Path.cwd()))
    event = (
        "curator.finding.acknowledged" if status == "acknowledged" else "curator.finding.resolved"
    )
    for finding in changed:
        events.emit(event, status_payload(finding, action if status == "resolved" else None))
    return chosen


ACTION = click.option(
    "--action",
    type=click.Choice(["prune", "edit", "reclassify", "defer"]),
    default="edit",
    show_default=True,
    help="How it was dealt with (in the resolved event).",
)


def _status_command(name: str, status: str, help_text: str) -> click.Command:
    @click.command(name, help=help_text)
    @click.argument("ids", nargs=-1, required=True, metavar="[STORE] ID...")
    @click.option("--reason", help="Why (kept with the finding).")
    @STORE
    @config_option
    @FORMAT
    @user_errors
    def command(
        ids: tuple[str, ...],
        reason: str | None,
        store_path: Path | None,
        config_path: Path | None,
        output_format: str,
        action: str | None = None,
    ) -> None:
        named, wanted = split_store(ids, store_path)
        project = project_of(named, config_path)
        changed = change_status(project, wanted, status, reason, action=action)
        if output_format == "json":
            echo(as_json(changed))
            return
        short = load(project).short_ids()
        for finding in changed:
            echo(f"{status} {short[finding.id]} {finding.kind} {mask(finding.message)}")

    return command


findings.add_command(
    _status_command("ack", "acknowledged", "Acknowledge findings: keep them, stop reporting them.")
)
findings.add_command(ACTION(_status_command("resolve", "resolved", "Mark findings as resolved.")))
