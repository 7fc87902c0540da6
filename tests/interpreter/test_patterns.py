"""User regexes run with a timeout that covers the matching, not the caller's work."""

from __future__ import annotations

import time

import pytest

from curator.interpreter import patterns


def busy(seconds: float) -> None:
    # CPU work, as a first dateparser import is: `regex` does not count sleeping.
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        pass


def test_slow_work_between_matches_is_not_a_pattern_timeout() -> None:
    pattern = patterns.compile_pattern(r"\b(?:next|this)[ \t]+(?:week|month)\b")
    found = []
    for match in patterns.finditer(pattern, "next week, this month, next month", timeout=0.05):
        found.append(match.group(0))
        busy(0.1)
    assert found == ["next week", "this month", "next month"]


def test_a_catastrophic_pattern_still_times_out() -> None:
    pattern = patterns.compile_pattern(r"(x+x+)+y")
    with pytest.raises(patterns.PatternTimeout):
        list(patterns.finditer(pattern, "x" * 5000, timeout=0.05))
