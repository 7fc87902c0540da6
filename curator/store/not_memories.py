"""Files a store folder holds that are not memories: README.md, SETUP.md, an archive
index (`MEMORY-archive.md`), named by the config's `not_memories` globs."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from curator.models import Memory


def is_memory(rel: str, globs: Iterable[str]) -> bool:
    """Whether the store-relative file `rel` is a memory: no glob matches its name or path."""
    name = rel.rsplit("/", 1)[-1]
    return not any(fnmatchcase(name, g) or fnmatchcase(rel, g) for g in globs)


def memory_files(memories: Iterable[Memory], globs: Iterable[str] | None) -> tuple[Memory, ...]:
    patterns = tuple(globs or ())
    return tuple(m for m in memories if is_memory(m.rel, patterns))
