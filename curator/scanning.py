"""One persisted run over one store: events, lint, findings, watermark.

The session-start hook, `curator scan` and `curator lint --persist` all come through
`scan_target`, so findings and events are written the same way whoever runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from curator import atomic, clock
from curator.config import Config
from curator.events import EventLog, events_path
from curator.findings import Finding
from curator.linting import LintResult, Target, lint, repo_root_for
from curator.models import Rule
from curator.reconcile import record
from curator.storage import ProjectDir, project_dir, storage_root


@dataclass
class ScanReport:
    """What `curator.scan.complete` says, plus the open findings for the pointer."""

    mode: str
    outcome: str  # ok | partial | skipped | error
    skip_reason: str | None = None  # over_budget | rate_gate | None
    findings_new: int = 0
    findings_resolved: int = 0
    duration_ms: int = 0
    open: list[Finding] = field(default_factory=list)
    skipped_rules: list[str] = field(default_factory=list)

    def payload(self, store: Path) -> dict[str, object]:
        return {
            "mode": self.mode,
            "outcome": self.outcome,
            "skip_reason": self.skip_reason,
            "findings_new": self.findings_new,
            "findings_resolved": self.findings_resolved,
            "findings_open": len(self.open),
            "duration_ms": self.duration_ms,
            "store": str(store),
            "skipped_rules": self.skipped_rules,
        }


def event_log(config: Config, session_id: str | None = None) -> EventLog:
    return EventLog(events_path(storage_root(config)), session_id)


def project_for(store: Path, config: Config, repo_override: Path | None, cwd: Path) -> ProjectDir:
    return project_dir(config, repo_root_for(store, config, repo_override, cwd), store)


def scan_target(
    target: Target,
    rules: list[Rule],
    selected: list[Rule],
    config: Config,
    today: date,
    *,
    mode: str,
    events: EventLog,
    cwd: Path,
    repo_root: Path | None = None,
    started: float | None = None,
    deadline: float | None = None,
) -> tuple[LintResult, ScanReport]:
    """Lint one store and persist the result. `started`/`deadline`: monotonic seconds."""
    started = time.monotonic() if started is None else started
    project = project_for(target.store, config, repo_root, cwd)
    events.emit("curator.scan.started", {"mode": mode, "store": str(target.store)})
    result = lint([target], rules, selected, config, today, repo_root, cwd, deadline)
    run = result.runs[0]
    by_code = {r.code: r for r in rules}
    outcome = record(project, run.store, run.diagnostics, by_code, set(run.ran), events, run.only)
    skipped = sorted({r.code for r in selected} - run.ran)
    over_budget = deadline is not None and bool(skipped) and time.monotonic() >= deadline
    report = ScanReport(
        mode=mode,
        outcome="partial" if over_budget else "ok",
        skip_reason="over_budget" if over_budget else None,
        findings_new=len(outcome.new),
        findings_resolved=len(outcome.resolved),
        duration_ms=round((time.monotonic() - started) * 1000),
        open=outcome.open,
        skipped_rules=skipped,
    )
    events.emit("curator.scan.complete", report.payload(run.store))
    write_watermark(project, report)
    return result, report


def write_watermark(project: ProjectDir, report: ScanReport, name: str = "cheap") -> None:
    """`last_cheap_scan.json` (or `last_llm_sweep.json`): when and how the last run went."""
    path = project.last_cheap_scan if name == "cheap" else project.last_llm_sweep
    now = clock.now()
    atomic.write_json(
        path,
        {
            "timestamp": now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "epoch": now.timestamp(),
            "mode": report.mode,
            "outcome": report.outcome,
            "skip_reason": report.skip_reason,
            "findings_open": len(report.open),
            "duration_ms": report.duration_ms,
        },
    )
