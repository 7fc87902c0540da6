"""`curator lint`: run the cheap rules (and the LLM rules with --llm) and report."""

from __future__ import annotations

import os
import sys
from collections import Counter
from datetime import date
from pathlib import Path

import click

from curator import clock
from curator.commands.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    config_from,
    config_option,
    repo_root_option,
    split_codes,
    today_option,
    user_errors,
)
from curator.config import Config
from curator.interpreter.rulebook import check_prompts, load_rules
from curator.interpreter.selection import select_rules, validate_tokens
from curator.linting import LintResult, Target, lint_caches, resolve_targets
from curator.linting import lint as run_lint
from curator.models import Diagnostic, Rule, Severity
from curator.reporters import FORMATS, ReportContext, get_reporter


def default_format() -> str:
    """`github` inside GitHub Actions, as yamllint does; `full` elsewhere."""
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "full"


def use_color(flag: bool | None, to_file: bool) -> bool:
    if flag is not None:
        return flag
    if to_file or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def statistics(diagnostics: list[Diagnostic]) -> str:
    counts = Counter((d.code, d.name) for d in diagnostics)
    width = max((len(str(n)) for n in counts.values()), default=1)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "".join(f"{n:>{width}}\t{code}\t{name}\n" for (code, name), n in rows)


def persist_lint(
    targets: list[Target],
    rules: list[Rule],
    selected: list[Rule],
    config: Config,
    today: date,
) -> LintResult:
    """Lint store by store, recording findings and events for each."""
    from curator.findings.events import event_log
    from curator.session.scan import scan_target

    events = event_log(config)
    merged = LintResult()
    for target in targets:
        result, _ = scan_target(
            target,
            rules,
            selected,
            config,
            today,
            mode="lint",
            events=events,
        )
        merged.diagnostics.extend(result.diagnostics)
        merged.notes.extend(n for n in result.notes if n not in merged.notes)
        merged.stores.extend(result.stores)
        merged.memories += result.memories
        merged.runs.extend(result.runs)
        merged.held_back.extend(result.held_back)
    return merged


def report_held_back(held: list[Diagnostic], cwd: Path, listing: bool) -> None:
    """One stderr line counting what was held back by reason, or (`--show-silenced`) one
    line per held-back diagnostic."""
    from curator.reporters import display_path

    if not held:
        return
    if listing:
        for d in held:
            where = f"{display_path(d.path, cwd)}:{d.line}:{d.column}"
            reason = d.detail.get("held_back", "")
            click.echo(f"{where}: {d.code} held back ({reason}): {d.message}", err=True)
        return
    reasons = Counter(str(d.detail.get("held_back", "")).split(" '")[0] for d in held)
    by_reason = ", ".join(f"{reason} {n}" for reason, n in sorted(reasons.items()))
    count = len(held)
    click.echo(
        f"curator: {count} reference{'s' if count != 1 else ''} the history shows gone "
        f"held back as right as written ({by_reason}); --show-silenced lists them",
        err=True,
    )


def report_targets(targets: list[Target], cwd: Path) -> None:
    """One stderr line per store: where, its layout, and why it was taken as a store."""
    from curator.reporters import display_path
    from curator.store.layout import layout_of

    for target in targets:
        why = target.evidence or {
            "argument": "named",
            "file": "holds the named files",
            "project": "this project's Claude Code store",
            "memory_store": "memory_store in the config",
            "autoMemoryDirectory": "Claude Code's autoMemoryDirectory setting",
        }.get(target.found, target.found)
        where = display_path(target.store, cwd)
        click.echo(f"curator: store {where} ({layout_of(target.store)}; {why})", err=True)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
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
@user_errors
def lint(
    paths: tuple[Path, ...],
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    config_path: Path | None,
    output_format: str | None,
    output_file: Path | None,
    show_statistics: bool,
    exit_zero: bool,
    fail_on: str | None,
    llm: bool,
    batch: bool,
    today: date | None,
    repo_root: Path | None,
    all_stores: bool,
    persist: bool,
    color: bool | None,
    show_silenced: bool,
    verbose: bool,
) -> None:
    """Lint memory stores or single memory files.

    With no PATHS, lints the current project's store
    (<config>/projects/<slug>/memory). A memory file is linted in the context of its
    store; only diagnostics about the named files are reported. With --all, every
    folder under PATHS that holds a store (found by content) is linted.

    Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage, config or rule error.
    """
    cwd = Path.cwd()
    config = config_from(config_path)
    if batch:
        config = config.with_value("llm.batch", True)
    rules = load_rules(config)
    chosen = {
        "--select": split_codes(select) or list(config.get("select")),
        "--extend-select": split_codes(extend_select) + list(config.get("extend_select")),
        "--ignore": split_codes(ignore) + list(config.get("ignore")),
    }
    for option, tokens in chosen.items():
        validate_tokens(rules, tokens, option)
    selected = select_rules(
        rules, chosen["--select"], chosen["--extend-select"], chosen["--ignore"], include_llm=llm
    )
    check_prompts([r for r in selected if r.tier == "llm"])
    targets = resolve_targets(list(paths), config, cwd, all_stores, repo_root)
    if verbose:
        report_targets(targets, cwd)
    day = today or clock.today()
    if persist:
        result = persist_lint(targets, rules, selected, config, day)
    else:
        # The LLM tier keeps its own cache of verdicts and reports what it asked.
        cache = None if llm else lint_caches(config, selected)
        result = run_lint(targets, rules, selected, config, day, cache=cache)
    for note in result.notes:
        click.echo(f"curator: {note}", err=True)
    report_held_back(result.held_back, cwd, show_silenced)

    fmt = output_format or default_format()
    ctx = ReportContext(
        format=fmt,
        cwd=cwd,
        color=use_color(color, output_file is not None),
        rules={r.code: r for r in selected},
        memories=result.memories,
        stores=tuple(result.stores),
    )
    text = (
        statistics(result.diagnostics)
        if show_statistics
        else get_reporter(fmt).render(result.diagnostics, ctx)
    )
    if output_file is not None:
        output_file.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False, color=ctx.color)  # click strips ANSI off a tty otherwise

    threshold = Severity.parse(fail_on or config.get("fail_on"))
    failing = any(d.severity >= threshold for d in result.diagnostics)
    sys.exit(EXIT_FINDINGS if failing and not exit_zero else EXIT_CLEAN)
