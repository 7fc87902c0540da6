"""A secret in a memory's file name: CUR501 reports it on the file, and no output, finding,
event or cache of curator ever holds it whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run, memory, write_files
from tests.helpers.hook_env import Env, make_env
from tests.helpers.secret_store import rand

FORMATS = ("full", "concise", "json", "json-lines", "github", "sarif", "junit")


@pytest.fixture
def env(tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]) -> Env:
    return make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)


def _plant(env: Env) -> tuple[str, str]:
    """A memory named with a fresh GitHub token, linked from MEMORY.md; a dated line in it
    gives it a second finding, so its name is printed by more than one rule."""
    token = "ghp_" + rand(36)
    name = f"reference_{token}.md"
    write_files(
        env.store,
        {
            "MEMORY.md": f"# Memory\n- [Ref](reference_{token}.md) — the deploy reference\n",
            name: memory("Merge freeze begins 2026-03-05.\n", name="ref", type="reference"),
        },
    )
    return token, name


def test_a_token_in_a_file_name_is_cur501_on_the_file(env: Env) -> None:
    _plant(env)
    run = env.curator("lint", "--output-format", "json", "--select", "CUR501")
    found = sorted((d["path"].rsplit("/", 1)[-1], d["location"]["row"]) for d in run.json())
    # The file's own name, and the link to it in MEMORY.md.
    assert found == [("MEMORY.md", 2), ("reference_ghp_…(40).md", 1)]
    [named] = [d for d in run.json() if d["path"].endswith(".md") and "reference" in d["path"]]
    assert named["message"].startswith("GitHub token (in the file name) in plain text (ghp_…(40))")
    assert named["fix"] is None  # renaming, and the links that follow, is the user's call


@pytest.mark.parametrize("output", FORMATS)
def test_no_output_format_prints_the_token(env: Env, output: str) -> None:
    token, _ = _plant(env)
    run = env.curator("lint", "--output-format", output)
    assert run.code == 1, run.stderr
    assert "CUR501" in run.stdout
    assert "ghp_…(40)" in run.stdout or "ghp_%E2%80%A6%2840%29" in run.stdout  # sarif: a URI
    assert token not in run.stdout + run.stderr


def test_findings_events_and_caches_never_hold_the_token(env: Env) -> None:
    token, _ = _plant(env)
    seen = []
    for args in (
        ("lint", "--persist"),
        ("lint", "--persist"),  # warm: from the caches the first run wrote
        ("scan",),
        ("findings", "list"),
        ("findings", "list", "--output-format", "json"),
        ("fix",),
    ):
        run = env.curator(*args)
        assert "Traceback" not in run.stderr
        seen.append(run.stdout + run.stderr)
    seen.append(env.hook().stdout)
    assert not [out for out in seen if token in out]
    assert any("reference_ghp_…(40).md" in out for out in seen)
    assert {f["file"] for f in env.findings()} >= {"reference_ghp_…(40).md", "MEMORY.md"}
    assert any(e["event_type"].startswith("curator.finding") for e in env.events())
    kept = [p for p in env.onlooker.rglob("*") if p.is_file()]
    assert any("cache" in p.parts for p in kept)
    assert [p for p in kept if token.encode() in p.read_bytes() or token in str(p)] == []
