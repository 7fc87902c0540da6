"""Split a memory file into YAML frontmatter and body, accepting both of Claude Code's shapes.

Flat:                         Nested (Claude Code rewrites frontmatter like this):
    ---                           ---
    name: x                       name: x
    type: project                 metadata:
    ---                             type: project
                                    node_type: memory
                                  ---
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, NamedTuple

from curator import yamlio

_FENCE = re.compile(r"^(---|\.\.\.)\s*$")
_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")
_SIMPLE_VALUE = re.compile(r"""^[^\s'"&*!|>%@`#\[\]{},:.?-](?:(?!: | #)[^\t])*(?<!:)$""")
_YAML_WORDS = frozenset(["null", "~", "true", "false", "yes", "no", "on", "off"])


class Frontmatter(NamedTuple):
    data: dict[str, Any]
    error: tuple[int, str] | None  # (1-based line, message)
    present: bool
    body_line: int  # 1-based line where the body starts


def split(lines: tuple[str, ...]) -> Frontmatter:
    """Find and parse the frontmatter block at the top of a memory file."""
    if not lines or lines[0].lstrip("\ufeff").rstrip() != "---":
        return Frontmatter({}, None, False, 1)
    end = next((i for i in range(1, len(lines)) if _FENCE.match(lines[i])), None)
    if end is None:
        return Frontmatter(_lenient(lines[1:]), (1, "frontmatter has no closing '---'"), True, 1)
    block = lines[1:end]
    data, error = _parse(block)
    return Frontmatter(data, error, True, end + 2)


Parsed = tuple[dict[str, Any], tuple[int, str] | None]  # (data, error)


@dataclass
class ParseMemo:
    """Frontmatter blocks that needed YAML, parsed by an earlier run, by the block's text:
    a warm run reads its memories without PyYAML. `used` is what this run parsed or
    reused, the next run's memo."""

    known: dict[str, Parsed]
    used: dict[str, Parsed] = field(default_factory=dict)


_memo: ContextVar[ParseMemo | None] = ContextVar("frontmatter_memo", default=None)


@contextmanager
def remembering(memo: ParseMemo) -> Iterator[ParseMemo]:
    """Within the block, YAML frontmatter is looked up in `memo` before it is parsed."""
    token = _memo.set(memo)
    try:
        yield memo
    finally:
        _memo.reset(token)


def _parse(block: tuple[str, ...]) -> Parsed:
    simple = _simple(block)
    if simple is not None:
        return _flatten(simple), None
    memo = _memo.get()
    if memo is None:
        return _parse_yaml(block)
    text = "\n".join(block)
    parsed = memo.known.get(text) or memo.used.get(text) or _parse_yaml(block)
    memo.used[text] = parsed
    return dict(parsed[0]), parsed[1]  # a memory's own dict, as a fresh parse gives


def _parse_yaml(block: tuple[str, ...]) -> Parsed:
    try:
        loaded = yamlio.load("\n".join(block))
    except yamlio.LimitExceeded as exc:
        return _flatten(_lenient(block)), (2, f"frontmatter not loaded: {exc.problem}")
    except yamlio.yaml_error() as exc:
        line = yamlio.error_line(exc)
        reason = getattr(exc, "problem", None) or "invalid YAML"
        return _flatten(_lenient(block)), (
            (line or 0) + 1,
            f"frontmatter is not valid YAML: {reason}",
        )
    except RecursionError:
        return _flatten(_lenient(block)), (2, "frontmatter is nested too deeply")
    if loaded is None:
        return {}, None
    if not isinstance(loaded, dict):
        return {}, (2, f"frontmatter is a {type(loaded).__name__}, not a mapping")
    return _flatten({str(k): v for k, v in loaded.items()}), None


def _simple(block: tuple[str, ...]) -> dict[str, Any] | None:
    """Fast path for the common `key: plain value` block; None when YAML is needed."""
    data: dict[str, Any] = {}
    for line in block:
        match = _KEY_LINE.match(line)
        if match is None:
            return None
        key, value = match.groups()
        if value and not _SIMPLE_VALUE.match(value):
            return None
        if key in data or not value or value.lower() in _YAML_WORDS:
            return None
        if value[:1].isdigit():
            return None  # numbers and dates: let YAML type them
        data[key] = value
    return data


def _lenient(block: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """Best effort `key: value` reading of frontmatter YAML rejected, so types still count."""
    data: dict[str, Any] = {}
    for line in block:
        match = _KEY_LINE.match(line)
        if match and not line.startswith((" ", "\t")):
            key, value = match.groups()
            data.setdefault(key, value.strip("'\""))
    return data


def _flatten(data: dict[str, Any]) -> dict[str, Any]:
    """Lift keys from `metadata:` when the top level lacks them (Claude Code's nested shape)."""
    metadata = data.get("metadata")
    if isinstance(metadata, dict):
        for key, value in metadata.items():
            data.setdefault(str(key), value)
    return data


def as_date(value: Any) -> date | None:
    """A frontmatter timestamp (`2026-03-05`, ISO datetime, YAML date) as a date."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, (int, float)) and 0 < value < 1e11:
        return datetime.fromtimestamp(value).date()
    if isinstance(value, str):
        text = value.strip()
        try:
            return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
        except ValueError:
            try:
                return date.fromisoformat(text[:10])
            except ValueError:
                return None
    return None
