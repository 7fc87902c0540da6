"""User regexes: compiled with the `regex` module, on first use, and always run with a
timeout.

A rule's patterns are `Pattern`s: the source is checked when the rule file is loaded and
compiled when a check first matches with it. A run that never reaches a rule (not
selected, or its keywords are in no memory) never pays for compiling it, nor a warm run
for the check the cached rulebook already did. `regex` itself is imported on first use.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from curator.interpreter import cache_format

TIMEOUT_SECONDS = 0.25


class PatternTimeout(Exception):
    """A pattern ran past its timeout on some text (catastrophic backtracking)."""


@lru_cache(maxsize=1024)
def compile_pattern(source: str, ignore_case: bool = False) -> Any:
    """Compile (once per process); raises regex.error with a message on a bad pattern."""
    import regex

    flags = regex.VERSION1 | regex.MULTILINE | (regex.IGNORECASE if ignore_case else 0)
    return regex.compile(source, flags)


class Pattern:
    """A rule's regex, compiled the first time it is used; behaves as the compiled pattern
    (`finditer`, `groupindex`, ...). Equal when the sources are."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: Any = None

    @property
    def compiled(self) -> Any:
        if self._compiled is None:
            self._compiled = compile_pattern(self.source)
        return self._compiled

    @property
    def pattern(self) -> str:
        return self.source

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pattern) and other.source == self.source

    def __hash__(self) -> int:
        return hash(self.source)

    def __repr__(self) -> str:
        return f"Pattern({self.source!r})"


cache_format.EXTRA[Pattern] = ("$pattern", lambda p: p.source, Pattern)


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
