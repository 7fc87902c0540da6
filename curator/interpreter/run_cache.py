"""Caches for the session-start path: a store's last results, per rule and per memory.

Session starts mostly see an unchanged store. A run's results are reused when nothing
they depend on changed: every memory's content hash and mtime (the write date falls back
to it), the index, the rule set (rule files and configuration), the selected rules, the
day (time rules), and the repository's HEAD and dirty state (reference rules). Only a
run in which every selected rule ran in full is stored. The cache lives in the project's
state folder and is only ever a shortcut: a missing or unreadable entry means a full run.
Its files are JSON (`cache_format`), which reading cannot execute, and never hold a
secret: a file named with one, or a frontmatter block holding one, is not cached. The compiled rules
have their own cache (`rulebook_cache`), whose key this one includes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.hashing import sha256_text
from curator.interpreter import cache_format
from curator.interpreter.checks import MEMORY_SCOPED
from curator.models import Diagnostic, Memory, Rule, Store
from curator.store.frontmatter import ParseMemo
from curator.store.masking import holds_secret

if TYPE_CHECKING:
    from curator.interpreter.context import Context

RESULTS_FILE = "results.json"
MEMO_FILE = "memo.json"
FRONTMATTER_FILE = "frontmatter.json"
# A cached diagnostic costs about as much to read back as a cheap rule takes to make it
# (a 30,000-line index of broken links: decoding its results took longer than linting).
# A rule with more results than this runs afresh instead, and a results file larger than
# the bound (another version's) is not read.
MAX_CACHED_PER_RULE = 1_000
MAX_RESULTS_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class ResultCache:
    """Per-rule results of the last runs over one store, keyed by everything they depend on.

    Rules that ran in full are stored one by one, so a run cut short by the budget still
    makes progress: the next session start reuses those and runs the rest.
    """

    folder: Path
    ruleset: str
    state: str  # `repo_state(repo)` of the run, computed once by the caller
    # Codes of rules whose results are never reused: they depend on more than the key
    # says, or say more than their diagnostics (notes, held-back references). `curator
    # lint` names them; the hook reuses everything it can.
    volatile: frozenset[str] = frozenset()

    def key(self, store: Store, today: date, repo: Path | None) -> str:
        memories = [(m.rel, m.sha256, m.mtime) for m in store.memories]
        # What was read, not only the files' own stat: a relinked symlink changes the
        # problem's message (leads nowhere, a loop, out of the store) and nothing else.
        problems = [(p.rel, p.reason, p.message) for p in store.problems]
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
        path = self.folder / RESULTS_FILE
        try:
            if path.stat().st_size > MAX_RESULTS_BYTES:
                return {}  # dearer to read than to redo
        except OSError:
            return {}
        cached = cache_format.read(path)
        if isinstance(cached, dict) and cached.get("key") == key:
            by_code = cached.get("by_code")
            if isinstance(by_code, dict):
                return by_code
        return {}

    def frontmatter_memo(self) -> ParseMemo:
        """The YAML frontmatter the last run over this store parsed (`store.frontmatter`)."""
        known = cache_format.read(self.folder / FRONTMATTER_FILE)
        if not isinstance(known, dict):
            return ParseMemo({})
        valid = {
            text: parsed
            for text, parsed in known.items()
            if isinstance(parsed, tuple) and len(parsed) == 2 and isinstance(parsed[0], dict)
        }
        return ParseMemo(valid)

    def keep_frontmatter(self, memo: ParseMemo) -> None:
        """Keep what this run parsed for the next; blocks no memory has any more fall away,
        and a block that holds a secret is never kept (curator keeps no copy of one)."""
        if memo.used != memo.known:
            kept = {text: parsed for text, parsed in memo.used.items() if not holds_secret(text)}
            cache_format.write(self.folder / FRONTMATTER_FILE, kept)

    def put(self, key: str, by_code: dict[str, tuple[Diagnostic, ...]]) -> None:
        cache_format.write(self.folder / RESULTS_FILE, {"key": key, "by_code": by_code})

    def run(
        self, ctx: Context, selected: list[Rule], rules: list[Rule], deadline: float | None
    ) -> list[Diagnostic]:
        """`run_checks` over the store, reusing each rule's stored result when it is valid."""
        from curator.interpreter.engine import UNUSED_SUPPRESSION, run_checks

        key = self.key(ctx.store, ctx.today, ctx.repo_root)
        stored = self.get(key)
        reused = [
            r
            for r in selected
            if r.check != "engine" and r.code not in self.volatile and r.code in stored
        ]
        fresh = [r for r in selected if r not in reused]
        if reused and any(r.code == UNUSED_SUPPRESSION for r in fresh):
            # Which suppressions went unused is only known when every rule ran together.
            fresh = [r for r in fresh if r.code != UNUSED_SUPPRESSION]
            if UNUSED_SUPPRESSION in stored:
                reused.append(next(r for r in selected if r.code == UNUSED_SUPPRESSION))
            else:
                ctx.skipped.add(UNUSED_SUPPRESSION)
        found: list[Diagnostic] = []
        if any(r.check in MEMORY_SCOPED for r in fresh):
            memo = MemoryMemo(self.folder, self.memo_key(ctx.today, ctx.repo_root))
            found = run_checks(ctx, fresh, rules, None, deadline, memo)
            memo.save()
        elif fresh:  # no per-memory results to look up: the memo file is not read
            found = run_checks(ctx, fresh, rules, None, deadline)
        for rule in reused:
            found.extend(stored[rule.code])
        updated = dict(stored)
        for rule in fresh:
            cacheable = rule.check != "engine" or (rule.code == UNUSED_SUPPRESSION and not reused)
            if cacheable and rule.code not in self.volatile and rule.code not in ctx.skipped:
                hits = tuple(d for d in found if d.code == rule.code)
                if len(hits) <= MAX_CACHED_PER_RULE:
                    updated[rule.code] = hits
                else:
                    updated.pop(rule.code, None)
        if updated != stored and not secret_names(ctx.store):
            self.put(key, updated)  # diagnostics name their files: none named with a secret
        return sorted(found, key=Diagnostic.sort_key)


def secret_names(store: Store) -> bool:
    """A file of the store is named with a secret (`reference_ghp_….md`): its results are
    not cached, since every diagnostic about it names it."""
    return any(holds_secret(m.rel) for m in store.memories) or any(
        holds_secret(p.rel) for p in store.problems
    )


class MemoryMemo:
    """Hits of memory-scoped rules per (rule, memory file), valid while the file's hash and
    mtime, the check's basis for it (`memo_basis`), the rule set, the day and the
    repository state are the same."""

    def __init__(self, folder: Path, key: str) -> None:
        self.path = folder / MEMO_FILE
        self.key = key
        cached = cache_format.read(self.path)
        valid = isinstance(cached, dict) and cached.get("key") == key
        self.entries: dict[tuple[str, str], Any] = cached["entries"] if valid else {}
        self.kept: dict[tuple[str, str], Any] = {}
        self.consulted: set[str] = set()  # codes this run looked up
        self.changed = not valid

    def get(self, code: str, memory: Memory, basis: str = "") -> list[Diagnostic] | None:
        self.consulted.add(code)
        entry = self.entries.get((code, memory.rel))
        if entry is None or entry[:3] != (memory.sha256, memory.mtime, basis):
            return None
        self.kept[(code, memory.rel)] = entry
        return list(entry[3])

    def put(
        self, code: str, memory: Memory, diagnostics: list[Diagnostic], basis: str = ""
    ) -> None:
        if holds_secret(memory.rel):
            return  # the entry's key and its diagnostics name the file
        self.kept[(code, memory.rel)] = (memory.sha256, memory.mtime, basis, tuple(diagnostics))
        self.changed = True

    def save(self) -> None:
        """Keep what this run used or made, and the entries of rules it did not run;
        entries of deleted memories fall away when their rule next runs."""
        kept = {k: v for k, v in self.entries.items() if k[0] not in self.consulted}
        kept.update(self.kept)
        if self.changed or len(kept) != len(self.entries):
            cache_format.write(self.path, {"key": self.key, "entries": kept})
