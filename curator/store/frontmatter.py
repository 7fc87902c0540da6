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
    """Parse as Claude Code does: strict YAML, then its retry (`claude_retry`) when that
    fails. Only what the retry cannot read either is an error."""
    strict, failed = _load(block)
    if not failed:
        return strict
    retried = claude_retry(block)
    if retried is not None:
        again, still_failed = _load(retried)
        if not still_failed:
            return again
        strict = again  # where the retry fails: the line Claude Code cannot get past
    return _flatten(_lenient(block)), strict[1]


def _load(block: tuple[str, ...]) -> tuple[Parsed, bool]:
    """The parsed frontmatter, and whether YAML could not read it (rather than read it
    into something that is not a mapping)."""
    unread: tuple[int, str]
    try:
        loaded = yamlio.load("\n".join(block))
    except yamlio.LimitExceeded as exc:
        unread = (2, f"frontmatter not loaded: {exc.problem}")
    except yamlio.yaml_error() as exc:
        line = (_error_line(exc) or 0) + 1
        reason = getattr(exc, "problem", None) or "invalid YAML"
        unread = (line, _unreadable(block, line, reason))
    except RecursionError:
        unread = (2, "frontmatter is nested too deeply")
    else:
        return _read(loaded), False
    return ({}, unread), True


def _error_line(exc: Exception) -> int | None:
    """The block line YAML failed on: where a quoted scalar began, when one ran on."""
    context = getattr(exc, "context", None) or ""
    mark = getattr(exc, "context_mark", None) if "scalar" in context else None
    return int(mark.line) + 1 if mark is not None else yamlio.error_line(exc)


def _read(loaded: Any) -> Parsed:
    if loaded is None:
        return {}, None
    if not isinstance(loaded, dict):
        return {}, (2, f"frontmatter is a {type(loaded).__name__}, not a mapping")
    return _flatten({str(k): v for k, v in loaded.items()}), None


# Claude Code 2.1.328's retry when a memory's frontmatter does not parse: every
# `key: value` line whose unquoted value holds `: ` or one of these characters is quoted,
# tabs that start a line become two spaces each, and the block is parsed again.
_RETRY_KEY = re.compile(r"^([a-zA-Z_-]+):\s+(\S.*)$")
_RETRY_NEEDS_QUOTES = re.compile(r"[{}\[\]*&#!|>%@`]|: ")


def claude_retry(block: tuple[str, ...]) -> tuple[str, ...] | None:
    """The block as Claude Code rewrites it before its second parse; None when the
    rewrite changes nothing."""
    out: list[str] = []
    for line in block:
        match = _RETRY_KEY.match(line)
        value = match.group(2) if match else ""
        if match is None or _quoted(value) or not _RETRY_NEEDS_QUOTES.search(value):
            out.append(line)
            continue
        if value.startswith("[") and value.endswith("]") and _is_list(value):
            out.append(line)
            continue
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        out.append(f'{match.group(1)}: "{escaped}"')
    retried = tuple(re.sub(r"^\t+", lambda m: "  " * len(m.group(0)), line) for line in out)
    return retried if retried != block else None


def strict_problem(block: tuple[str, ...]) -> tuple[int, str] | None:
    """Where strict YAML fails on a block that Claude Code's retry reads: (line, key)."""
    (_, problem), failed = _load(block)
    if not failed or problem is None:
        return None
    return problem[0], _key_at(block, problem[0]) or ""


def _quoted(value: str) -> bool:
    return len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'"


def _is_list(value: str) -> bool:
    try:
        return isinstance(yamlio.load(value), list)
    except Exception:  # any failure means "not a list", as in Claude Code
        return False


def _key_at(block: tuple[str, ...], line: int) -> str | None:
    """The key of the frontmatter line numbered `line` in the file (the block starts at 2),
    or of the nearest key line above it."""
    for number in range(min(line, len(block) + 1), 1, -1):
        match = _KEY_LINE.match(block[number - 2])
        if match and not block[number - 2].startswith((" ", "\t")):
            return match.group(1)
    return None


def _unreadable(block: tuple[str, ...], line: int, reason: str) -> str:
    key = _key_at(block, line)
    where = f"`{key}:` on line {line}" if key else f"line {line}"
    return (
        f"not valid YAML, even as Claude Code retries it ({reason} at {where}), so Claude"
        " Code reads no name, description or type from it; quote the value"
    )


def simple_block(block: tuple[str, ...]) -> bool:
    """Whether the block is plain `key: value` lines any YAML reader takes as they are."""
    return _simple(block) is not None


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
