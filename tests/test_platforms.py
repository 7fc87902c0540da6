"""Where POSIX is missing (native Windows): `curator lint` and the Action's path import
nothing POSIX-only, and the session-start hook without fork answers at once from the
stored findings, scans in a detached process, says so once on stderr and exits 0.

The platform is made here, on Linux: a `sitecustomize` every curator process (and the
detached one it starts) loads first deletes `os.fork`, `os.setsid`, `os.killpg`,
`os.O_NOFOLLOW` and the like, and refuses to import fcntl, resource and termios, writing
each refused name to a file; a stub `msvcrt` stands in for Windows' and records its
locks, so the test sees the lock go through the one lock function's Windows branch.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.helpers.hook_env import CHEAP, POINTER, Env, make_env

REMOVED = (
    "fork",
    "forkpty",
    "setsid",
    "killpg",
    "getpgid",
    "pread",  # (not WNOHANG: the POSIX subprocess module this test keeps needs it)
    "O_NOFOLLOW",
    "O_NONBLOCK",
    "O_DIRECTORY",
)
BLOCKED = ("fcntl", "resource", "termios", "pty", "tty", "grp", "pwd")

SITECUSTOMIZE = f"""
import importlib.abc, os, subprocess, sys, types

for name in {REMOVED!r}:
    if hasattr(os, name):
        delattr(os, name)


class _NotHere(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in {BLOCKED!r}:
            with open(os.environ["NO_POSIX_LOG"], "a") as log:
                log.write(name + "\\n")
            raise ImportError(name + " is not on this platform")
        return None


sys.meta_path.insert(0, _NotHere())
for name in {BLOCKED!r}:
    sys.modules.pop(name, None)


# Windows' msvcrt, only its lock; subprocess (imported above) took its absence as POSIX.
def _locking(fd, mode, nbytes):
    with open(os.environ["NO_POSIX_LOG"], "a") as log:
        log.write("msvcrt.locking\\n")


msvcrt = types.ModuleType("msvcrt")
msvcrt.LK_UNLCK, msvcrt.LK_LOCK, msvcrt.LK_NBLCK = 0, 1, 2
msvcrt.locking = _locking
sys.modules["msvcrt"] = msvcrt
"""


def no_posix(tmp_path: Path) -> dict[str, str]:
    """The environment that makes a curator process see no POSIX."""
    folder = tmp_path / "no-posix"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    log = tmp_path / "no-posix.log"
    log.write_text("", encoding="utf-8")
    return {"PYTHONPATH": str(folder), "NO_POSIX_LOG": str(log)}


def attempts(tmp_path: Path) -> list[str]:
    return (tmp_path / "no-posix.log").read_text(encoding="utf-8").splitlines()


@pytest.fixture
def env(tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]) -> Env:
    return make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)


@pytest.mark.parametrize(
    "args",
    [
        ("--output-format", "json"),
        ("--all", "--output-format", "github"),
        ("--all", "--output-format", "sarif", "--exit-zero"),
    ],
    ids=["json", "action-github", "action-sarif"],
)
def test_lint_and_the_action_path_import_nothing_posix_only(
    env: Env, tmp_path: Path, run_curator: Callable[..., Run], args: tuple[str, ...]
) -> None:
    target = str(env.store) if args[0] != "--all" else str(env.tmp / "claude")
    plain = run_curator("lint", target, *args, cwd=env.repo, env=env.env())
    bare = run_curator("lint", target, *args, cwd=env.repo, env=env.env(**no_posix(tmp_path)))
    assert plain.code in (0, 1), plain.stderr
    assert plain.stdout.strip()
    assert (bare.code, bare.stdout, bare.stderr) == (plain.code, plain.stdout, plain.stderr)
    assert attempts(tmp_path) == []


def wait_for(found: Callable[[], bool], seconds: float = 60.0) -> bool:
    """Poll until `found()` (a detached process's work shows), at most `seconds`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if found():
            return True
        time.sleep(0.1)
    return found()


def test_the_hook_without_fork_answers_from_stored_findings_and_scans_detached(
    env: Env, tmp_path: Path
) -> None:
    env.config(CHEAP)
    blocked = no_posix(tmp_path)

    first = env.hook(**blocked)
    # Nothing is stored yet: an empty answer now; the scan runs on in its own process.
    assert (first.code, first.stdout) == (0, "{}\n")
    assert first.stderr == (
        "curator: hook: no fork on this platform: answered from the stored findings; "
        "the scan runs in a detached process\n"
    )
    assert wait_for(lambda: len(env.findings()) == 2), env.events()
    assert wait_for(lambda: scans_complete(env) == 1)

    second = env.hook(**blocked)
    assert second.code == 0
    answer = json.loads(second.stdout)
    assert answer["hookSpecificOutput"]["additionalContext"] == POINTER
    assert second.stderr == first.stderr  # said once a run
    # Locks went through msvcrt's stand-in; nothing POSIX-only but it was tried.
    assert "msvcrt.locking" in attempts(tmp_path)
    assert set(attempts(tmp_path)) <= {"msvcrt.locking", "fcntl"}
    assert wait_for(lambda: scans_complete(env) == 2)  # the second one's detached scan


def scans_complete(env: Env) -> int:
    return sum(e["event_type"] == "curator.scan.complete" for e in env.events())
