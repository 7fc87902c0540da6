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
`max_request_chars` characters of memory text; the verdicts are cached and fail closed
like the pair sweep's (`curator.llm.asking`).
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
from curator.llm.pair_sweep import block, body_hash, prompt_values
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
    neighbours: dict[str, list[Memory]] = defaultdict(list)
    used: dict[str, int] = defaultdict(int)
    want, cap = int(params["section_neighbours"]), int(params["max_sections_per_memory"])
    for section in sections:  # a memory the chunk names by its file comes first
        text = section.text.casefold()
        for memory in memories:
            if len(neighbours[section.rel]) >= want or used[memory.rel] >= cap:
                continue
            if memory.rel.casefold() in text:
                neighbours[section.rel].append(memory)
                used[memory.rel] += 1
    for c in found.ranked:  # then the best pairs first
        a, b = (c.a, c.b) if c.a.rel in by_rel else (c.b, c.a)
        if a.rel not in by_rel or b.rel in by_rel:
            continue
        if len(neighbours[a.rel]) >= want or used[b.rel] >= cap or b in neighbours[a.rel]:
            continue
        neighbours[a.rel].append(b)
        used[b.rel] += 1
    return [
        Item(by_rel[s.rel], sorted(neighbours[s.rel], key=lambda m: m.rel))
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
    memories = list(ctx.memories(rule))
    hooks = hook_items(index, {m.rel: m for m in memories})
    sections: list[Item] = []
    if rule.params["sections"]:
        sections = section_items(index, memories, rule.params, _similarity(rule, ctx))
    result.hooks, result.sections = len(hooks), len(sections)
    batches = pack(hooks + sections, rule.params)
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
