"""Inline suppression comments in memory files (HTML comments, invisible when rendered).

    <!-- curator-disable-next-line CUR201 -->
    <!-- curator-disable CUR101 --> ... <!-- curator-enable CUR101 -->
    <!-- curator-disable-file CUR202 -->

Codes are separated by spaces or commas and may be prefixes; none means every code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from curator.models import Diagnostic

_COMMENT = re.compile(
    r"<!--\s*curator-(disable-next-line|disable-file|disable|enable)\b([^>\n]{0,200}?)\s*-->"
)
_MAX_LINE = 1 << 30


@dataclass
class Suppression:
    path: Path
    line: int
    column: int
    codes: tuple[str, ...]  # empty: every code
    start: int
    end: int  # inclusive
    used: bool = field(default=False)

    def covers(self, diagnostic: Diagnostic) -> bool:
        return (
            diagnostic.path == self.path
            and self.start <= diagnostic.line <= self.end
            and (not self.codes or diagnostic.code.startswith(self.codes))
        )


def parse_suppressions(path: Path, lines: tuple[str, ...]) -> list[Suppression]:
    found: list[Suppression] = []
    open_blocks: list[Suppression] = []
    for number, line in enumerate(lines, start=1):
        if "curator-" not in line:
            continue
        for match in _COMMENT.finditer(line):
            kind = match.group(1)
            codes = tuple(c for c in re.split(r"[\s,]+", match.group(2).strip()) if c)
            column = match.start() + 1
            if kind == "disable-next-line":
                found.append(Suppression(path, number, column, codes, number + 1, number + 1))
            elif kind == "disable-file":
                found.append(Suppression(path, number, column, codes, 1, _MAX_LINE))
            elif kind == "disable":
                block = Suppression(path, number, column, codes, number, _MAX_LINE)
                open_blocks.append(block)
                found.append(block)
            else:
                for block in open_blocks:
                    if block.end == _MAX_LINE and (not codes or set(codes) & set(block.codes)):
                        block.end = number
                open_blocks = [b for b in open_blocks if b.end == _MAX_LINE]
    return found


def apply_suppressions(
    diagnostics: list[Diagnostic], suppressions: list[Suppression]
) -> list[Diagnostic]:
    """Drop suppressed diagnostics; mark the suppressions that did something."""
    if not suppressions:
        return diagnostics
    by_path: dict[Path, list[Suppression]] = {}
    for suppression in suppressions:
        by_path.setdefault(suppression.path, []).append(suppression)
    kept = []
    for diagnostic in diagnostics:
        matching = [s for s in by_path.get(diagnostic.path, ()) if s.covers(diagnostic)]
        for suppression in matching:
            suppression.used = True
        if not matching:
            kept.append(diagnostic)
    return kept
