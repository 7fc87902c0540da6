"""Links between memories, and the memories a text names: the store's graph, from text.

A memory links another with `[text](other.md)` (relative to its own folder) or with
`[[other]]` / `[[other|label]]`, which resolve by file stem, by frontmatter `name`, or by
the title MEMORY.md gives the memory, anywhere in the store. MEMORY.md often *names* a
memory instead of linking it (`` see `feedback_testing.md` ``, "details in user_profile"),
and a memory may name another by its file name (`supersedes: [old_notes.md]`); both
point the agent to it as well. Nothing here touches the disk: a link that leaves the
store comes back with its absolute path, for the caller to stat or not.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from curator.models import Index, IndexEntry, Memory, Store
from curator.store.index import parse_index

# Spaces, dashes of every width, underscores and the punctuation a title carries.
_SEPARATORS = re.compile(r"[\s_\-\u2010-\u2015:;,.!?'\"()/&+]+")
_TOKEN = re.compile(r"\w[\w./-]*")
_FILE_NAME = re.compile(r"[\w./-]*\.md\b", re.IGNORECASE)
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_DISTINCT = re.compile(r"[_\-0-9]")  # a stem that cannot be an ordinary word
_OTHER_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}$")  # `[[setup.nix]]`


@dataclass(frozen=True)
class Link:
    """One link written in a memory's body, resolved lexically.

    `rel` is the memory it lands on (store-relative), or None when it lands on no memory;
    `absolute` is where it points on disk ('' when it names a memory by name or title).
    """

    memory: Memory
    entry: IndexEntry
    rel: str | None
    absolute: str


@dataclass(frozen=True)
class Graph:
    links: tuple[Link, ...]  # every memory link (`.md` target or wikilink) in every memory
    linked: frozenset[str]  # memories MEMORY.md links
    named: frozenset[str]  # memories MEMORY.md names without linking them
    reachable: frozenset[str]  # linked or named, or linked or named by a reachable memory
    pointers: dict[str, frozenset[str]]  # memory -> the other memories that link or name it
    names: dict[str, str]  # `memory_names`: what a wikilink may call each memory


def name_key(text: str) -> str:
    """What two spellings of one memory name share: `User Profile` = `user_profile`."""
    text = text.strip().lower()
    text = text[:-3] if text.endswith(".md") else text
    return _SEPARATORS.sub("-", text).strip("-")


def memory_names(memories: Iterable[Memory], index: Index | None = None) -> dict[str, str]:
    """name key -> memory rel, for wikilinks: the path, the file stem, the `name`, and the
    title of the MEMORY.md entry that links the memory."""
    keys: dict[str, str] = {}
    rels = set()
    for memory in memories:
        rels.add(memory.rel)
        stem = memory.rel.rsplit("/", 1)[-1]
        for text in (memory.rel, stem, memory.name or ""):
            if text.strip():
                keys.setdefault(name_key(text), memory.rel)
    for entry, rel, _ in index.resolved if index is not None else ():
        if rel in rels and entry.title.strip() and not entry.wikilink:
            keys.setdefault(name_key(entry.title), str(rel))
    return keys


def _resolve(root: str, folder: str, target: str) -> tuple[str | None, str]:
    """(store-relative path or None when it leaves the store, absolute path)."""
    absolute = os.path.normpath(os.path.join(folder, target))
    prefix = os.path.join(root, "")
    inside = absolute.startswith(prefix)
    return (absolute[len(prefix) :].replace(os.sep, "/") if inside else None), absolute


def is_memory_link(entry: IndexEntry) -> bool:
    """A link to a markdown file, or a wikilink that does not name another kind of file
    (`[[setup.nix]]`); not a URL, an image or a folder."""
    if entry.is_url:
        return False
    if entry.wikilink:
        return not _OTHER_EXTENSION.search(entry.target.removesuffix(".md"))
    return entry.target.lower().endswith(".md")


def memory_links(store: Store, names: dict[str, str] | None = None) -> tuple[Link, ...]:
    """Every memory link in the memories' bodies."""
    root = str(store.root)
    rels = {m.rel for m in store.memories}
    names = memory_names(store.memories, store.index) if names is None else names
    found: list[Link] = []
    for memory in store.memories:
        if "[" not in memory.text:
            continue
        body = memory.lines[memory.body_line - 1 :]
        for entry in parse_index(body, first_line=memory.body_line):
            if not is_memory_link(entry):
                continue
            named = names.get(name_key(entry.target)) if entry.wikilink else None
            if named is not None:
                found.append(Link(memory, entry, named, ""))
                continue
            # A wikilink names a file from the store's top (as a vault does), a link from
            # the memory's own folder.
            folder = root if entry.wikilink else str(memory.path.parent)
            rel, absolute = _resolve(root, folder, entry.target)
            found.append(Link(memory, entry, rel if rel in rels else None, absolute))
    return tuple(found)


def index_links(store: Store, names: dict[str, str] | None = None) -> set[str]:
    """Memories MEMORY.md links: by path, and (wikilinks) by stem or frontmatter `name`."""
    if store.index is None:
        return set()
    rels = {m.rel for m in store.memories}
    names = memory_names(store.memories, store.index) if names is None else names
    linked = set()
    for entry, rel, _ in store.index.resolved:
        if rel in rels:
            linked.add(rel)
        elif entry.wikilink and name_key(entry.target) in names:
            linked.add(names[name_key(entry.target)])
    return linked


def names_file(written: str, memory: Memory) -> bool:
    """Whether a file name or path as written names `memory`: its file name, its
    store-relative path, or a path through the store's folder (`memory/lessons.md`,
    `~/.claude/projects/<slug>/memory/lessons.md`; a copy of a store kept under another
    folder name still answers to Claude Code's `memory/`). `tasks/lessons.md` is another
    folder's file, not the store's `lessons.md`; what lies above the store's folder is not
    compared (another machine's home)."""
    parts = [p.lower() for p in written.replace("\\", "/").split("/")]
    parts = [p for p in parts if p not in ("", ".", "..", "~")]
    rel = memory.rel.lower().split("/")
    if not parts:
        return False
    if len(parts) <= len(rel):  # the file name, or the path from a folder of the store
        return parts == rel[-len(parts) :]
    if parts[-len(rel) :] != rel:
        return False
    folder = memory.path.parents[len(rel) - 1].name.lower()
    return parts[-len(rel) - 1] in (folder, "memory")


def named_in(text: str, memories: Iterable[Memory]) -> set[str]:
    """Memories a text names without a link: by file name (`feedback_testing.md`, anywhere),
    by a path that ends in the memory's own folders (`memory/feedback_testing.md`, not
    `tasks/feedback_testing.md`), or by stem (`user_profile`) when the stem cannot be a
    plain word or is in backticks. A folder named with a trailing slash (`topics/`) names
    what it holds."""
    tokens: set[str] = set()
    paths: dict[str, set[str]] = {}  # file name (lowercase) -> the paths that end in it
    folders: set[str] = set()
    for match in _TOKEN.finditer(text):
        token = match.group(0).rstrip(".")
        if "/" in token.rstrip("/"):
            paths.setdefault(token.rsplit("/", 1)[-1].lower(), set()).add(token)
        else:
            tokens.add(token)
        if token.endswith("/"):
            path = token.strip("/")
            folders.update((path, path.rsplit("/", 1)[-1]))
    quoted = {m.group(1).strip().strip("/") for m in _CODE_SPAN.finditer(text)}
    found = set()
    for memory in memories:
        rel = memory.rel
        folder, _, name = rel.rpartition("/")
        stem = name[:-3] if name.lower().endswith(".md") else name
        written = paths.get(name.lower(), ())
        by_file = name in tokens or any(names_file(p, memory) for p in written)
        by_stem = (
            stem in quoted or rel[:-3] in quoted or bool(_DISTINCT.search(stem) and stem in tokens)
        )
        by_folder = bool(folder) and (folder in folders or folder.rsplit("/", 1)[-1] in folders)
        if by_file or by_stem or by_folder:
            found.add(rel)
    return found


def _file_names(memories: Iterable[Memory]) -> dict[str, set[str]]:
    """memory -> the other memories it names by file name (`old_notes.md`, `sub/x.md`)."""
    memories = list(memories)
    by_rel = {m.rel: m for m in memories}
    by_name: dict[str, set[str]] = {}
    for memory in memories:
        by_name.setdefault(memory.rel.rsplit("/", 1)[-1].lower(), set()).add(memory.rel)
    named: dict[str, set[str]] = {}
    for memory in memories:
        if ".md" not in memory.text.lower():
            continue
        for match in _FILE_NAME.finditer(memory.text):
            written = match.group(0)
            targets = by_name.get(written.lower().rsplit("/", 1)[-1], set())
            if "/" in written:  # a path names a memory only when its folders are that memory's
                targets = {rel for rel in targets if names_file(written, by_rel[rel])}
            named.setdefault(memory.rel, set()).update(targets)
        named.get(memory.rel, set()).discard(memory.rel)
    return named


def graph(store: Store) -> Graph:
    """Which memories MEMORY.md links or names, and which it reaches from there."""
    names = memory_names(store.memories, store.index)
    links = memory_links(store, names)
    linked = index_links(store, names)
    named = set()
    if store.index is not None:
        named = named_in(store.index.text, store.memories) - linked
    outgoing = _file_names(store.memories)
    for link in links:
        if link.rel is not None and link.rel != link.memory.rel:
            outgoing.setdefault(link.memory.rel, set()).add(link.rel)
    pointers: dict[str, set[str]] = {}
    for source, targets in outgoing.items():
        for target in targets:
            pointers.setdefault(target, set()).add(source)
    reached = linked | named
    stack = list(reached)
    while stack:
        for target in outgoing.get(stack.pop(), ()):
            if target not in reached:
                reached.add(target)
                stack.append(target)
    frozen = {k: frozenset(v) for k, v in pointers.items()}
    return Graph(links, frozenset(linked), frozenset(named), frozenset(reached), frozen, names)
