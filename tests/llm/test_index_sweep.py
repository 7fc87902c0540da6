"""CUR404 end to end: MEMORY.md's lines against the memories they link, judged through
the real CLI and the real anthropic SDK by a fake Messages API on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run, memory, write_files
from tests.helpers.fake_messages_api import FakeMessagesAPI, Step, prompt_text, start, stop

HOOK = "- [Payment bug](project_payment_bug.md) — RESOLVED, fix shipped in 2.3"
STORE = {
    "MEMORY.md": (
        "# Memory\n\n"
        f"{HOOK}\n"
        "- [Deploys](project_deploys.md) — deploys go out on Tuesdays\n"
        "- [Tests](feedback_tests.md) — run the suite against a real Postgres\n"
    ),
    "project_payment_bug.md": memory(
        "Still blocked: the card provider has not answered; 2.3 shipped without the fix.\n",
        name="Payment bug",
        description="Checkout fails for cards from one bank",
    ),
    "project_deploys.md": memory(
        "Production deploys go out on Tuesdays after the release review.\n",
        name="Deploys",
        description="When production deploys happen",
    ),
    "feedback_tests.md": memory(
        "Run the test suite against a real Postgres container, never a mock.\n",
        name="Tests against Postgres",
        description="Integration tests use a real database",
        type="feedback",
    ),
}
RATIONALE = "index says RESOLVED; the memory says still blocked"


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    fake = start(FakeMessagesAPI())
    yield fake
    stop(fake)


def lint(run_curator: Callable[..., Run], tmp_path: Path, api: FakeMessagesAPI) -> Run:
    store = tmp_path / "memory"
    settings = {
        "provider": "anthropic",
        "base_url": api.base_url,
        "timeout_seconds": 5,
        "max_retries": 0,
        "answer_attempts": 2,
    }
    config = tmp_path / "curator.yaml"
    config.write_text(
        json.dumps({"storage": str(tmp_path / "onlooker"), "llm": settings}), encoding="utf-8"
    )
    env = {"ANTHROPIC_API_KEY": "test-key", "ONLOOKER_DIR": str(tmp_path / "unused")}
    args = ["lint", str(store), "--llm", "--select", "CUR404", "--config", str(config)]
    return run_curator(*args, "--output-format", "json", env=env)


def test_a_hook_that_contradicts_its_memory_is_reported_at_the_index_line(
    tmp_path: Path, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    write_files(tmp_path / "memory", STORE)
    api.index = {"project_payment_bug.md": ("contradict", RATIONALE)}
    run = lint(run_curator, tmp_path, api)
    assert run.code == 1, run.stderr
    # every entry of the index, each beside the memory it links, in one request
    assert api.count == 1
    prompt = prompt_text(api.messages()[0])
    assert "L3: Payment bug — RESOLVED, fix shipped in 2.3" in prompt  # as the agent reads it
    for name in ("project_payment_bug.md", "project_deploys.md", "feedback_tests.md"):
        assert f'file="{name}"' in prompt
    assert api.messages()[0]["tool_choice"]["name"] == "record_index_verdicts"
    [finding] = run.json()
    assert finding["code"] == "CUR404"
    assert finding["path"].endswith("MEMORY.md")
    assert (finding["location"]["row"], finding["location"]["column"]) == (3, 3)
    assert finding["message"] == (
        f"MEMORY.md line says otherwise than project_payment_bug.md: {RATIONALE}"
    )
    assert finding["memory_files"] == ["MEMORY.md", "project_payment_bug.md"]
    # the verdict is cached: an unchanged store asks nothing
    again = lint(run_curator, tmp_path, api)
    assert api.count == 1
    assert again.json() == run.json()


def test_a_consistent_hook_gives_nothing(
    tmp_path: Path, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    files = dict(STORE)
    files["MEMORY.md"] = files["MEMORY.md"].replace(
        "RESOLVED, fix shipped in 2.3", "still blocked on the card provider"
    )
    write_files(tmp_path / "memory", files)
    api.index = {"project_payment_bug.md": ("consistent", "both say blocked")}
    run = lint(run_curator, tmp_path, api)
    assert run.code == 0, run.stderr
    assert run.json() == []
    assert api.count == 1  # it was asked, and the answer found nothing
    assert "still blocked on the card provider" in prompt_text(api.messages()[0])


def test_an_answer_about_a_line_outside_its_item_fails_closed(
    tmp_path: Path, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    write_files(tmp_path / "memory", STORE)
    bad = {"item": 1, "memory": 1, "line": 4, "verdict": "contradict", "rationale": "x"}
    api.script = [Step(tool_input={"entries": [bad]})] * 2
    run = lint(run_curator, tmp_path, api)
    assert run.code == 0, run.stderr
    assert run.json() == []
    assert "line 4 is not in item 1" in run.stderr
    assert api.count == 2  # asked again once, then no finding


NOTES_INDEX = (
    "# Memory\n\n"
    "- [Payment bug](project_payment_bug.md) — still blocked on the card provider\n\n"
    "## Release notes\n"
    "Releases ship on Thursdays with `make ship` from the release branch.\n"
    "Hotfixes need a second reviewer before they ship.\n"
)


def test_the_index_s_own_notes_are_judged_against_the_memory_they_speak_of(
    tmp_path: Path, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    files = {
        **STORE,
        "MEMORY.md": NOTES_INDEX,
        "project_release_day.md": memory(
            "Releases moved to Tuesdays in March; `make ship` still runs from the release "
            "branch.\n",
            name="Release day",
            description="When releases ship",
        ),
    }
    write_files(tmp_path / "memory", files)

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        prompt = prompt_text(body)
        item = prompt[prompt.index("L6: Releases ship on Thursdays") :]
        number = int(prompt[: prompt.index("L6: ")].rsplit('<item number="', 1)[1].split('"')[0])
        memory_number = item.split('file="project_release_day.md"')[0].rsplit('number="', 1)[1]
        entry = {
            "item": number,
            "memory": int(memory_number.split('"')[0]),
            "line": 6,
            "verdict": "contradict",
            "rationale": "Thursdays against Tuesdays",
        }
        return {"entries": [entry]}

    api.answer = answer
    run = lint(run_curator, tmp_path, api)
    assert run.code == 1, run.stderr
    assert api.count == 1
    [finding] = run.json()
    assert (finding["location"]["row"], finding["code"]) == (6, "CUR404")
    assert finding["memory_files"] == ["MEMORY.md", "project_release_day.md"]


def test_a_section_meets_the_memory_it_names_by_file(tmp_path: Path) -> None:
    from curator.interpreter.rulebook import load_rules
    from curator.llm.index_sweep import section_items
    from curator.store.reading import read_store

    files = {
        **STORE,
        "MEMORY.md": (
            "# Memory\n\n## Widget\n"
            "Sechs Kacheln, Reihenfolge siehe release-calendar.md, Symbole grün.\n"
        ),
        "release-calendar.md": memory("Tiles: five, order by usage.\n", name="Tiles"),
    }
    store = read_store(write_files(tmp_path / "memory", files))
    rules = {r.code: r for r in load_rules()}
    items = section_items(
        store.index, list(store.memories), rules["CUR404"].params, rules["CUR401"].params
    )
    [item] = items
    # it shares no word with the memory, but names its file
    assert "release-calendar.md" in [m.rel for m in item.memories]
