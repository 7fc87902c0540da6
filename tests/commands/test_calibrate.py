"""`curator calibrate --labels`: candidate recall, verdict precision/recall, bad input."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Run, memory
from tests.helpers.fake_messages_api import FakeMessagesAPI, start, stop


def side(file: str, body: str, name: str, description: str, type: str = "feedback") -> dict:
    return {"file": file, "text": memory(body, name=name, description=description, type=type)}


PAIRS = [
    {
        "id": "p1",
        "label": "contradict",
        "memory_a": side(
            "redux.md",
            "New shared client state gets a Redux slice.\n",
            "Redux for state",
            "Shared client state lives in Redux slices",
            "project",
        ),
        "memory_b": side(
            "zustand.md",
            "Redux is phased out; new shared client state goes into Zustand stores.\n",
            "Zustand for state",
            "New shared client state goes into Zustand",
            "project",
        ),
    },
    {
        "id": "p2",
        "label": "redundant",
        "memory_a": side(
            "no_mocks.md",
            "Don't mock the database in tests; use a real Postgres.\n",
            "No database mocks",
            "Tests use a real Postgres database",
        ),
        "memory_b": side(
            "real_db.md",
            "Point the tests at an actual Postgres database, never a mock.\n",
            "Real database in tests",
            "Tests talk to a real Postgres database",
        ),
    },
    {
        "id": "p3",
        "label": "complement",
        "memory_a": side(
            "prod_logs.md",
            "Production services log at INFO level.\n",
            "INFO logging in production",
            "Production log level is INFO",
            "project",
        ),
        "memory_b": side(
            "local_logs.md",
            "When running services locally, log at DEBUG level.\n",
            "DEBUG logging locally",
            "Local log level is DEBUG",
        ),
    },
    {
        "id": "p4",
        "label": "unrelated",
        "memory_a": side(
            "pm.md", "The user is a product manager.\n", "User is a PM", "Role", "user"
        ),
        "memory_b": side(
            "grafana.md",
            "Latency dashboards are in Grafana.\n",
            "Grafana",
            "Dashboards",
            "reference",
        ),
    },
]


@pytest.fixture
def labels(tmp_path: Path) -> Path:
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({"pairs": PAIRS}), encoding="utf-8")
    return path


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    # the fake "model" gets p1 right, calls the complement a contradiction, misses p2
    verdicts = {
        frozenset({"redux.md", "zustand.md"}): ("contradict", "Redux vs Zustand"),
        frozenset({"prod_logs.md", "local_logs.md"}): ("contradict", "INFO vs DEBUG"),
    }
    fake = start(FakeMessagesAPI(verdicts=verdicts))
    yield fake
    stop(fake)


def test_candidates_only(labels: Path, run_curator: Callable[..., Run]) -> None:
    run = run_curator("calibrate", "--labels", str(labels), "--no-llm")
    assert run.code == 0, run.stderr
    assert "4 labelled pairs, 8 memories in one store" in run.stdout
    assert "candidate recall within 50 requests: 2/2 contradict+redundant (100.0%)" in run.stdout
    assert "group_size  requests  pairs_covered  recall" in run.stdout
    data = run_curator("calibrate", "--labels", str(labels), "--no-llm", "--output-format", "json")
    result = data.json()
    assert result["candidate_recall"] == 1.0
    assert result["covered"]["contradict"] == 1
    assert result["verdicts"] is None


def test_verdicts_are_measured_and_cached(
    tmp_path: Path, labels: Path, api: FakeMessagesAPI, run_curator: Callable[..., Run]
) -> None:
    config = tmp_path / "c.yaml"
    settings = {"provider": "anthropic", "base_url": api.base_url, "max_retries": 0}
    config.write_text(
        json.dumps({"storage": str(tmp_path / "store"), "llm": settings}), encoding="utf-8"
    )
    args = ("calibrate", "--labels", str(labels), "--config", str(config))
    env = {"ANTHROPIC_API_KEY": "k"}
    run = run_curator(*args, "--output-format", "json", env=env)
    assert run.code == 0, run.stderr
    verdicts = run.json()["verdicts"]
    assert verdicts["contradict"] == {
        "precision": 0.5,
        "recall": 1.0,
        "predicted": 2,
        "labelled": 1,
    }
    assert verdicts["redundant"]["recall"] == 0.0
    assert api.count == 4  # one request per labelled pair
    assert (
        "List every pair, whatever its verdict" in api.requests[0]["body"]["messages"][0]["content"]
    )
    assert "verdicts: 4 request(s), 0 from the cache" in run.stderr
    again = run_curator(*args, env=env)
    assert api.count == 4
    assert "verdicts: 0 request(s), 4 from the cache" in again.stderr
    assert "contradict       50.0%  100.0%          2         1" in again.stdout


@pytest.mark.parametrize(
    "content,message",
    [
        ("not json", "labels are not JSON"),
        ('{"pairs": []}', "labels need"),
        ('{"pairs": [{"label": "maybe"}]}', "pair 1: label must be one of"),
        (
            '{"pairs": [{"label": "contradict", "memory_a": {"file": "../x.md", "text": ""}}]}',
            "memory_a needs a file name like x.md",
        ),
    ],
)
def test_bad_labels_are_exit_2(
    tmp_path: Path, content: str, message: str, run_curator: Callable[..., Run]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    run = run_curator("calibrate", "--labels", str(path), "--no-llm")
    assert run.code == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr
