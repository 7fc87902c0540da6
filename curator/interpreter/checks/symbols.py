"""Missing symbols: backtick-wrapped identifiers the repository no longer contains.

A code span is a symbol when its whole content (a trailing call `()` or `(args)` aside)
matches one of the rule's patterns (CamelCase, snake_case, CONSTANT_CASE, dotted
`mod.func`) and is not in the rule's `exclude` list. Dotted names are searched by their
last part. Every symbol of the run is searched in one pass over the repository's
tracked files (see `tree.find_words`); a symbol with no match is reported.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from curator.interpreter import patterns
from curator.models import Hit, Memory
from curator.repo import references, tree

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "min_length": 3,
    "exclude": [],
    "dotted_skip_suffixes": [],
    "skip_fenced": True,
    "max_per_file": 50,
    "max_search_seconds": 3.0,
}

_CALL = re.compile(r"\((?:[^()]*)\)$")
_SEPARATOR = re.compile(r"\.|::|#")


@dataclass(frozen=True)
class Symbol:
    text: str  # as written, call parentheses removed
    word: str  # what is searched for
    start: int


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    root = ctx.repo_root
    if root is None or not root.is_dir():
        return  # linting.lint drops this rule for such stores and says why, once
    found_in: list[tuple[Memory, list[Symbol]]] = []
    words: set[str] = set()
    for memory in ctx.memories(rule):
        symbols = list(_symbols(rule, memory))
        if symbols:
            found_in.append((memory, symbols))
            words.update(s.word for s in symbols)
    if not words:
        return
    repo, store = root.resolve(), ctx.store.root.resolve()
    inside = store.relative_to(repo).as_posix() if store.is_relative_to(repo) else None
    limit = float(rule.params["max_search_seconds"])
    present = tree.find_words(
        repo,
        words,
        exclude=inside if inside != "." else None,
        deadline=time.monotonic() + limit if limit > 0 else None,
    )
    if present is None:
        ctx.notes.append(
            f"{rule.name} ({rule.code}) skipped: searching the repository took over "
            f"{limit:g} s (params.max_search_seconds)"
        )
        return
    for memory, symbols in found_in:
        count = 0
        for symbol in symbols:
            if symbol.word in present:
                continue
            line, column = memory.locate(symbol.start)
            end_line, end_column = memory.locate(symbol.start + len(symbol.text))
            detail = {"symbol": symbol.text, "searched": symbol.word}
            yield Hit(memory.path, line, column, end_line, end_column, detail=detail)
            count += 1
            if count >= rule.params["max_per_file"]:
                break


def _symbols(rule: Rule, memory: Memory) -> Iterator[Symbol]:
    params = rule.params
    exclude = set(params["exclude"])
    skip_suffixes = {s.lower() for s in params["dotted_skip_suffixes"]}
    for ref in references.scan(memory, params["skip_fenced"]).code:
        text = _CALL.sub("", ref.text)
        if len(text) < params["min_length"] or text in exclude or text.lower() in exclude:
            continue
        if not any(patterns.search(p, text) for p in rule.patterns):
            continue
        parts = _SEPARATOR.split(text)
        if len(parts) > 1 and parts[-1].lower() in skip_suffixes:
            continue  # `settings.json`, `Node.js`: a file or a product, not code
        word = parts[-1] if len(parts[-1]) >= params["min_length"] else text
        if not word.isidentifier() or word in exclude:
            continue
        yield Symbol(text, word, ref.start)
