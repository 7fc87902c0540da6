"""What a check may look at: the store, the config, the day and the repository.

Its own module so the checks (which take a `Context`) and the engine (which runs the
checks) do not import each other. It imports nothing of the interpreter: what a check
derives from it (a memory's write date: `write_dates.write_date(ctx, memory)`) lives in
modules that import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from curator import clock
from curator.config import Config
from curator.models import Diagnostic, Memory, Rule, Store
from curator.store import not_memories
from curator.store.layout import OPENCLAW

_MEMORY_FILES = "store.memory_files"  # `shared` key: the store's memories, notes left out
# `shared` key: repositories whose history index a run under a deadline could not open.
HISTORY_PENDING = "history.pending"


@dataclass(frozen=True)
class Context:
    """Everything a check may look at. Checks read it; nothing writes it."""

    store: Store
    config: Config = field(default_factory=Config)
    today: date = field(default_factory=clock.today)
    repo_root: Path | None = None
    notes: list[str] = field(default_factory=list)  # one-line stderr notes (skipped rules)
    # Codes of rules that did not run in full (skipped for lack of a repo root, over the
    # budget, failed). Their old findings must not be resolved. A check that skips adds here.
    skipped: set[str] = field(default_factory=set)
    llm: Any = None  # an LLM provider to use instead of the configured one (rule self-tests)
    # Work several rules share within one run (the pair sweep behind CUR401 and CUR402).
    shared: dict[Any, Any] = field(default_factory=dict)
    # The run's deadline (monotonic seconds; the session-start hook's budget): a check
    # must not start work it cannot finish by then (building the history index cold).
    deadline: float | None = None
    rules: tuple[Rule, ...] = ()  # every loaded rule, for checks that read another's params
    # Diagnostics a check held back as right as written (`held_back` in their detail):
    # not reported, listed by `curator lint --show-silenced`.
    held_back: list[Diagnostic] = field(default_factory=list)

    def memories(self, rule: Rule) -> Iterable[Memory]:
        """The memories a rule applies to. Notes in an OpenClaw workspace have no type, so
        a rule's `types` do not filter them."""
        if self.store.layout == OPENCLAW:
            return iter(self.store.memories)
        return (m for m in self.memory_files() if rule.applies_to(m))

    def memory_files(self) -> tuple[Memory, ...]:
        """The store's files that are memories: all but those `not_memories` names
        (README.md, `*-archive.md`, ...)."""
        every = self.store.memories
        known = self.shared.get(_MEMORY_FILES)
        if known is not None and known[0] is every:  # a check's sub-run has other memories
            return known[1]  # type: ignore[no-any-return]
        found = not_memories.memory_files(every, self.config.get("not_memories"))
        self.shared[_MEMORY_FILES] = (every, found)
        return found
