"""Ask questions within a budget: cache first, then the provider, strict answers only.

`Asker` is what the LLM checks share within one run: one provider (chosen once, with a
note saying which), one verdict cache, one call budget, and the counts a sweep reports.
A question whose answer stays malformed after `llm.answer_attempts`, or whose request
fails (timeout, 429, 5xx after the SDK's own retries), yields no answer and a Failure;
it never raises into the lint.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from curator.config import Config
from curator.llm.cache import VerdictCache, cache_dir, cache_key
from curator.llm.providers import Provider, choose
from curator.llm.question import MalformedAnswer, ProviderError, Request

T = TypeVar("T")
Item = TypeVar("Item")


@dataclass(frozen=True)
class Failure:
    """A question that got no usable answer: no finding, and this record says why."""

    rule: str
    subject: tuple[str, ...]  # the memory files the question was about
    reason: str


@dataclass
class AskStats:
    questions: int = 0
    calls: int = 0  # requests sent, retries included
    cache_hits: int = 0
    retries: int = 0
    not_evaluated: int = 0
    batched: int = 0  # questions sent inside a Message Batch
    failures: list[Failure] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        """Counts for the watermark and the scan-complete event."""
        return {
            "questions": self.questions,
            "requests": self.calls,
            "cache_hits": self.cache_hits,
            "retries": self.retries,
            "not_evaluated": self.not_evaluated,
            "batched": self.batched,
            "failed": len(self.failures),
        }


class Asker:
    def __init__(
        self,
        config: Config,
        provider: Provider,
        cache: VerdictCache | None,
        on_failure: Callable[[Failure], None] | None = None,
    ) -> None:
        self.config = config
        self.provider = provider
        self.cache = cache
        self.model = str(config.get("llm.model"))
        self.attempts = max(1, int(config.get("llm.answer_attempts")))
        # Hook point: the findings store passes an emitter here so that every failure
        # also becomes an event (curator.scan... "verdict failed"); notes cover stderr.
        self.on_failure = on_failure
        self.stats = AskStats()
        self._memory: dict[str, Any] = {}  # answers of this run, for a cache-less run
        self._asked: dict[str, int] = {}  # questions sent per rule, against its budget

    @property
    def available(self) -> bool:
        return self.provider.name != "none"

    def prefetch(
        self,
        rule: str,
        items: list[tuple[Request, list[str], Callable[[Any], Any]]],
        budget: int,
    ) -> None:
        """With `llm.batch` and a provider that batches: send the uncached questions (at
        most what is left of `budget`) as one Message Batch. Valid answers are cached for
        `ask`; the rest are asked one by one there, within the same budget."""
        send_batch = getattr(self.provider, "ask_batch", None)
        if send_batch is None or not self.config.get("llm.batch"):
            return
        room = budget - self._asked.get(rule, 0)
        pending: dict[str, tuple[Request, Callable[[Any], Any], tuple[str, ...]]] = {}
        for request, hashes, validate in items:
            if len(pending) >= room:
                break
            key = cache_key(request, hashes)
            if key in self._memory or key in pending:
                continue
            if self.cache is not None and self.cache.has(key):
                continue
            pending[key] = (request, validate, tuple(hashes))
        if not pending:
            return
        ids = {f"q{i}": key for i, key in enumerate(pending)}
        poll = float(self.config.get("llm.batch_poll_seconds"))
        wait = float(self.config.get("llm.batch_wait_seconds"))
        results = send_batch({i: pending[k][0] for i, k in ids.items()}, poll, wait)
        self.stats.batched += len(pending)
        self.stats.calls += len(pending)
        for i, key in ids.items():
            raw = results.get(i)
            if raw is None or isinstance(raw, Exception):
                continue
            request, validate, _ = pending[key]
            try:
                validate(raw)
            except MalformedAnswer:
                continue
            self._memory[key] = raw
            if self.cache is not None:
                self.cache.put(key, raw, {"model": request.model, "rule": rule, "batch": True})

    def ask(
        self,
        rule: str,
        request: Request,
        subject: tuple[str, ...],
        body_hashes: list[str],
        validate: Callable[[Any], T],
        budget: int,
    ) -> T | None:
        """The validated answer, from the cache or the provider; None when there is none.

        `budget` caps the questions this rule sends to the provider in this run; cache
        hits are free, so a re-sweep walks past what it already knows.
        """
        self.stats.questions += 1
        key = cache_key(request, body_hashes)
        cached = self._memory.get(key)
        if cached is None and self.cache is not None:
            cached = self.cache.get(key)
        if cached is not None:
            try:
                value = validate(cached)
            except MalformedAnswer:
                pass  # a cache entry from an older schema: ask again
            else:
                self.stats.cache_hits += 1
                return value
        asked = self._asked.get(rule, 0)
        if asked >= budget:
            self.stats.not_evaluated += 1
            return None
        self._asked[rule] = asked + 1
        last = "no answer"
        for attempt in range(self.attempts):
            self.stats.calls += 1
            if attempt:
                self.stats.retries += 1
            try:
                raw = self.provider.ask(request)
                value = validate(raw)
            except ProviderError as exc:
                self._fail(Failure(rule, subject, str(exc)))
                return None
            except MalformedAnswer as exc:
                last = str(exc)
                continue
            self._memory[key] = raw
            if self.cache is not None:
                meta = {"model": request.model, "rule": rule, "files": list(subject)}
                self.cache.put(key, raw, meta)
            return value
        self._fail(
            Failure(rule, subject, f"malformed answer after {self.attempts} attempt(s): {last}")
        )
        return None

    def _fail(self, failure: Failure) -> None:
        self.stats.failures.append(failure)
        if self.on_failure is not None:
            self.on_failure(failure)

    def notes(self, rule: str) -> list[str]:
        """One-line stderr notes about what this rule's questions did not get."""
        failures = [f for f in self.stats.failures if f.rule == rule]
        out = []
        if failures:
            reasons = sorted({f.reason for f in failures})
            out.append(
                f"{rule}: {len(failures)} question(s) got no usable answer "
                f"({'; '.join(reasons)[:300]}); no findings for them"
            )
        return out


def get_asker(ctx: Any) -> Asker:
    """The run's shared Asker: the injected provider (rule self-tests) or the configured one."""
    asker = ctx.shared.get("llm.asker")
    if asker is not None:
        return asker  # type: ignore[no-any-return]
    if ctx.llm is not None:
        provider, note, cache = ctx.llm, None, None  # self-tests never touch the user's cache
    else:
        provider, note = choose(ctx.config)
        cache = VerdictCache(cache_dir(ctx.config))
    asker = Asker(ctx.config, provider, cache, ctx.shared.get("llm.on_failure"))
    if note:
        ctx.notes.append(note)
    ctx.shared["llm.asker"] = asker
    return asker


def progress(items: list[Item], label: str) -> Iterator[Item]:
    """Iterate with a progress bar on stderr when it is a terminal; silently otherwise."""
    if not items or not sys.stderr.isatty():
        yield from items
        return
    import click

    with click.progressbar(items, label=label, file=sys.stderr) as bar:
        yield from bar
