"""Memories that name the same rare thing reach the model together, even when each has
better neighbours on its own topic: the pair sweep plans a request for them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from curator.interpreter.rulebook import load_rules
from curator.llm.pair_sweep import plan
from curator.llm.similarity import candidates
from curator.store.reading import read_store
from tests.conftest import Run, memory, write_files
from tests.helpers.fake_messages_api import FakeMessagesAPI, prompt_text, start, stop

A, B = "deploy0.md", "billing0.md"


def cluster(prefix: str, words: str, count: int = 8) -> dict[str, str]:
    """Memories on one topic: each shares the topic's words and one word with each other."""
    return {
        f"{prefix}{i}.md": memory(
            f"{words} "
            + " ".join(f"{prefix}{min(i, j)}x{max(i, j)}" for j in range(count) if j != i)
            + "\n",
            name=f"{prefix} {i}",
        )
        for i in range(count)
    }


def store_files(holders: int = 2) -> dict[str, str]:
    files = {
        **cluster("deploy", "rollout canary helm chart cluster staging"),
        **cluster("billing", "invoice stripe webhook refund ledger currency"),
    }
    # the words of the name are everywhere: alone they pair nothing
    for i in range(12):
        files[f"note{i}.md"] = memory(f"The api base url of service{i} is in its docs.\n")
    # the same named setting, stated two ways, in one memory of each topic
    files[A] = files[A].replace("\n", " The app reads `API_BASE_URL` from the chart.\n", 1)
    files[B] = files[B].replace("\n", " Webhooks post to API_BASE_URL=billing.internal.\n", 1)
    for extra in range(holders - 2):  # more memories naming it: no longer rare
        name = f"deploy{extra + 1}.md"
        files[name] = files[name].replace("\n", " See API_BASE_URL.\n", 1)
    return files


def params(**overrides: Any) -> dict[str, Any]:
    return {**next(r for r in load_rules() if r.code == "CUR401").params, **overrides}


def planned(store: Path, **overrides: Any) -> tuple[Any, list[Any]]:
    p = params(**overrides)
    found = candidates(read_store(store).memories, p)
    return found, plan(found, p)


def test_a_rare_shared_name_puts_the_pair_in_a_request(tmp_path: Path) -> None:
    store = write_files(tmp_path / "memory", store_files())
    found, groups = planned(store)
    # on similarity alone the two are not candidates: each has closer topic-mates
    assert not any({c.a.rel, c.b.rel} == {A, B} for c in found.ranked)
    assert any(g.covers(A, B) for g in groups)
    _, without = planned(store, named_max_df=0)  # no named pairs
    assert not any(g.covers(A, B) for g in without)


def test_a_name_many_memories_hold_does_not_pair_them(tmp_path: Path) -> None:
    store = write_files(tmp_path / "memory", store_files(holders=4))
    found, groups = planned(store)
    assert not any({c.a.rel, c.b.rel} == {A, B} for c in found.named)
    assert not any(g.covers(A, B) for g in groups)


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    fake = start(FakeMessagesAPI())
    yield fake
    stop(fake)


def test_the_pair_reaches_the_model_in_one_request(
    tmp_path: Path, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store = write_files(tmp_path / "memory", {"MEMORY.md": "# Memory\n", **store_files()})
    api.verdicts = {frozenset((A, B)): ("contradict", "two values for API_BASE_URL")}
    settings = {"provider": "anthropic", "base_url": api.base_url, "max_retries": 0}
    config = tmp_path / "curator.yaml"
    config.write_text(json.dumps({"storage": str(tmp_path / "s"), "llm": settings}))
    args = ["lint", str(store), "--llm", "--select", "CUR401", "--config", str(config)]
    run = run_curator(*args, "--output-format", "json", env={"ANTHROPIC_API_KEY": "k"})
    together = [
        body
        for body in api.messages()
        if f'file="{A}"' in prompt_text(body) and f'file="{B}"' in prompt_text(body)
    ]
    assert len(together) == 1
    assert [(d["code"], d["memory_files"]) for d in run.json()] == [("CUR401", [B, A])]
