"""A memory with many candidate partners is sent in at most 3 requests of a sweep, the
index sweep's counted, and every one of its candidate pairs still reaches the model:
`curator lint --llm` through the real anthropic SDK against a fake Messages API on
127.0.0.1 that logs each request."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from curator.interpreter.rulebook import load_rules
from curator.llm.pair_sweep import plan
from curator.llm.similarity import candidates
from curator.store.reading import read_store
from tests.conftest import Run, memory, write_files
from tests.helpers.fake_messages_api import FakeMessagesAPI, prompt_text, start, stop

HUB = "project_widgets.md"
SPOKES = 24  # more partners than one request holds


def store_files() -> dict[str, str]:
    """A hub memory that names one knob of each spoke, and names a setting that two
    memories of another topic also name (a pair found by the rare name alone)."""
    files = {
        f"spoke{i:02d}.md": memory(
            f"The widget{i:02d} knob stays at its default.\n", name=f"widget{i:02d} knob"
        )
        for i in range(SPOKES)
    }
    knobs = ", ".join(f"widget{i:02d}" for i in range(SPOKES))
    files[HUB] = memory(
        f"Every knob of the panel: {knobs}. The panel reads `API_BASE_URL`.\n",
        name="Widget panel",
        description="which knobs the widget panel has",
    )
    for i in range(6):
        files[f"billing{i}.md"] = memory(
            "Invoices, refunds and the stripe webhook ledger "
            + " ".join(f"ledger{min(i, j)}x{max(i, j)}" for j in range(6) if j != i)
            + (" Webhooks post to API_BASE_URL.\n" if i < 2 else "\n"),
            name=f"billing {i}",
        )
    index = "".join(f"- [{rel}]({rel}) — {rel[:-3]}\n" for rel in sorted(files))
    return {"MEMORY.md": "# Memory\n\n" + index, **files}


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    fake = start(FakeMessagesAPI())
    yield fake
    stop(fake)


def test_a_memory_with_many_partners_is_in_at_most_three_requests(
    tmp_path: Path, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    store = write_files(tmp_path / "memory", store_files())
    params = next(r for r in load_rules() if r.code == "CUR401").params
    found = candidates(read_store(store).memories, params)
    partners = {
        c.a.rel if c.b.rel == HUB else c.b.rel
        for c in found.ranked + found.named
        if HUB in (c.a.rel, c.b.rel)
    }
    assert len(partners) > SPOKES  # every spoke, and the two that name API_BASE_URL
    settings = {"provider": "anthropic", "base_url": api.base_url, "max_retries": 0}
    config = tmp_path / "curator.yaml"
    config.write_text(json.dumps({"storage": str(tmp_path / "s"), "llm": settings}))
    args = ["lint", str(store), "--llm", "--select", "CUR401,CUR402,CUR404"]
    run = run_curator(
        *args, "--config", str(config), "--output-format", "json", env={"ANTHROPIC_API_KEY": "k"}
    )
    assert run.code == 0, run.stderr
    prompts = [prompt_text(body) for body in api.messages()]
    assert {body["tool_choice"]["name"] for body in api.messages()} == {
        "record_pair_verdicts",
        "record_index_verdicts",
    }
    mine = [p for p in prompts if f'file="{HUB}"' in p]
    assert len(mine) <= 3, f"{HUB} went out in {len(mine)} requests"
    pair_requests = [
        p
        for p, b in zip(prompts, api.messages(), strict=True)
        if b["tool_choice"]["name"] == "record_pair_verdicts"
    ]
    unasked = sorted(
        rel
        for rel in partners
        if not any(f'file="{HUB}"' in p and f'file="{rel}"' in p for p in pair_requests)
    )
    assert unasked == []


def test_the_index_sweep_s_requests_leave_the_pair_sweep_less_room(tmp_path: Path) -> None:
    store = write_files(tmp_path / "memory", store_files())
    params = next(r for r in load_rules() if r.code == "CUR401").params
    found = candidates(read_store(store).memories, params)
    for taken, most in ((0, 3), (1, 2), (2, 1), (3, 0)):
        groups = plan(found, params, taken={HUB: taken})
        assert sum(HUB in {m.rel for m in g.members} for g in groups) <= most


def test_a_memory_is_in_at_most_max_requests_per_memory_of_the_index_sweep(
    tmp_path: Path,
) -> None:
    from curator.llm.index_sweep import hook_items, place, section_items

    notes = "".join(
        f"\n## Notes {n}\nThe widget panel knobs are listed in {HUB}; widget{n:02d} is new.\n"
        for n in range(4)
    )
    files = store_files()
    files["MEMORY.md"] += notes
    store = read_store(write_files(tmp_path / "memory", files))
    rules = {r.code: r for r in load_rules()}
    memories = list(store.memories)
    assert store.index is not None
    hooks = hook_items(store.index, {m.rel: m for m in memories})
    for bound in (1, 2):
        params = {**rules["CUR404"].params, "items_per_request": 3}
        params["max_requests_per_memory"] = bound
        sections = section_items(store.index, memories, params, rules["CUR401"].params)
        assert sum(HUB in {m.rel for m in s.memories} for s in sections) == 2  # named
        batches = place(hooks, sections, params)
        counts: dict[str, int] = {}
        for batch in batches:
            for rel in {m.rel for item in batch for m in item.memories}:
                counts[rel] = counts.get(rel, 0) + 1
        assert max(counts.values()) == bound
        with_hub = [
            i for b in batches for i in b if not i.columns and HUB in {m.rel for m in i.memories}
        ]
        assert len(with_hub) == (0 if bound == 1 else 2)
