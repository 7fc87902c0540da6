"""Plans the repository has since carried out: a plan names a file a later commit added.

A plan is a heading or a label line that holds one of `plan_words` ("## Phase 2
(geplant): SessionStart-Hook", "**Next steps:**", "TODO:"), with what belongs to it: a
heading's section (to the next heading of its level or above), a label's list. When a
path the plan names (read as the path rule reads it, `path_rule`) is in the repository
today and the commit that added it came after the memory's last change, the plan has
moved on and the memory has not: reported once, at the plan's line, with that commit.

The memory's last change is its last commit when git vouches for the file (tracked and
unchanged), else its mtime. A line with a done mark (the date rule's `done_marks`) names
work already recorded as done; a journal records its day. Silence where history cannot
say.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from curator.interpreter import stale
from curator.interpreter.checks import dates, paths
from curator.interpreter.write_dates import committed
from curator.models import Hit, Memory

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule
    from curator.repo.history import Commit

PARAMS: dict[str, Any] = {
    "path_rule": "path_broken",  # whose reading of paths (and their params) is used
    "date_rule": "date_decayed",  # whose journal names and done marks are used
    "plan_words": [],  # lower case; a heading or label line holding one is a plan
}
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "plan": "the plan's line, without markdown",
        "path": "the path the plan names, as written",
        "path_line": "the line that names it",
        "commit": "the commit that added it (short sha)",
        "commit_date": "that commit's date (YYYY-MM-DD)",
        "subject": "that commit's subject",
        "last_change": "the memory's last change: its commit (short sha), 'its commit of DAY' "
        "(a store committed to another repository) or 'mtime'",
    }
}

_HEADING = re.compile(r"^(#{1,6})[ \t]+\S")
_LABEL = re.compile(r"^[ \t]*(?:\*\*|__)?[^\s*_#|>-][^|]{0,80}?:(?:\*\*|__)?[ \t]*(?:\*\*|__)?$")
_MARKUP = re.compile(r"\*\*|__|`|^#+[ \t]*|^[ \t]*[-*+][ \t]*")


@dataclass(frozen=True)
class _Plan:
    line: int  # 1-based, the heading or label
    last: int  # the last line that belongs to it


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    path_rule = next((r for r in ctx.rules if r.name == rule.params["path_rule"]), None)
    root = ctx.repo_root
    if path_rule is None or root is None or not root.is_dir():
        return
    date_rule = next((r for r in ctx.rules if r.name == rule.params["date_rule"]), None)
    words = tuple(w.lower() for w in rule.params["plan_words"])
    marks = tuple(date_rule.params["done_marks"]) if date_rule is not None else ()
    named: list[tuple[Memory, _Plan, paths.Candidate]] = []
    for memory in ctx.memories(rule):
        if date_rule is not None and dates.is_journal(date_rule, memory):
            continue  # a session log records its day
        owners = _owners(memory, words)
        if not owners:
            continue
        for candidate in paths.candidates(path_rule, memory):
            number, _ = memory.locate(candidate.start)
            plan = owners.get(number)
            if plan is not None and not _done(memory.lines[number - 1], marks):
                named.append((memory, plan, candidate))
    if not named:
        return
    index = stale.history_index(ctx, rule)
    if index is None:
        return
    resolver = paths.resolver_for(ctx, path_rule, root)
    wanted: dict[tuple[str, int], list[str]] = {}
    for memory, _, candidate in named:
        if resolver.status(candidate, memory) == "live":
            rels = [r for r in resolver.repo_relative(candidate, memory) if resolver.present(r)]
            wanted[(memory.rel, candidate.start)] = rels
    own = {m.rel: _repo_rel(resolver, m) for m in {id(m): m for m, _, _ in named}.values()}
    looked = {r for rels in wanted.values() for r in rels} | {r for r in own.values() if r}
    versions = index.versions(looked.__contains__)
    said: set[tuple[str, int]] = set()
    lasts: dict[str, tuple[str, int] | None] = {}
    for memory, plan, candidate in named:
        if (memory.rel, plan.line) in said:
            continue
        if memory.rel not in lasts:
            lasts[memory.rel] = _last_change(ctx, memory, versions.get(own[memory.rel] or ""))
        last = lasts[memory.rel]
        if last is None:
            continue
        added = [
            (a, r)
            for r in wanted.get((memory.rel, candidate.start), [])
            if (a := _added(versions.get(r))) is not None
        ]
        after = [(a, r) for a, r in added if a.time > last[1]]
        if not added or len(after) < len(added):
            continue  # some place it may mean was there already: nothing is proven
        said.add((memory.rel, plan.line))
        commit = min(after, key=lambda x: x[0].time)[0]
        yield _hit(memory, plan, candidate, commit, last[0])


def _owners(memory: Memory, words: tuple[str, ...]) -> dict[int, _Plan]:
    """Each line's nearest plan: "## Phase 2 (planned)" rather than a plan heading above
    it. Plans come in line order and nest or follow one another, so a later one's lines
    are its own: one pass, however many plans a memory holds."""
    owners: dict[int, _Plan] = {}
    for plan in _plans(memory, words):
        for number in range(plan.line, plan.last + 1):
            owners[number] = plan
    return owners


def _plans(memory: Memory, words: tuple[str, ...]) -> Iterator[_Plan]:
    """The plan headings and labels of a memory's body, with the lines that are theirs."""
    lines = memory.lines
    fenced = memory.fenced_lines
    body = range(memory.body_line, len(lines) + 1)
    title = next((n for n in body if lines[n - 1].strip()), 0)
    for number in body:
        if number in fenced:
            continue
        line = lines[number - 1]
        heading = _HEADING.match(line)
        if heading is None and _LABEL.match(line) is None:
            continue
        if not _says(line, words):
            continue
        if heading is not None and len(heading.group(1)) == 1 and number == title:
            continue  # the memory's title ("# Jarvis — Plan-Stand") names it, not a plan
        if heading is not None:
            level = len(heading.group(1))
            last = number
            for after in range(number + 1, len(lines) + 1):
                other = _HEADING.match(lines[after - 1])
                if other is not None and after not in fenced and len(other.group(1)) <= level:
                    break
                last = after
        else:  # a label owns the list right under it
            last = number
            for after in range(number + 1, len(lines) + 1):
                text = lines[after - 1]
                if dates.ITEM.match(text) or (text.startswith((" ", "\t")) and text.strip()):
                    last = after
                elif text.strip():
                    break
        yield _Plan(number, last)


def _says(line: str, words: tuple[str, ...]) -> bool:
    lower = line.lower()
    for word in words:
        at = lower.find(word)
        while at >= 0:
            end = at + len(word)
            before = lower[at - 1] if at else " "
            after = lower[end] if end < len(lower) else " "
            if not (before.isalnum() and word[0].isalnum()) and not (
                after.isalnum() and word[-1].isalnum()
            ):
                return True
            at = lower.find(word, at + 1)
    return False


def _done(line: str, marks: tuple[str, ...]) -> bool:
    lower = line.lower()
    return "[x]" in lower or any(m.lower() in lower for m in marks)


def _repo_rel(resolver: paths.Resolver, memory: Memory) -> str | None:
    path = str(memory.path.resolve())
    return path[len(resolver.repo) + 1 :] if stale.within(path, resolver.repo) else None


def _last_change(
    ctx: Context, memory: Memory, own: list[tuple[Commit, bool]] | None
) -> tuple[str, int] | None:
    """(how it is named, when: seconds since the epoch) of the memory's last change."""
    day = committed(ctx, memory)
    if day is None:
        return "mtime", int(memory.mtime)
    if own:
        commit = own[-1][0]
        return commit.short, commit.time
    # Committed to another repository (a dotfiles repository beside the project): only
    # the day is known, so the last moment of that day anywhere on Earth.
    latest = datetime(day.year, day.month, day.day, tzinfo=timezone.utc) + timedelta(hours=36)
    return f"its commit of {day.isoformat()}", int(latest.timestamp())


def _added(found: list[tuple[Commit, bool]] | None) -> Commit | None:
    """The commit that added the path as it is today (after its last deletion)."""
    if not found or found[-1][1]:
        return None
    gone = max((i for i, (_, deleted) in enumerate(found) if deleted), default=-1)
    return found[gone + 1][0]


def _hit(memory: Memory, plan: _Plan, candidate: paths.Candidate, commit: Commit, last: str) -> Hit:
    path_line, _ = memory.locate(candidate.start)
    line = memory.lines[plan.line - 1]
    detail = {
        "plan": _MARKUP.sub("", line).strip(" :*_"),
        "path": candidate.text,
        "path_line": path_line,
        "commit": commit.short,
        "commit_date": stale.commit_date(commit).isoformat(),
        "subject": commit.subject,
        "last_change": last,
    }
    start = len(line) - len(line.lstrip())
    return Hit(memory.path, plan.line, start + 1, end_column=len(line.rstrip()) + 1, detail=detail)
