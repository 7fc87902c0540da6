"""MEMORY.md and the links between memories: broken and duplicate links, orphans, the
load limit.

The rule's `mode` picks one of: `broken`, `outside`, `orphan`, `duplicate`, `over_budget`,
`line_too_long`, `missing` (about MEMORY.md) or `memory_link` (links in memory bodies).
Links are resolved lexically (`store.links`); a link that leaves the store is only
stat'ed when it lands inside the repository root, and never read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from curator import templates
from curator.interpreter import patterns
from curator.models import Edit, Fix, Hit, Index, IndexEntry, Memory
from curator.repo import index_history
from curator.store import discovery, links
from curator.store.index import parse_index

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "mode": "broken",
    "max_lines": 200,
    "max_chars": 25000,
    "max_line_chars": 150,
    "content_chars": 300,
    "budget_share": 0.8,
    "messages": {},
    # `missing`: how the count of memories reads (one, more).
    "count_words": ["memory", "memories"],
    # `orphan`: why nothing points to the memory; `memory_link`: why a link leads nowhere.
    "reasons": {},
    # `orphan`: files the agent loads by themselves (not through MEMORY.md).
    "loaded_files": [],
    # `memory_link`: skills Claude Code ships, which `[[name]]` may name.
    "bundled_skills": [],
}
# Ranges narrower than the rule loader's default (`rulebook.PARAM_RANGE`), both ends included.
RANGES: dict[str, tuple[float, float]] = {"framed_share": (0, 1)}
_GRAPH = "store.links.graph"  # `ctx.shared` key: the store's link graph, built once a run
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "broken": {"target": "the link's target", "title": "the link's text"},
    "outside": {
        "target": "the link's target",
        "title": "the link's text",
        "resolved": "where the target resolves to",
    },
    "orphan": {
        "description": "the memory's frontmatter description",
        "pointers": "what points to it, if anything",
        "reason": "why it counts as not pointed to",
        "removed": "the `removed` reason when history removed its index line, else empty",
        "commit": "the commit that removed its index line (short sha; only then)",
        "commit_date": "that commit's date (YYYY-MM-DD)",
        "subject": "that commit's subject line",
    },
    "duplicate": {
        "target": "the link's target",
        "title": "the link's text",
        "first_line": "the line that links it first",
    },
    "over_budget": {
        "size": "the index's size, in the unit of the limit",
        "limit": "the limit",
        "first_unseen": "the first line past the limit",
    },
    "line_too_long": {
        "length": "the line's length in characters",
        "limit": "the limit it passes",
        "kind": "note, entry (content, not a hook) or budget (a long hook near the budget)",
        "text": "the message for that kind, from the rule's `messages`",
    },
    "missing": {"count": "how many memories", "memories": "the same, with its noun"},
    "memory_link": {
        "link": "the link as written",
        "target": "what it points to",
        "reason": "why it lands on nothing",
    },
}


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    index = ctx.store.index
    mode = rule.params["mode"]
    if index is None:
        if mode == "missing" and ctx.store.memories:
            count = len(ctx.store.memories)
            one, many = rule.params["count_words"]
            detail = {"count": count, "memories": f"{count} {one if count == 1 else many}"}
            yield Hit(ctx.store.root / "MEMORY.md", 1, detail=detail, memory_files=("MEMORY.md",))
        elif mode == "memory_link":
            yield from _memory_links(rule, ctx)
        return
    if mode in ("broken", "outside"):
        yield from _links(rule, ctx, index, mode)
    elif mode == "memory_link":
        yield from _memory_links(rule, ctx)
    elif mode == "orphan":
        yield from _orphans(rule, ctx, index)
    elif mode == "duplicate":
        yield from _duplicates(ctx, index)
    elif mode == "over_budget":
        yield from _over_budget(rule, index)
    elif mode == "line_too_long":
        yield from _long_lines(rule, index)


def _long_lines(rule: Rule, index: Index) -> Iterator[Hit]:
    """Lines that are content, not a hook (over `content_chars`), each; and, once the
    index holds more than `budget_share` of the characters Claude Code loads, its entries
    over `max_line_chars`, once, at the longest. Widths are characters, as Claude Code
    counts its budget."""
    params = rule.params
    hook, content, budget = params["max_line_chars"], params["content_chars"], params["max_chars"]
    values: dict[str, Any] = {"hook": hook, "size": f"{len(index.text):,}", "budget": f"{budget:,}"}
    long_hooks: list[tuple[int, int]] = []
    for number, line in enumerate(index.lines, start=1):
        length = len(line.rstrip())
        entry = index.links_per_line.get(number, 0) > 0
        if length > content:
            kind = "entry" if entry else "note"
            yield _long_line(rule, index, number, length, content, kind, values)
        elif entry and length > hook:
            long_hooks.append((length, number))
    if long_hooks and len(index.text) > params["budget_share"] * budget:
        length, number = max(long_hooks, key=lambda item: (item[0], -item[1]))
        values["count"] = len(long_hooks)
        yield _long_line(rule, index, number, length, hook, "budget", values)


def _long_line(rule: Rule, index: Index, number: int, length: int, limit: int, kind: str,
               values: dict[str, Any]) -> Hit:  # fmt: skip
    text = templates.render(str(rule.params["messages"][kind]),
                            {**values, "line": number, "length": length})  # fmt: skip
    detail = {"length": length, "limit": limit, "kind": kind, "text": text}
    return Hit(index.path, number, limit + 1, end_column=length + 1, detail=detail)


def _hit(index: Index, entry: IndexEntry, fix: Fix | None = None, **detail: Any) -> Hit:
    return Hit(
        index.path,
        entry.line,
        entry.column,
        end_column=entry.end_column,
        detail={"target": entry.target, "title": entry.title, **detail},
        memory_files=("MEMORY.md",),
        fix=fix,
    )


def remove_line_fix(index: Index, entry: IndexEntry, why: str) -> Fix | None:
    """Drop the entry's line, only when the line holds that one link (a list item, not a
    table row or prose naming other memories)."""
    if index.links_per_line.get(entry.line) != 1:
        return None
    edit = Edit(entry.line, entry.line + 1, "")
    return Fix("REMOVE", index.path, index.sha256, (edit,), True,
               f"remove MEMORY.md line {entry.line} ({why})")  # fmt: skip


def add_line_fix(index: Index, memory: Memory) -> Fix | None:
    """Append `- [Title](file.md) — description` for a memory the index never links.

    The title and the file name are written so the line's first link is to that file,
    for Claude Code and any Markdown reader as for curator's own index reader; a line
    that would not read back so is not offered.
    """
    title = link_text(memory.name or "") or link_text(Path(memory.rel).stem)
    hook = " ".join((memory.description or "").split())
    hook = hook if len(hook) <= 150 else hook[:149].rstrip() + "…"
    line = f"- [{title}]({link_target(memory.rel)})" + (f" — {hook}" if hook else "")
    read_back = parse_index((line,))
    if not read_back or read_back[0].target != memory.rel:
        return None
    at = len(index.lines) + 1
    return Fix("ADD", index.path, index.sha256, (Edit(at, at, line + "\n"),), True,
               f"add an index line for {memory.rel}")  # fmt: skip


# Where a link's destination would end or break (space, parentheses, brackets, angle
# brackets, a newline), start a fragment or query (`#`, `?`), or be decoded (`%`), the
# character is percent-encoded: CommonMark readers and curator's index reader decode it.
_RAW_IN_TARGET = frozenset(" \t\r\n()[]<>%#?\\`")


def link_target(rel: str) -> str:
    """A store-relative file name as a link destination."""
    return "".join(
        quote(ch, safe="") if ch in _RAW_IN_TARGET or ord(ch) < 0x20 or ord(ch) == 0x7F else ch
        for ch in rel
    )


def link_text(name: str) -> str:
    """A memory's name as link text, on one line.

    A backslash is doubled and `<` escaped (CommonMark would read an escape or raw HTML);
    brackets become parentheses, since curator's index reader, like many, takes none in
    a link's text, escaped or not; backticks become quotes, so no code span swallows the
    link.
    """
    text = " ".join(name.split())
    text = text.replace("\\", "\\\\").replace("<", "\\<")
    return text.replace("[", "(").replace("]", ")").replace("`", "'")


def _links(rule: Rule, ctx: Context, index: Index, mode: str) -> Iterator[Hit]:
    repo = os.path.join(str(ctx.repo_root), "") if ctx.repo_root is not None else None
    names = _graph(ctx).names
    for entry, rel, absolute in index.resolved:
        if not _looks_like_file(entry.target):
            continue
        if entry.wikilink and links.name_key(entry.target) in names:
            continue  # `[[Deploy rules]]` names a memory by its frontmatter `name`
        if rel is None and repo is None and mode == "broken":
            # Cannot be judged without the repository: this rule did not run in full, so
            # its persisted findings must not be resolved by this run.
            ctx.skipped.add(rule.code)
        if rel is not None or (repo is not None and absolute.startswith(repo)):
            # inside the store, or inside the repository: stat'ed, never read
            if mode == "broken" and not os.path.exists(absolute):
                yield _hit(index, entry, remove_line_fix(index, entry, "missing file"))
        elif mode == "outside":
            yield _hit(index, entry, resolved=absolute)


def _looks_like_file(target: str) -> bool:
    """`notes.md`, `dir/`, `../x`: yes. A bare word such as `url` is prose, not a path."""
    return "." in target or "/" in target


def link_graph(ctx: Context) -> links.Graph:
    """The store's link graph, built once a run."""
    return _graph(ctx)


def _graph(ctx: Context) -> links.Graph:
    found = ctx.shared.get(_GRAPH)
    if not isinstance(found, links.Graph):
        found = ctx.shared[_GRAPH] = links.graph(ctx.store)
    return found


def _reason(rule: Rule, key: str, **values: Any) -> str:
    return templates.render(str(rule.params["reasons"].get(key, key)), values)


def _orphans(rule: Rule, ctx: Context, index: Index) -> Iterator[Hit]:
    """Files MEMORY.md neither links nor names, nor reaches through other memories, with
    frontmatter or without (a note nothing reaches is as lost as a memory)."""
    graph = _graph(ctx)
    orphans = [
        memory
        for memory in ctx.memory_files()
        if memory.rel not in graph.reachable and memory.rel not in rule.params["loaded_files"]
    ]
    removals = _removed_lines(ctx, index, orphans)
    for memory in orphans:
        sources = sorted(graph.pointers.get(memory.rel, ()))
        if sources:
            shown = ", ".join(f"'{s}'" for s in sources[:3])
            more = f" (+{len(sources) - 3})" if len(sources) > 3 else ""
            reason = _reason(rule, "unreached_sources", sources=shown + more)
        else:
            reason = _reason(rule, "unlinked")
        detail = {"description": memory.description or "", "reason": reason, "pointers": sources}
        fix = add_line_fix(index, memory)
        removal = removals.get(memory.rel)
        detail["removed"] = ""
        if removal is not None:
            detail.update(commit=removal.short, commit_date=removal.day, subject=removal.subject)
            detail["removed"] = _reason(rule, "removed", **detail)
            fix = _restore_line_fix(index, memory, removal.line) or fix
        yield Hit(memory.path, 1, detail=detail, fix=fix)


def _removed_lines(
    ctx: Context, index: Index, orphans: list[Memory]
) -> dict[str, index_history.Removal]:
    """Orphan -> the commit that removed its MEMORY.md line (the file stayed), from the
    history of the repository holding the store; empty without one."""
    if not orphans:
        return {}
    repo = discovery.repo_root(ctx.store.root)
    if repo is None:
        return {}
    return index_history.removed_lines(
        repo, index.path, [m.rel for m in orphans], lambda text: links.named_in(text, orphans)
    )


def _restore_line_fix(index: Index, memory: Memory, line: str) -> Fix | None:
    """Append the index line history removed, as it read, when it still links the memory."""
    read_back = parse_index((line,))
    if not read_back or read_back[0].target != memory.rel:
        return None
    at = len(index.lines) + 1
    return Fix("ADD", index.path, index.sha256, (Edit(at, at, line + "\n"),), True,
               f"restore the index line for {memory.rel}")  # fmt: skip


def _memory_links(rule: Rule, ctx: Context) -> Iterator[Hit]:
    """Links in memory bodies that land on no memory and on no file."""
    root = os.path.join(str(ctx.store.root), "")
    repo = os.path.join(str(ctx.repo_root), "") if ctx.repo_root is not None else None
    for link in _graph(ctx).links:
        entry = link.entry
        if link.rel is not None or _placeholder(rule, entry.target):
            continue  # lands on a memory, or names a pattern (`memory/YYYY-MM-DD.md`)
        absolute = link.absolute
        if absolute.startswith(root):
            where = absolute[len(root) :]
        elif repo is not None and absolute.startswith(repo):
            where = absolute[len(repo) :]
        else:
            if repo is None:
                ctx.skipped.add(rule.code)  # cannot be judged without the repository
            continue
        # Stat'ed, never read. The agent works from the project's top, so a relative link
        # that names a file there (`[CLAUDE.md](CLAUDE.md)`) leads somewhere too.
        if os.path.exists(absolute) or _in_repo(repo, entry.target):
            continue
        line_text = link.memory.lines[entry.line - 1]
        written = line_text[entry.column - 1 : entry.end_column - 1]
        if entry.wikilink and (
            _skill(rule, ctx, entry.target)
            or _quoted(line_text, entry.column - 1)
            or _named_elsewhere(link.memory, entry.target)
        ):
            continue  # a skill, or a pointer quoted as written into another store
        if entry.wikilink:
            reason = _reason(rule, "wikilink", name=entry.target.removesuffix(".md"))
        else:
            reason = _reason(rule, "file", path=where.replace(os.sep, "/"))
        target = written if entry.wikilink else entry.target
        detail = {"target": target, "link": written, "reason": reason}
        yield Hit(link.memory.path, entry.line, entry.column, end_column=entry.end_column,
                  detail=detail)  # fmt: skip


def _skill(rule: Rule, ctx: Context, target: str) -> bool:
    """`[[claude-api]]`: a skill Claude Code ships, or one of the project's or the user's
    (`.claude/skills/<name>/`, a dotfiles repository's `claude/skills/<name>/`)."""
    name = target.removesuffix(".md").strip()
    key = links.name_key(name)
    if key in {links.name_key(s) for s in rule.params["bundled_skills"]}:
        return True
    if not name or "/" in name or name.startswith("."):
        return False
    folders = [Path.home() / ".claude" / "skills"]
    if ctx.repo_root is not None:
        folders += [ctx.repo_root / ".claude" / "skills", ctx.repo_root / "claude" / "skills"]
    return any((folder / name).is_dir() for folder in folders)


_QUOTES = {'"': '"', "\u201c": "\u201d", "\u300c": "\u300d"}


def _quoted(line: str, start: int) -> bool:
    """Whether the link starting at `start` sits inside a quotation on its line."""
    for opening, closing in _QUOTES.items():
        before = line.rfind(opening, 0, start)
        if before < 0:
            continue
        if opening == closing and line.count(opening, 0, before) % 2:
            continue  # that quote closes an earlier one
        if line.find(closing, start) > 0:
            return True
    return False


def _named_elsewhere(memory: Memory, target: str) -> bool:
    """The memory names the file by a path outside the store (`~/.claude/projects/.../
    memory/x.md`, `other-store/x.md`): the link is to that file, written there."""
    name = target.removesuffix(".md").strip() + ".md"
    return "/" + name in memory.text


def _placeholder(rule: Rule, target: str) -> bool:
    return any(patterns.search(p, target) for p in rule.patterns)


def _in_repo(repo: str | None, target: str) -> bool:
    if repo is None or target.startswith(("/", "~")):
        return False
    absolute = os.path.normpath(os.path.join(repo, target))
    return absolute.startswith(repo) and os.path.exists(absolute)


def _duplicates(ctx: Context, index: Index) -> Iterator[Hit]:
    """Memories linked by two index entries. A link after another link on its line ("...
    See [x](x.md)") is a cross-reference inside that entry, not an entry of its own;
    in a table row every cell's link is one."""
    first: dict[str, int] = {}
    seen_lines: set[int] = set()
    for entry, rel, absolute in index.resolved:
        cross_reference = entry.line in seen_lines and not _table_row(index, entry.line)
        seen_lines.add(entry.line)
        if cross_reference:
            continue
        key = rel or absolute
        if key in first and first[key] != entry.line:
            fix = remove_line_fix(index, entry, f"duplicate of line {first[key]}")
            yield _hit(index, entry, fix, first_line=first[key])
        first.setdefault(key, entry.line)


def _table_row(index: Index, line: int) -> bool:
    return index.lines[line - 1].lstrip().startswith("|")


def _over_budget(rule: Rule, index: Index) -> Iterator[Hit]:
    max_lines, max_chars = rule.params["max_lines"], rule.params["max_chars"]
    total = len(index.lines)
    if total > max_lines:
        detail = {
            "limit": f"{max_lines} lines",
            "size": f"{total} lines",
            "first_unseen": max_lines + 1,
        }
        yield Hit(index.path, max_lines + 1, detail=detail, memory_files=("MEMORY.md",))
    if len(index.text) > max_chars:
        seen = 0
        for number, line in enumerate(index.lines, start=1):
            seen += len(line) + 1
            if seen > max_chars:
                column = max(1, len(line) - (seen - max_chars) + 2)
                detail = {
                    "limit": f"{max_chars:,} characters",
                    "size": f"{len(index.text):,} characters",
                    "first_unseen": number,
                }
                yield Hit(index.path, number, column, detail=detail, memory_files=("MEMORY.md",))
                break
