"""Decayed dates: forward-looking dates that are past their grace period.

A past date alone is history ("backup completed 2026-06-20"). A date decays when the
words around it looked forward when it was written: a deadline, a plan, "until", "by",
"next", in whichever language the memory is written. The rule's patterns find candidate
dates through named groups (read by `interpreter.date_reading`); its params hold the
month names, the relative phrases and the intent and history words per language.

Work is linear in a memory's body: matches are collected once per pattern, an overlap
test is a bisection, and every look at a line stays inside the window around the date.
At most `max_dates_per_memory` candidates are read in one memory.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from curator.interpreter import date_reading, patterns
from curator.interpreter.date_reading import DAY_FIRST, MONTH_FIRST, NEEDS_PARSER
from curator.interpreter.date_words import Vocabulary, Word, vocabulary
from curator.interpreter.pattern_scan import Found, MemoryMatches, scan
from curator.interpreter.write_dates import WriteDate, last_write, write_date
from curator.models import Hit, Memory, Severity

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "grace_days": 14,
    "window_chars": 48,
    "plan_severity": "info",
    "skip_changelog_lines": True,
    "skip_quoted": False,
    "skip_dated_files": True,
    "read_index": True,  # MEMORY.md's own lines too
    # What makes a memory a journal by its name (a log prefix, a daily note's date): its
    # dates record the past. A date at the end of a name alone does not.
    "journal_names": [],
    "max_dates_per_memory": 500,
    "day_first_separators": ".",
    "months": {},
    "month_parts": {},
    "relative_phrases": {},
    "words": {},
    "dateparser_languages": [],
    # A relative phrase beside an explicit date ("Apr 13 (this week)") means that date's
    # week or day, not one counted from the write date: such a phrase is left to the
    # explicit date's rule. A regex for an explicit date, and how near it must be.
    "anchor_pattern": None,
    "anchor_rule": "date_decayed",  # whose patterns read the explicit date
    # Sayings that hold a date word and name no date ("jam tomorrow").
    "idioms": [],
    "anchor_chars": 24,
    # A date at least this many days after every witness of the memory's write (its
    # frontmatter date, its last commit or mtime) looked ahead when it was written, with
    # or without a word saying so. None: only words make a plan.
    "ahead_days": None,
    # A length beside a dated line ("2026-05-08 … 約1ヶ月の検証"): a period from the date.
    # Patterns with groups `count` and `unit`; `duration_units` maps each unit word (lower
    # case) to days, weeks or months. A period still running at the last write is a plan.
    "duration_patterns": [],
    "duration_units": {},
    # An open item of a to-do list is a plan: a list headed by one of these labels
    # ("**To-dos:**", "## Next steps"), or a `- [ ]` checkbox; an item with a done mark
    # is history.
    "todo_labels": [],
    "done_marks": [],
}
# Ranges narrower than the rule loader's default (`rulebook.PARAM_RANGE`), both ends included.
RANGES: dict[str, tuple[float, float]] = {"max_dates_per_memory": (1, 100_000)}
PART_KINDS = ("end", "late", "mid", "early")
# An index line's diagnostic: the memory line that says the same ('' elsewhere).
SAME_IN = "on an index line, '; <memory>:<line> says the same' when a linked memory does"
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "date": "the date it was read as (YYYY-MM-DD)",
        "date_text": "the date as written",
        "matched_phrase": "the phrase that says it is a deadline or a plan",
        "intent": "deadline, plan_after or just_before",
        "intent_word": "the word that says so",
        "intent_label": "Deadline, Planned date, or Planned period (a date and a length)",
        "days_past": "days since the date, from today",
        "written": "the memory's write date (YYYY-MM-DD)",
        "written_source": "where that date comes from",
        "written_from": "the phrase a relative date is read from",
        "evidence": "how the date was read",
        "same_in": SAME_IN,
    }
}

_CLAUSE_BREAK = re.compile(r"[.;!?|](?:\s|$)|[。！？；]|\s[—–]\s|\s--\s|\s-\s")
_ADJACENT_GAP = re.compile(r"[\s(:*_]*(?:the\s+|end\s+of\s+)?$")
_BULLET = re.compile(r"[\s>*+\-#\d.)\[\]x|:`_~]*$")
_MARKS = re.compile(r"`|~~|\"|[“”]")


def is_journal(rule: Rule, memory: Memory) -> bool:
    """Whether the memory is a journal by its name (`journal_names`): `session_…`,
    `log_…`, a daily note `2026-05-28.md`; not `project_x_2026-03-24.md`."""
    name = memory.rel.rsplit("/", 1)[-1]
    return any(
        patterns.search(patterns.compile_pattern(p), name) for p in rule.params["journal_names"]
    )


def validate(params: dict[str, Any]) -> str | None:
    """The tables' shapes: the rulebook reports a problem with the rule's file and line."""
    from curator.interpreter.date_words import KINDS

    words = params["words"]
    if not isinstance(words, dict):
        return "param 'words' must map a language to {kind: [words]}"
    for language, kinds in words.items():
        if not isinstance(kinds, dict):
            return f"words.{language} must map a kind to a list of words"
        for kind, listed in kinds.items():
            if kind not in KINDS:
                return f"words.{language}: unknown kind '{kind}' (known: {', '.join(KINDS)})"
            if not isinstance(listed, list) or not all(isinstance(w, str) for w in listed):
                return f"words.{language}.{kind} must be a list of strings"
    if not all(isinstance(v, int) and 1 <= v <= 12 for v in params["months"].values()):
        return "param 'months' must map a month name to its number, 1 to 12"
    if not all(v in PART_KINDS for v in params["month_parts"].values()):
        return f"param 'month_parts' values must be one of {', '.join(PART_KINDS)}"
    if not all(isinstance(v, str) for v in params["relative_phrases"].values()):
        return "param 'relative_phrases' must map a phrase to its English form"
    return None


@dataclass(frozen=True)
class Setup:
    """A rule's params, prepared once per run."""

    vocabulary: Vocabulary
    tables: date_reading.Tables
    months: Mapping[str, int]
    languages: tuple[str, ...]
    durations: tuple[Any, ...] = ()
    units: Mapping[str, str] = field(default_factory=dict)


# MEMORY.md is read too (`read_index`): the engine's per-memory memo leaves it out.
READS_INDEX = True


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    setup = _setup(rule, ctx)
    memories = list(ctx.memories(rule))
    index = index_memory(ctx) if rule.params["read_index"] else None
    if index is not None:
        memories.append(index)
    scanned = scan_shared(rule, ctx, setup, memories)
    order = _store_order(rule, ctx, scanned)
    for memory, matches in zip(memories, scanned, strict=True):
        if matches.capped:
            ctx.skipped.add(rule.code)  # the rest of this memory was not read
            cap = rule.params["max_dates_per_memory"]
            note = (
                f"{rule.code}: {memory.rel} holds more than {cap} dates; "
                f"only the first {cap} were read"
            )
            if note not in ctx.notes:
                ctx.notes.append(note)
        hits = _check_memory(rule, ctx, setup, memory, matches.found, order)
        if memory is index:
            hits = (
                note_linked_memory(ctx, h, str(h.detail["date_text"]))
                for h in hits
                if not index_entry_history(rule, ctx, index, h)
            )
        for hit in hits:
            hit.detail.setdefault("same_in", "")
            yield hit


def index_memory(ctx: Context) -> Memory | None:
    """MEMORY.md read as the text of a memory (the index's own deadlines and states: the
    agent reads it every session); None without an index, or in an OpenClaw workspace,
    whose MEMORY.md is one of its memories already."""
    index = ctx.store.index
    if index is None or ctx.store.layout != "claude":
        return None
    found = ctx.shared.get(_INDEX_MEMORY)
    if found is None or found.text is not index.text:
        try:
            mtime = os.stat(index.path).st_mtime
        except OSError:
            mtime = 0.0
        found = ctx.shared[_INDEX_MEMORY] = Memory(
            path=index.path, rel=index.path.name, text=index.text, lines=index.lines,
            sha256=index.sha256, frontmatter={}, frontmatter_error=None,
            has_frontmatter=False, body_line=1, mtime=mtime,
        )  # fmt: skip
    return found


_INDEX_MEMORY = "dates.index_memory"


_LINK_LABEL = re.compile(r"\[([^\]]*)\]\(")


def index_entry_history(rule: Rule, ctx: Context, index: Memory, hit: Hit) -> bool:
    """An index line's date that records, not plans: one in an entry's link text (the
    memory's title: "[Rename plan (2026-06-08)](...)"), or any on a line that links a
    journal (a session log's hook tells its day)."""
    line = index.lines[hit.line - 1]
    at = hit.column - 1
    if any(m.start(1) <= at < m.end(1) for m in _LINK_LABEL.finditer(line)):
        return True
    listing = ctx.store.index
    if listing is None:
        return False
    by_rel = _memories_by_rel(ctx)
    return any(
        entry.line == hit.line and rel in by_rel and is_journal(rule, by_rel[rel])
        for entry, rel, _ in listing.resolved
    )


def note_linked_memory(ctx: Context, hit: Hit, text: str) -> Hit:
    """An index line's claim that a memory the line links writes too: both places are
    reported (the index is read every session, the memory when opened), and the index's
    diagnostic names the memory's line (`same_in`)."""
    where = linked_line(ctx, hit.line, text)
    hit.detail["same_in"] = f"; {where} says the same" if where else ""
    return hit


def _memories_by_rel(ctx: Context) -> dict[str, Memory]:
    """Every memory of the store by its name, built once a run (a re-run part sees all)."""
    every = ctx.shared.get("store.all_memories") or ctx.store.memories
    known = ctx.shared.get(_BY_REL)
    if known is None or known[0] is not every:
        known = ctx.shared[_BY_REL] = (every, {m.rel: m for m in every})
    return known[1]


_BY_REL = "dates.memories_by_rel"


def linked_line(ctx: Context, line: int, text: str) -> str | None:
    """Where (`rel:line`) a memory that MEMORY.md's line `line` links writes `text`."""
    index = ctx.store.index
    if index is None or not text:
        return None
    by_rel = _memories_by_rel(ctx)
    for entry, rel, _ in index.resolved:
        memory = by_rel.get(rel) if rel is not None else None
        if entry.line == line and memory is not None and text in memory.text:
            return f"{rel}:{memory.locate(memory.text.index(text))[0]}"
    return None


def memo_basis(rule: Rule, ctx: Context, memory: Memory) -> str:
    """What a memory's hits depend on besides its own text: the store's day/month order and
    the memory's write date. Called on the whole store before any memo lookup."""
    written = write_date(ctx, memory)
    basis = f"{_store_order(rule, ctx)}|{written.day.isoformat()}|{written.source}"
    if rule.params["ahead_days"] is not None:  # a date past the last write is a plan
        basis += f"|{last_write(ctx, memory).day.isoformat()}"
    return basis


def _setup(rule: Rule, ctx: Context) -> Setup:
    key = f"dates.setup.{rule.code}"
    setup: Setup | None = ctx.shared.get(key)
    if setup is None:
        params = rule.params
        months = {_key(k): v for k, v in params["months"].items()}
        setup = Setup(
            vocabulary=vocabulary(params["words"]),
            tables=date_reading.Tables(
                months=months,
                month_parts={_key(k): v for k, v in params["month_parts"].items()},
                relative_phrases={_key(k): _key(v) for k, v in params["relative_phrases"].items()},
                day_first_seps=params["day_first_separators"],
            ),
            months=months,
            languages=tuple(params["dateparser_languages"]),
            durations=tuple(patterns.compile_pattern(p) for p in params["duration_patterns"]),
            units={
                _key(word): unit
                for unit, words in params["duration_units"].items()
                for word in words
            },
        )
        ctx.shared[key] = setup
    return setup


def _key(text: str) -> str:
    return " ".join(str(text).lower().rstrip(".").split())


def scan_shared(
    rule: Rule, ctx: Context, setup: Setup, memories: list[Memory]
) -> list[MemoryMatches]:
    """`_scan`, once a run per memory and rule: CUR103 reads the dates CUR101 found."""
    known: dict[str, tuple[str, MemoryMatches]] = ctx.shared.setdefault(
        f"dates.scans.{rule.code}", {}
    )
    missing = [m for m in memories if known.get(m.rel, ("", None))[0] != m.sha256]
    for memory, matches in zip(missing, _scan(rule, setup, missing), strict=True):
        known[memory.rel] = (memory.sha256, matches)
    return [known[m.rel][1] for m in memories]


def _scan(rule: Rule, setup: Setup, memories: list[Memory]) -> list[MemoryMatches]:
    """Every pattern's matches per memory; a month name `months` does not know is no match
    ("3 days", "in 2026")."""

    def is_date(match: Any) -> bool:
        name = match.group("monthname")
        return name is None or _key(name) in setup.months

    def test(pattern: Any) -> Any:
        return is_date if "monthname" in pattern.groupindex else None

    return scan(rule.patterns, memories, rule.params["max_dates_per_memory"], test)


def _store_order(
    rule: Rule, ctx: Context, scanned: list[MemoryMatches] | None = None
) -> str | None:
    """The order of day and month the store's own numeric dates settle, by majority.

    Counted once per run over every memory the rule applies to, so a run on part of the
    store (the per-memory cache) reads its dates the way a full run would.
    """
    key = f"dates.order.{rule.code}"
    if key in ctx.shared:
        return ctx.shared[key]  # type: ignore[no-any-return]
    if scanned is None:  # only the numeric patterns: their dates overlap no other pattern's
        numeric = [p for p in rule.patterns if "first" in p.groupindex]
        scanned = scan(numeric, list(ctx.memories(rule)), rule.params["max_dates_per_memory"])
    seps = rule.params["day_first_separators"]
    votes = {DAY_FIRST: 0, MONTH_FIRST: 0}
    for matches in scanned:
        for found in matches.found:
            match = found.match
            if "first" not in match.re.groupindex or not match.group("first"):
                continue
            if not match.group("year") or (match.group("sep") or "") in seps:
                continue  # no year, or written day first anyway: says nothing of the store
            settled = date_reading.numeric_order(
                match.group("first"), match.group("second"), "", ""
            )
            if settled is not None:
                votes[settled] += 1
    order = None
    if votes[DAY_FIRST] != votes[MONTH_FIRST]:
        order = DAY_FIRST if votes[DAY_FIRST] > votes[MONTH_FIRST] else MONTH_FIRST
    ctx.shared[key] = order
    return order


def _check_memory(
    rule: Rule,
    ctx: Context,
    setup: Setup,
    memory: Memory,
    candidates: list[Found],
    order: str | None,
) -> Iterator[Hit]:
    if rule.params["skip_dated_files"] and is_journal(rule, memory):
        return  # session_2026-05-28.md is the record of that day: its dates are history
    grace = rule.params["grace_days"]
    written = write_date(ctx, memory)
    # A date ahead of the last write can be past grace only if the last write is older
    # than that: most memories (written lately) are spared the look.
    ahead_days = rule.params["ahead_days"]
    last: WriteDate | None = None
    if ahead_days is not None:
        last = last_write(ctx, memory)
        if (ctx.today - last.day).days <= grace + ahead_days:
            last = None
    lines = _LineMarks(memory)
    fenced = memory.fenced_lines
    starts = {c.start for c in candidates}
    ordered = sorted(starts)
    for candidate in candidates:
        number, column = memory.locate(candidate.start)
        if number in fenced:
            continue
        joined = _RANGE.match(memory.text, candidate.end)
        if joined is not None and joined.end() in starts:
            continue  # "Mar 3–Apr 28": one claim, judged by its end
        groups = candidate.groups
        when = date_reading.read_date(
            groups, memory.text[candidate.start : candidate.end], written.day, setup.tables, order
        )
        if when is None or (isinstance(when, date) and (ctx.today - when).days <= grace):
            continue
        line = memory.lines[number - 1]
        start = column - 1
        end = min(len(line), start + candidate.end - candidate.start)
        relative = _has(groups, "relative") or _has(groups, "end_of")
        offset = _has(groups, "offset")
        if (relative or offset) and _titled(memory, line[start : end + 3]):
            continue  # the memory's name says it: a title ("明天大盤預期"), not a plan
        if (relative or offset) and _idiom(rule, line, start, end):
            continue  # "jam tomorrow", "Rome wasn't built in a day": a saying, not a date
        if relative and _anchored(rule, line, start, end):
            # "Apr 13 (this week)": the explicit date beside it says which week
            anchor = _anchor_day(rule, ctx, memory, number, start, end, written.day)
            if anchor is None:
                continue  # no date to read it from: silence beats a guess
            when = date_reading.read_date(groups, memory.text[candidate.start : candidate.end],
                                          anchor, setup.tables, order)  # fmt: skip
            if when is None or (isinstance(when, date) and (ctx.today - when).days <= grace):
                continue
            written = WriteDate(anchor, "the date beside it")
        intent = _judge(rule, setup.vocabulary, lines, number, line, start, end, relative, offset)
        if intent is None and not relative and not offset:
            intent = _table_intent(setup.vocabulary, memory, number, line, start, end)
        if intent is None and not relative and not offset:
            intent = _todo_intent(rule, memory, number, line, start, end)
        ahead = period = None
        if intent is None and last is not None and not relative and not offset:
            # A date with its year, ahead of the last write; or one whose length beside
            # it ran past the last write ("2026-05-08 … 約1ヶ月"): a plan by itself.
            if isinstance(when, date) and (_YEAR.search(line, start, end) or _has(groups, "term")):
                where = (number, start, end)
                if (date_reading.period_start(groups, when) - last.day).days >= ahead_days:
                    ahead = last if _unmarked(rule, setup, lines, where, line) else None
                else:
                    base = candidate.start - start  # the line's other dates, in its offsets
                    lo = bisect.bisect_left(ordered, base)
                    hi = bisect.bisect_left(ordered, base + len(line))
                    others = [o - base for o in ordered[lo:hi] if o != candidate.start]
                    clause = _clause(line, start, end, rule.params["window_chars"])
                    period = date_reading.period_end(
                        setup.durations, setup.units, line, (start, end), clause, others, when
                    )
                    if (
                        period is None
                        or (ctx.today - period[0]).days <= grace
                        or (period[0] - last.day).days < ahead_days
                        or not _unmarked(rule, setup, lines, where, line)
                    ):
                        period = None
                    else:
                        ahead = last
            if ahead is not None and period is not None:
                ends, span = period
                intent = Intent("plan", line[span[0] : span[1]], min(start, span[0]),
                                max(end, span[1]))  # fmt: skip
                when = ends
            elif ahead is not None:
                intent = Intent("plan", line[start:end], start, end)
        if intent is None:
            continue
        if when is NEEDS_PARSER:
            when = date_reading.parse_relative(_key(line[start:end]), written.day, setup.languages)
            if when is None or (ctx.today - when).days <= grace:
                continue
        assert isinstance(when, date)
        counted = "relative to" if relative or offset else ""
        if not counted and _YEAR.search(line, start, end) is None and not _has(groups, "term"):
            counted = "the first after"  # no year written: counted from the write date
        hit = _hit(rule, memory, (number, start, end), when, intent, ctx.today, written, counted)
        if ahead is not None:  # the date is the evidence: say when it was ahead of
            said = str(hit.detail["evidence"])
            how = "ahead of"
            if period is not None:  # "2026-05-08 … 約1ヶ月": one period, named by its end
                pair = sorted(((start, line[start:end]), (period[1][0], intent.word)))
                hit.detail["matched_phrase"] = f"{pair[0][1]} … {pair[1][1]}"
                hit.detail["intent_label"] = "Planned period"
                said, how = f"ends {when.isoformat()}", "still running at"
            known = "" if said == f"read as {hit.detail['date']}" else f"{said}; "
            hit.detail["evidence"] = f"{known}{how} the memory's last write, {ahead.label}"
        yield hit


def _unmarked(
    rule: Rule, setup: Setup, lines: _LineMarks, where: tuple[int, int, int], line: str
) -> bool:
    """Whether nothing around a date says what it is: not in code, struck out or quoted,
    and no listed word in its clause (a history word makes it history; any other word is
    `_judge`'s). Only then does a date ahead of the last write make a plan by itself."""
    number, start, end = where
    if lines.inside(number, "`", start) or lines.inside(number, "~~", start):
        return False
    if rule.params["skip_quoted"] and lines.quoted(number, start):
        return False
    lo, hi = _clause(line, start, end, rule.params["window_chars"])
    return not setup.vocabulary.find(line, lo, hi)


def _idiom(rule: Rule, line: str, start: int, end: int) -> bool:
    """Whether the phrase at line[start:end] is part of a listed saying."""
    lower = line.lower()
    for idiom in rule.params["idioms"]:
        at = lower.find(idiom.lower())
        while at >= 0:
            if at < end and start < at + len(idiom):
                return True
            at = lower.find(idiom.lower(), at + 1)
    return False


def _anchor_day(
    rule: Rule, ctx: Context, memory: Memory, number: int, start: int, end: int, written: date
) -> date | None:
    """The explicit date next to a relative phrase on its line, read as the date rule
    (`anchor_rule`) reads dates; None when there is none it can read."""
    date_rule = next((r for r in ctx.rules if r.name == rule.params["anchor_rule"]), None)
    if date_rule is None:
        return None
    key = f"dates.anchors.{memory.rel}"
    found = ctx.shared.get(key)
    if found is None or found[0] is not memory.text:
        setup = _setup(date_rule, ctx)
        found = (memory.text, setup, _scan(date_rule, setup, [memory])[0].found)
        ctx.shared[key] = found
    _, setup, candidates = found
    near = rule.params["anchor_chars"]
    best: tuple[int, date] | None = None
    for candidate in candidates:
        line, column = memory.locate(candidate.start)
        if line != number or _has(candidate.groups, "relative") or _has(candidate.groups, "offset"):
            continue
        at, to = column - 1, column - 1 + candidate.end - candidate.start
        gap = start - to if to <= start else at - end
        if gap < 0 or gap > near:
            continue
        text = memory.text[candidate.start : candidate.end]
        # A date with no year beside "this week" is the one nearest the write date, not
        # the first after it: counted from half a year before.
        day = date_reading.read_date(candidate.groups, text, written - timedelta(days=182),
                                     setup.tables, _store_order(date_rule, ctx))  # fmt: skip
        if isinstance(day, date) and (best is None or gap < best[0]):
            best = (gap, day)
    return best[1] if best else None


def _anchored(rule: Rule, line: str, start: int, end: int) -> bool:
    """Whether an explicit date sits within `anchor_chars` of the phrase on its line."""
    pattern = rule.params["anchor_pattern"]
    if not pattern:
        return False
    near = rule.params["anchor_chars"]
    lo, hi = max(0, start - near), min(len(line), end + near)
    return patterns.search(patterns.compile_pattern(pattern), line[lo:hi]) is not None


def _table_intent(
    words: Vocabulary, memory: Memory, number: int, line: str, start: int, end: int
) -> Intent | None:
    """A date alone in a table cell whose column is headed by a deadline or plan word
    ("| Task | Due |" over "| Grant report | 2026-05-15 |")."""
    if not line.lstrip().startswith("|"):
        return None
    column = line.count("|", 0, start) - 1
    cell = line[line.rfind("|", 0, start) + 1 : line.find("|", end) if "|" in line[end:] else None]
    if cell.strip() != line[start:end].strip():
        return None  # other words share the cell: the clause rule judged them
    header = _table_header(memory, number)
    if header is None:
        return None
    cells = header.strip().strip("|").split("|")
    if not 0 <= column < len(cells):
        return None
    title = cells[column]
    for word in words.find(title, 0, len(title)):
        kind = next((k for k in ("deadline", "plan", "just_before", "plan_after")
                     if k in word.kinds), None)  # fmt: skip
        if kind is not None:
            return Intent("deadline" if kind == "deadline" else "plan", word.text, start, end)
    return None


# A markdown list item and its checkbox: how the date rules and CUR207 read a list.
ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+(?P<box>\[[ xX]\][ \t]+)?")
_TODO_LOOKBACK = 40  # lines: how far above an item its list's label may sit


def _todo_intent(
    rule: Rule, memory: Memory, number: int, line: str, start: int, end: int
) -> Intent | None:
    """A date in an open item of a to-do list: an unchecked `- [ ]` box, or an item of a
    list whose label ("**To-dos:**", "## Next steps", "Offen:") says it is one. An item
    with a done mark ("✅", "[x]", struck out) is history."""
    item = ITEM.match(line)
    if item is None or item.end() > start:
        return None
    if line[:start].rstrip().endswith("(") and line[end:].lstrip().startswith(")"):
        return None  # "user skipped (2026-04-19)": a stamp of what happened, not a plan
    box = item.group("box")
    said = None
    if box is not None:
        said = box.strip() if box[1] == " " else None
    else:
        label = _list_label(memory, number)
        said = _todo_label(label.lower(), tuple(rule.params["todo_labels"])) if label else None
    if said is None:
        return None
    lower = line.lower()
    if any(mark.lower() in lower for mark in rule.params["done_marks"]):
        return None  # "✅ bought 2026-04-01": done, history
    return Intent("plan", said, start, end)


@lru_cache(maxsize=4096)
def _todo_label(label: str, words: tuple[str, ...]) -> str | None:
    """The to-do word a list's label line says (a whole word; CJK words anywhere)."""
    for word in words:
        key = str(word).lower()
        if key in label and (_CJK_WORD.search(key) or re.search(_bounded(key), label)):
            return str(word)
    return None


_CJK_WORD = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _bounded(word: str) -> str:
    return r"(?<!\w)" + re.escape(word) + r"(?!\w)"


def _list_label(memory: Memory, number: int) -> str | None:
    """The line that heads the list holding line `number`: the nearest line above that
    is neither a list item, nor indented under one, nor blank between items (within
    `_TODO_LOOKBACK` lines; None when it is over 80 characters)."""
    known = _LABELS.get(id(memory.lines))
    if known is None or known[0] is not memory.lines:
        if len(_LABELS) > 256:
            _LABELS.clear()
        known = _LABELS[id(memory.lines)] = (memory.lines, _list_labels(memory.lines))
    return known[1][number - 1]


# Each memory's list labels, computed once (by `id` of its lines, checked by identity).
_LABELS: dict[int, tuple[tuple[str, ...], tuple[str | None, ...]]] = {}


def _list_labels(lines: tuple[str, ...]) -> tuple[str | None, ...]:
    """`_list_label` of every line, in one pass: the last line above that is not blank,
    not an item and not indented."""
    labels: list[str | None] = []
    head: tuple[int, str] | None = None
    for number, row in enumerate(lines, start=1):
        near = head is not None and number - head[0] <= _TODO_LOOKBACK
        labels.append(head[1] if head is not None and near and len(head[1]) <= 80 else None)
        if row.strip() and not ITEM.match(row) and row[:1] not in " \t":
            head = (number, row)
    return tuple(labels)


def _table_header(memory: Memory, number: int) -> str | None:
    """The header row of the table the line belongs to: the row above its `|---|` line."""
    for at in range(number - 1, 1, -1):
        row = memory.lines[at - 1].strip()
        if not row.startswith("|"):
            return None
        if set(row) <= set("|-: "):
            return memory.lines[at - 2]
    return None


def _has(groups: dict[str, str | None], name: str) -> bool:
    return groups.get(name) is not None  # an empty group counts: "(?P<end_of>)年末"


def _titled(memory: Memory, text: str) -> bool:
    return any(text in (value or "") for value in (memory.name, memory.description))


class Intent(NamedTuple):
    kind: str  # deadline | plan
    word: str
    start: int
    end: int


def _judge(
    rule: Rule,
    words: Vocabulary,
    lines: _LineMarks,
    number: int,
    line: str,
    start: int,
    end: int,
    relative: bool,
    offset: bool,
) -> Intent | None:
    """The intent that makes this date a plan, or None when it is history or no plan."""
    if lines.inside(number, "`", start) or lines.inside(number, "~~", start):
        return None  # inside inline code, or struck through (done)
    if rule.params["skip_quoted"] and lines.quoted(number, start):
        return None  # someone's words, relative to when they said them
    # A line that opens with its date is a log entry: history. Unless a particle sits on
    # the date itself: "6月30日までに移行する", "6월 30일까지".
    if (
        rule.params["skip_changelog_lines"]
        and _BULLET.match(line, 0, start)
        and not words.particle(line, end)
    ):
        return None
    lo, hi = _clause(line, start, end, rule.params["window_chars"])
    found = words.find(line, lo, hi)
    # (distance, 0 for history so it wins a tie, kind, word) for every usable listed word
    nearest: list[tuple[int, int, str, Word]] = []
    modals = [w for w in found if "modal" in w.kinds and w.end <= start]
    for word in found:
        kinds = word.kinds
        if word.start < end and start < word.end:
            continue  # part of the date itself
        if "routine" in kinds or "example" in kinds or "earliest" in kinds:
            # "every Friday", "e.g. April 24", "July 2026 or later" (以降, ab, from ... on):
            # a frequency, an example, or an earliest date, which passing does not falsify
            return None
        before = word.end <= start
        distance = start - word.end if before else word.start - end
        for kind in kinds:
            if kind == "history":
                if modals and any(m.end <= word.start for m in modals):
                    nearest.append((distance, 1, "plan", word))  # "should be done by"
                else:
                    nearest.append((distance, 0, kind, word))
            elif _counts(kind, before, line, word.end, start):
                nearest.append((distance, 1, kind, word))
    if not nearest:
        if relative and not offset:
            return Intent("deadline", line[start:end], start, end)  # "next week" looks ahead
        return None
    nearest.sort()
    if nearest[0][2] == "history":
        return None
    inner = _parenthesis(line, start, end, lo, hi)
    if inner and any(f[2] == "history" and inner[0] <= f[3].start < inner[1] for f in nearest):
        return None  # "Plan (2026-06-11, decided)": the aside dates the text around it
    intents = [f for f in nearest if f[2] != "history"]
    if relative and not offset:
        # "next week" looks forward by itself; a word right before it joins the phrase
        joined = bool(intents) and intents[0][2] == "just_before"
        opens = intents[0][3].start if joined else start
        return Intent("deadline", line[opens:end], opens, end)
    if intents:
        kind = "deadline" if any(f[2] == "deadline" for f in intents) else "plan"
        chosen = next(f[3] for f in intents if _kind(f[2]) == kind)
        modal = next((m for m in modals if m.end <= chosen.start), None)
        first = modal if modal is not None and "history" in chosen.kinds else chosen
        text = line[first.start : chosen.end]
        return Intent(kind, text, min(start, first.start), max(end, chosen.end))
    return None


def _counts(kind: str, before: bool, line: str, word_end: int, start: int) -> bool:
    """Whether an intent word of this kind counts on this side of the date."""
    if kind == "deadline":
        return True
    if kind == "plan_after":
        return not before
    if kind == "just_before":
        return before and _ADJACENT_GAP.match(line, word_end, start) is not None
    return before and kind in _BEFORE


_OPEN, _CLOSE = "(（", ")）"


def _parenthesis(line: str, start: int, end: int, lo: int, hi: int) -> tuple[int, int] | None:
    """The span inside the parentheses that hold the date, when both are in the clause."""
    opening = max(line.rfind(c, lo, start) for c in _OPEN)
    if opening < 0 or any(line.find(c, opening, start) >= 0 for c in _CLOSE):
        return None
    closing = [i for i in (line.find(c, end, hi) for c in _CLOSE) if i >= 0]
    return (opening + 1, min(closing)) if closing else None


# Kinds that count only before the date ("just_before" only right before it: "by
# 2026-04-20", not "approved by Jo on 2026-04-20"); "plan_after" counts only after it,
# "deadline" and "history" on either side, "not_intent" never.
_BEFORE = frozenset({"plan", "modal", "just_before"})


def _kind(kind: str) -> str:
    return "deadline" if kind == "deadline" else "plan"


def _clause(line: str, start: int, end: int, window: int) -> tuple[int, int]:
    """The clause around the date, cut to `window` characters either side."""
    lo, hi = max(0, start - window), min(len(line), end + window)
    for brk in _CLAUSE_BREAK.finditer(line, lo, hi):
        if brk.end() <= start:
            lo = brk.end()
        elif brk.start() >= end:
            hi = brk.start()
            break
    return lo, hi


class _LineMarks:
    """Where a memory's lines open and close inline code, strikes and quotes: found once
    per line, then each question is a bisection (a long line stays linear)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.marks: dict[int, dict[str, list[int]]] = {}

    def _of(self, number: int) -> dict[str, list[int]]:
        found = self.marks.get(number)
        if found is None:
            found = {}
            line = self.memory.lines[number - 1]
            if "`" in line or "~~" in line or '"' in line or "“" in line or "”" in line:
                for match in _MARKS.finditer(line):
                    mark = match.group(0)
                    found.setdefault("“" if mark in "“”" else mark, []).append(match.start())
            self.marks[number] = found
        return found

    def inside(self, number: int, mark: str, offset: int) -> bool:
        """An odd number of `mark` before `offset`: inside a span it opened."""
        positions = self._of(number).get(mark)
        return positions is not None and bisect.bisect_left(positions, offset) % 2 == 1

    def quoted(self, number: int, offset: int) -> bool:
        return self.inside(number, '"', offset) or self.inside(number, "“", offset)


def _hit(
    rule: Rule,
    memory: Memory,
    where: tuple[int, int, int],
    when: date,
    intent: Intent,
    today: date,
    written: WriteDate,
    counted: str,
) -> Hit:
    """The hit and its evidence: the date as written, the day it was read as, the word
    that made it a plan, and the write date it was counted from when that mattered."""
    number, start, end = where
    line = memory.lines[number - 1]
    date_text = line[start:end]
    read_as, written_from = when.isoformat(), written.label
    evidence = []
    if counted:
        evidence.append(f"'{date_text}' read as {read_as}, {counted} {written_from}")
    elif date_text[:10] != read_as:
        evidence.append(f"'{date_text}' read as {read_as}")
    if intent.word != date_text:
        evidence.append(f"intent '{intent.word}'")
    plan_severity = Severity.parse(rule.params["plan_severity"])
    detail = {
        "date": read_as,
        "date_text": date_text,
        "matched_phrase": _phrase(line, intent, start, end),
        "intent": intent.kind,
        "intent_word": intent.word,
        "intent_label": "Deadline" if intent.kind == "deadline" else "Planned date",
        "days_past": (today - when).days,
        "written": written.day.isoformat(),
        "written_source": written.source,
        "written_from": written_from,
        "evidence": "; ".join(evidence) or f"read as {read_as}",
    }
    severity = rule.severity if intent.kind == "deadline" else plan_severity
    return Hit(memory.path, number, start + 1, end_column=end + 1, detail=detail, severity=severity)


_YEAR = re.compile(r"(?<!\d)20\d\d(?!\d)")
# What joins the two dates of a range: "Mar 3–Apr 28", "3. bis 28. April", "3月3日〜4月28日".
_RANGE = re.compile(r"[ \t]*(?:[-–—~〜～]|to|through|until|bis|au|al|a|至|到)[ \t]*", re.IGNORECASE)
_MARKUP = re.compile(r"\*\*|__|`|~~")


def _phrase(line: str, intent: Intent, start: int, end: int) -> str:
    """The date phrase as quoted: without markdown emphasis, and, when other items of a
    list stand between the intent word and the date, only the two ("deadlines … April
    27", not "deadlines**: April 24 initial drafts, April 27")."""
    text = line[intent.start : intent.end]
    word = intent.word
    at = line.find(word, intent.start, start) if word else -1
    if at >= 0 and any(mark in line[at + len(word) : start] for mark in ",;"):
        text = f"{word} … {line[start:end]}"
    return _MARKUP.sub("", text).strip(" *_:")
