"""Apply rules to a store: run each rule's check, render messages, honour suppressions."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from curator import templates
from curator.interpreter.checks import MEMORY_SCOPED, get_check
from curator.interpreter.context import Context
from curator.interpreter.patterns import PatternTimeout
from curator.models import Diagnostic, Fix, Hit, Memory, Rule, Store
from curator.store.masking import mask, mask_value
from curator.store.suppressions import Suppression, apply_suppressions, parse_suppressions

RULE_FAILED = "CUR900"
UNUSED_SUPPRESSION = "CUR901"


def run_checks(
    ctx: Context,
    rules: list[Rule],
    all_rules: list[Rule] | None = None,
    only: set[Path] | None = None,
    deadline: float | None = None,
    memo: MemoryMemo | None = None,
) -> list[Diagnostic]:
    """Run the selected `rules` on the context's store.

    `all_rules` lets engine-level diagnostics (CUR900, CUR901) find their rule even when
    only a subset runs. `only`, when given, keeps diagnostics about those files alone
    (pre-commit passes single files; they are still checked in their store's context).
    """
    by_code = {r.code: r for r in (all_rules or rules)}
    selected = {r.code for r in rules}
    diagnostics: list[Diagnostic] = []
    for rule in rules:
        if rule.check == "engine" or not rule.applies_to_layout(ctx.store.layout):
            continue  # a rule about frontmatter says nothing of an OpenClaw daily note
        if deadline is not None and time.monotonic() >= deadline:
            ctx.skipped.add(rule.code)
            continue
        failed_rule = by_code if RULE_FAILED in selected else {}
        if memo is not None and rule.check in MEMORY_SCOPED:
            diagnostics.extend(_run_memoized(ctx, rule, failed_rule, memo))
        else:
            diagnostics.extend(_run_rule(ctx, rule, failed_rule))

    suppressions = _suppressions(ctx.store)
    diagnostics = apply_suppressions(diagnostics, suppressions)
    unused = by_code.get(UNUSED_SUPPRESSION)
    if unused is not None and UNUSED_SUPPRESSION in selected:
        ran = selected - ctx.skipped  # a skipped rule cannot prove a suppression unused
        if ctx.skipped:
            ctx.skipped.add(UNUSED_SUPPRESSION)  # so it did not run in full either
        diagnostics.extend(_unused(unused, suppressions, ran, ctx.store.root))
    if only is not None:
        diagnostics = [d for d in diagnostics if d.path in only]
    return sorted(diagnostics, key=Diagnostic.sort_key)


class MemoryMemo(Protocol):
    """Per-memory results of memory-scoped rules (see `run_cache.MemoryMemo`)."""

    def get(self, code: str, memory: Memory, basis: str = "") -> list[Diagnostic] | None: ...

    def put(
        self, code: str, memory: Memory, diagnostics: list[Diagnostic], basis: str = ""
    ) -> None: ...


ALL_MEMORIES = "store.all_memories"  # `shared` key: every memory, while a part is re-run


def _run_memoized(
    ctx: Context, rule: Rule, by_code: dict[str, Rule], memo: MemoryMemo
) -> list[Diagnostic]:
    """Run a memory-scoped rule on the memories the memo does not know, reuse the rest.

    A check may name what else a memory's hits depend on (`memo_basis(rule, ctx, memory)`:
    the dates check's write date from git, the store's day/month order); an entry made on
    another basis is stale.
    """
    reused: list[Diagnostic] = []
    stale: list[Memory] = []
    ctx.shared[ALL_MEMORIES] = ctx.store.memories  # for a check that looks past its part
    basis_of = getattr(get_check(rule.check), "memo_basis", None)
    bases: dict[Path, str] = {}
    for memory in ctx.store.memories:
        basis = bases[memory.path] = basis_of(rule, ctx, memory) if basis_of else ""
        known = memo.get(rule.code, memory, basis)
        if known is None:
            stale.append(memory)
        else:
            reused.extend(known)
    # A check that also reads MEMORY.md (`READS_INDEX`) reads it on every run: the index
    # is not a memory the memo keeps.
    index = ctx.store.index
    reads_index = index is not None and getattr(get_check(rule.check), "READS_INDEX", False)
    if not stale and not reads_index:
        return reused
    sub = replace(ctx, store=replace(ctx.store, memories=tuple(stale)))
    fresh = _run_rule(sub, rule, by_code)
    by_path: dict[Path, list[Diagnostic]] = {m.path: [] for m in stale}
    for diagnostic in fresh:
        if not (reads_index and index is not None and diagnostic.path == index.path):
            by_path.setdefault(diagnostic.path, []).append(diagnostic)
    # Remember only a complete run whose every hit sits in the memory it is about.
    if rule.code not in ctx.skipped and len(by_path) == len(stale):
        for memory in stale:
            memo.put(rule.code, memory, by_path[memory.path], bases[memory.path])
    return reused + fresh


def _run_rule(ctx: Context, rule: Rule, by_code: dict[str, Rule]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    try:
        for hit in get_check(rule.check).check(rule, ctx):
            diagnostic = to_diagnostic(rule, hit, ctx.store.root)
            (ctx.held_back if "held_back" in hit.detail else out).append(diagnostic)
    except PatternTimeout as exc:
        ctx.skipped.add(rule.code)
        failed = by_code.get(RULE_FAILED)
        if failed is not None:
            detail = {"rule": rule.code, "reason": f"pattern timed out: {exc}"}
            out.append(to_diagnostic(failed, Hit(rule.source, 1, detail=detail), ctx.store.root))
    except templates.TemplateError as exc:
        ctx.skipped.add(rule.code)
        failed = by_code.get(RULE_FAILED)
        if failed is not None:
            detail = {"rule": rule.code, "reason": f"message template failed: {exc}"}
            out.append(to_diagnostic(failed, Hit(rule.source, 1, detail=detail), ctx.store.root))
    return out


def to_diagnostic(rule: Rule, hit: Hit, store_root: Path | None) -> Diagnostic:
    """The diagnostic for a hit. Every text in it is masked (`store.masking`): whatever a
    rule quotes from a memory, no output, finding or event repeats a secret."""
    detail = mask_value(hit.detail) if hit.detail else {}
    values: dict[str, Any] = {"code": rule.code, "name": rule.name, **detail}
    memory_files = hit.memory_files
    if not memory_files and store_root is not None:
        rel = store_relative(hit.path, store_root)
        memory_files = (rel,) if rel is not None else ()
    values.setdefault("file", memory_files[0] if memory_files else hit.path.name)
    return Diagnostic(
        code=rule.code,
        name=rule.name,
        severity=hit.severity or rule.severity,
        path=hit.path,
        line=hit.line,
        column=hit.column,
        end_line=hit.end_line or hit.line,
        end_column=hit.end_column or hit.column,
        # Rendered from the masked detail: the template has nothing else of the memory's.
        message=templates.render(rule.message, values),
        store=store_root,
        memory_files=memory_files,
        detail=detail,
        fix=_masked_fix(hit.fix),
    )


def _masked_fix(fix: Fix | None) -> Fix | None:
    """A fix never writes a secret into another place (an index line made from a
    description) nor describes one."""
    if fix is None:
        return None
    edits = tuple(replace(e, content=mask(e.content)) for e in fix.edits)
    return replace(fix, edits=edits, description=mask(fix.description))


def store_relative(path: Path, root: Path) -> str | None:
    """`path` relative to the store as posix text, or None outside it (string work: hot)."""
    prefix = os.path.join(str(root), "")
    text = str(path)
    return text[len(prefix) :].replace(os.sep, "/") if text.startswith(prefix) else None


def _suppressions(store: Store) -> list[Suppression]:
    found: list[Suppression] = []
    sources = [(m.path, m.text, m.lines) for m in store.memories]
    if store.index is not None:
        sources.append((store.index.path, store.index.text, store.index.lines))
    for path, text, lines in sources:
        if "curator-" in text:
            found.extend(parse_suppressions(path, lines))
    return found


def _unused(
    rule: Rule, suppressions: list[Suppression], selected: set[str], root: Path
) -> Iterable[Diagnostic]:
    for s in suppressions:
        if s.used:
            continue
        # Only codes whose rules ran can be called unused.
        codes = [c for c in s.codes if any(code.startswith(c) for code in selected)]
        if s.codes and not codes:
            continue
        detail = {"codes": ", ".join(s.codes) or "all codes", "line": s.line}
        hit = Hit(s.path, s.line, s.column, detail=detail, severity=None)
        yield to_diagnostic(rule, hit, root)
