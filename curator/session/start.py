"""The Claude Code SessionStart hook as a library call: payload in, hook output out.

It never raises: whatever goes wrong becomes an event and a line on stderr, and the
output is still one valid JSON object. The cheap tier runs under `cheap.budget_ms`,
measured from the hook's start; a project scanned less than
`cheap.skip_if_session_age_under_seconds` ago is not scanned again (resume, clear and
compact fire right after startup). The answer comes within `cheap.hook_timeout_ms`
whatever the store holds (`session.deadline`): past it, the pointer shows the findings
stored so far and the scan finishes in the background, for at most
`cheap.background_limit_seconds`.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from curator import clock
from curator.config import Config
from curator.findings.project import ProjectDir
from curator.session.payload import EMPTY, Payload, hook_output, parse_payload
from curator.session.watermark import claim_scan, sweep_interval_passed

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from typing import Any

    from curator.linting import Target


def session_start(raw: str, started: float) -> dict[str, Any]:
    """Run the hook for one stdin payload; `started` is the process's monotonic start."""
    if os.environ.get("CURATOR_NESTED") == "1":
        return dict(EMPTY)  # curator's own `claude -p` session: stay out of it
    from curator.config import load_config
    from curator.errors import UserError
    from curator.session.deadline import answer_within

    payload = parse_payload(raw)
    try:
        config = load_config(None, payload.cwd)
    except UserError as exc:
        _report_error(Config(), payload, f"configuration error: {exc}")
        return dict(EMPTY)
    heard = answer_within(
        started + answer_deadline_ms(config) / 1000,
        lambda tell: _answer(config, payload, started, tell),
        config.get("cheap.background_limit_seconds"),
    )
    if heard.finished and heard.answer is not None:
        return heard.answer
    return _late_answer(config, payload, heard.told, started)


def answer_deadline_ms(config: Config) -> int:
    """`cheap.hook_timeout_ms`: the answer is due then, however long `cheap.budget_ms`
    lets rules start; what they find after it is persisted for the next session."""
    return int(config.get("cheap.hook_timeout_ms"))


def _answer(
    config: Config, payload: Payload, started: float, tell: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    """The hook's work, in the child `answer_within` runs it in; `tell` sends up the
    project's state folder as soon as it is known."""
    from curator.errors import UserError
    from curator.store.discovery import project_store

    try:
        if not auto_memory_on(payload.cwd):
            return dict(EMPTY)  # Claude Code neither reads nor writes the store: nothing to say
        found = project_store(payload.cwd, config.path("memory_store"))
        if found is None:
            return dict(EMPTY)  # no memory for this project yet: nothing to say
        from curator.findings.project import project_dir
        from curator.linting import target_for

        target = target_for(found.path.resolve(), config, payload.cwd, found=found.how)
        project = project_dir(config, target.repo.root, target.store)
        tell({"tell": {"project": str(project.root), "store": str(target.store)}})
        return _run(config, payload, target, started)
    except UserError as exc:
        _report_error(config, payload, str(exc))
    except Exception as exc:  # the hook must never break a session start
        _report_error(config, payload, f"internal error: {type(exc).__name__}: {exc}")
    return dict(EMPTY)


def auto_memory_on(cwd: Path) -> bool:
    """Whether Claude Code's auto-memory is on for the project at `cwd`
    (`autoMemoryEnabled`, `CLAUDE_CODE_DISABLE_AUTO_MEMORY`: `store.claude_settings`)."""
    from curator.store.claude_settings import memory_setting
    from curator.store.discovery import repo_root

    here = cwd.resolve()
    return memory_setting(repo_root(here) or here).enabled


def _late_answer(
    config: Config, payload: Payload, told: dict[str, Any], started: float
) -> dict[str, Any]:
    """No answer by the deadline: point at the findings stored so far (read without the
    lock, which the scan may hold), and say in the log that the scan went on alone."""
    import sys

    from curator.findings import store as findings
    from curator.findings.events import event_log
    from curator.session.surfacer import pointer

    limit = answer_deadline_ms(config)
    sys.stderr.write(
        f"curator: hook: no answer within {limit} ms; the scan goes on in the background\n"
    )
    project, store = told.get("project"), told.get("store")
    if not isinstance(project, str):
        return dict(EMPTY)  # the store was not even found in time: nothing to point at
    stored = findings.load(ProjectDir(Path(project))).sorted("open")
    event_log(config, payload.session_id).emit(
        "curator.scan.deadline",
        {
            "mode": "session_start",
            "store": store,
            "deadline_ms": limit,
            "waited_ms": round((time.monotonic() - started) * 1000),
            "findings_open": len(stored),
        },
    )
    text = pointer(
        stored, config.get("surfacer.max_pointer_chars"), config.get("surfacer.skip_when_zero")
    )
    return hook_output(text)


def _run(config: Config, payload: Payload, target: Target, started: float) -> dict[str, Any]:
    from curator.findings import store as findings
    from curator.findings.events import event_log
    from curator.findings.project import project_dir
    from curator.interpreter.rulebook_cache import ruleset_key
    from curator.interpreter.signature import cache_folder, repo_state, store_signature
    from curator.session.outcome import ScanReport, write_watermark
    from curator.session.surfacer import pointer

    events = event_log(config, payload.session_id)
    store, repo = target.store, target.repo.root
    project = project_dir(config, repo, store)
    events.emit("curator.scan.started", {"mode": "session_start", "store": str(store)})
    if not config.get("cheap.enabled"):
        # Turned off for this project: say so in the log, write nothing, point at nothing.
        report = ScanReport(mode="session_start", outcome="skipped", skip_reason="disabled")
        report.duration_ms = round((time.monotonic() - started) * 1000)
        events.emit("curator.scan.complete", report.payload(store))
        return hook_output(None)
    claimed, previous = claim_scan(project, config.get("cheap.skip_if_session_age_under_seconds"))
    if not claimed:
        report = ScanReport(mode="session_start", outcome="skipped", skip_reason="rate_gate")
        report.open = findings.load(project).sorted("open")
    else:
        ruleset = ruleset_key(config)
        state = repo_state(repo)
        today = clock.today()
        before = store_signature(ruleset, today, store, repo, state, project.manifest)
        folder = cache_folder(project.root)
        llm_rules = previous.get("llm_rules")
        if previous.get("signature") == before and previous.get("outcome") == "ok":
            # Nothing changed since the last full run: its findings still stand.
            report = ScanReport(mode="session_start", outcome="ok", reused=True)
            report.open = findings.load(project).sorted("open")
            if llm_rules and sweep_may_be_due(config, project):
                # Only now are the rules worth loading (the other gates need them).
                start_due_llm_sweep(config, project, _rules(config, folder, ruleset), payload.cwd)
        else:
            rules = _rules(config, folder, ruleset)
            report = _scan(config, target, project, started, events, folder, rules, ruleset, state)
            llm_rules = any(r.tier == "llm" for r in rules)
            start_due_llm_sweep(config, project, rules, payload.cwd)
        after = store_signature(ruleset, today, store, repo, state, project.manifest)
        signature = after if report.outcome == "ok" else None
        write_watermark(project, report, signature=signature, llm_rules=bool(llm_rules))
    report.duration_ms = round((time.monotonic() - started) * 1000)
    complete = report.payload(store)
    events.emit("curator.scan.complete", complete)
    text = pointer(
        report.open,
        config.get("surfacer.max_pointer_chars"),
        config.get("surfacer.skip_when_zero"),
    )
    answer = hook_output(text)
    if report.reused and report.outcome == "ok" and after == before:
        from curator.session.quick import remember

        remember(config=config, cwd=payload.cwd, store=store, repo=repo, project=project,
                 ruleset=ruleset, signature=after, today=today.isoformat(),
                 llm_rules=bool(llm_rules), answer=answer, complete=complete)  # fmt: skip
    return answer


def sweep_may_be_due(config: Config, project: ProjectDir) -> bool:
    """The LLM tier is on, a provider can answer and no sweep finished within
    `llm.interval_days`: the gates of `llm_sweep_due` that need no rules, checked first
    on the fast path so that it loads the rules only when a sweep may start."""
    if not sweep_interval_passed(config, project):
        return False
    from curator.llm.providers import available

    return available(config) is not None


def _rules(config: Config, folder: Path, ruleset: str) -> list[Any]:
    from curator.interpreter.rulebook import load_rules

    return load_rules(config)  # the compiled rulebook's cache, keyed as `ruleset` is


def _scan(
    config: Config,
    target: Target,
    project: ProjectDir,
    started: float,
    events: Any,
    folder: Path,
    rules: list[Any],
    ruleset: str,
    state: str,
) -> Any:
    """The cheap tier under the budget, persisted; returns the ScanReport."""
    from curator.interpreter.run_cache import ResultCache
    from curator.interpreter.selection import select_rules
    from curator.session.scan import scan_target

    selected = [
        r
        for r in select_rules(
            rules,
            list(config.get("select")) or None,
            list(config.get("extend_select")),
            list(config.get("ignore")),
        )
        # Probing URLs waits on the network: never on the session-start critical path.
        if not (r.check == "urls" and r.params.get("mode") == "dead")
    ]
    selected = [_bounded_reading(r) for r in selected]
    result, report = scan_target(
        target,
        rules,
        selected,
        config,
        clock.today(),
        mode="session_start",
        events=events,
        project=project,
        started=started,
        deadline=started + config.get("cheap.budget_ms") / 1000,
        cache=ResultCache(folder, ruleset, state),
        announce=False,
    )
    if result.history_pending:
        # The stale-reference rules waited for the history index: build it in the
        # background, and leave this run unsigned so the next start runs them.
        start_history_build(config, sorted(result.history_pending), target.store)
        if report.outcome == "ok":
            report.outcome, report.skip_reason = "partial", "history_pending"
    return report


def start_history_build(config: Config, repos: list[Path], cwd: Path) -> None:
    """Start `curator history` detached for repositories whose index is missing or far
    behind; one build per repository however many sessions start."""
    import subprocess
    import sys

    from curator.findings.onlooker import cache_dir
    from curator.repo.history import claim_build

    exclude = tuple(str(g) for g in config.get("references.history_exclude"))
    folder = cache_dir(config) / "history"
    for repo in repos:
        if not claim_build(repo, folder, exclude):
            continue
        args = [sys.executable, "-m", "curator", "history", "--quiet", str(repo)]
        if config.source is not None:
            args += ["--config", str(config.source)]
        with contextlib.suppress(OSError):
            subprocess.Popen(
                args,
                cwd=repo,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # survives the hook; Claude Code does not wait for it
            )


HOOK_TRANSCRIPT_MB = 64  # uncached transcript data one session start may read


def _bounded_reading(rule: Any) -> Any:
    """A session start reads at most HOOK_TRANSCRIPT_MB of new transcripts (newest first);
    later starts read on from the cache, and CUR301 waits until every transcript is in."""
    if rule.check != "usage" or rule.params.get("read_budget_mb"):
        return rule
    from dataclasses import replace

    return replace(rule, params={**rule.params, "read_budget_mb": HOOK_TRANSCRIPT_MB})


def llm_sweep_due(config: Config, project: ProjectDir, rules: list[Any]) -> bool:
    """The LLM tier is enabled, an `llm`-tier rule exists, a provider can answer, and no
    sweep finished within `llm.interval_days`."""
    if not config.get("llm.enabled"):
        return False
    if not any(getattr(r, "tier", None) == "llm" for r in rules):
        return False
    from curator.llm.gate import sweep_due
    from curator.llm.providers import available

    if available(config) is None:
        return False
    return sweep_due(project.last_llm_sweep, int(config.get("llm.interval_days")), clock.now())


def start_due_llm_sweep(config: Config, project: ProjectDir, rules: list[Any], cwd: Path) -> bool:
    """Start `curator scan` detached when the LLM sweep is due; never wait for it.

    The session-start hook's critical path only pays for the spawn. A claim file makes
    sessions that start together start one sweep; the scan releases it when done.
    """
    if not llm_sweep_due(config, project, rules):
        return False
    import subprocess
    import sys

    from curator.llm.gate import claim_sweep, release_sweep

    if not claim_sweep(project.root, clock.now()):
        return False
    try:
        subprocess.Popen(
            [sys.executable, "-m", "curator", "scan", "--quiet", "--release-claim"],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # survives the hook; Claude Code does not wait for it
        )
    except OSError:
        release_sweep(project.root)
        return False
    return True


def _report_error(config: Config, payload: Payload, message: str) -> None:
    import sys

    from curator.findings.events import event_log

    sys.stderr.write(f"curator: hook: {message}\n")
    # Even the log can be unwritable; the hook still answers.
    with contextlib.suppress(Exception):
        event_log(config, payload.session_id).emit(
            "curator.scan.complete",
            {
                "mode": "session_start",
                "outcome": "error",
                "skip_reason": None,
                "error": message,
                "findings_new": 0,
                "findings_resolved": 0,
                "duration_ms": 0,
            },
        )
