"""One persisted run over one store: events, lint, findings, watermark.

The session-start hook, `curator scan` and `curator lint --persist` all come through
`scan_target`, so findings and events are written the same way whoever runs.
"""

from __future__ import annotations

import time
from datetime import date

from curator.config import Config
from curator.findings.events import EventLog
from curator.findings.project import ProjectDir, project_dir
from curator.findings.reconcile import record
from curator.interpreter.run_cache import ResultCache
from curator.linting import LintResult, Target, lint
from curator.models import Rule
from curator.session.outcome import ScanReport, write_watermark


def scan_target(
    target: Target,
    rules: list[Rule],
    selected: list[Rule],
    config: Config,
    today: date,
    *,
    mode: str,
    events: EventLog,
    project: ProjectDir | None = None,
    started: float | None = None,
    deadline: float | None = None,
    cache: ResultCache | None = None,
    announce: bool = True,
) -> tuple[LintResult, ScanReport]:
    """Lint one store and persist the result. `started`/`deadline`: monotonic seconds.

    `project` is the store's state folder when the caller already has it.
    `announce=False` leaves the scan.started/complete events and the watermark to the
    caller (the hook, which also reports runs it did not need to make).
    """
    started = time.monotonic() if started is None else started
    project = project or project_dir(config, target.repo.root, target.store)
    if announce:
        events.emit("curator.scan.started", {"mode": mode, "store": str(target.store)})
    result = lint([target], rules, selected, config, today, deadline, cache)
    run = result.runs[0]
    by_code = {r.code: r for r in rules}
    outcome = record(project, run.store, run.diagnostics, by_code, set(run.ran), events, run.only)
    for failure in result.llm_failures:
        # Failed closed: no finding; the log says which question got no usable answer.
        events.emit(
            "curator.llm.answer_failed",
            {"rule": failure.rule, "memory_files": list(failure.subject), "reason": failure.reason},
        )
    if any(by_code[code].tier == "llm" for code in run.ran if code in by_code):
        from curator import clock
        from curator.llm.gate import record_sweep

        record_sweep(project.last_llm_sweep, clock.now(), {"store": str(run.store), **result.llm})
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
    if announce:
        events.emit("curator.scan.complete", report.payload(run.store))
        write_watermark(project, report)
    return result, report
