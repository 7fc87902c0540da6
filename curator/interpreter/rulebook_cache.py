"""The compiled rulebook, cached: a warm run neither parses rule YAML nor validates it.

Loading the rules (parsing some thirty YAML files, importing every check to validate its
params, checking every regex and template) costs more than linting a small store. The
validated rules are kept in `<storage root>/curator/cache/rulebook/`, never beside the
rule files, keyed by everything they are made of: each rule file's path, size and
mtime, the configuration (per-rule overrides, `rule_paths`), curator's version, and the
stamps of the modules that define what a compiled rule is (a check's params and their
defaults), so an edited checkout is not served old rules. A stale, torn or foreign
file is rebuilt without a word: the cache is only ever a shortcut.

The file is JSON (`cache_format`), which reading cannot execute.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from curator import __version__
from curator.config import Config
from curator.hashing import sha256_text
from curator.interpreter import cache_format
from curator.interpreter.rule_files import builtin_rules_dir, rule_files
from curator.models import Rule

FORMAT = 1  # bump when the cached layout changes
_INTERPRETER = Path(__file__).resolve().parent
# What a compiled rule is made by besides its file: these modules' stamps join the key.
_MAKERS = ("rulebook.py", "patterns.py", "cache_format.py", "../models.py", "../config.py",
           "../store/secrets.py")  # fmt: skip


def file_stamps(paths: list[Path]) -> list[tuple[str, int, int]]:
    """(path, size, mtime in ns) of each file; a file gone since it was listed stamps -1."""
    stamps = []
    for path in paths:
        try:
            stat = os.stat(path)
        except OSError:
            stamps.append((str(path), -1, -1))
            continue
        stamps.append((str(path), stat.st_size, stat.st_mtime_ns))
    return stamps


def _maker_files() -> list[Path]:
    checks = _INTERPRETER / "checks"
    return [_INTERPRETER / name for name in _MAKERS] + sorted(checks.glob("*.py"))


def ruleset_key(config: Config) -> str:
    """Changes when a rule file, the configuration or curator itself changes."""
    files = rule_files([builtin_rules_dir(), *config.rule_paths()])
    blob = json.dumps(
        [
            FORMAT,
            __version__,
            config.data,
            str(config.source),
            file_stamps(files),
            file_stamps(_maker_files()),
        ],
        default=str,
    )
    return sha256_text(blob)


def cache_file(config: Config) -> Path:
    """One file per rule set's origin (this curator's pack, the config that adds to it),
    so projects with different configs do not evict each other's rulebook."""
    from curator.findings.onlooker import cache_dir

    origin = json.dumps([str(builtin_rules_dir()), str(config.source)])
    return cache_dir(config) / "rulebook" / f"{sha256_text(origin)[:16]}.json"


def cached_rules(config: Config, build: Callable[[], list[Rule]]) -> list[Rule]:
    """The rules `build()` makes, from the cache when their key is unchanged."""
    key = ruleset_key(config)
    path = cache_file(config)
    stored: Any = cache_format.read(path)
    if isinstance(stored, dict) and stored.get("key") == key:
        rules = stored.get("rules")
        if isinstance(rules, list) and all(isinstance(r, Rule) for r in rules):
            return rules
    rules = build()
    cache_format.write(path, {"key": key, "rules": rules})
    return rules
