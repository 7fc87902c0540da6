"""Dated status snapshots: a present-tense state pinned to a date that has long passed.

"Status (2026-04-27): waiting for the app config", "Stand 2026-04-26: Phase 1 läuft",
"ŞU ANKİ İŞ (2026-06-17): ...", "Current benchmark = Apr 13": a claim of current state
(a `current` word in the date's clause) tied to a date older than `min_age_days`. A
completed past event ("migrated on 2026-03-01") has no current word and stays history;
a date that is a deadline or a plan is the date rule's (CUR101), not reported twice.

The dates, their patterns, month names and clause window are the date rule's
(`date_rule`, read from the loaded rules): one reading of dates for both.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from curator.interpreter.checks import dates
from curator.interpreter.date_words import Vocabulary, vocabulary
from curator.interpreter.write_dates import write_date
from curator.models import Hit, Memory

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "date_rule": "date_decayed",
    "min_age_days": 90,
    "window_chars": 80,  # how far from the date, within its sentence, a word counts
    "read_index": True,  # MEMORY.md's own lines too
    # Per language, the words that say a sentence describes the present state.
    "current_words": {},
    # History words of the date rule that only stamp a state ("as of", "Stand"): they do
    # not make the date a completed event.
    "as_of_words": [],
}
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "date": "the date it was read as (YYYY-MM-DD)",
        "date_text": "the date as written",
        "current_word": "the word that says the line describes the present",
        "days_ago": "how many days before today the date is",
        "same_in": dates.SAME_IN,
    }
}


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    date_rule = next((r for r in ctx.rules if r.name == rule.params["date_rule"]), None)
    if date_rule is None:
        return  # the date rule is not loaded: no reading of dates to share
    setup = dates._setup(date_rule, ctx)
    words = _current_words(rule, ctx)
    memories = list(ctx.memories(rule))
    index = dates.index_memory(ctx) if rule.params["read_index"] else None
    if index is not None:
        memories.append(index)  # the index's own states, read every session
    scanned = dates.scan_shared(date_rule, ctx, setup, memories)
    order = dates._store_order(date_rule, ctx)  # over the whole store, as CUR101 reads it
    for memory, matches in zip(memories, scanned, strict=True):
        if date_rule.params["skip_dated_files"] and dates.is_journal(date_rule, memory):
            continue  # a session log records its day: its states are history
        hits = _snapshots(rule, date_rule, ctx, setup, words, memory, matches.found, order)
        if memory is index:
            hits = (
                dates.note_linked_memory(ctx, h, str(h.detail["date_text"]))
                for h in hits
                if not dates.index_entry_history(date_rule, ctx, index, h)
            )
        for hit in hits:
            hit.detail.setdefault("same_in", "")
            yield hit


def _current_words(rule: Rule, ctx: Context) -> Vocabulary:
    key = f"snapshots.words.{rule.code}"
    found = ctx.shared.get(key)
    if not isinstance(found, Vocabulary):
        lists = {lang: {"deadline": list(w)} for lang, w in rule.params["current_words"].items()}
        found = ctx.shared[key] = vocabulary(lists)
    return found


def _snapshots(
    rule: Rule,
    date_rule: Rule,
    ctx: Context,
    setup: dates.Setup,
    words: Vocabulary,
    memory: Memory,
    candidates: list[Any],
    order: str | None,
) -> Iterator[Hit]:
    written = write_date(ctx, memory)
    marks = dates._LineMarks(memory)
    fenced = memory.fenced_lines
    as_of = {w.lower() for w in rule.params["as_of_words"]}
    starts = {c.start for c in candidates}
    # Per current word, the hits of its newest date: a repeated status header ("Latest
    # session (2026-06-16)", "Latest session (2026-06-13)") is reported at the newest.
    newest: dict[str, tuple[date, list[Hit]]] = {}
    lines_said: set[int] = set()
    for candidate in candidates:
        number, column = memory.locate(candidate.start)
        groups = candidate.groups
        if number in fenced or number in lines_said:
            continue
        if (
            dates._has(groups, "relative")
            or dates._has(groups, "end_of")
            or dates._has(groups, "offset")
        ):
            continue  # "this week" says nothing of when by itself: CUR102's
        if dates._has(groups, "quarter") or dates._has(groups, "half"):
            continue  # "monthly for H2": a period, not the day a status was taken
        joined = dates._RANGE.match(memory.text, candidate.end)
        if joined is not None and joined.end() in starts:
            continue  # the start of a range: its end is the claim
        text = memory.text[candidate.start : candidate.end]
        line = memory.lines[number - 1]
        start = column - 1
        end = min(len(line), start + candidate.end - candidate.start)
        if marks.inside(number, "`", start) or marks.inside(number, "~~", start):
            continue
        lo, hi = _sentence(line, start, end, rule.params["window_chars"])
        current = [w for w in words.find(line, lo, hi) if _standalone(line, w.start, w.end)
                   and not (w.start < end and start < w.end)]  # fmt: skip
        if not current:
            continue
        # A status is of its day or before: a date without a year ("Current benchmark =
        # Apr 13") is the one nearest the write date, not the first after it.
        nearest_from = written.day - timedelta(days=182)
        when = date_reading_date(groups, text, nearest_from, setup, order)
        if when is None or (ctx.today - when).days <= rule.params["min_age_days"]:
            continue
        nearest = min(current, key=lambda w: _distance(w.start, w.end, start, end))
        done = [w for w in setup.vocabulary.find(line, lo, hi)
                if "history" in w.kinds and w.text.lower() not in as_of
                and not (w.start < end and start < w.end)]  # fmt: skip
        near = _distance(nearest.start, nearest.end, start, end)
        closer = [w for w in done if _distance(w.start, w.end, start, end) < near]
        if closer and not any(c.start > max(w.start for w in closer) for c in current):
            continue  # "done 2026-03-01": a completed event, history ("Phase 0 fertig,
            # Phase 1 läuft" keeps a word of the present after it)
        intent = dates._judge(date_rule, setup.vocabulary, marks, number, line, start, end,
                              False, False)  # fmt: skip
        if intent is not None:
            continue  # a deadline or a plan: CUR101 reports it
        lines_said.add(number)
        detail = {
            "date": when.isoformat(),
            "date_text": line[start:end],
            "current_word": nearest.text,
            "days_ago": (ctx.today - when).days,
        }
        hit = Hit(memory.path, number, start + 1, end_column=end + 1, detail=detail)
        key = nearest.text.lower()
        if key not in newest or when > newest[key][0]:
            newest[key] = (when, [hit])
        elif when == newest[key][0]:
            newest[key][1].append(hit)
    yield from sorted((hit for _, hits in newest.values() for hit in hits), key=lambda h: h.line)


_STOP = re.compile(r"[.!?。！？](?:\s|$)")


def _sentence(line: str, start: int, end: int, window: int) -> tuple[int, int]:
    """The sentence around the date, at most `window` characters each side: a status line
    ("Stand 2026-04-26 — Phase 0 durch, Phase 1 läuft") says its state after a dash."""
    lo = max(0, start - window)
    for match in _STOP.finditer(line, lo, start):
        lo = match.end()
    stop = _STOP.search(line, end, min(len(line), end + window))
    return lo, stop.start() if stop else min(len(line), end + window)


def _distance(w_start: int, w_end: int, start: int, end: int) -> int:
    return start - w_end if w_end <= start else w_start - end


def _standalone(line: str, start: int, end: int) -> bool:
    """A word of prose, not part of a name (`extremes_latest.json`, `current-week`, the
    column "current plan")."""
    before = line[start - 1] if start > 0 else " "
    after = line[end] if end < len(line) else " "
    if before in "_./\\-\"“'‘" or after in "_/\\":
        return False
    joined = after in ".-" and end + 1 < len(line) and line[end + 1].isalnum()
    return not joined


def date_reading_date(
    groups: dict[str, str | None], text: str, written: date, setup: dates.Setup, order: str | None
) -> date | None:
    from curator.interpreter import date_reading

    when = date_reading.read_date(groups, text, written, setup.tables, order)
    return when if isinstance(when, date) else None
