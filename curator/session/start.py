"""The Claude Code SessionStart hook as a library call: payload in, hook output out.

It never raises: whatever goes wrong becomes an event and a line on stderr, and the
output is still one valid JSON object. The cheap tier runs under `cheap.budget_ms`,
measured from the hook's start; a project scanned less than
`cheap.skip_if_session_age_under_seconds` ago is not scanned again (resume, clear and
compact fire right after startup). The answer comes within `cheap.hook_timeout_ms`
whatever the store holds (`session.deadline`): past it, the pointer shows the findings
stored so far and the scan finishes in the background, for at most
`cheap.background_limit_seconds`. Where there is no fork (native Windows) the answer
cannot wait on a child: the hook answers at once from the findings stored so far and
runs the scan in a detached `curator hook session-start` of its own.
"""

from __future__ import annotations

import contextlib
import os
import sys
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
    _roll_back_killed_fix(config)
    if not hasattr(os, "fork") and os.environ.get(DETACHED_VARIABLE) != "1":
        return _answer_without_fork(config, payload, raw, started)
    heard = answer_within(
        started + answer_deadline_ms(config) / 1000,
        lambda tell: _answer(config, payload, started, tell),
        config.get("cheap.background_limit_seconds"),
    )
    if heard.finished and heard.answer is not None:
        return heard.answer
    return _late_answer(config, payload, heard.told, started)


# Set in the detached process that scans for a hook that has answered (no fork).
DETACHED_VARIABLE = "CURATOR_HOOK_DETACHED"


def _roll_back_killed_fix(config: Config) -> None:
    """Roll back a `curator fix --apply` that was killed, before the agent reads the store
    (DESIGN §10); the usual case costs one stat."""
    from curator.findings.onlooker import storage_root

    storage = storage_root(config)
    if not (storage / "curator" / "pending").is_dir():
        return
    from curator.fixes.recovery import recover

    try:
        for line in recover(storage):
            print(line, file=sys.stderr, flush=True)
    except OSError as exc:  # the hook still answers; the next command tries again
        print(f"curator: hook: {exc}", file=sys.stderr, flush=True)


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

    try:
        if not auto_memory_on(payload.cwd):
            return dict(EMPTY)  # Claude Code neither reads nor writes the store: nothing to say
        located = _locate(config, payload)
        if located is None:
            return dict(EMPTY)  # no memory for this project yet: nothing to say
        target, project = located
        tell({"tell": {"project": str(project.root), "store": str(target.store)}})
        _remember_where(config, payload.cwd, project.root, target.store)
        return _run(config, payload, target, started)
    except UserError as exc:
        _report_error(config, payload, str(exc))
    except Exception as exc:  # the hook must never break a session start
        _report_error(config, payload, f"internal error: {type(exc).__name__}: {exc}")
    return dict(EMPTY)


def _locate(config: Config, payload: Payload) -> tuple[Target, ProjectDir] | None:
    """The session's store and its project state folder; None when it has no store."""
    from curator.store.discovery import project_store

    found = project_store(payload.cwd, config.path("memory_store"))
    if found is None:
        return None
    from curator.findings.project import project_dir
    from curator.linting import target_for

    target = target_for(found.path.resolve(), config, payload.cwd, found=found.how)
    return target, project_dir(config, target.repo.root, target.store)


def _answer_without_fork(
    config: Config, payload: Payload, raw: str, started: float
) -> dict[str, Any]:
    """No fork: answer now from the findings stored so far and scan in a detached process
    (saying once on stderr which), or, when it cannot start, say the scan was skipped."""
    import sys

    from curator.errors import UserError

    try:
        if not auto_memory_on(payload.cwd):
            return dict(EMPTY)  # Claude Code neither reads nor writes the store
        located = _locate(config, payload)
    except UserError as exc:
        _report_error(config, payload, str(exc))
        return dict(EMPTY)
    if located is None:
        return dict(EMPTY)
    target, project = located
    scanning = _start_detached_scan(raw, payload.cwd)
    sys.stderr.write(
        "curator: hook: no fork on this platform: answered from the stored findings; "
        + ("the scan runs in a detached process\n" if scanning else "the scan was skipped\n")
    )
    told = {"project": str(project.root), "store": str(target.store)}
    return _late_answer(config, payload, told, started, say=False)


def _start_detached_scan(raw: str, cwd: Path) -> bool:
    """`curator hook session-start` again, on the same payload, detached: it scans and
    persists inline (`DETACHED_VARIABLE`); its answer goes nowhere. True when started."""
    import subprocess
    import sys

    env = {**os.environ, DETACHED_VARIABLE: "1", "CURATOR_TODAY": clock.today().isoformat()}
    args = [sys.executable, "-m", "curator", "hook", "session-start"]
    try:
        # Its own session (POSIX) or process group, detached from the console (Windows).
        detach: dict[str, Any] = {"start_new_session": True}
        if sys.platform == "win32":
            detach = {
                "creationflags": subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
            }
        proc = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            **detach,
        )
        assert proc.stdin is not None
        with contextlib.suppress(OSError):  # it read what it needed, or died
            proc.stdin.write(raw.encode("utf-8"))
            proc.stdin.close()
    except OSError:
        return False
    return True


def auto_memory_on(cwd: Path) -> bool:
    """Whether Claude Code's auto-memory is on for the project at `cwd`
    (`autoMemoryEnabled`, `CLAUDE_CODE_DISABLE_AUTO_MEMORY`: `store.claude_settings`)."""
    from curator.store.claude_settings import memory_setting
    from curator.store.discovery import repo_root

    here = cwd.resolve()
    return memory_setting(repo_root(here) or here).enabled


def _late_answer(
    config: Config, payload: Payload, told: dict[str, Any], started: float, say: bool = True
) -> dict[str, Any]:
    """No answer by the deadline: point at the findings stored so far (read without the
    lock, which the scan may hold), and say in the log that the scan went on alone
    (and on stderr, unless `say` is False: the caller said it)."""
    import sys

    from curator.findings import store as findings
    from curator.findings.events import event_log
    from curator.session.surfacer import pointer

    limit = answer_deadline_ms(config)
    if say:
        sys.stderr.write(
            f"curator: hook: no answer within {limit} ms; the scan goes on in the background\n"
        )
    project, store = told.get("project"), told.get("store")
    if not isinstance(project, str):
        # The store was not found in time (git slow to say where the repository is):
        # the project the last start in this folder used holds the findings stored.
        project, store = _where(config, payload.cwd)
    if project is None:
        return dict(EMPTY)  # never found from this folder: nothing to point at
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


def _where_file(config: Config, cwd: Path) -> Path:
    from curator.findings.onlooker import cache_dir
    from curator.hashing import sha256_text

    return cache_dir(config) / "where" / f"{sha256_text(str(cwd))[:16]}.json"


def _remember_where(config: Config, cwd: Path, project: Path, store: Path) -> None:
    """Keep which project and store a start in `cwd` found, for a late answer that did
    not hear them (`_where`); written only when it changed."""
    from curator.findings import atomic

    where = _where_file(config, cwd)
    known = {"cwd": str(cwd), "project": str(project), "store": str(store)}
    with contextlib.suppress(OSError):  # only ever a shortcut for a late answer
        if atomic.read_json(where) != known:
            atomic.write_json(where, known)


def _where(config: Config, cwd: Path) -> tuple[str | None, str | None]:
    """(project folder, store) the last start in `cwd` found, when that folder exists."""
    from curator.findings import atomic

    known = atomic.read_json(_where_file(config, cwd))
    if not isinstance(known, dict) or known.get("cwd") != str(cwd):
        return None, None
    project, store = known.get("project"), known.get("store")
    if not isinstance(project, str) or not isinstance(store, str) or not Path(project).is_dir():
        return None, None
    return project, store


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
