"""User regexes: compiled with the `regex` module and always run with a timeout."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import regex

TIMEOUT_SECONDS = 0.25


class PatternTimeout(Exception):
    """A pattern ran past its timeout on some text (catastrophic backtracking)."""


def compile_pattern(source: str, ignore_case: bool = False) -> Any:
    """Compile; raises regex.error with a message on a bad pattern."""
    flags = regex.VERSION1 | regex.MULTILINE | (regex.IGNORECASE if ignore_case else 0)
    return regex.compile(source, flags)


def finditer(
    pattern: Any, text: str, pos: int = 0, timeout: float = TIMEOUT_SECONDS
) -> Iterator[Any]:
    """Every match, found within the timeout before the first is handed out.

    `regex` counts a finditer's timeout over the whole iteration, including the time
    the consumer spends between matches (a first dateparser import takes longer than
    the timeout), so the matches are collected first.
    """
    try:
        matches = list(pattern.finditer(text, pos, timeout=timeout))
    except TimeoutError:
        raise PatternTimeout(pattern.pattern) from None
    yield from matches


def search(
    pattern: Any, text: str, pos: int = 0, endpos: int | None = None,
    timeout: float = TIMEOUT_SECONDS,
) -> Any:  # fmt: skip
    try:
        return pattern.search(text, pos, endpos, timeout=timeout)
    except TimeoutError:
        raise PatternTimeout(pattern.pattern) from None


def match(pattern: Any, text: str, pos: int, endpos: int, timeout: float = TIMEOUT_SECONDS) -> Any:
    """A match that starts at `pos` (and ends by `endpos`), within the timeout."""
    try:
        return pattern.match(text, pos, endpos, timeout=timeout)
    except TimeoutError:
        raise PatternTimeout(pattern.pattern) from None
