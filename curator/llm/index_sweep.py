"""The index sweep behind CUR404: MEMORY.md's lines against the memories they speak of.

The index is the one file the agent reads every session; a hook that says "RESOLVED"
when its memory says "blocked" misleads it before it opens the memory. Two kinds of
items are judged:

- **hooks**: every memory the index links, with every index line that links it. Each
  memory is in one hook item, so this is linear in the number of entries.
- **sections**: the index's own content (lines that link nothing: notes, commands,
  tables under a heading), cut into chunks of at most `section_lines` lines and
  `section_chars` characters, each with its `section_neighbours` most similar memories
  (the pair sweep's TF-IDF candidates, with the params of the rule `similarity_rule`).
  A memory is the neighbour of at most `max_sections_per_memory` chunks.

Items are packed into requests of at most `items_per_request` items and
`max_request_chars` characters of memory text: hooks in index order, then each section
into the request that already holds most of its neighbours (or a new one). A memory is
in at most `max_requests_per_memory` of these requests: a section takes as neighbours
only memories already in its request or with a request to spare. The pair sweep plans
its groups around these requests (`planned`), so that a memory's text goes out in at
most the pair rule's `max_groups_per_memory` requests of a sweep in all. The verdicts
are cached and fail closed like the pair sweep's (`curator.llm.asking`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import regex

from curator import templates
from curator.hashing import sha256_text
from curator.llm.answers import INDEX_SCHEMA, INDEX_TOOL, index_verdicts
from curator.llm.asking import get_asker, progress
from curator.llm.prompt_text import block, body_hash, prompt_values
from curator.llm.question import Request
from curator.llm.similarity import DEFAULTS as SIMILARITY_DEFAULTS
from curator.llm.similarity import candidates
from curator.models import Index, Memory, Rule

PARAMS: dict[str, Any] = {
    "items_per_request": 8,
    "max_request_chars": 24000,
    "max_body_chars": 3000,
    "sections": True,
    "section_lines": 40,
    "section_chars": 3000,
    "min_section_chars": 40,
    "section_neighbours": 3,
    "max_sections_per_memory": 2,
    "max_requests_per_memory": 1,
    "similarity_rule": "contradiction",
    "max_calls": 50,
    "system_prompt": "",
}
MAX_TOKENS = 4096
_LIST_MARK = regex.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HEADING = regex.compile(r"^\s{0,3}#{1,6}\s")
_SECTION = regex.compile(r"^\s{0,3}#{1,2}\s")  # a section starts at a heading of level 1 or 2


@dataclass(frozen=True)
class IndexLine:
    line: int
    text: str  # as the agent reads it: links shown as their titles, escaped and masked


@dataclass
class Item:
    """Index lines and the memories they are judged against."""

    lines: list[IndexLine]
    memories: list[Memory]
    columns: dict[int, int] = field(default_factory=dict)  # hook line -> link column
    # a section's neighbours to choose from, best first (`memories` is the first few)
    choices: list[Memory] = field(default_factory=list)

    def chars(self, limit: int) -> int:
        text = sum(len(x.text) for x in self.lines)
        return text + sum(min(len(m.body()), limit or len(m.body())) for m in self.memories)


@dataclass(frozen=True)
class IndexVerdict:
    memory: Memory
    line: int
    column: int
    text: str
    verdict: str
    rationale: str


@dataclass
class IndexSweep:
    verdicts: list[IndexVerdict] = field(default_factory=list)
    requests: int = 0
    hooks: int = 0
    sections: int = 0
    not_evaluated: int = 0
    skipped: str | None = None


def shown(raw: str, spans: list[tuple[int, int, str]]) -> str:
    """An index entry's line as the agent reads it: each link replaced by its title, the
    list marker left out."""
    out, at = [], 0
    for start, end, title in sorted(spans):
        if start < at:
            continue
        out.append(raw[at:start])
        out.append(title)
        at = end
    out.append(raw[at:])
    return " ".join(_LIST_MARK.sub("", "".join(out), count=1).split())


def hook_items(index: Index, by_rel: dict[str, Memory]) -> list[Item]:
    """One item per linked memory, holding every index line that links it."""
    spans: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for entry in index.entries:
        spans[entry.line].append((entry.column - 1, entry.end_column - 1, entry.title))
    items: dict[str, Item] = {}
    for entry, rel, _ in index.resolved:
        memory = by_rel.get(rel or "")
        if memory is None:
            continue
        item = items.setdefault(rel or "", Item([], [memory]))
        if entry.line in item.columns:
            continue
        item.columns[entry.line] = entry.column
        text = shown(index.lines[entry.line - 1], spans[entry.line])
        item.lines.append(IndexLine(entry.line, text))
    return sorted(items.values(), key=lambda i: i.lines[0].line)


def section_chunks(index: Index, params: dict[str, Any]) -> list[list[IndexLine]]:
    """The index's content lines (no link on them), by heading, in chunks."""
    linked = {entry.line for entry in index.entries}
    size, room = int(params["section_lines"]), int(params["section_chars"])
    chunks: list[list[IndexLine]] = []
    current: list[IndexLine] = []

    def close() -> None:
        content = sum(len(x.text) for x in current if not _HEADING.match(x.text))
        if content >= int(params["min_section_chars"]):
            chunks.append(list(current))
        current.clear()

    for number, raw in enumerate(index.lines, start=1):
        text = " ".join(raw.split())
        if _SECTION.match(raw) and current:
            close()
        if not text or number in linked or set(text) <= set("-=|*_`~: "):
            continue
        if current and (
            len(current) >= size or sum(len(x.text) for x in current) + len(text) > room
        ):
            close()
        current.append(IndexLine(number, text))
    if current:
        close()
    return chunks


def _section_memory(index: Index, chunk: list[IndexLine]) -> Memory:
    text = "\n".join(x.text for x in chunk)
    return Memory(
        path=index.path,
        rel=f"MEMORY.md:{chunk[0].line}",
        text=text,
        lines=tuple(x.text for x in chunk),
        sha256=sha256_text(text),
        frontmatter={},
        frontmatter_error=None,
        has_frontmatter=False,
        body_line=1,
        mtime=0.0,
    )


def section_items(
    index: Index, memories: list[Memory], params: dict[str, Any], similarity: dict[str, Any]
) -> list[Item]:
    chunks = section_chunks(index, params)
    if not chunks or not memories:
        return []
    sections = [_section_memory(index, chunk) for chunk in chunks]
    by_rel = {s.rel: chunk for s, chunk in zip(sections, chunks, strict=True)}
    # chunks are each other's neighbours too: room for them beside the memories
    wider = {**similarity, "per_memory": int(similarity["per_memory"]) + len(sections)}
    found = candidates([*memories, *sections], wider)
    named: dict[str, list[Memory]] = {}
    for section in sections:  # a memory the chunk names by its file comes first
        text = section.text.casefold()
        named[section.rel] = [m for m in memories if m.rel.casefold() in text]
    choices = {rel: list(found) for rel, found in named.items()}
    for c in found.ranked:  # then the best pairs first
        a, b = (c.a, c.b) if c.a.rel in by_rel else (c.b, c.a)
        if a.rel in by_rel and b.rel not in by_rel and b not in choices[a.rel]:
            choices[a.rel].append(b)
    neighbours: dict[str, list[Memory]] = defaultdict(list)
    used: dict[str, int] = defaultdict(int)
    want, cap = int(params["section_neighbours"]), int(params["max_sections_per_memory"])
    for first in (named, choices):  # every section's named memories before any other
        for section in sections:
            for memory in first[section.rel]:
                mine = neighbours[section.rel]
                if len(mine) < want and used[memory.rel] < cap and memory not in mine:
                    mine.append(memory)
                    used[memory.rel] += 1
    return [
        Item(by_rel[s.rel], sorted(neighbours[s.rel], key=lambda m: m.rel), {}, choices[s.rel])
        for s in sections
        if neighbours[s.rel]
    ]


def pack(items: list[Item], params: dict[str, Any]) -> list[list[Item]]:
    """Items in requests of at most `items_per_request` and `max_request_chars`."""
    most, room = int(params["items_per_request"]), int(params["max_request_chars"])
    limit = int(params["max_body_chars"])
    batches: list[list[Item]] = []
    current: list[Item] = []
    used = 0
    for item in items:
        size = item.chars(limit)
        if current and (len(current) >= most or used + size > room):
            batches.append(current)
            current, used = [], 0
        current.append(item)
        used += size
    if current:
        batches.append(current)
    return batches


def place(hooks: list[Item], sections: list[Item], params: dict[str, Any]) -> list[list[Item]]:
    """The sweep's requests: the hooks packed in index order, then each section with its
    best neighbours, in the request where that costs the fewest new appearances. A memory
    is in at most `max_requests_per_memory` requests (0: no bound) and the neighbour of at
    most `max_sections_per_memory` sections."""
    batches = pack(hooks, params)
    most, room = int(params["items_per_request"]), int(params["max_request_chars"])
    limit, want = int(params["max_body_chars"]), int(params["section_neighbours"])
    bound = int(params["max_requests_per_memory"]) or len(hooks) + len(sections) + 1
    sections_cap = int(params["max_sections_per_memory"])
    seen: dict[str, set[int]] = defaultdict(set)  # memory -> the requests it is in
    for number, batch in enumerate(batches):
        for item in batch:
            for m in item.memories:
                seen[m.rel].add(number)
    # each section's first picks (`memories`: a memory it names first) hold their place
    neighbour_of: dict[str, int] = defaultdict(int)
    for section in sections:
        for m in section.memories:
            neighbour_of[m.rel] += 1
    for section in sections:
        best: tuple[tuple[float, int], int, list[Memory]] | None = None
        for number in [*range(len(batches)), len(batches)]:
            batch = batches[number] if number < len(batches) else []
            if len(batch) >= most:
                continue
            chosen = [
                m
                for m in section.choices
                if (m in section.memories or neighbour_of[m.rel] < sections_cap)
                and (number in seen[m.rel] or len(seen[m.rel]) < bound)
            ][:want]
            item = Item(section.lines, chosen)
            used = sum(i.chars(limit) for i in batch)
            if not chosen or (batch and used + item.chars(limit) > room):
                continue
            rank = {m.rel: k for k, m in enumerate(section.choices)}
            value = sum(1 / (1 + rank[m.rel]) for m in chosen)
            key = (round(value, 6), -int(number == len(batches)))  # ties: no new request
            if best is None or key > best[0]:
                best = (key, number, chosen)
        if best is None:
            continue
        _, number, chosen = best
        if number == len(batches):
            batches.append([])
        batches[number].append(Item(section.lines, sorted(chosen, key=lambda m: m.rel)))
        for m in chosen:
            seen[m.rel].add(number)
            neighbour_of[m.rel] += m not in section.memories
        for m in section.memories:
            neighbour_of[m.rel] -= m not in chosen  # its place is free again
    return batches


def planned(rule: Rule, ctx: Any) -> tuple[list[Item], list[Item], list[list[Item]]]:
    """(hooks, sections, requests) of this rule's sweep, planned once a run: the pair
    sweep reads it to leave each memory room for these requests."""
    key = "index:" + sha256_text(repr(sorted(rule.params.items(), key=lambda kv: kv[0])))
    done = ctx.shared.get(key)
    if done is not None:
        return done  # type: ignore[no-any-return]
    index = ctx.store.index
    hooks: list[Item] = []
    sections: list[Item] = []
    if index is not None:
        memories = list(ctx.memories(rule))
        hooks = hook_items(index, {m.rel: m for m in memories})
        if rule.params["sections"]:
            sections = section_items(index, memories, rule.params, _similarity(rule, ctx))
    result = (hooks, sections, place(hooks, sections, rule.params))
    ctx.shared[key] = result
    return result


def requests_per_memory(rule: Rule, ctx: Any) -> dict[str, int]:
    """How many of this sweep's requests hold each memory."""
    counts: dict[str, int] = defaultdict(int)
    for batch in planned(rule, ctx)[2]:
        for rel in {m.rel for item in batch for m in item.memories}:
            counts[rel] += 1
    return dict(counts)


def _similarity(rule: Rule, ctx: Any) -> dict[str, Any]:
    name = rule.params["similarity_rule"]
    for other in getattr(ctx, "rules", ()):
        if other.name == name:
            return dict(other.params)
    return dict(SIMILARITY_DEFAULTS)


def sweep(rule: Rule, ctx: Any) -> IndexSweep:
    result = IndexSweep()
    index = ctx.store.index
    if index is None:
        return result
    asker = get_asker(ctx)
    if not asker.available:
        result.skipped = "no LLM provider"
        return result
    hooks, _, batches = planned(rule, ctx)
    result.hooks = len(hooks)
    result.sections = sum(1 for batch in batches for item in batch if not item.columns)
    result.requests = len(batches)
    before = asker.stats.not_evaluated
    for batch in progress(batches, f"curator: {rule.name}"):
        request, hashes, validate, values = _question(rule, batch, asker.model)
        subject = tuple(sorted({"MEMORY.md", *(m.rel for i in batch for m in i.memories)}))
        answer = asker.ask(
            rule.code, request, subject, hashes, validate, int(rule.params["max_calls"])
        )
        if answer is None:
            continue
        for item_no, memory_no, line, verdict, rationale in answer:
            item = batch[item_no - 1]
            memory = values[memory_no - 1]
            text = next(x.text for x in item.lines if x.line == line)
            column = item.columns.get(line, 1)
            result.verdicts.append(IndexVerdict(memory, line, column, text, verdict, rationale))
    result.not_evaluated = asker.stats.not_evaluated - before
    return result


def _question(
    rule: Rule, batch: list[Item], model: str
) -> tuple[Request, list[str], Any, list[Memory]]:
    members = [m for item in batch for m in item.memories]
    rendered = prompt_values(tuple(members), int(rule.params["max_body_chars"]))["memories"]
    items, shapes, at = [], [], 0
    for number, item in enumerate(batch, start=1):
        mine = rendered[at : at + len(item.memories)]
        at += len(item.memories)
        lines = [{"line": x.line, "text": block(x.text)} for x in item.lines]
        first, last = item.lines[0].line, item.lines[-1].line
        items.append(
            {
                "number": number,
                "lines": str(first) if first == last else f"{first}-{last}",
                "index_lines": lines,
                "memories": mine,
                "hook": bool(item.columns),
            }
        )
        shapes.append((frozenset(m["number"] for m in mine), frozenset(x.line for x in item.lines)))
    prompt = templates.render(rule.prompt or "", {"items": items, "count": len(items)})
    request = Request(
        model=model,
        prompt=prompt,
        tool=INDEX_TOOL,
        schema=INDEX_SCHEMA,
        max_tokens=MAX_TOKENS,
        system=str(rule.params["system_prompt"]).strip(),
    )
    hashes = [sha256_text(x.text) for i in batch for x in i.lines]
    hashes += [body_hash(m) for m in members]
    return request, hashes, lambda raw: index_verdicts(raw, shapes), members
