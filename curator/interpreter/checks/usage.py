"""Memories no session has used within the window (`mode: unused`), or why that cannot be
known (`mode: undetectable`, once per store when there is no usage source at all).

Sources: Claude Code's transcripts of every checkout and subfolder of the repository,
and `memory.recalled` / `memory.referenced` events in the onlooker event log. Relative
`events_log` / `projects_dir` params resolve against the store folder (rule self-tests
use that); empty means the usual places.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.findings import onlooker
from curator.interpreter.write_dates import write_date
from curator.models import Hit, Store
from curator.store import discovery
from curator.store.reading import INDEX_NAME
from curator.usage.measure import UsageQuery, measure_usage
from curator.usage.transcript_cache import CACHE_NAME
from curator.usage.transcripts import worktree_paths

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "mode": "unused",
    "window_days": 0,  # 0: config `usage.window_days`
    "event_types": ["memory.recalled", "memory.referenced"],
    "events_log": "",
    "projects_dir": "",
    "transcripts": True,
    "cache": True,
    "read_budget_mb": 0,  # uncached transcript MiB read per run; 0: no limit
}
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "unused": {
        "window_days": "the usage window in days",
        "written": "the memory's write date (YYYY-MM-DD)",
        "age_days": "days since then",
        "sources": "where uses were looked for",
    },
    "undetectable": {
        "reason": "why usage cannot be measured",
        "window_days": "the usage window in days",
    },
}


def _store_slug(root: Path) -> str | None:
    """The slug folder a store sits in, when it is Claude Code's `projects/<slug>/memory`."""
    if root.name == "memory" and root.parent.parent.name == "projects":
        return root.parent.name
    return None


def _param_path(value: str, store: Store) -> Path:
    return (store.root / Path(value).expanduser()).resolve()


def build_query(rule: Rule, ctx: Context, window: int) -> UsageQuery:
    """Where this store's usage is recorded, from the rule's params and the environment."""
    params, store = rule.params, ctx.store
    slug = _store_slug(store.root)
    checkouts: tuple[Path, ...] = ()
    if ctx.repo_root is not None:
        checkouts = tuple(p.resolve() for p in worktree_paths(ctx.repo_root))
    if params["projects_dir"]:
        projects: tuple[Path, ...] = (_param_path(params["projects_dir"], store),)
    else:
        found = [(discovery.claude_config_dir() / "projects").resolve()]
        if slug is not None and store.root.parent.parent not in found:
            found.append(store.root.parent.parent)
        projects = tuple(found)
    log = (
        _param_path(params["events_log"], store)
        if params["events_log"]
        else onlooker.events_log(ctx.config)
    )
    return UsageQuery(
        store=store.root,
        store_slug=slug,
        checkouts=checkouts,
        projects=projects,
        events_log=log,
        event_types=frozenset(params["event_types"]),
        since=ctx.today - timedelta(days=window),
        cache=onlooker.cache_dir(ctx.config) / CACHE_NAME if params["cache"] else None,
        transcripts=bool(params["transcripts"]),
        read_budget=int(params["read_budget_mb"] * 1024 * 1024),
    )


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    window = max(1, int(rule.params["window_days"] or ctx.config.get("usage.window_days")))
    query = build_query(rule, ctx, window)
    usage = measure_usage(ctx.store, query)
    if usage.malformed:
        note = f"usage: {usage.malformed} malformed transcript or event-log line(s) skipped"
        if note not in ctx.notes:
            ctx.notes.append(note)
    if rule.params["mode"] == "undetectable":
        if usage.sources or not ctx.store.memories:
            return
        if not _kept_here(rule, query):
            # A copied store, a dotfiles checkout, the demo: no session of this machine
            # could have used it, so a finding would be noise. Decided by where the store
            # is, not by what this machine holds, so every machine says the same.
            note = (
                f"{rule.code} {rule.name}: the store is not under "
                f"{query.projects[0]}, so no session here used it; usage not measured"
            )
            if note not in ctx.notes:
                ctx.notes.append(note)
            return
        yield _undetectable(ctx.store, query, window)
        return
    if not usage.sources:
        note = f"{rule.code} {rule.name} skipped: no transcripts or memory events to measure"
        if note not in ctx.notes:
            ctx.notes.append(note)
        ctx.skipped.add(rule.code)  # nothing measured: its findings stay as they are
        return
    if usage.pending:
        # Judging on part of the sessions would call used memories unused: wait.
        ctx.notes.append(
            f"usage: {usage.pending} transcript(s) not read yet (read_budget_mb); "
            f"{rule.code} is held back until later runs have cached them"
        )
        ctx.skipped.add(rule.code)
        return
    for memory in ctx.memories(rule):
        written = write_date(ctx, memory).day
        age = (ctx.today - written).days
        if age <= window or memory.rel in usage.last_use:
            continue
        detail = {
            "window_days": window,
            "written": written.isoformat(),
            "age_days": age,
            "sources": " and ".join(usage.sources),
        }
        yield Hit(memory.path, 1, detail=detail)


def _kept_here(rule: Rule, query: UsageQuery) -> bool:
    """Whether usage could have been recorded for this store: it sits under the projects
    folder (the machine's, or the rule's `projects_dir`), or the rule's `events_log` names
    a log that exists. Never the machine's own event log: that would make the answer
    differ from machine to machine."""
    log = query.events_log
    if rule.params["events_log"] and log is not None and log.exists():
        return True
    return query.store.is_relative_to(query.projects[0])


def _undetectable(store: Store, query: UsageQuery, window: int) -> Hit:
    types = " or ".join(sorted(query.event_types)) or "memory"
    where = ", ".join(str(p) for p in query.projects)
    reason = f"no {types} events in the window in {query.events_log}"
    if query.transcripts:
        reason += f"; no transcripts of this project under {where}"
    detail = {"reason": reason, "window_days": window}
    return Hit(store.root / INDEX_NAME, 1, detail=detail, memory_files=(INDEX_NAME,))
