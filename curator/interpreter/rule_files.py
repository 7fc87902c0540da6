"""Where rule files are: the built-in pack and the folders config `rule_paths` names.

Kept apart from `rulebook` so the session-start fast path can stamp the rule set
without importing the rule compiler (and `regex`).
"""

from __future__ import annotations

from pathlib import Path

from curator.errors import UserError


def builtin_rules_dir() -> Path:
    """`curator/_rules` in an installed wheel; `rules/` beside the package in a checkout."""
    package = Path(__file__).resolve().parents[1]
    shipped = package / "_rules"
    return shipped if shipped.is_dir() else package.parent / "rules"


def rule_files(folders: list[Path]) -> list[Path]:
    files: list[Path] = []
    for folder in folders:
        if not folder.is_dir():
            raise UserError("rule folder not found", folder)
        files.extend(sorted(folder.rglob("*.yaml")))
    return files
