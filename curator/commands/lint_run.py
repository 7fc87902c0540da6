"""What `curator lint` does once its options are parsed: lint, report, exit.

Click-free: `cli.main` runs the common forms of the command line through here without
loading click (`commands.argv`), and the click command (`commands.lint`) calls `run` with
the same parameters.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from datetime import date
from pathlib import Path

from curator import clock
from curator.commands.argv import split_codes
from curator.commands.terminal import EXIT_CLEAN, EXIT_FINDINGS, echo, user_errors
from curator.config import Config, load_config
from curator.fixes.recovery import report_recovered
from curator.interpreter.rulebook import check_prompts, load_rules
from curator.interpreter.selection import select_rules, validate_tokens
from curator.linting import LintResult, Target, lint_caches, resolve_targets
from curator.linting import lint as run_lint
from curator.models import Diagnostic, Rule, Severity
from curator.reporters import ReportContext, get_reporter
from curator.reporters.printable import for_terminal, visible


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
    """Diagnostics counted per rule, most first, under a header and over a total."""
    counts = Counter((d.code, d.name) for d in diagnostics)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    lines = ["count\tcode\tname"]
    lines += [f"{n}\t{code}\t{name}" for (code, name), n in rows]
    lines.append(f"{len(diagnostics)}\ttotal")
    return "".join(line + "\n" for line in lines)


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
        merged.not_run |= result.not_run
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
            echo(f"{where}: {d.code} held back ({reason}): {visible(d.message)}", err=True)
        return
    reasons = Counter(str(d.detail.get("held_back", "")).split(" '")[0] for d in held)
    by_reason = ", ".join(f"{reason} {n}" for reason, n in sorted(reasons.items()))
    count = len(held)
    echo(
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
        echo(f"curator: store {where} ({layout_of(target.store)}; {why})", err=True)


@user_errors
def run(
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
    store_paths: tuple[Path, ...] = (),
) -> None:
    """`curator lint` with its parameters as click passes them (see `commands.lint`)."""
    paths = paths + store_paths  # `--store S` names a store as `S` does
    if today is not None:
        clock.set_today(today)
    cwd = Path.cwd()
    config = load_config(config_path, cwd)
    report_recovered(config)
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
        echo(f"curator: {note}", err=True)
    report_held_back(result.held_back, cwd, show_silenced)

    fmt = output_format or default_format()
    ctx = ReportContext(
        format=fmt,
        cwd=cwd,
        color=use_color(color, output_file is not None),
        rules={r.code: r for r in selected},
        memories=result.memories,
        stores=tuple(result.stores),
        not_run=tuple(sorted(result.not_run)),
    )
    text = (
        statistics(result.diagnostics)
        if show_statistics
        else get_reporter(fmt).render(result.diagnostics, ctx)
    )
    if output_file is not None:
        output_file.write_text(for_terminal(text, ctx.color), encoding="utf-8")
    else:
        echo(text, nl=False, color=ctx.color)  # control characters from memories escaped

    threshold = Severity.parse(fail_on or config.get("fail_on"))
    failing = any(d.severity >= threshold for d in result.diagnostics)
    sys.exit(EXIT_FINDINGS if failing and not exit_zero else EXIT_CLEAN)
