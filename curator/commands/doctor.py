"""`curator doctor`: what curator sees here, and the original plugin's settings to move.

Users of the original curator plugin configured it under a `curator:` key in Claude
Code's settings.json. This curator reads `.curator.yaml` instead; doctor finds such keys
and prints the line to write for each (docs/configuration.md has the table). It also
says which config, store and repository curator uses here, and how it found them.
Exit status: 0 nothing to do, 1 settings to move.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from curator.commands.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    config_from,
    config_option,
    user_errors,
)
from curator.commands.terminal import echo
from curator.errors import UserError

# The original plugin's `curator.*` setting -> its `.curator.yaml` form, `{}` for the value.
# None: no equivalent (said, with why).
LEGACY: dict[str, str | None] = {
    "memory_store_path": "memory_store: {}",
    "cheap_checks.enabled": "cheap: {{enabled: {}}}",
    "cheap_checks.wall_clock_budget_ms": "cheap: {{budget_ms: {}}}",
    "cheap_checks.skip_if_session_age_under_seconds": (
        "cheap: {{skip_if_session_age_under_seconds: {}}}"
    ),
    "date_check.enabled": "ignore: [CUR101, CUR102]   # when false",
    "date_check.date_grace_period_days": "rules: {{date_decayed: {{params: {{grace_days: {}}}}}}}",
    "reference_check.enabled": "ignore: [CUR201, CUR202, CUR205]   # when false",
    "reference_check.check_urls": "references: {{check_urls: {}}}",
    "reference_check.url_allowlist": "references: {{url_allowlist: {}}}",
    "usage_tracker.enabled": "ignore: [CUR300, CUR301]   # when false",
    "usage_tracker.usage_window_days": "usage: {{window_days: {}}}",
    "llm_sweep.enabled": "llm: {{enabled: {}}}",
    "llm_sweep.model": "llm: {{model: {}}}",
    "llm_sweep.interval_days": "llm: {{interval_days: {}}}",
    "llm_sweep.max_pair_evaluations_per_sweep": "llm: {{max_pairs: {}}}",
    "llm_sweep.temperature": None,
    "llm_sweep.max_output_tokens": None,
    "llm_sweep.contradiction_similarity_threshold": None,
    "surfacer.max_pointer_chars": "surfacer: {{max_pointer_chars: {}}}",
    "surfacer.skip_when_zero": "surfacer: {{skip_when_zero: {}}}",
}
NO_EQUIVALENT = (
    "no equivalent: the pair sweep's candidates and answers are tuned in the CUR401/CUR402 "
    "rule params (docs/llm.md)"
)


def settings_files(config_dir: Path, repo: Path | None) -> list[Path]:
    """Claude Code's settings files, as the original plugin layered them."""
    files = [config_dir / "settings.json", config_dir / "settings.local.json"]
    if repo is not None:
        files += [repo / ".claude" / "settings.json", repo / ".claude" / "settings.local.json"]
    return files


def legacy_settings(path: Path) -> list[tuple[str, Any]]:
    """(dotted key, value) of every leaf under the file's `curator` key."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    section = data.get("curator") if isinstance(data, dict) else None
    if not isinstance(section, dict):
        return []
    found: list[tuple[str, Any]] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                if not str(key).startswith("_"):
                    walk(f"{prefix}.{key}" if prefix else str(key), inner)
        else:
            found.append((prefix, value))

    walk("", section)
    return found


def equivalent(key: str, value: Any) -> str:
    """The `.curator.yaml` line for one original setting."""
    if key not in LEGACY:
        return "unknown to this curator: leave it out"
    template = LEGACY[key]
    if template is None:
        return NO_EQUIVALENT
    return template.format(json.dumps(value) if not isinstance(value, str) else value)


@click.command()
@config_option
@user_errors
def doctor(config_path: Path | None) -> None:
    """Say which config, store and repository curator uses here, and point out the
    original plugin's `curator:` settings in Claude Code's settings.json, with the
    .curator.yaml line to write for each."""
    from curator.linting import resolve_targets
    from curator.store.discovery import claude_config_dir, repo_root

    cwd = Path.cwd()
    config = config_from(config_path)
    echo(f"config: {config.source or 'built-in defaults (no .curator.yaml found)'}")
    try:
        target = resolve_targets([], config, cwd)[0]
    except UserError as exc:
        echo(f"store: none ({exc})")
    else:
        echo(f"store: {target.store} (found by {target.found})")
        repo = target.repo
        where = str(repo.root) if repo.root else f"none ({repo.reason})"
        echo(f"repository: {where}")
    project = repo_root(cwd.resolve())
    moves = 0
    for path in settings_files(claude_config_dir(), project):
        for key, value in legacy_settings(path):
            moves += 1
            echo(f"{path}: curator.{key} = {json.dumps(value)}")
            echo(f"  in .curator.yaml: {equivalent(key, value)}")
    if moves:
        echo(
            f"{moves} setting{'s' if moves != 1 else ''} of the original curator plugin: this "
            "curator reads .curator.yaml, not Claude Code's settings.json",
            err=True,
        )
    sys.exit(EXIT_FINDINGS if moves else EXIT_CLEAN)
