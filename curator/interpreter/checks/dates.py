"""Decayed dates: forward-looking dates that are past their grace period.

A past date alone is history ("backup completed 2026-06-20"). A date decays when the
words around it looked forward when it was written: a deadline, a plan, "until", "by",
"next". The rule's patterns find candidate dates through named groups (`year`, `month`,
`monthname`, `day`, `quarter`; `relative` and `end_of` for phrases resolved against the
memory's write date); its params hold the intent and history words and the window.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from curator.interpreter import patterns
from curator.models import Hit, Memory, Severity

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "grace_days": 14,
    "window_chars": 48,
    "deadline_words": [],
    "future_words": [],
    "adjacent_words": [],
    "history_words": [],
    "plan_severity": "info",
    "skip_changelog_lines": True,
    "require_intent": True,
}

_MONTHS = (
    {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
    | {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
    | {"sept": 9}
)
_CLAUSE_BREAK = re.compile(r"[.;!?|](?:\s|$)|\s[—–]\s|\s--\s|\s-\s")
_ADJACENT_GAP = re.compile(r"[\s(:*_]*(?:the\s+|end\s+of\s+)?$")
_BULLET = re.compile(r"^[\s>*+\-#\d.)\[\]x|:`_~]*$")


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    words = _vocabulary(
        tuple(rule.params["deadline_words"]),
        tuple(rule.params["future_words"]),
        tuple(rule.params["adjacent_words"]),
        tuple(rule.params["history_words"]),
    )
    for memory in ctx.memories(rule):
        yield from _check_memory(rule, ctx.today, memory, words)


def _check_memory(rule: Rule, today: date, memory: Memory, words: Vocabulary) -> Iterator[Hit]:
    grace = rule.params["grace_days"]
    body_start = (
        memory.line_starts[memory.body_line - 1]
        if memory.body_line <= len(memory.lines)
        else len(memory.text)
    )
    taken: list[tuple[int, int]] = []
    for pattern in rule.patterns:
        for match in patterns.finditer(pattern, memory.text, pos=body_start):
            start, end = match.span()
            if any(start < b and a < end for a, b in taken):
                continue
            taken.append((start, end))
            number, column = memory.locate(start)
            if number in memory.fenced_lines:
                continue
            when = _resolve(match.groupdict(), memory.write_date)
            if when is None or (today - when).days <= grace:
                continue
            line = memory.lines[number - 1]
            span = (column - 1, column - 1 + end - start)
            hit = _judge(
                rule, memory, number, line, span, match.group(0), when, (today - when).days, words
            )
            if hit is not None:
                yield hit


def _judge(
    rule: Rule,
    memory: Memory,
    number: int,
    line: str,
    span: tuple[int, int],
    date_text: str,
    when: date,
    days_past: int,
    words: Vocabulary,
) -> Hit | None:
    start, end = span
    if line.count("~~", 0, start) % 2 == 1 or line.count("`", 0, start) % 2 == 1:
        return None  # struck through (done) or inside inline code
    if rule.params["skip_changelog_lines"] and _BULLET.match(line[:start]):
        return None  # a line that opens with its date is a log entry: history
    clause_start, clause_end = _clause(line, start, end)
    window = rule.params["window_chars"]
    lo, hi = max(clause_start, start - window), min(clause_end, end + window)
    found = []
    for w_start, w_end, kind, text in words.find(line, lo, hi):
        if w_start < end and start < w_end:
            continue  # part of the date itself
        before = w_end <= start
        if kind in ("plan", "adjacent") and not before:
            continue  # planning words look forward from before the date
        if kind == "adjacent" and not _ADJACENT_GAP.match(line, w_end, start):
            continue  # "by 2026-04-20", not "approved by Jo on 2026-04-20"
        distance = start - w_end if before else w_start - end
        found.append(
            (
                distance,
                kind == "history",
                "plan" if kind == "adjacent" else kind,
                (w_start, w_end, text),
            )
        )
    found.sort(key=lambda f: (f[0], not f[1]))
    if found and found[0][2] == "history":
        return None
    intents = [f for f in found if f[2] != "history"]
    if intents:
        kind = "deadline" if any(f[2] == "deadline" for f in intents) else "plan"
        w_start, w_end, intent_word = next(f[3] for f in intents if f[2] == kind)
        a, b = min(start, w_start), max(end, w_end)
    elif rule.params["require_intent"]:
        return None
    else:  # the phrase carries its own intent ("next week")
        kind, a, b, intent_word = "deadline", start, end, date_text
    phrase = line[a:b].strip(" *_`")
    severity = rule.severity if kind == "deadline" else Severity.parse(rule.params["plan_severity"])
    detail = {
        "date": when.isoformat(),
        "date_text": date_text,
        "matched_phrase": phrase,
        "intent": kind,
        "intent_word": intent_word,
        "intent_label": "Deadline" if kind == "deadline" else "Planned date",
        "days_past": days_past,
        "written": memory.write_date.isoformat(),
    }
    return Hit(memory.path, number, start + 1, end_column=end + 1, detail=detail, severity=severity)


def _clause(line: str, start: int, end: int) -> tuple[int, int]:
    clause_start, clause_end = 0, len(line)
    for brk in _CLAUSE_BREAK.finditer(line):
        if brk.end() <= start:
            clause_start = brk.end()
        elif brk.start() >= end:
            clause_end = brk.start()
            break
    return clause_start, clause_end


_TOKEN = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*|[✅✔]")


@dataclass(frozen=True)
class Vocabulary:
    """The rule's word lists as one lookup: normalized phrase -> kinds."""

    kinds: dict[str, tuple[str, ...]]
    longest: int

    def find(self, line: str, lo: int, hi: int) -> list[tuple[int, int, str, str]]:
        """(start, end, kind, text) of every listed word or phrase in line[lo:hi]."""
        tokens = [(m.start(), m.end(), m.group(0).lower()) for m in _TOKEN.finditer(line, lo, hi)]
        found = []
        for i in range(len(tokens)):
            phrase = ""
            for j in range(i, min(i + self.longest, len(tokens))):
                if j > i and not line[tokens[j - 1][1] : tokens[j][0]].isspace():
                    break  # a phrase's words are separated by whitespace only
                phrase = f"{phrase} {tokens[j][2]}" if phrase else tokens[j][2]
                for kind in self.kinds.get(phrase, ()):
                    found.append(
                        (tokens[i][0], tokens[j][1], kind, line[tokens[i][0] : tokens[j][1]])
                    )
        return found


@lru_cache(maxsize=32)
def _vocabulary(*lists: tuple[str, ...]) -> Vocabulary:
    kinds: dict[str, list[str]] = {}
    for kind, words in zip(("deadline", "plan", "adjacent", "history"), lists, strict=True):
        for word in words:
            phrase = " ".join(t.lower() for t in _TOKEN.findall(word))
            if phrase:
                kinds.setdefault(phrase, []).append(kind)
    longest = max((p.count(" ") + 1 for p in kinds), default=1)
    return Vocabulary({p: tuple(k) for p, k in kinds.items()}, longest)


def _resolve(groups: dict[str, str | None], written: date) -> date | None:
    """The date a match names; the last day of a month or quarter named without a day."""
    if groups.get("relative"):
        return resolve_relative(groups["relative"].lower(), written)  # type: ignore[union-attr]
    if groups.get("end_of"):
        return _end_of(groups["end_of"].lower(), written)  # type: ignore[union-attr]
    try:
        year = int(groups["year"] or "")
    except (KeyError, ValueError):
        return None
    if groups.get("quarter"):
        quarter_end = int(groups["quarter"] or 0) * 3
        return date(year, quarter_end, calendar.monthrange(year, quarter_end)[1])
    month_text = groups.get("month")
    name = groups.get("monthname")
    month = int(month_text) if month_text else _MONTHS.get((name or "").lower().rstrip("."))
    if not month or not 1 <= month <= 12:
        return None
    last = calendar.monthrange(year, month)[1]
    day_text = groups.get("day")
    if not day_text:
        return date(year, month, last)
    day = int(day_text)
    return date(year, month, day) if 1 <= day <= last else None


def _end_of(unit: str, written: date) -> date:
    if "week" in unit:
        return written + timedelta(days=6 - written.weekday())
    if "quarter" in unit:
        month = ((written.month - 1) // 3 + 1) * 3
        return date(written.year, month, calendar.monthrange(written.year, month)[1])
    if "year" in unit:
        return date(written.year, 12, 31)
    return date(written.year, written.month, calendar.monthrange(written.year, written.month)[1])


_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "a few": 3,
    "few": 3,
    "a couple of": 2,
}
_IN_N = re.compile(
    r"^in\s+(\d{1,3}|an?|one|two|three|four|five|six|a\s+few|a\s+couple\s+of)"
    r"\s+(day|week|month)s?$"
)


def _add_months(base: date, months: int) -> date:
    month = base.month - 1 + months
    year, month = base.year + month // 12, month % 12 + 1
    return date(year, month, min(base.day, calendar.monthrange(year, month)[1]))


def _closed_form(phrase: str, written: date) -> date | None:
    """The common phrases, resolved by arithmetic; a period counts to its last day."""
    words = " ".join(phrase.split())
    if words == "tomorrow":
        return written + timedelta(days=1)
    first, _, rest = words.partition(" ")
    if first in ("next", "this") and rest in _WEEKDAYS:
        ahead = (_WEEKDAYS[rest] - written.weekday()) % 7
        return written + timedelta(days=ahead or (7 if first == "next" else 0))
    if first == "next" and rest == "week":
        return written + timedelta(days=13 - written.weekday())
    if first == "next" and rest == "month":
        return _end_of("month", _add_months(written.replace(day=1), 1))
    if first == "next" and rest == "year":
        return date(written.year + 1, 12, 31)
    match = _IN_N.match(words)
    if match:
        count_text = " ".join(match.group(1).split())
        count = int(count_text) if count_text.isdigit() else _NUMBERS[count_text]
        unit = match.group(2)
        if unit == "month":
            return _add_months(written, count)
        return written + timedelta(days=count * (7 if unit == "week" else 1))
    return None


@lru_cache(maxsize=4096)
def resolve_relative(phrase: str, written: date) -> date | None:
    """Resolve "next week", "this Friday", "in 3 days" against the write date.

    Common phrases are plain arithmetic; anything else (a user pattern's "in a fortnight",
    another language) goes to dateparser, whose first parse costs about half a second.
    """
    closed = _closed_form(phrase, written)
    if closed is not None:
        return closed
    import dateparser  # heavy: only for phrases the closed forms do not cover

    base = datetime(written.year, written.month, written.day)
    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future"}
    parsed = dateparser.parse(phrase, settings=settings)
    return parsed.date() if parsed is not None else None
