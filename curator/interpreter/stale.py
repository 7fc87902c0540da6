"""What the stale-reference checks (paths, symbols) share.

The history index of the run's repository (opened once per run; never built cold under
a deadline: the session-start hook asks for it to be built in the background instead),
the evidence a message shows (commit, date, subject, and when the memory was written),
and the reasons a history-backed reference is held back as right as written.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from curator import templates
from curator.interpreter import narration
from curator.interpreter.context import HISTORY_PENDING
from curator.interpreter.write_dates import write_date
from curator.models import Edit, Fix, Hit, Memory

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule
    from curator.repo.history import Commit, Index

T = TypeVar("T")
_HEX = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{7,40}(?![0-9A-Za-z])")
# How many new commits the hook may index itself before it leaves the rest to the
# background build (measured: 50 commits update in about 0.13 s).
HOOK_MAX_UPDATE = 50
PROGRESS_COMMITS = 1000  # a build of this many commits takes over a second: say so


def history_index(ctx: Context, rule: Rule) -> Index | None:
    """The index of the context's repository, shared by the run's rules; None when it
    cannot be had now (the rule is then marked skipped: its findings stay open)."""
    index = shared_index(ctx)
    if index is None:
        assert ctx.repo_root is not None
        repo = ctx.repo_root.resolve()
        ctx.skipped.add(rule.code)
        if ctx.deadline is None:
            from curator.git import unavailable

            why = unavailable().get(str(repo))
            _note(
                ctx,
                f"path and symbol rules skipped: history unavailable for {repo}: {why}"
                if why
                else f"path and symbol rules skipped: {repo} has no git history to show what "
                "it had and lost (not a git repository, or no commits)",
            )
    return index


def shared_index(ctx: Context) -> Index | None:
    """The index of the context's repository, opened (or built) once a run for every rule
    that reads history; None when it cannot be had now. A rule that can do without it
    (the manifests' own `git log`) asks here and skips nothing."""
    from curator.findings.onlooker import cache_dir
    from curator.repo.history import open_index

    assert ctx.repo_root is not None
    repo = ctx.repo_root.resolve()
    exclude = tuple(str(g) for g in ctx.config.get("references.history_exclude"))
    key = ("history", str(repo), exclude)
    if key not in ctx.shared:
        folder = cache_dir(ctx.config) / "history"
        if ctx.deadline is not None:
            index = open_index(
                repo, folder, exclude, allow_build=False, max_update_commits=HOOK_MAX_UPDATE
            )
            if index is None:
                ctx.shared.setdefault(HISTORY_PENDING, set()).add(repo)
        else:
            index = open_index(repo, folder, exclude, on_build=lambda n: _progress(repo, n))
        if index is not None:
            for limit in index.limits:
                _note(ctx, f"history of {repo}: {limit}")
        ctx.shared[key] = index
    return ctx.shared[key]  # type: ignore[no-any-return]


# The params every stale-reference check (paths, symbols) takes: how narration,
# rename arrows, conditions and journals are told, the messages, how many examples.
PARAMS: dict[str, Any] = {
    "narration_words": [],
    "rename_arrow": "",
    "rename_arrow_before": "",
    "condition_pattern": "",
    "journal_names": [],
    "journal_frontmatter": {},
    "messages": {},
    "examples": 5,
}


def validate_params(params: dict[str, Any], messages: tuple[str, ...]) -> str | None:
    """The params the stale-reference rules share, vetted: narration patterns and the
    message of every kind of evidence."""
    try:
        narration.compile_narration(params)
    except Exception as exc:  # regex.error and friends
        return f"bad narration, arrow, condition or journal pattern: {exc}"
    missing = [m for m in messages if not isinstance(params["messages"].get(m), str)]
    return f"messages needs {', '.join(missing)}" if missing else None


def once(ctx: Context, key: tuple[str, str], compute: Callable[[], T]) -> T:
    """`compute()` once per run: CUR201/CUR202 and CUR205 read the same examination."""
    if key not in ctx.shared:
        ctx.shared[key] = compute()
    return ctx.shared[key]  # type: ignore[no-any-return]


def _note(ctx: Context, text: str) -> None:
    if text not in ctx.notes:
        ctx.notes.append(text)


def _progress(repo: Path, commits: int) -> None:
    if commits >= PROGRESS_COMMITS and sys.stderr.isatty():
        sys.stderr.write(f"curator: indexing the history of {repo} ({commits} commits)…\n")
        sys.stderr.flush()


def commit_date(commit: Commit) -> date:
    return datetime.fromtimestamp(commit.time, tz=timezone.utc).date()


def written(ctx: Context, memory: Memory) -> tuple[date, str]:
    """When the memory was written, and what says so (`write_dates.write_date`: frontmatter,
    else its last commit when tracked and unchanged, else the file's time)."""
    known = write_date(ctx, memory)
    source = {"commit": "its last commit", "mtime": "the file's time"}.get(
        known.source, f"frontmatter {known.source}"
    )
    return known.day, source


# The detail keys `evidence` adds to a history-backed hit (CUR201, CUR202, CUR206).
EVIDENCE_DETAIL: dict[str, str] = {
    "commit_date": "that commit's date (YYYY-MM-DD)",
    "subject": "that commit's subject line",
    "evidence": "the sentence the rule's `messages` make of it",
    "written": "the memory's write date (YYYY-MM-DD)",
    "written_as": "the date as the message says it: written, last committed or last changed",
    "written_source": "where that date comes from (frontmatter field, last commit, file time)",
    "written_after": "true when the memory was written after the commit",
    "when": "the sentence comparing the two dates",
    "held_back": "why it is right as written (only on diagnostics held back)",
}


def evidence(
    ctx: Context, rule: Rule, kind: str, values: dict[str, Any], memory: Memory
) -> dict[str, Any]:
    """The detail of a history-backed hit: the facts, the sentence the rule's
    `messages[kind]` makes of them, and the memory's write date against the commit's."""
    commit: Commit = values.pop("commit_obj")
    gone = commit_date(commit)
    detail = {
        **values,
        "commit": commit.short,
        "commit_date": gone.isoformat(),
        "subject": commit.subject,
        "evidence_kind": kind,
    }
    messages = rule.params["messages"]
    detail["evidence"] = templates.render(messages[kind], detail)
    when, source = written(ctx, memory)
    # Both are days: one written on the day of the change is not known to be after it.
    after = when > gone
    detail.update(written=when.isoformat(), written_source=source, written_after=after)
    # "written" only for a write date; a commit date is when it was committed.
    if source == "its last commit":
        detail["written_as"] = f"last committed {when.isoformat()}"
    elif source == "the file's time":
        detail["written_as"] = f"last changed {when.isoformat()} (the file's time)"
    else:
        detail["written_as"] = f"written {when.isoformat()} ({source})"
    order = "written_after" if after else "written_before"
    if when == gone and "written_same_day" in messages:  # a day says neither before nor after
        order = "written_same_day"
    detail["when"] = templates.render(messages[order], detail)
    return detail


def held_back(
    rules: narration.Narration, memory: Memory, start: int, end: int, commits: list[Commit]
) -> str | None:
    """Why a history-backed reference at [start, end) is right as written, or None: the
    memory is a journal, its sentence narrates the change, or cites the very commit."""
    if narration.is_journal(rules, memory):
        return "journal"
    begin, stop = narration.sentence(memory, start, end)
    hexes = {h.lower() for h in _HEX.findall(memory.text, begin, stop)}
    if any(c.sha.startswith(h) for c in commits for h in hexes):
        return "cites the commit"
    return narration.narrated(rules, memory, start, end)


def rewrite_fix(memory: Memory, start: int, old: str, new: str, what: str) -> Fix:
    """The safe fix that writes `new` over `old` at offset `start` of the memory (one line),
    described as rewriting `what` (the reference as written) to what it becomes."""
    line = memory.locate(start)[0]
    text = memory.lines[line - 1]
    column = start - memory.line_starts[line - 1]
    rewritten = what[: len(what) - len(old)] + new if what.endswith(old) else new
    return Fix(
        kind="REPLACE",
        path=memory.path,
        base_sha256=memory.sha256,
        edits=(Edit(line, line + 1, text[:column] + new + text[column + len(old) :] + "\n"),),
        safe=True,
        description=f"rewrite '{what}' to '{rewritten}' (line {line})",
    )


def hold(hit: Hit, reason: str) -> Hit:
    """A hit the engine keeps aside (listed with --show-silenced), with why."""
    return replace(hit, detail={**hit.detail, "held_back": reason}, fix=None)


def within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
