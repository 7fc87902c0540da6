"""The session-start caches (curator/interpreter/run_cache.py) as the hook uses them: a
cached result is reused only while what it was computed from is unchanged."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run, memory
from tests.helpers.hook_env import Env, make_env


@pytest.fixture
def env(tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]) -> Env:
    return make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)


@pytest.mark.parametrize(
    ("edited", "same_size"),
    [("Merge freeze closed 2026-03-05.\n", True), ("Merge freeze closed on 2026-03-05.\n", False)],
    ids=["same-size", "other-size"],
)
def test_a_memory_edited_under_the_same_mtime_is_linted_afresh(
    env: Env, edited: str, same_size: bool
) -> None:
    """Tools that keep mtimes (cp -p, rsync -t, tar, a restored backup) must not hide an edit."""
    freeze = env.store / "freeze.md"
    first = env.hook()
    assert first.code == 0, first.stderr
    assert {f["kind"]: f["status"] for f in env.findings()} == {
        "broken_index": "open",
        "date_decayed": "open",
    }

    before = freeze.stat()
    freeze.write_text(memory(edited, name="freeze"), encoding="utf-8")
    os.utime(freeze, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = freeze.stat()
    assert after.st_mtime_ns == before.st_mtime_ns
    assert (after.st_size == before.st_size) is same_size

    second = env.hook()
    assert second.code == 0, second.stderr
    assert {f["kind"]: f["status"] for f in env.findings()} == {
        "broken_index": "open",
        "date_decayed": "resolved",  # the freeze is history now
    }


def test_a_relinked_symlink_is_read_afresh_by_the_hook(env: Env) -> None:
    """Links to a missing file, then to each other: the hook's signature and results are
    keyed on what the links lead to, not on the links' own stat."""
    for name in ("a.md", "b.md"):
        (env.store / name).symlink_to("missing.md")

    def unreadable() -> list[str]:
        run = env.hook()
        assert run.code == 0, run.stderr
        found = env.findings()
        return sorted(
            f["message"] for f in found if f["code"] == "CUR004" and f["status"] == "open"
        )

    assert (
        unreadable()
        == ["Cannot read memory file: symlink leads nowhere: No such file or directory"] * 2
    )
    for name, other in (("a.md", "b.md"), ("b.md", "a.md")):
        (env.store / name).unlink()
        (env.store / name).symlink_to(other)
    assert unreadable() == ["Cannot read memory file: symlink loop; not read"] * 2
