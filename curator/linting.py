"""The lint pipeline as a library call: paths → stores → rules → diagnostics.

`curator lint`, the session-start hook and the rule self-tests all come through here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from curator import discovery
from curator.config import Config
from curator.engine import Context, run_checks
from curator.errors import UserError
from curator.models import Diagnostic, Rule
from curator.store import INDEX_NAME, read_store


@dataclass(frozen=True)
class Target:
    """One store to lint; `only` limits reporting to the files that were named."""

    store: Path
    only: frozenset[Path] | None = None


@dataclass
class LintResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # printed once on stderr
    stores: list[Path] = field(default_factory=list)
    memories: int = 0
    # What the LLM rules asked, summed over stores (empty when none ran), and the
    # questions that got no usable answer: for the scan's watermark and events.
    llm: dict[str, int] = field(default_factory=dict)
    llm_failures: list[Any] = field(default_factory=list)


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


def repo_root_for(store: Path, config: Config, override: Path | None, cwd: Path) -> Path | None:
    """The repository whose files a store's memories talk about.

    `--repo-root` or config `repo_root` first; then the repository that holds the store;
    then the current project's repository when the store is that project's store.
    """
    explicit = override or config.path("repo_root")
    if explicit is not None:
        return explicit.resolve()
    holder = discovery.repo_root(store)
    if holder is not None:
        return holder
    here = discovery.repo_root(cwd.resolve())
    if here is not None and store.parent.name.startswith(discovery.project_slug(here)[:200]):
        return here
    return None


def lint(
    targets: list[Target],
    rules: list[Rule],
    selected: list[Rule],
    config: Config,
    today: date,
    repo_root: Path | None = None,
    cwd: Path | None = None,
) -> LintResult:
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
        result.diagnostics.extend(run_checks(ctx, selected, rules, only))
        result.notes.extend(n for n in ctx.notes if n not in result.notes)
        asker = ctx.shared.get("llm.asker")
        if asker is not None:
            for key, value in asker.stats.summary().items():
                result.llm[key] = result.llm.get(key, 0) + value
            result.llm_failures.extend(asker.stats.failures)
        result.stores.append(store.root)
        result.memories += len(store.memories)
    return result
