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
