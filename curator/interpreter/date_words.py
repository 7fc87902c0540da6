"""The date rules' word lists as one lookup: which listed words sit near a date, and how.

A rule's `words` param maps a language to kinds of words (`deadline`, `plan`, `history`,
...). Words of space-separated languages match whole tokens ("by", "as of", "bis zum");
words written in Chinese, Japanese or Korean script match anywhere, since those languages
attach particles to the date (`6月30日まで`, `6월 30일까지`). Where listed phrases overlap,
the longest wins: "due to" hides "due", "must be finished" hides "finished".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

KINDS = (
    "deadline",
    "plan",
    "plan_after",
    "just_before",
    "history",
    "modal",
    "routine",
    "earliest",
    "example",
    "not_intent",
)

_TOKEN = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*|[✅✔]")
_JOIN = re.compile(r"\.?\s+|\.")
# Hangul jamo, kana, CJK ideographs, Hangul syllables: scripts written without spaces
# between a word and its particle.
_CJK = re.compile(
    "[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]"
)


class Word(NamedTuple):
    """A listed word or phrase found in a line: where, its kinds, its text."""

    start: int
    end: int
    kinds: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class Vocabulary:
    """Token phrases (lower case, single spaces) and CJK words, each with its kinds."""

    phrases: dict[str, tuple[str, ...]]
    spans: dict[str, int]  # first word -> words in the longest phrase it opens
    cjk: dict[str, tuple[str, ...]]
    cjk_pattern: re.Pattern[str] | None

    def find(self, line: str, lo: int, hi: int) -> list[Word]:
        """Every listed word in line[lo:hi]; a word inside a longer listed one is dropped."""
        found = self._phrases(line, lo, hi)
        if self.cjk_pattern is not None:
            for match in self.cjk_pattern.finditer(line, lo, hi):
                text = match.group(0)
                found.append(Word(match.start(), match.end(), self.cjk[text], text))
        if len(found) < 2:
            return found
        found.sort(key=lambda w: (w.start, w.start - w.end))
        kept: list[Word] = []
        for word in found:
            if not any(k.start <= word.start and word.end <= k.end for k in kept):
                kept.append(word)
        return kept

    def particle(self, line: str, end: int) -> bool:
        """Whether a `plan_after` word sits on the date that ends at `end` (`6月30日まで`)."""
        if self.cjk_pattern is None:
            return False
        for at in (end, end + 1):
            match = self.cjk_pattern.match(line, at)
            if match is not None and "plan_after" in self.cjk[match.group(0)]:
                return True
        return False

    def _phrases(self, line: str, lo: int, hi: int) -> list[Word]:
        segment = line[lo:hi].lower()
        if len(segment) == hi - lo:  # lower() kept every offset (it nearly always does)
            tokens = [(m.start() + lo, m.end() + lo, m.group()) for m in _TOKEN.finditer(segment)]
        else:
            # `İ` lowers to `i` and a combining dot: "ŞU ANKİ" is read as "şu anki".
            matches = _TOKEN.finditer(line, lo, hi)
            tokens = [
                (m.start(), m.end(), m.group().lower().replace("\u0307", "")) for m in matches
            ]
        found = []
        lookup = self.phrases.get
        spans = self.spans
        for i, (a, b, first) in enumerate(tokens):
            span = spans.get(first)
            if span is None:
                continue  # no listed phrase opens with this word
            kinds = lookup(first)
            if kinds:
                found.append(Word(a, b, kinds, line[a:b]))
            phrase = first
            for j in range(i + 1, min(i + span, len(tokens))):
                if not _JOIN.fullmatch(line, tokens[j - 1][1], tokens[j][0]):
                    break  # a phrase's words are separated by spaces (or dots: "e.g.")
                phrase = f"{phrase} {tokens[j][2]}"
                kinds = lookup(phrase)
                if kinds:
                    end = tokens[j][1]
                    found.append(Word(a, end, kinds, line[a:end]))
        return found


def vocabulary(words: Mapping[str, Mapping[str, Any]]) -> Vocabulary:
    """Build the lookup from a rule's `words` param: {language: {kind: [word, ...]}}."""
    phrases: dict[str, list[str]] = {}
    cjk: dict[str, list[str]] = {}
    for kinds in words.values():
        for kind, listed in kinds.items():
            for word in listed:
                if _CJK.search(word):
                    _add(cjk, word.strip(), kind)
                else:
                    phrase = " ".join(t.lower() for t in _TOKEN.findall(word))
                    if phrase:
                        _add(phrases, phrase, kind)
    spans: dict[str, int] = {}
    for phrase in phrases:
        words_in = phrase.split(" ")
        spans[words_in[0]] = max(spans.get(words_in[0], 0), len(words_in))
    pattern = None
    if cjk:
        alternatives = sorted(cjk, key=len, reverse=True)  # longest first: 已完成 before 完成
        pattern = re.compile("|".join(re.escape(w) for w in alternatives))
    return Vocabulary(
        {p: tuple(k) for p, k in phrases.items()},
        spans,
        {w: tuple(k) for w, k in cjk.items()},
        pattern,
    )


def _add(table: dict[str, list[str]], key: str, kind: str) -> None:
    kinds = table.setdefault(key, [])
    if kind not in kinds:
        kinds.append(kind)
