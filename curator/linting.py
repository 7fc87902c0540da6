"""The lint pipeline as a library call: paths → stores → rules → diagnostics.

`curator lint`, the session-start hook and the rule self-tests all come through here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from curator import discovery
from curator.config import Config
from curator.discovery import repo_root_for
from curator.engine import Context, run_checks
from curator.errors import UserError
from curator.models import Diagnostic, Rule
from curator.run_cache import ResultCache
from curator.store import INDEX_NAME, read_store


@dataclass(frozen=True)
class Target:
    """One store to lint; `only` limits reporting to the files that were named."""

    store: Path
    only: frozenset[Path] | None = None


@dataclass(frozen=True)
class StoreRun:
    """What one store's run needs for persisting: which rules ran in full, on what."""

    store: Path
    repo_root: Path | None
    diagnostics: tuple[Diagnostic, ...]
    ran: frozenset[str]  # codes of rules that ran in full on this store
    only: frozenset[str] | None  # store-relative files the run was limited to


@dataclass
class LintResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # printed once on stderr
    stores: list[Path] = field(default_factory=list)
    memories: int = 0
    runs: list[StoreRun] = field(default_factory=list)


def resolve_targets(
    paths: list[Path], config: Config, cwd: Path, all_stores: bool = False
) -> list[Target]:
    """Turn command-line paths into stores. No paths: the current project's store."""
    if all_stores:
        base = paths[0] if paths else None
        stores = discovery.all_stores(base)
        if not stores:
            where = base or discovery.claude_config_dir() / "projects"
            raise UserError(f"no memory stores under {where}")
        return [Target(s.resolve()) for s in stores]
    if not paths:
        store = discovery.project_store(cwd, config.path("memory_store"))
        if store is None:
            root = discovery.repo_root(cwd.resolve()) or cwd.resolve()
            expected = discovery.claude_config_dir() / "projects" / discovery.project_slug(root)
            raise UserError(
                f"no memory store for this project (looked for {expected}/memory); "
                "pass a store folder or set memory_store in .curator.yaml"
            )
        return [Target(store.resolve())]
    stores: dict[Path, set[Path] | None] = {}
    for path in paths:
        if not path.exists():
            raise UserError("no such file or folder", path)
        resolved = path.resolve()
        if path.is_dir():
            stores[resolved] = None
            continue
        store = discovery.store_of(resolved).resolve()
        if store in stores and stores[store] is None:
            continue  # the whole store is already being linted
        stores.setdefault(store, set()).add(resolved)  # type: ignore[union-attr]
    return [Target(s, frozenset(only) if only is not None else None) for s, only in stores.items()]


def lint(
    targets: list[Target],
    rules: list[Rule],
    selected: list[Rule],
    config: Config,
    today: date,
    repo_root: Path | None = None,
    cwd: Path | None = None,
    deadline: float | None = None,
    cache: ResultCache | None = None,
) -> LintResult:
    """Lint each target. `deadline` (monotonic seconds) skips rules not started by then;
    `cache` reuses a store's last full results when nothing they depend on changed."""
    cwd = cwd or Path.cwd()
    result = LintResult()
    for target in targets:
        store = read_store(target.store)
        root = repo_root_for(store.root, config, repo_root, cwd)
        ctx = Context(store=store, config=config, today=today, repo_root=root)
        only = None
        if target.only is not None:
            only = set(target.only)
            if any(p.name == INDEX_NAME for p in only):
                only.add(store.root / INDEX_NAME)
        if cache is not None and only is None:
            found = cache.run(ctx, selected, rules, deadline)
        else:
            found = run_checks(ctx, selected, rules, only, deadline)
        ran = frozenset(r.code for r in selected) - ctx.skipped
        result.diagnostics.extend(found)
        rels = None
        if only is not None:
            rels = frozenset(
                p.relative_to(store.root).as_posix() for p in only if p.is_relative_to(store.root)
            )
        result.runs.append(StoreRun(store.root, root, tuple(found), ran, rels))
        result.notes.extend(n for n in ctx.notes if n not in result.notes)
        result.stores.append(store.root)
        result.memories += len(store.memories)
    return result
