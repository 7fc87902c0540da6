"""The project is not trusted: no program a repository's git configuration names runs
when curator runs git there, and no git call outlives its bound (issue #26, item 1).

Each knob is planted in a real repository with a command that leaves a marker file;
every command that runs git (`lint`, `fix`, `fix --apply`, `scan`, `history`, the
session-start hook) then runs as a real subprocess, after every tracked file's stat
data changed (so `git status` would consult the filters), and no marker may appear.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run, memory, write_files
from tests.helpers import history_repo
from tests.helpers.hook_env import CHEAP, INDEX, Env, make_env
from tests.helpers.hostile import assert_clean

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX")

STALE = memory("Replays run through `scripts/ingest.py`.\n", name="ingest")
HOOKS = [
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
    "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout",
    "post-merge", "pre-push", "pre-receive", "update", "proc-receive", "post-receive",
    "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc",
    "post-rewrite", "sendemail-validate", "fsmonitor-watchman", "post-index-change",
]  # fmt: skip


def _script(path: Path, marker: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\nexit 1\n", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def _config(repo: Path, *pairs: str) -> None:
    for key, value in zip(pairs[::2], pairs[1::2], strict=True):
        history_repo.git(repo, "config", key, value)


def _signed_head(repo: Path) -> None:
    """HEAD becomes a commit carrying a (bogus) signature: with `log.showSignature` on,
    `git log` hands it to `gpg.program`."""
    tree = history_repo.git(repo, "rev-parse", "HEAD^{tree}").strip()
    parent = history_repo.git(repo, "rev-parse", "HEAD").strip()
    text = (
        f"tree {tree}\nparent {parent}\n"
        "author t <t@example.com> 1775044800 +0000\ncommitter t <t@example.com> 1775044800 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n"
        "\nsigned\n"
    )
    made = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=repo,
                          input=text, capture_output=True, text=True, check=True)  # fmt: skip
    history_repo.git(repo, "update-ref", "HEAD", made.stdout.strip())


def _plant(knob: str, repo: Path, mark: Path) -> None:
    """Plant `knob` in the repository's own configuration; running it touches `mark`."""
    touch = f"touch {shlex.quote(str(mark))}"
    if knob == "fsmonitor":
        _config(repo, "core.fsmonitor", f"{touch}; true")
    elif knob == "filter-clean":
        _config(repo, "filter.evil.clean", f"{touch}; cat")
    elif knob == "filter-smudge":
        _config(repo, "filter.evil.smudge", f"{touch}; cat")
    elif knob == "filter-process":
        _config(repo, "filter.evil.process", touch, "filter.evil.required", "true")
    elif knob == "textconv":
        _config(repo, "diff.evil.textconv", f"{touch}; cat")
    elif knob == "external-diff":
        _config(repo, "diff.external", f"{touch}; true", "diff.evil.command", f"{touch}; true")
    elif knob == "pager":
        _config(repo, "core.pager", f"{touch}; cat", "pager.log", f"{touch}; cat",
                "pager.status", f"{touch}; cat")  # fmt: skip
    elif knob == "hooks":
        for name in HOOKS:
            _script(repo / ".git" / "hooks" / name, mark)
            _script(repo / "evil-hooks" / name, mark)
        _config(repo, "core.hooksPath", str(repo / "evil-hooks"))
    elif knob == "alias":
        for name in ("status", "log", "rev-parse", "ls-files", "config", "add", "commit"):
            _config(repo, f"alias.{name}", f"!{touch}")
    elif knob == "gpg":
        _signed_head(repo)
        gpg = _script(repo.parent / "gpg" / "gpg", mark)
        _config(repo, "log.showSignature", "true", "gpg.program", gpg, "gpg.ssh.program", gpg)
    else:
        raise AssertionError(knob)


# What makes git run a program on its own: filters and the like on the files it reads...
FILTER_KNOBS = ["fsmonitor", "filter-clean", "filter-smudge", "filter-process", "textconv"]
# ... and the programs it starts around a command.
PROGRAM_KNOBS = ["external-diff", "pager", "hooks", "alias", "gpg"]
COMMANDS = ["lint", "fix", "fix --apply", "scan", "history", "hook"]


def _project(tmp_path: Path, run_curator: Callable[..., Run]) -> Env:
    """A repository whose every file names the filter and diff driver `evil`, with a
    deleted file a memory still names (so the history index is built with `git log -p`),
    and its Claude Code store: a broken index link, a decayed date, the stale path."""
    repo = tmp_path / "repo"
    files = {".gitattributes": "* filter=evil diff=evil\n", "src/app.py": "x = 1\n",
             "scripts/ingest.py": "def ingest():\n    pass\n"}  # fmt: skip
    history_repo.commit(repo, "init", "2026-01-10", files=files)
    history_repo.commit(repo, "drop the old ingest", "2026-03-02", delete=("scripts/ingest.py",))
    env = make_env(tmp_path, repo.resolve(), run_curator)
    write_files(env.store, {"ingest.md": STALE, "MEMORY.md": INDEX + "- [Ingest](ingest.md) — r\n"})
    env.config(CHEAP + "llm:\n  enabled: false\n")
    return env


def _restat(repo: Path) -> None:
    """Every tracked file's stat data changes: `git status` must look at the content."""
    later = time.time() + 3600
    for path in [repo / ".gitattributes", repo / "src" / "app.py"]:
        os.utime(path, (later, later))


def _wait_for_background(env: Env) -> None:
    """The hook starts `curator history` detached: wait (bounded) until it is done."""
    cache = env.onlooker / "curator" / "cache" / "history"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if list(cache.glob("*.sqlite")) and not list(cache.glob("*.building")):
            return
        time.sleep(0.2)


def _run(env: Env, command: str) -> Run:
    """Run `command`; assert it did the git work it exists for (so that an empty run
    cannot pass for a safe one)."""
    if command == "hook":
        run = env.hook()
        assert_clean(run, codes=(0,))
        assert "open findings" in run.json()["hookSpecificOutput"]["additionalContext"]
        _wait_for_background(env)
        return run
    if command == "fix --apply":
        assert env.curator("fix").code == 1
        run = env.curator("fix", "--apply")
        assert_clean(run, codes=(0,))
        assert "remove MEMORY.md line 3 (missing file)" in run.stdout
        return run
    if command == "fix":
        run = env.curator("fix")
        assert_clean(run, codes=(1,))
        assert "-- [Gone](gone.md) — removed" in run.stdout
        return run
    if command == "scan":
        run = env.curator("scan", "--output-format", "json")
        assert_clean(run, codes=(0, 1))
        assert run.json()[0]["findings_open"] >= 2
        return run
    if command == "history":
        run = env.curator("history")
        assert_clean(run, codes=(0,))
        assert " 2 commits" in run.stdout or " 3 commits" in run.stdout, run.stdout
        return run
    run = env.curator("lint", "--output-format", "json")
    assert_clean(run, codes=(1,))
    codes = {d["code"] for d in run.json()}
    assert "CUR201" in codes, run.stderr  # the stale path: history was read
    return run


def no_program_runs(
    knob: str, command: str, tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    """`knob` planted, `command` runs, and the program the knob names never does. The
    knobs are tested in test_git_safety_filters.py and test_git_safety_programs.py (two
    files, so that two test workers share them)."""
    env = _project(tmp_path, run_curator)
    marks = tmp_path / "marks"
    marks.mkdir()
    _plant(knob, env.repo, marks / knob)
    _restat(env.repo)
    _run(env, command)
    assert sorted(p.name for p in marks.iterdir()) == []


def test_git_never_takes_the_index_lock(tmp_path: Path, run_curator: Callable[..., Run]) -> None:
    """Files whose stat data changed make `git status` refresh and rewrite the index
    when it may (taking `index.lock` from under the user's own git): curator's never do."""
    env = _project(tmp_path, run_curator)
    _restat(env.repo)
    index = env.repo / ".git" / "index"
    before = index.stat()
    for command in ("lint", "hook", "scan"):
        _run(env, command)
    after = index.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (
        before.st_ino,
        before.st_mtime_ns,
        before.st_size,
    )


def test_a_filter_that_never_answers_cannot_hold_lint(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    """A `process` filter that never answers (and a clean one that never ends): `lint`
    finishes, and the filters never started."""
    env = _project(tmp_path, run_curator)
    marks = tmp_path / "marks"
    marks.mkdir()
    never = f"touch {marks / 'started'}; sleep 1000"
    _config(env.repo, "filter.evil.process", never, "filter.evil.clean", never,
            "filter.evil.required", "true")  # fmt: skip
    _restat(env.repo)
    run = env._run("lint", cwd=env.repo, env=env.env(CURATOR_GIT_TIMEOUT="5"))
    assert_clean(run, codes=(1,))
    assert "history unavailable" not in run.stderr
    assert list(marks.iterdir()) == []


def _release(fifo: Path) -> None:
    """Let whatever still waits to read `fifo` go (a writer opens it, then closes)."""
    for _ in range(50):
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            return


def test_a_git_that_never_answers_is_killed_at_the_bound(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    """A `.gitattributes` that is a FIFO: `git status` and `git log -p` wait on it
    forever, whatever is switched off. `lint` and `history` kill them at the bound
    (`CURATOR_GIT_TIMEOUT`) and say history is unavailable; the hook still answers."""
    env = _project(tmp_path, run_curator)
    fifo = env.repo / ".gitattributes"
    fifo.unlink()
    os.mkfifo(fifo)
    _restat(env.repo)
    bound = env.env(CURATOR_GIT_TIMEOUT="2")
    try:
        lint = env._run("lint", cwd=env.repo, env=bound)
        history = env._run("history", cwd=env.repo, env=bound)
        hook = env._run("hook", "session-start", cwd=env.repo, env=bound,
                        input=json.dumps({"session_id": "s", "cwd": str(env.repo)}))  # fmt: skip
    finally:
        _release(fifo)
    assert_clean(lint, codes=(1,))
    assert f"history unavailable for {env.repo}: git " in lint.stderr, lint.stderr
    assert "did not answer within 2 s (killed)" in lint.stderr
    assert "CUR201" not in lint.stdout  # no history, no stale path
    assert history.code == 2
    assert f"curator: error: {env.repo}: history unavailable: git " in history.stderr
    assert_clean(hook, codes=(0,))
    assert "open findings" in hook.json()["hookSpecificOutput"]["additionalContext"]


def test_a_fifo_in_place_of_a_tracked_file_is_never_read(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    """`git status` reports it changed (a type change); curator hashes what changed, and
    must not open a FIFO for reading (it would wait forever)."""
    env = _project(tmp_path, run_curator)
    fifo = env.repo / "src" / "app.py"
    fifo.unlink()
    os.mkfifo(fifo)
    try:
        lint = env._run("lint", "--output-format", "json", cwd=env.repo,
                        env=env.env(CURATOR_GIT_TIMEOUT="5"))  # fmt: skip
    finally:
        _release(fifo)
    assert_clean(lint, codes=(1,))
    assert "CUR201" in {d["code"] for d in json.loads(lint.stdout)}
    assert "history unavailable" not in lint.stderr


def _in(folder: Path) -> list[str]:
    """The processes whose working folder is `folder` (git runs with `-C` there)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.readlink(entry / "cwd") == str(folder):
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc")
def test_the_hooks_hard_limit_kills_its_git_calls(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    """git runs in a process group of its own (so that its timeout kills what it
    started); the hook's background child, killed at `cheap.background_limit_seconds`,
    must take a git call that never answers with it."""
    env = _project(tmp_path, run_curator)
    fifo = env.repo / ".gitattributes"
    fifo.unlink()
    os.mkfifo(fifo)
    _restat(env.repo)
    env.config(
        "cheap:\n  skip_if_session_age_under_seconds: 0\n  hook_timeout_ms: 1000\n"
        "  background_limit_seconds: 2\n"
    )
    try:
        run = env.hook()
        assert_clean(run, codes=(0,))
        deadline = time.monotonic() + 30
        while _in(env.repo) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = _in(env.repo)
    finally:
        _release(fifo)
    assert left == []


def test_a_filter_driver_git_cannot_be_told_to_skip_refuses_the_call(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    """`-c filter.a=b.clean=` sets `filter.a` (git splits at the first `=`): a driver
    named so cannot be emptied, so the calls that could run it are not made."""
    env = _project(tmp_path, run_curator)
    marks = tmp_path / "marks"
    marks.mkdir()
    (env.repo / ".gitattributes").write_text("* filter=ev=il\n", encoding="utf-8")
    _config(env.repo, "filter.ev=il.clean", f"touch {marks / 'clean'}; cat")
    _restat(env.repo)
    lint = env.curator("lint", "--output-format", "json")
    assert_clean(lint, codes=(1,))
    assert list(marks.iterdir()) == []
    assert (
        f"curator: history unavailable for {env.repo}: a filter driver's name holds '=', "
        "so git cannot be told to skip it\n"
    ) in lint.stderr
