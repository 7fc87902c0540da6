"""Whether a secret shape's regex stays on one line, so a match tried at a keyword can be
bounded at that line's end with the same result.

The `regex` module, asked for a match at one position of a long text, may first look for
a literal the pattern needs through the whole rest of the text: trying a shape at each of
thousands of keywords of a large index then costs the square of its length. Bounded at the
line's end (`endpos`), the same attempt is a few characters' work, and it finds exactly
what the unbounded one finds when the pattern can neither consume a line break nor look at
one (a lookahead that could see it, `\\Z`), and `$` means the end of a line (MULTILINE).
This module proves that from the pattern's parse tree, conservatively: anything it does
not know (syntax of `regex` alone, nested sets, fuzzy matching) is not line-bound.
"""

from __future__ import annotations

import importlib
import re
import warnings
from functools import lru_cache
from types import ModuleType
from typing import Any


def _sre() -> tuple[ModuleType, ModuleType]:
    """`re`'s own parser and its constants (`re._parser` since Python 3.11)."""
    try:
        return importlib.import_module("re._parser"), importlib.import_module("re._constants")
    except ImportError:  # pragma: no cover - Python 3.10
        return importlib.import_module("sre_parse"), importlib.import_module("sre_constants")


parser, c = _sre()

_NEWLINE = ord("\n")
# Class members that never match a line break, and those that always do.
_NEVER = {c.CATEGORY_DIGIT, c.CATEGORY_WORD, c.CATEGORY_NOT_SPACE}
_ALWAYS = {c.CATEGORY_SPACE, c.CATEGORY_NOT_DIGIT, c.CATEGORY_NOT_WORD}
_REPEATS = {c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT)}
_SAFE_AT = {c.AT_BEGINNING, c.AT_BEGINNING_STRING, c.AT_BOUNDARY, c.AT_NON_BOUNDARY}
# `{e<=1}` is fuzzy matching to `regex` and literal text to `re`: not understood here.
_FUZZY = re.compile(r"\{(?![\d,])")


@lru_cache(maxsize=512)
def line_bound(source: str, flags: int = re.MULTILINE) -> bool:
    """`source` (compiled with `flags`, of which only MULTILINE and DOTALL matter here)
    matches nothing that holds a line break, and no part of it looks past one."""
    if _FUZZY.search(source) or _nested_class(source):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "possible nested set": `regex` syntax
            tree = parser.parse(source, flags)
    except Exception:  # any syntax `re` does not share with `regex`
        return False
    return _bound(list(tree), tree.state.flags)


def _nested_class(source: str) -> bool:
    """A `[` inside a character class, or a class that opens with `]`: `regex` reads a
    nested set there (`[a[^b]]` holds a line break) where `re` reads a character."""
    inside, at = False, 0
    while at < len(source):
        char = source[at]
        if char == "\\":
            at += 2
            continue
        if inside:
            if char == "[":
                return True
            inside = char != "]"
        elif char == "[":
            inside = True
            at += 2 if source[at + 1 : at + 2] == "^" else 1
            if source[at : at + 1] == "]":
                return True
            continue
        at += 1
    return False


def _bound(items: list[Any], flags: int) -> bool:
    return all(_item_bound(op, av, flags) for op, av in items)


def _item_bound(op: Any, av: Any, flags: int) -> bool:
    if op is c.LITERAL:
        return bool(av != _NEWLINE)
    if op is c.ANY:
        return not flags & re.DOTALL
    if op is c.IN:
        return _class_bound(av)
    if op is c.AT:
        return av in _SAFE_AT or (av is c.AT_END and bool(flags & re.MULTILINE))
    if op in _REPEATS:
        return _bound(list(av[2]), flags)
    if op is c.SUBPATTERN:
        _, add, remove, inner = av
        return _bound(list(inner), (flags | add) & ~remove)
    if op is c.BRANCH:
        return all(_bound(list(branch), flags) for branch in av[1])
    if op in (c.ASSERT, c.ASSERT_NOT):
        return _bound(list(av[1]), flags)
    if op is getattr(c, "ATOMIC_GROUP", None):
        return _bound(list(av), flags)
    if op is c.GROUPREF:
        return True  # the group it repeats is checked where it stands
    if op is c.GROUPREF_EXISTS:
        _, yes, no = av
        return _bound(list(yes), flags) and (no is None or _bound(list(no), flags))
    return False  # NOT_LITERAL (`[^x]`) and anything else


def _class_bound(members: list[tuple[Any, Any]]) -> bool:
    """A character class that never matches a line break: a negated one that names it
    (`[^\\s"]`), or one whose every member leaves it out (`[\\w.-]`)."""
    if members and members[0][0] is c.NEGATE:
        return any(_always_newline(op, av) for op, av in members[1:])
    return not any(_may_be_newline(op, av) for op, av in members)


def _always_newline(op: Any, av: Any) -> bool:
    if op is c.LITERAL:
        return bool(av == _NEWLINE)
    if op is c.RANGE:
        return bool(av[0] <= _NEWLINE <= av[1])
    return op is c.CATEGORY and av in _ALWAYS


def _may_be_newline(op: Any, av: Any) -> bool:
    if op is c.LITERAL:
        return bool(av == _NEWLINE)
    if op is c.RANGE:
        return bool(av[0] <= _NEWLINE <= av[1])
    return not (op is c.CATEGORY and av in _NEVER)
