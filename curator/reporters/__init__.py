"""Output formats: small classes over the same diagnostics, chosen by name.

Each module exposes `render(diagnostics, ctx) -> str`. Imports are lazy so a run pays
only for the format it prints. Reporters only read diagnostics; they never write a file.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Protocol, cast

from curator.models import Diagnostic, Rule
from curator.reporters.printable import visible

FORMATS: dict[str, str] = {
    "full": "curator.reporters.text",
    "concise": "curator.reporters.text",
    "json": "curator.reporters.json_format",
    "json-lines": "curator.reporters.json_format",
    "github": "curator.reporters.github",
    "sarif": "curator.reporters.sarif",
    "junit": "curator.reporters.junit",
}


@dataclass(frozen=True)
class ReportContext:
    format: str
    cwd: Path
    color: bool = False
    rules: dict[str, Rule] = field(default_factory=dict)
    memories: int = 0
    stores: tuple[Path, ...] = ()  # every store linted, clean ones included
    not_run: tuple[str, ...] = ()  # selected rules that did not run in full (sorted codes)


class Reporter(Protocol):
    def render(self, diagnostics: list[Diagnostic], ctx: ReportContext) -> str: ...


def get_reporter(name: str) -> Reporter:
    return cast(Reporter, importlib.import_module(FORMATS[name]))


@lru_cache(maxsize=4096)  # a 30,000-line index gives 60,000 diagnostics on one file
def display_path(path: Path, cwd: Path) -> str:
    """Relative to the working directory when below it, as ruff prints; else absolute.
    A file name is text like any other: masked (`reference_ghp_….md`), and its control
    characters escaped, a line break included, so it prints on its own line only."""
    from curator.store.masking import mask

    return visible(mask(_relative(path, cwd)))


def _relative(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        try:
            rel = os.path.relpath(path, cwd)
        except ValueError:
            return str(path)
        return rel if not rel.startswith("../../..") else str(path)


def by_store(
    diagnostics: list[Diagnostic], stores: tuple[Path, ...]
) -> list[tuple[Path | None, list[Diagnostic]]]:
    """Diagnostics grouped per linted store, in the order the stores were linted."""
    groups: dict[Path | None, list[Diagnostic]] = {s: [] for s in stores}
    for d in diagnostics:
        groups.setdefault(d.store if d.store in groups else None, []).append(d)
    return list(groups.items())
