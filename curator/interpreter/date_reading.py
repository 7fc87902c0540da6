"""Which day a matched date phrase names: the calendar half of the date rules.

A rule's patterns capture named groups; this module turns them into a day. Absolute dates
(`year`, `month` or `monthname`, `day`; `first`/`second` when the order of day and month
is not known), periods counted to their last day (a month, `quarter`, `half`, a `part` of
a month such as `末` or `上旬`), dates without a year (the first such day on or after the
write date), and phrases relative to the write date (`relative`, `offset`, `end_of`);
and the last day of a period that a length beside a date gives (`period_end`).

A relative phrase is the whole match, read by arithmetic in its English form; a rule's
`relative_phrases` table maps other languages onto it ("nächste Woche" -> "next week").
Anything else goes to dateparser, imported only then (its first parse costs about half a
second).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any, NamedTuple

DAY_FIRST, MONTH_FIRST = "dmy", "mdy"
PART_DAYS = {"early": 10, "mid": 20}  # "6月上旬" counts to the 10th, "中旬" to the 20th
NEEDS_PARSER = object()  # a relative phrase only dateparser can read


def numeric_order(first: str, second: str, sep: str, day_first_seps: str) -> str | None:
    """The order a numeric date settles by itself: a value over 12 is a day, and some
    separators (`.` in `15.04.2026`) are written day first everywhere."""
    a, b = int(first), int(second)
    if a > 12 >= b:
        return DAY_FIRST
    if b > 12 >= a:
        return MONTH_FIRST
    if a <= 12 and b <= 12 and sep and sep in day_first_seps:
        return DAY_FIRST
    return None


class Tables(NamedTuple):
    """A rule's lookup tables for reading dates (keys lower case, single spaces)."""

    months: Mapping[str, int]
    month_parts: Mapping[str, str]
    relative_phrases: Mapping[str, str]
    day_first_seps: str


def read_date(
    groups: Mapping[str, str | None],
    text: str,
    written: date,
    tables: Tables,
    order: str | None,
) -> date | object | None:
    """The day a match (`text`, its `groups`) names; None when it names none (or an
    ambiguous one); NEEDS_PARSER when only dateparser can tell (call `parse_relative` once
    the phrase is worth it). `order` is the store's day/month order, if it settles one."""
    try:
        if (
            groups.get("relative") is not None
            or groups.get("offset") is not None
            or groups.get("end_of") is not None
        ):
            found = closed_form(_english(text, tables.relative_phrases), written)
            return found if found is not None else NEEDS_PARSER
        return _read(groups, written, tables, order)
    except (ValueError, OverflowError):
        return None  # 2026-02-30, or a write date at the end of the calendar


def _read(
    groups: Mapping[str, str | None], written: date, tables: Tables, order: str | None
) -> date | None:
    year_text = groups.get("year")
    year = int(year_text) if year_text else None
    if groups.get("term"):
        return _term_end(str(groups["term"]), year, groups.get("year2"))
    if groups.get("quarter"):
        return _period_end(year, int(groups["quarter"] or 0) * 3, written)
    if groups.get("half"):
        return _period_end(year, int(groups["half"] or 0) * 6, written)
    month, day = _month_and_day(groups, tables.months, tables.day_first_seps, order)
    if month is None:
        return None
    part = groups.get("part")
    if day is None and part:
        kind = tables.month_parts.get(_key(part))
        if kind is None:
            return None
        day = PART_DAYS.get(kind)  # "end" and "late" count to the month's last day
    if year is None:
        return _next_on_or_after(month, day, written)
    return _day_of(year, month, day)


def period_start(groups: Mapping[str, str | None], end: date) -> date:
    """The first day of the period a match names, given its last day (`read_date`): the
    day itself for a day, the 1st for a month, the term's, quarter's or half's first day;
    a part of a month (`上旬`, `末`) from the 1st, 11th or 21st."""
    if groups.get("term"):
        return date(end.year, 4, 1) if end.month == 9 else date(end.year - 1, 10, 1)
    if groups.get("quarter"):
        return date(end.year, end.month - 2, 1)
    if groups.get("half"):
        return date(end.year, end.month - 5, 1)
    if groups.get("day") or groups.get("first"):
        return end
    if groups.get("part"):
        return end.replace(day=1 if end.day <= 10 else 11 if end.day <= 20 else 21)
    return end.replace(day=1)


def _month_and_day(
    groups: Mapping[str, str | None],
    months: Mapping[str, int],
    day_first_seps: str,
    order: str | None,
) -> tuple[int | None, int | None]:
    first, second = groups.get("first"), groups.get("second")
    if first and second:
        settled = numeric_order(first, second, groups.get("sep") or "", day_first_seps)
        settled = settled or order
        if settled is None:
            return None, None
        day_text, month_text = (first, second) if settled == DAY_FIRST else (second, first)
        return _month_number(int(month_text)), int(day_text)
    if groups.get("month"):
        month = _month_number(int(groups["month"] or 0))
    else:
        month = months.get(_key(groups.get("monthname") or ""))
    day_given = groups.get("day")
    return month, int(day_given) if day_given else None


def _month_number(value: int) -> int | None:
    return value if 1 <= value <= 12 else None


def _key(text: str) -> str:
    return " ".join(text.lower().rstrip(".").split())


def _day_of(year: int, month: int, day: int | None) -> date:
    """The day, or the month's last day when none is given; ValueError if there is none."""
    last = calendar.monthrange(year, month)[1]
    return date(year, month, last if day is None else day)


def _next_on_or_after(month: int, day: int | None, written: date) -> date | None:
    """The first `day` of `month` (its last day when None) on or after the write date."""
    for year in (written.year, written.year + 1, written.year + 2, written.year + 4):
        try:
            found = _day_of(year, month, day)
        except ValueError:
            continue  # 29 February in a common year
        if found >= written:
            return found
    return None


# German and Austrian academic terms: a summer term ends 30 September, a winter term
# (written `WS 25/26`) 31 March of its second year.
_SUMMER_TERMS = {"ss", "sose"}


def _term_end(term: str, year: int | None, second: str | None) -> date | None:
    if year is None:
        return None
    year += 2000 if year < 100 else 0
    if term.lower() in _SUMMER_TERMS:
        return _day_of(year, 9, 30)
    later = int(second) if second else year + 1
    later += 2000 if later < 100 else 0
    return _day_of(later, 3, 31) if later == year + 1 else None


def _period_end(year: int | None, last_month: int, written: date) -> date | None:
    if not 1 <= last_month <= 12:
        return None
    if year is not None:
        return _day_of(year, last_month, None)
    return _next_on_or_after(last_month, None, written)


def _english(phrase: str, relative_phrases: Mapping[str, str]) -> str:
    key = _key(phrase)
    return relative_phrases.get(key, key)


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
    "a couple": 2,
}
_IN_N = re.compile(
    r"^in\s+(\d{1,3}|an?|one|two|three|four|five|six|a\s+few|a\s+couple(?:\s+of)?)"
    r"\s+(day|week|month|year)s?$"
)


def period_end(
    lengths: Iterable[Any],
    units: Mapping[str, str],
    line: str,
    span: tuple[int, int],
    clause: tuple[int, int],
    others: Iterable[int],
    when: date,
) -> tuple[date, tuple[int, int]] | None:
    """The last day of the period a length beside the date at `span` gives ("2026-05-08 …
    約1ヶ月": 2026-06-08), and where the length is written: the nearest match of the
    `lengths` patterns (groups `count` and `unit`, `units` mapping a unit word to days,
    weeks or months) in the date's `clause` with none of the line's `others` dates
    between them; None when there is none."""
    start, end = span
    best: tuple[int, date, tuple[int, int]] | None = None
    for pattern in lengths:
        for match in pattern.finditer(line, *clause):
            at, stop = match.span()
            if at < end and start < stop:
                continue
            between = (end, at) if at >= end else (stop, start)
            if any(between[0] <= o < between[1] for o in others):
                continue  # another date owns it
            unit = units.get(_key(match.group("unit")))
            if unit is None:
                continue
            text = match.group("count").lower()
            count = int(text) if text.isdigit() else _NUMBERS.get(text, 0)
            ends = (
                add_months(when, count)
                if unit == "months"
                else when + timedelta(days=count * (7 if unit == "weeks" else 1))
            )
            if best is None or between[1] - between[0] < best[0]:
                best = (between[1] - between[0], ends, (at, stop))
    return (best[1], best[2]) if best is not None else None


def add_months(base: date, months: int) -> date:
    month = base.month - 1 + months
    year, month = base.year + month // 12, month % 12 + 1
    return date(year, month, min(base.day, calendar.monthrange(year, month)[1]))


def end_of_period(unit: str, written: date) -> date | None:
    """The last day of the week, month, quarter or year the write date falls in."""
    unit = unit.removeprefix("end of ").removeprefix("the ").removeprefix("this ")
    if unit == "week":
        return written + timedelta(days=6 - written.weekday())
    if unit == "quarter":
        return _day_of(written.year, ((written.month - 1) // 3 + 1) * 3, None)
    if unit == "year":
        return date(written.year, 12, 31)
    if unit == "month":
        return _day_of(written.year, written.month, None)
    return None


def closed_form(phrase: str, written: date) -> date | None:
    """The English phrases, read by arithmetic; a period counts to its last day."""
    if phrase == "tomorrow":
        return written + timedelta(days=1)
    if phrase == "day after tomorrow":
        return written + timedelta(days=2)
    if phrase.startswith("end of "):
        return end_of_period(phrase, written)
    first, _, rest = phrase.partition(" ")
    if first in ("next", "this") and rest in _WEEKDAYS:
        ahead = (_WEEKDAYS[rest] - written.weekday()) % 7
        return written + timedelta(days=ahead or (7 if first == "next" else 0))
    if first == "this":
        return end_of_period(rest, written)
    if first == "next":
        if rest == "week":
            return written + timedelta(days=13 - written.weekday())
        if rest == "month":
            following = add_months(written.replace(day=1), 1)
            return _day_of(following.year, following.month, None)
        if rest == "quarter":
            return end_of_period("quarter", add_months(written.replace(day=1), 3))
        if rest == "year":
            return date(written.year + 1, 12, 31)
        return None
    match = _IN_N.match(phrase)
    if match:
        count_text = " ".join(match.group(1).split())
        count = int(count_text) if count_text.isdigit() else _NUMBERS[count_text]
        unit = match.group(2)
        if unit in ("month", "year"):
            return add_months(written, count * (12 if unit == "year" else 1))
        return written + timedelta(days=count * (7 if unit == "week" else 1))
    return None


@lru_cache(maxsize=4096)
def parse_relative(phrase: str, written: date, languages: tuple[str, ...]) -> date | None:
    """dateparser's reading of a phrase the tables do not cover ("in drei Wochen",
    "dans 3 semaines", "3日後"), relative to the write date; cached per run."""
    import dateparser  # heavy: only for phrases the closed forms do not cover

    base = datetime(written.year, written.month, written.day)
    settings: dict[str, Any] = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future"}
    try:
        parsed = dateparser.parse(phrase, languages=list(languages) or None, settings=settings)
    except Exception:  # a third-party parser's failure on odd input: no date, not a crash
        return None
    return parsed.date() if parsed is not None else None
