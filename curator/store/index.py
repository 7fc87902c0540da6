"""Parse MEMORY.md leniently: every markdown link or wikilink on any line is an entry.

Real indexes drift from `- [Title](file.md) — hook`: headings, numbered lists, tables,
prose links, `#anchors`, URLs. Code spans are blanked first so `[x](y)` in backticks is
not a link; columns are kept.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from curator.models import IndexEntry

# Character classes exclude their own opening delimiter, so a hostile line such as
# "[a](" * 200_000 is scanned in linear time, not quadratic.
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1)[^\n]){1,2000}?\1")
_LINK = re.compile(
    r"(?<!!)\[(?P<title>[^\[\]\n]*)\]\(\s*(?P<target><[^<>\n]*>|[^()\[\]\s]*)"
    r"(?:\s+\"[^\"\n]*\")?\s*\)"
)
_WIKILINK = re.compile(
    r"\[\[(?P<target>[^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|(?P<title>[^\[\]\n]*))?\]\]"
)
MAX_LINE = 20_000  # past Claude Code's 25,000-character budget nothing is loaded anyway
_SCHEME = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)")


def _blank_code(line: str) -> str:
    return _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def parse_index(lines: tuple[str, ...], first_line: int = 1) -> tuple[IndexEntry, ...]:
    """Every link and wikilink in `lines` (numbered from `first_line`), outside code."""
    entries: list[IndexEntry] = []
    in_fence = False
    for number, raw in enumerate(lines, start=first_line):
        if raw.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence or "[" not in raw:
            continue
        line = _blank_code(raw[:MAX_LINE])
        for match in _LINK.finditer(line):
            target = match.group("target").strip("<>").strip()
            entry = _entry(number, match, match.group("title"), target)
            if entry is not None:
                entries.append(entry)
        for match in _WIKILINK.finditer(line):
            target = match.group("target").strip()
            if not target.lower().endswith(".md"):
                target += ".md"
            title = match.group("title") or target
            entries.append(_entry(number, match, title, target, wikilink=True))  # type: ignore[arg-type]
    return tuple(entries)


def _entry(
    number: int, match: re.Match[str], title: str, target: str, wikilink: bool = False
) -> IndexEntry | None:
    is_url = bool(_SCHEME.match(target))
    if not is_url:
        target = unquote(target.split("#", 1)[0].split("?", 1)[0])
        if not target:
            return None  # a same-page anchor
    return IndexEntry(
        line=number,
        column=match.start() + 1,
        end_column=match.end() + 1,
        title=title.strip(),
        target=target,
        is_url=is_url,
        wikilink=wikilink,
    )
