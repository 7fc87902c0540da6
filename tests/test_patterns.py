"""User regexes run with a timeout that covers the regex's own work, not the caller's."""

from __future__ import annotations

import time

from curator.patterns import TIMEOUT_SECONDS, compile_pattern, finditer


def busy(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_work_between_matches_does_not_count_against_the_timeout() -> None:
    # The dates check resolves a phrase with dateparser between matches; its cold import
    # used to push the scan past the timeout and fail CUR102 as CUR900.
    pattern = compile_pattern(r"(?i)\bnext[ \t]+(?:week|month)\b")
    text = "next week\n" + "filler " * 200 + "\nnext month\n"
    found = []
    for match in finditer(pattern, text):
        busy(TIMEOUT_SECONDS * 1.5)
        found.append(match.group(0))
    assert found == ["next week", "next month"]
