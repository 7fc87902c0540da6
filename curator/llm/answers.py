"""The answers curator accepts, and the strict check every answer goes through.

Exact keys, enum values, the right types: anything else is a MalformedAnswer, retried a
bounded number of times and then dropped. Memory text is data inside the prompt; nothing
in a memory can change these schemas.
"""

from __future__ import annotations

from typing import Any

from curator.llm.question import MalformedAnswer
from curator.models import MEMORY_TYPES

VERDICTS = ("contradict", "complement", "redundant", "unrelated")
MAX_RATIONALE = 2000

GROUP_TOOL = "record_pair_verdicts"
GROUP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pairs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "b": {"type": "integer"},
                    "verdict": {"type": "string", "enum": list(VERDICTS)},
                    "rationale": {"type": "string"},
                },
                "required": ["a", "b", "verdict", "rationale"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["pairs"],
    "additionalProperties": False,
}

TYPE_TOOL = "record_memory_type"
TYPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": list(MEMORY_TYPES)},
        "confidence": {"type": "number"},
        "rationale": {"type": "string"},
    },
    "required": ["type", "confidence", "rationale"],
    "additionalProperties": False,
}


def _exact(value: Any, keys: set[str], what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedAnswer(f"{what} is not an object")
    if set(value) != keys:
        extra, missing = set(value) - keys, keys - set(value)
        raise MalformedAnswer(
            f"{what} keys differ (extra {sorted(extra)}, missing {sorted(missing)})"
        )
    return value


def _rationale(value: Any) -> str:
    if not isinstance(value, str):
        raise MalformedAnswer("rationale is not a string")
    return " ".join(value.split())[:MAX_RATIONALE]


def pair_verdicts(answer: Any, size: int) -> list[tuple[int, int, str, str]]:
    """(a, b, verdict, rationale) for each judged pair; a < b, 1-based member numbers."""
    pairs = _exact(answer, {"pairs"}, "the answer")["pairs"]
    if not isinstance(pairs, list):
        raise MalformedAnswer("pairs is not a list")
    out: dict[tuple[int, int], tuple[int, int, str, str]] = {}
    for item in pairs:
        entry = _exact(item, {"a", "b", "verdict", "rationale"}, "a pair")
        a, b = entry["a"], entry["b"]
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in (a, b)):
            raise MalformedAnswer("a and b must be integers")
        if a == b or not (1 <= a <= size and 1 <= b <= size):
            raise MalformedAnswer(f"pair ({a}, {b}) names no two memories of the request")
        if entry["verdict"] not in VERDICTS:
            raise MalformedAnswer(f"unknown verdict {entry['verdict']!r}")
        a, b = min(a, b), max(a, b)
        out[(a, b)] = (a, b, entry["verdict"], _rationale(entry["rationale"]))
    return sorted(out.values())


def memory_type(answer: Any) -> tuple[str, float, str]:
    """(type, confidence 0..1, rationale) for the type-drift question."""
    entry = _exact(answer, {"type", "confidence", "rationale"}, "the answer")
    if entry["type"] not in MEMORY_TYPES:
        raise MalformedAnswer(f"unknown memory type {entry['type']!r}")
    confidence = entry["confidence"]
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise MalformedAnswer("confidence is not a number")
    if not 0 <= confidence <= 1:
        raise MalformedAnswer("confidence is outside 0..1")
    return entry["type"], float(confidence), _rationale(entry["rationale"])


INDEX_VERDICTS = ("contradict", "consistent")
INDEX_TOOL = "record_index_verdicts"
INDEX_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "entries": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "item": {"type": "integer"},
                    "memory": {"type": "integer"},
                    "line": {"type": "integer"},
                    "verdict": {"type": "string", "enum": list(INDEX_VERDICTS)},
                    "rationale": {"type": "string"},
                },
                "required": ["item", "memory", "line", "verdict", "rationale"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["entries"],
    "additionalProperties": False,
}


def index_verdicts(
    answer: Any, items: list[tuple[frozenset[int], frozenset[int]]]
) -> list[tuple[int, int, int, str, str]]:
    """(item, memory, line, verdict, rationale) for each judged index line; `items` gives,
    per 1-based item, the memory numbers and the index lines it holds: an answer naming a
    memory or a line outside its item is malformed."""
    entries = _exact(answer, {"entries"}, "the answer")["entries"]
    if not isinstance(entries, list):
        raise MalformedAnswer("entries is not a list")
    out: dict[tuple[int, int, int], tuple[int, int, int, str, str]] = {}
    for raw in entries:
        entry = _exact(raw, {"item", "memory", "line", "verdict", "rationale"}, "an entry")
        item, memory, line = entry["item"], entry["memory"], entry["line"]
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in (item, memory, line)):
            raise MalformedAnswer("item, memory and line must be integers")
        if not 1 <= item <= len(items):
            raise MalformedAnswer(f"item {item} is not in the request")
        memories, lines = items[item - 1]
        if memory not in memories:
            raise MalformedAnswer(f"memory {memory} is not in item {item}")
        if line not in lines:
            raise MalformedAnswer(f"line {line} is not in item {item}")
        if entry["verdict"] not in INDEX_VERDICTS:
            raise MalformedAnswer(f"unknown verdict {entry['verdict']!r}")
        out[(item, memory, line)] = (
            item,
            memory,
            line,
            entry["verdict"],
            _rationale(entry["rationale"]),
        )
    return sorted(out.values())
