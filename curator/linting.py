"""The lint pipeline as a library call: paths → stores → rules → diagnostics.

`curator lint`, the session-start hook and the rule self-tests all come through here.
A store is located once (`target_for`, `resolve_targets`): the `Target` it yields names the
store, how it was found and the repository its memories talk about, and every later
stage (lint, persisting findings, fixes, the hook) takes it as given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from curator.config import Config
from curator.errors import UserError
from curator.models import Diagnostic, Rule
from curator.repo.mapping import REPOSITORY_CHECKS, RepoChoice, locate_repository, skip_notes
from curator.store import discovery, evidence, layout

if TYPE_CHECKING:
    # Imported by `lint` when it runs: the hook's fast path locates a store with
    # `target_for` and never loads the engine.
    from curator.interpreter.run_cache import ResultCache


class Target(NamedTuple):
    """One store to lint, located once.

    `repo` is the repository its memories talk about and how it was chosen; `found` how
    the store was found (argument, file, all, memory_store, autoMemoryDirectory, project),
    and `evidence` what made a folder look like a store (`--all`); `only` limits
    reporting to the files that were named.
    """

    store: Path
    repo: RepoChoice
    only: frozenset[Path] | None = None
    found: str = "argument"
    evidence: str = ""


def target_for(
    store: Path,
    config: Config,
    cwd: Path,
    repo_root: Path | None = None,
    *,
    only: frozenset[Path] | None = None,
    found: str = "argument",
    evidence: str = "",
) -> Target:
    """The Target for a store folder: its repository is decided here and nowhere else."""
    repo = locate_repository(store, config, repo_root, cwd, found)
    return Target(store, repo, only, found, evidence)


class StoreRun(NamedTuple):
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
    # What the LLM rules asked, summed over stores (empty when none ran), and the
    # questions that got no usable answer: for the scan's watermark and events.
    llm: dict[str, int] = field(default_factory=dict)
    llm_failures: list[Any] = field(default_factory=list)
    # Diagnostics checks held back as right as written (see `--show-silenced`).
    held_back: list[Diagnostic] = field(default_factory=list)
    # Repositories whose history index a run under a deadline could not open.
    history_pending: set[Path] = field(default_factory=set)
    # Codes of selected rules that did not run in full on some store (skipped, no
    # provider, no repository, questions that got no answer): the run cannot say
    # "All checks passed!" for them.
    not_run: set[str] = field(default_factory=set)


def resolve_targets(
    paths: list[Path],
    config: Config,
    cwd: Path,
    all_stores: bool = False,
    repo_root: Path | None = None,
) -> list[Target]:
    """Turn command-line paths into stores. No paths: the current project's store.

    With `all_stores`, every store under `<config>/projects/`, or under each given folder.
    A file is linted in the context of its store, and only its diagnostics are reported;
    so is the notes folder of an OpenClaw workspace. Every command names a store this way,
    and says the same when a path is not one.
    """
    if all_stores:
        return [
            target_for(s.path, config, cwd, repo_root, found="all", evidence=s.how)
            for s in _all_stores(paths)
        ]
    if not paths:
        found = discovery.project_store(cwd, config.path("memory_store"))
        if found is None:
            raise UserError(_no_store_message(cwd))
        return [target_for(found.path.resolve(), config, cwd, repo_root, found=found.how)]
    stores: dict[Path, set[Path] | None] = {}
    for path in paths:
        if not path.exists():
            raise UserError("no such file or folder", path)
        if path.is_dir():
            folder = path.resolve()
            workspace = layout.workspace_of(folder)
            if workspace is not None:  # an OpenClaw workspace's notes: linted in it
                if stores.get(workspace, set()) is not None:
                    notes = set(folder.rglob("*.md"))
                    stores.setdefault(workspace, set()).update(notes)  # type: ignore[union-attr]
                continue
            if not evidence.is_store(folder):
                raise UserError(evidence.NOT_A_STORE, path)
            stores[folder] = None
            continue
        # Resolve the folder, not the file: a symlinked memory keeps the name the store
        # reader gives it, so its diagnostics still match.
        named = path.absolute().parent.resolve() / path.name
        store = discovery.store_of(named).resolve()
        if store in stores and stores[store] is None:
            continue  # the whole store is already being linted
        stores.setdefault(store, set()).add(named)  # type: ignore[union-attr]
    return [
        target_for(s, config, cwd, repo_root, only=frozenset(only), found="file")
        if only is not None
        else target_for(s, config, cwd, repo_root)
        for s, only in stores.items()
    ]


def _no_store_message(cwd: Path) -> str:
    """Where the store was looked for; and a setting Claude Code does not read here."""
    from curator.store.claude_settings import claude_config_dir, memory_setting

    root = discovery.repo_root(cwd.resolve()) or cwd.resolve()
    setting = memory_setting(root)
    if setting.directory is not None and setting.source is not None:
        where = f"{setting.directory} (autoMemoryDirectory in {setting.source.path})"
    else:
        where = f"{claude_config_dir() / 'projects' / discovery.project_slug(root)}/memory"
    message = (
        f"no memory store for this project (looked for {where}); "
        "pass a store folder or set memory_store in .curator.yaml"
    )
    if setting.unread is not None:
        message += (
            f". {setting.unread.path} sets autoMemoryDirectory, which Claude Code reads only "
            "in a folder you trusted: trust this one in Claude Code, or set it in "
            f"{claude_config_dir() / 'settings.json'}"
        )
    return message


def _all_stores(paths: list[Path]) -> list[discovery.FoundStore]:
    for path in paths:
        if not path.is_dir():
            raise UserError("--all takes folders to search for stores", path)
    found: dict[Path, discovery.FoundStore] = {}
    bases: list[Path | None] = list(paths) or [None]
    for base in bases:
        for store in discovery.all_stores(base):
            found.setdefault(store.path.resolve(), store)
    if not found:
        where = ", ".join(map(str, paths)) or str(discovery.claude_config_dir() / "projects")
        raise UserError(f"no memory stores under {where}")
    return [discovery.FoundStore(path, store.how) for path, store in found.items()]


# A result cache for every target, or one per target (`lint_caches`).
Caches: TypeAlias = "ResultCache | Callable[[Target], ResultCache]"

# Checks whose results `curator lint` never takes from its cache: they depend on more than
# the store, the rules, the day and the repository's state (transcripts, a model), or
# report more than diagnostics (notes, references held back as right as written).
LINT_VOLATILE = frozenset(
    {"usage", "paths", "symbols", "commands", "plans", "mismatch", "pairs", "llm"}
)


def lint_volatile(rule: Rule, config: Config) -> bool:
    """Whether `curator lint` runs this rule afresh every time (see LINT_VOLATILE); a URL
    rule only when it probes the network."""
    if rule.check == "urls":
        return rule.params.get("mode") == "dead" and bool(config.get("references.check_urls"))
    return rule.check in LINT_VOLATILE


def lint_caches(config: Config, selected: list[Rule]) -> Callable[[Target], ResultCache] | None:
    """`curator lint`'s result caches: one per store under the storage root's cache
    folder, so a run over an unchanged store reuses the last run's diagnostics. None when
    every selected rule runs afresh anyway."""
    from curator.findings.onlooker import cache_dir
    from curator.hashing import sha256_text
    from curator.interpreter.rulebook_cache import ruleset_key
    from curator.interpreter.run_cache import ResultCache
    from curator.interpreter.signature import repo_state

    volatile = frozenset(r.code for r in selected if lint_volatile(r, config))
    if all(r.code in volatile or r.check == "engine" for r in selected):
        return None
    ruleset = ruleset_key(config)

    def for_target(target: Target) -> ResultCache:
        folder = cache_dir(config) / "lint" / sha256_text(str(target.store))[:16]
        return ResultCache(folder, ruleset, repo_state(target.repo.root), volatile)

    return for_target


def lint(
    targets: list[Target],
    rules: list[Rule],
    selected: list[Rule],
    config: Config,
    today: date,
    deadline: float | None = None,
    cache: Caches | None = None,
) -> LintResult:
    """Lint each target store with the selected rules; reference rules need a repository.

    `deadline` (monotonic seconds) skips rules not started by then; `cache` (one, or one
    per target) reuses a store's last full results when nothing they depend on changed.
    """
    from curator.interpreter.context import HISTORY_PENDING, Context
    from curator.interpreter.engine import UNUSED_SUPPRESSION, run_checks
    from curator.interpreter.run_cache import ResultCache
    from curator.store import frontmatter
    from curator.store.reading import read_store

    result = LintResult()
    skipped: list[tuple[Path, RepoChoice]] = []
    for target in targets:
        choice = target.repo
        only = set(target.only) if target.only is not None else None
        store_cache = None
        if cache is not None and only is None:
            store_cache = cache if isinstance(cache, ResultCache) else cache(target)
        if store_cache is not None:
            with frontmatter.remembering(store_cache.frontmatter_memo()) as memo:
                store = read_store(target.store, choice.root)
            store_cache.keep_frontmatter(memo)
        else:
            store = read_store(target.store, choice.root)
        chosen = selected
        if choice.root is None:
            chosen = [r for r in selected if r.check not in REPOSITORY_CHECKS]
            if len(chosen) < len(selected) and choice.reason != "none":
                skipped.append((store.root, choice))
                result.not_run |= {r.code for r in selected} - {r.code for r in chosen}
        ctx = Context(
            store=store,
            config=config,
            today=today,
            repo_root=choice.root,
            deadline=deadline,
            rules=tuple(rules),
        )
        if store_cache is not None:
            found = store_cache.run(ctx, chosen, rules, deadline)
        else:
            found = run_checks(ctx, chosen, rules, only, deadline)
        # Rules dropped for want of a repository did not run: their findings stay open.
        ran = frozenset(r.code for r in chosen) - ctx.skipped
        result.diagnostics.extend(found)
        rels = None
        if only is not None:
            rels = frozenset(
                p.relative_to(store.root).as_posix() for p in only if p.is_relative_to(store.root)
            )
        result.runs.append(StoreRun(store.root, choice.root, tuple(found), ran, rels))
        # CUR901 stops short whenever another rule does; the summary names the cause.
        result.not_run |= {r.code for r in chosen} - ran - {UNUSED_SUPPRESSION}
        result.notes.extend(n for n in ctx.notes if n not in result.notes)
        result.held_back.extend(ctx.held_back)
        result.history_pending |= ctx.shared.get(HISTORY_PENDING, set())
        asker = ctx.shared.get("llm.asker")
        if asker is not None:
            for key, value in asker.stats.summary().items():
                result.llm[key] = result.llm.get(key, 0) + value
            result.llm_failures.extend(asker.stats.failures)
            result.not_run |= _failed_codes(chosen, asker.stats.failures)
        result.stores.append(store.root)
        result.memories += len(store.memories)
    result.notes.extend(skip_notes(skipped))
    result.notes.extend(_git_notes(result.notes))
    return result


def _failed_codes(chosen: list[Rule], failures: list[Any]) -> set[str]:
    """The rules that asked a question with no usable answer (the pair sweep's questions
    belong to every pair rule that ran)."""
    asked = {f.rule for f in failures}
    sweep = "pair sweep" in asked
    return {r.code for r in chosen if r.code in asked or (sweep and r.check == "pairs")}


def _git_notes(notes: list[str]) -> list[str]:
    """One line per folder where git gave no answer (killed at its bound, or refused),
    unless a note says so already."""
    from curator.git import unavailable

    said = [f"history unavailable for {where}: {why}" for where, why in unavailable().items()]
    return [line for line in said if not any(line in note for note in notes)]
