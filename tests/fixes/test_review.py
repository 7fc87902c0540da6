"""`curator review` driven through its prompts, in a subprocess, with a scripted $EDITOR."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from curator.errors import UserError
from curator.findings.project import ProjectDir
from curator.fixes.memory_edits import StaleFile, prune, set_type
from curator.hashing import sha256_bytes
from tests.conftest import Run, memory, write_files
from tests.helpers.hook_env import Env, make_env


@pytest.fixture
def env(tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]) -> Env:
    return make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)


EDITOR = """\
import sys
from pathlib import Path
path = Path(sys.argv[1])
path.write_text(path.read_text().replace("Merge freeze begins 2026-03-05.", "No freeze."))
"""


def review(env: Env, answers: str, **extra: str) -> tuple[int, str]:
    run = env._run("review", cwd=env.repo, env=env.env(**extra), input=answers)
    assert "Traceback" not in run.stderr, run.stderr
    return run.code, run.stdout


def by_kind(env: Env) -> dict[str, dict[str, object]]:
    return {str(f["kind"]): f for f in env.findings()}


def test_review_shows_each_finding_with_its_excerpt(env: Env) -> None:
    env.hook()
    code, out = review(env, "d\nd\n")
    assert code == 0
    assert "[1/2] CUR010 broken_index" in out
    assert "MEMORY.md links 'gone.md', which does not exist" in out
    assert "[2/2] CUR101 date_decayed" in out
    assert "  > 6 | Merge freeze begins 2026-03-05." in out
    assert "matched_phrase: freeze begins 2026-03-05" in out
    assert out.rstrip().endswith("curator: review finished: 2 deferred.")
    assert all(f["status"] == "open" for f in env.findings())


def test_review_takes_the_store_as_an_argument(env: Env, tmp_path: Path) -> None:
    env.hook()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = env._run("review", str(env.store), cwd=elsewhere, env=env.env(), input="q\n")
    assert run.code == 0, run.stderr
    assert "[1/2] CUR010 broken_index" in run.stdout


def test_prune_removes_the_memory_and_its_index_line_with_a_backup(env: Env) -> None:
    env.hook()
    code, out = review(env, "d\np\ny\n")
    assert code == 0, out
    assert "pruned freeze.md, removed MEMORY.md line 2" in out
    assert not (env.store / "freeze.md").exists()
    assert (env.store / "MEMORY.md").read_text() == "# Memory\n- [Gone](gone.md) — removed\n"
    backups = list((env.project / "backups").iterdir())
    assert len(backups) == 1
    assert (backups[0] / "freeze.md").read_text() == memory(
        "Merge freeze begins 2026-03-05.\n", name="freeze"
    )
    assert "[Freeze](freeze.md)" in (backups[0] / "MEMORY.md").read_text()
    pruned = by_kind(env)["date_decayed"]
    assert pruned["status"] == "resolved"
    assert pruned["resolution"]["by"] == "review"  # type: ignore[index]

    env.hook()
    assert by_kind(env)["broken_index"]["status"] == "open"
    assert len(env.findings()) == 2


def test_edit_opens_the_editor_and_the_next_run_resolves(env: Env, tmp_path: Path) -> None:
    script = tmp_path / "editor.py"
    script.write_text(EDITOR)
    env.hook()
    code, out = review(env, "d\ne\n", EDITOR=f"{sys.executable} {script}")
    assert code == 0, out
    assert "edited; the next scan re-checks it" in out
    assert "No freeze." in (env.store / "freeze.md").read_text()
    backup = next((env.project / "backups").iterdir()) / "freeze.md"
    assert "Merge freeze begins 2026-03-05." in backup.read_text()

    env.hook()
    resolved = by_kind(env)["date_decayed"]
    assert resolved["status"] == "resolved"
    assert resolved["resolution"]["by"] == "auto"  # type: ignore[index]


def test_reclassify_changes_the_type(env: Env) -> None:
    (env.store / "freeze.md").chmod(0o664)
    env.hook()
    code, out = review(env, "d\nr\nreference\n")
    assert code == 0, out
    assert "freeze.md is now type reference" in out
    assert "\ntype: reference\n" in (env.store / "freeze.md").read_text()
    assert (env.store / "freeze.md").stat().st_mode & 0o7777 == 0o664  # its mode kept
    assert not [p.name for p in env.store.iterdir() if p.name.endswith(".tmp")]


def test_acknowledge_with_a_reason_then_quit(env: Env) -> None:
    env.hook()
    code, out = review(env, "a\nthe link is fixed upstream\nq\n")
    assert code == 0, out
    broken = by_kind(env)["broken_index"]
    assert broken["status"] == "acknowledged"
    assert broken["resolution"]["reason"] == "the link is fixed upstream"  # type: ignore[index]
    assert by_kind(env)["date_decayed"]["status"] == "open"
    log = [json.loads(line) for line in env.events_log.read_text().splitlines()]
    assert log[-1]["event_type"] == "curator.finding.acknowledged"


def test_prune_of_an_index_finding_is_refused(env: Env) -> None:
    env.hook()
    code, out = review(env, "p\nq\n")
    assert code == 0
    assert "not done: this finding is not about one memory file" in out
    assert (env.store / "MEMORY.md").read_text().count("\n") == 3


def test_changes_fail_closed_when_the_file_changed(tmp_path: Path) -> None:
    store = write_files(tmp_path / "memory", {"MEMORY.md": "- [A](a.md)\n", "a.md": memory()})
    project = ProjectDir(tmp_path / "state")
    shown = sha256_bytes((store / "a.md").read_bytes())
    (store / "a.md").write_text(memory("Changed meanwhile.\n"))
    with pytest.raises(StaleFile):
        prune(project, store, "a.md", shown)
    with pytest.raises(StaleFile):
        set_type(project, store, "a.md", shown, "user")
    assert (store / "a.md").read_text() == memory("Changed meanwhile.\n")
    assert not (tmp_path / "state").exists()
    with pytest.raises(UserError):
        prune(project, store, "../outside.md", None)
    (store / "a.md").unlink()
    with pytest.raises(StaleFile, match="no longer exists"):
        prune(project, store, "a.md", shown)


def test_reclassify_nested_metadata_type(tmp_path: Path) -> None:
    text = "---\nname: a\nmetadata:\n  type: project\n  node_type: memory\n---\nBody.\n"
    store = write_files(tmp_path / "memory", {"a.md": text})
    project = ProjectDir(tmp_path / "state")
    set_type(project, store, "a.md", sha256_bytes(text.encode()), "feedback")
    assert (store / "a.md").read_text() == text.replace("  type: project", "  type: feedback")


def test_answers_that_run_out_stop_the_review_with_a_line_not_aborted(env: Env) -> None:
    env.hook()
    run = env._run("review", cwd=env.repo, env=env.env(), input="d\n")
    assert run.code == 1
    assert "Aborted!" not in run.stderr
    assert run.stderr.endswith(
        "\ncurator: review stopped: no more input; 1 deferred; 1 finding(s) left as they were.\n"
    )
    assert all(f["status"] == "open" for f in env.findings())
