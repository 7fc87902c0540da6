"""Caches for the session-start path: compiled rules, and a store's last results.

Session starts mostly see an unchanged store. A run's results are reused when nothing
they depend on changed: every memory's content hash and mtime (the write date falls back
to it), the index, the rule set (rule files and configuration), the selected rules, the
day (time rules), and the repository's HEAD and dirty state (reference rules). Only a
run in which every selected rule ran in full is stored. The cache lives in the project's
state folder and is only ever a shortcut: a missing or unreadable entry means a full run.
"""

from __future__ import annotations

import json
import os
import pickle
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator import __version__
from curator.config import Config
from curator.hashing import sha256_text
from curator.interpreter.rule_files import builtin_rules_dir, rule_files
from curator.models import Diagnostic, Memory, Rule, Store

if TYPE_CHECKING:
    from curator.interpreter.context import Context

RULES_FILE = "rules.pickle"
RESULTS_FILE = "results.pickle"
MEMO_FILE = "memo.pickle"


def ruleset_key(config: Config) -> str:
    """Changes when a rule file, the configuration or curator itself changes."""
    stamps = []
    for path in rule_files([builtin_rules_dir(), *config.rule_paths()]):
        stat = path.stat()
        stamps.append((str(path), stat.st_mtime_ns, stat.st_size))
    blob = json.dumps([__version__, config.data, str(config.source), stamps], default=str)
    return sha256_text(blob)


def _read_pickle(path: Path) -> Any:
    try:
        with path.open("rb") as handle:
            return pickle.load(handle)
    except Exception:  # a stale, torn or foreign cache is a miss, never an error
        return None


def _write_pickle(path: Path, value: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache only costs speed


def load_rules_cached(config: Config, folder: Path, key: str) -> list[Rule]:
    """`load_rules(config)`, from the cache when the rule set has not changed."""
    from curator.interpreter.rulebook import install_masking, load_rules

    cached = _read_pickle(folder / RULES_FILE)
    if isinstance(cached, dict) and cached.get("key") == key:
        rules = list(cached["rules"])
        install_masking(rules)
        return rules
    rules = load_rules(config)
    _write_pickle(folder / RULES_FILE, {"key": key, "rules": rules})
    return rules


def repo_state(repo: Path | None) -> str:
    """HEAD and the working tree's changes, as one key ('' outside a repository).

    `tree.state_key`: changed tracked files count by content, so editing a file
    that was already modified still invalidates reference results.
    """
    if repo is None:
        return ""
    from curator.repo.tree import state_key

    return state_key(repo) or "unknown"


@dataclass(frozen=True)
class ResultCache:
    """Per-rule results of the last runs over one store, keyed by everything they depend on.

    Rules that ran in full are stored one by one, so a run cut short by the budget still
    makes progress: the next session start reuses those and runs the rest.
    """

    folder: Path
    ruleset: str
    state: str  # `repo_state(repo)` of the run, computed once by the caller

    def key(self, store: Store, today: date, repo: Path | None) -> str:
        memories = [(m.rel, m.sha256, m.mtime) for m in store.memories]
        problems = [(p.rel, p.reason) for p in store.problems]
        index = store.index.sha256 if store.index is not None else None
        blob = json.dumps(
            [
                self.ruleset,
                today.isoformat(),
                str(store.root),
                str(repo),
                self.state,
                index,
                memories,
                problems,
            ]
        )
        return sha256_text(blob)

    def memo_key(self, today: date, repo: Path | None) -> str:
        """What per-memory results depend on besides the memory itself."""
        return sha256_text(json.dumps([self.ruleset, today.isoformat(), str(repo), self.state]))

    def get(self, key: str) -> dict[str, tuple[Diagnostic, ...]]:
        cached = _read_pickle(self.folder / RESULTS_FILE)
        if isinstance(cached, dict) and cached.get("key") == key:
            by_code = cached.get("by_code")
            if isinstance(by_code, dict):
                return by_code
        return {}

    def put(self, key: str, by_code: dict[str, tuple[Diagnostic, ...]]) -> None:
        _write_pickle(self.folder / RESULTS_FILE, {"key": key, "by_code": by_code})

    def run(
        self, ctx: Context, selected: list[Rule], rules: list[Rule], deadline: float | None
    ) -> list[Diagnostic]:
        """`run_checks` over the store, reusing each rule's stored result when it is valid."""
        from curator.interpreter.engine import UNUSED_SUPPRESSION, run_checks

        key = self.key(ctx.store, ctx.today, ctx.repo_root)
        stored = self.get(key)
        reused = [r for r in selected if r.check != "engine" and r.code in stored]
        fresh = [r for r in selected if r not in reused]
        if reused and any(r.code == UNUSED_SUPPRESSION for r in fresh):
            # Which suppressions went unused is only known when every rule ran together.
            fresh = [r for r in fresh if r.code != UNUSED_SUPPRESSION]
            if UNUSED_SUPPRESSION in stored:
                reused.append(next(r for r in selected if r.code == UNUSED_SUPPRESSION))
            else:
                ctx.skipped.add(UNUSED_SUPPRESSION)
        memo = MemoryMemo(self.folder, self.memo_key(ctx.today, ctx.repo_root))
        found = run_checks(ctx, fresh, rules, None, deadline, memo) if fresh else []
        memo.save()
        for rule in reused:
            found.extend(stored[rule.code])
        updated = dict(stored)
        for rule in fresh:
            cacheable = rule.check != "engine" or (rule.code == UNUSED_SUPPRESSION and not reused)
            if cacheable and rule.code not in ctx.skipped:
                updated[rule.code] = tuple(d for d in found if d.code == rule.code)
        if updated != stored:
            self.put(key, updated)
        return sorted(found, key=Diagnostic.sort_key)


class MemoryMemo:
    """Hits of memory-scoped rules per (rule, memory file), valid while the file's hash and
    mtime, the check's basis for it (`memo_basis`), the rule set, the day and the
    repository state are the same."""

    def __init__(self, folder: Path, key: str) -> None:
        self.path = folder / MEMO_FILE
        self.key = key
        cached = _read_pickle(self.path)
        valid = isinstance(cached, dict) and cached.get("key") == key
        self.entries: dict[tuple[str, str], Any] = cached["entries"] if valid else {}
        self.kept: dict[tuple[str, str], Any] = {}
        self.changed = not valid

    def get(self, code: str, memory: Memory, basis: str = "") -> list[Diagnostic] | None:
        entry = self.entries.get((code, memory.rel))
        if entry is None or entry[:3] != (memory.sha256, memory.mtime, basis):
            return None
        self.kept[(code, memory.rel)] = entry
        return list(entry[3])

    def put(
        self, code: str, memory: Memory, diagnostics: list[Diagnostic], basis: str = ""
    ) -> None:
        self.kept[(code, memory.rel)] = (memory.sha256, memory.mtime, basis, tuple(diagnostics))
        self.changed = True

    def save(self) -> None:
        """Keep what this run used or made; entries of deleted memories fall away."""
        if self.changed or len(self.kept) != len(self.entries):
            _write_pickle(self.path, {"key": self.key, "entries": self.kept})


def cache_folder(project_root: Path) -> Path:
    return project_root / "cache"


def store_signature(
    ruleset: str, today: date, store: Path, repo: Path | None, state: str, manifest: Path
) -> str:
    """Everything a session-start result depends on, from stat calls alone.

    Equal signatures mean the last full run's findings still stand: same files (name,
    size, mtime, ctime), same rules and config, same day, same repository state, and no
    finding changed by hand since (the manifest's stat). ctime because tools that keep
    mtimes (cp -p, rsync -t, tar) can change a file's content under the same size and
    mtime; any write moves ctime, and nothing can set it back.
    """
    files = []
    for folder, dirs, names in os.walk(store):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(folder, name)
            try:
                stat = os.stat(path)
            except OSError:
                continue
            files.append(
                (os.path.relpath(path, store), stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size)
            )
    try:
        manifest_stat = os.stat(manifest)
        stamp: list[int] | None = [manifest_stat.st_mtime_ns, manifest_stat.st_size]
    except OSError:
        stamp = None
    blob = json.dumps([ruleset, today.isoformat(), str(store), str(repo), state, files, stamp])
    return sha256_text(blob)
