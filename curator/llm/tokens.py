"""Memory text to tokens for the pair candidates: words, identifier parts, concepts.

Casefolded Unicode words, stopwords out, a light suffix strip so that inflections meet
('stores', 'stored' -> 'stor'). An identifier also gives its parts (`FakeRepo`,
`fake_repo` -> fakerepo, fake, repo), and a long word gives the words of the store it
is made of (`testcontainers` -> test, container; `Datenbankmigration` -> datenbank,
migration). CJK runs become character bigrams.

A `Lexicon` is built from the rule's params (the word lists live in the rule's YAML):
stopwords per language, and concepts, each a list of words that mean one thing across
languages and spellings, or that are rival answers to one question. Each such word
becomes the concept's token ("~comment" for comment, Kommentar, comentario, 注释;
"~indent" for tabs and spaces), so two memories that say the same thing in other words,
or the opposite thing, still share a token.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import regex

_WORD = regex.compile(r"[\p{L}\p{N}][\p{L}\p{N}_']*")
_CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]+")
_PARTS = regex.compile(r"_+|(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})")
_MARKUP = regex.compile(r"\*\*(?:why|how to apply):\*\*", regex.IGNORECASE)
CONCEPT = "~"  # concept tokens start with this; no word does


@dataclass(frozen=True)
class Lexicon:
    """What the tokenizer needs from the rule's params."""

    stopwords: frozenset[str] = frozenset()
    concepts: dict[str, str] = field(default_factory=dict)  # stemmed word -> concept token
    cjk_concepts: tuple[tuple[str, str], ...] = ()  # (CJK word, concept token)
    compound_min: int = 0  # split words at least this long; 0: never


def lexicon(params: dict[str, Any]) -> Lexicon:
    """The Lexicon of a pair rule's params: `stopwords` ({language: [word, ...]}),
    `concepts` ([[word, ...], ...]) and `compound_min_length`."""
    stopwords = frozenset(
        w.casefold() for words in params.get("stopwords", {}).values() for w in words
    )
    words: dict[str, str] = {}
    cjk: list[tuple[str, str]] = []
    for group in params.get("concepts", []):
        token = CONCEPT + stem(group[0].casefold())
        for word in group:
            folded = word.casefold()
            if _CJK.fullmatch(folded):
                cjk.append((folded, token))
            else:
                words.setdefault(stem(folded), token)
    return Lexicon(
        stopwords=stopwords,
        concepts=words,
        cjk_concepts=tuple(cjk),
        compound_min=int(params.get("compound_min_length", 0)),
    )


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light, consistent English suffix strip ('stores', 'stored', 'store' -> 'stor');
    not a real stemmer, just enough that inflections of one word meet."""
    if len(word) <= 3 or not word.isascii():
        return word
    if word.endswith("ies"):
        word = word[:-3] + "y"
    elif (word.endswith("es") and word[-3] in "sxz") or word.endswith(("ches", "shes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def tokens(text: str, lex: Lexicon) -> list[str]:
    """The tokens of one text, in order; concept words become their concept token."""
    out: list[str] = []
    for raw in _WORD.findall(_MARKUP.sub(" ", text)):
        word = raw.casefold()
        if _CJK.search(word):
            out.extend(_cjk_tokens(word, lex))
            continue
        whole = word.strip("'_")
        parts = [p.casefold() for p in _PARTS.split(raw.strip("'_")) if p]
        for piece in [whole, *parts] if len(parts) > 1 else [whole]:
            if len(piece) < 2 or piece in lex.stopwords or piece.isdigit():
                continue
            stemmed = stem(piece)
            out.append(lex.concepts.get(stemmed, stemmed))
    return out


def _cjk_tokens(word: str, lex: Lexicon) -> Iterable[str]:
    for run in _CJK.findall(word):
        yield from (run[i : i + 2] for i in range(max(1, len(run) - 1)))
        yield from (token for cjk, token in lex.cjk_concepts if cjk in run)


def compound_parts(bags: Sequence[dict[str, float]], lex: Lexicon) -> list[dict[str, float]]:
    """Each bag plus, for a word at least `lex.compound_min` long, the words of the store
    (or of a concept) it starts or ends with, 4 letters or more, at the word's weight."""
    if lex.compound_min <= 0:
        return list(bags)
    known = {t: t for bag in bags for t in bag if len(t) >= 4 and not t.startswith(CONCEPT)}
    known.update((word, token) for word, token in lex.concepts.items() if len(word) >= 4)
    out = []
    for bag in bags:
        merged = dict(bag)
        for token, weight in bag.items():
            if len(token) >= lex.compound_min and token.isalpha():
                for part in _ends(token, known):
                    merged[part] = merged.get(part, 0.0) + weight
        out.append(merged)
    return out


def _ends(word: str, known: dict[str, str]) -> set[str]:
    """The tokens of the longest known word `word` starts with and of the longest it
    ends with."""
    found = set()
    for i in range(len(word) - 4, 3, -1):
        if word[:i] in known:
            found.add(known[word[:i]])
            break
    for i in range(4, len(word) - 3):
        tail = stem(word[i:])
        if tail in known:
            found.add(known[tail])
            break
    found.discard(word)
    return found
