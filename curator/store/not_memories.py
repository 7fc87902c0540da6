"""Files a store folder holds that are not memories: README.md, SETUP.md, an archive
index (`MEMORY-archive.md`), named by the config's `not_memories` globs."""

from __future__ import annotations

import re
from collections.abc import Iterable
from fnmatch import translate
from functools import lru_cache

from curator.models import Memory


@lru_cache(maxsize=16)
def _matcher(globs: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for all the globs (on the file name or the store-relative path)."""
    if not globs:
        return None
    return re.compile("|".join(f"(?:{translate(g)})" for g in globs))


def is_memory(rel: str, globs: Iterable[str]) -> bool:
    """Whether the store-relative file `rel` is a memory: no glob matches its name or path."""
    matcher = _matcher(tuple(globs))
    if matcher is None:
        return True
    name = rel.rsplit("/", 1)[-1]
    return matcher.match(name) is None and matcher.match(rel) is None


def memory_files(memories: Iterable[Memory], globs: Iterable[str] | None) -> tuple[Memory, ...]:
    patterns = tuple(globs or ())
    return tuple(m for m in memories if is_memory(m.rel, patterns))
