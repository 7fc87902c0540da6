"""Where a memory body names things: inline code spans, markdown link targets, URLs, prose.

Each reference keeps its offset in the memory's text, so a diagnostic points at the
line and column of the reference itself. The path, symbol and URL checks all read the
same scan of a memory, cached by the memory's content hash.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from curator.models import Memory

# One line only: a code span never crosses a line in the memories we read.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# Classes exclude their own opening delimiters so hostile lines scan in linear time.
_LINK = re.compile(r"!?\[[^\[\]\n]*\]\(\s*<?(?P<target>[^()\[\]\s<>]+)>?(?:\s+\"[^\"\n]*\")?\s*\)")
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>`\"'\[\]{}|\\^]+", re.IGNORECASE)
_URL_TRAIL = ".,;:!?*_~'\""
_CACHE_MAX = 20000


class Ref(NamedTuple):
    """A piece of a memory body: `text` starts at `start` (an offset in memory.text).
    A tuple, not a dataclass: a scan makes one per body line, and that is hot."""

    text: str
    start: int
    kind: str  # code | link | url | prose

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclass(frozen=True)
class Scan:
    code: tuple[Ref, ...]  # inline code span contents
    links: tuple[Ref, ...]  # markdown link targets that are not URLs
    urls: tuple[Ref, ...]
    prose: tuple[Ref, ...]  # one per body line, code spans, links and URLs blanked out


_scans: dict[tuple[Path, str, bool], Scan] = {}


def scan(memory: Memory, skip_fenced: bool = True) -> Scan:
    """The references of a memory's body (fenced code blocks left out when asked)."""
    key = (memory.path, memory.sha256, skip_fenced)
    found = _scans.get(key)
    if found is None:
        if len(_scans) > _CACHE_MAX:
            _scans.clear()
        found = _scans[key] = _scan(memory, skip_fenced)
    return found


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _scan(memory: Memory, skip_fenced: bool) -> Scan:
    code: list[Ref] = []
    links: list[Ref] = []
    urls: list[Ref] = []
    prose: list[Ref] = []
    fenced = memory.fenced_lines if skip_fenced else frozenset()
    for number in range(memory.body_line, len(memory.lines) + 1):
        if number in fenced:
            continue
        line = memory.lines[number - 1]
        base = memory.line_starts[number - 1]
        if "`" not in line and "://" not in line and "](" not in line:
            prose.append(Ref(line, base, "prose"))  # most lines: nothing to blank out
            continue
        rest = line
        for match in _CODE_SPAN.finditer(line):
            content = match.group(2)
            lead = len(content) - len(content.lstrip())
            code.append(Ref(content.strip(), base + match.start(2) + lead, "code"))
            rest = _blank(rest, match.start(), match.end())
        for match in _URL.finditer(rest):
            text = _trim_url(match.group(0))
            urls.append(Ref(text, base + match.start(), "url"))
            rest = _blank(rest, match.start(), match.start() + len(text))
        for match in _LINK.finditer(rest):
            target = match.group("target")
            if target.strip():
                links.append(Ref(target, base + match.start("target"), "link"))
            rest = _blank(rest, match.start(), match.end())
        prose.append(Ref(rest, base, "prose"))
    return Scan(tuple(code), tuple(links), tuple(urls), tuple(prose))


def _trim_url(text: str) -> str:
    """Drop sentence punctuation after a URL; keep a ')' only when the URL opened one."""
    while text:
        unbalanced = text[-1] == ")" and text.count("(") < text.count(")")
        if text[-1] in _URL_TRAIL or unbalanced:
            text = text[:-1]
        else:
            break
    return text


def tokens(ref: Ref) -> list[Ref]:
    """The whitespace-separated words of a reference, each with its own offset."""
    return [Ref(m.group(0), ref.start + m.start(), ref.kind) for m in re.finditer(r"\S+", ref.text)]
