"""Shared fixtures: memory stores written in the test, real git repos, the real CLI."""

from __future__ import annotations

import compileall
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from curator import clock
from tests.helpers import forkserver

CHECKOUT = Path(__file__).resolve().parents[1]

# Bytecode caches are kept even under PYTHONDONTWRITEBYTECODE: every test worker would
# otherwise compile (and pytest rewrite) each test module again on every run, and every
# curator process the suite starts compile curator's modules again (pytest_configure).
sys.dont_write_bytecode = False

# Caches shared by test runs (the pinned Claude Code CLI) stay in the real home: each
# test below gets a HOME of its own.
os.environ.setdefault("CURATOR_TEST_CACHE", str(Path.home() / ".cache" / "curator-tests"))

FM = "---\nname: {name}\ndescription: {description}\ntype: {type}\n---\n"


def memory(
    body: str = "Body.\n",
    *,
    name: str = "m",
    type: str = "project",
    description: str = "a memory",
    extra: str = "",
) -> str:
    """The text of a memory file with flat frontmatter."""
    head = FM.format(name=name, description=description, type=type)
    if extra:
        head = head[:-4] + extra.rstrip("\n") + "\n---\n"
    return head + body


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def locate(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """(line, column) of the nth occurrence of needle in text, 1-based."""
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def found(run: Run, code: str = "CUR201") -> list[tuple[str, int, int, str]]:
    assert run.code in (0, 1), run.stderr
    return sorted(
        (
            Path(d["filename"]).name,
            d["location"]["row"],
            d["location"]["column"],
            d["detail"].get("path") or d["detail"].get("symbol"),
        )
        for d in run.json()
        if d["code"] == code
    )


@pytest.fixture
def make_store(tmp_path: Path) -> Callable[..., Path]:
    """make_store({"MEMORY.md": ..., "a.md": ...}) -> the store folder."""

    def make(files: dict[str, str | bytes], name: str = "memory") -> Path:
        return write_files(tmp_path / name, files)

    return make


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    out = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return out.stdout


def snapshot_checkout(dest: Path) -> str:
    """This checkout's working tree (committed or not) as a one-commit repository.

    pre-commit installs a hook repository at a commit, so the files under test must be
    committed somewhere; a snapshot keeps the real checkout untouched.
    """
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for rel in filter(None, listed.split("\0")):
        source = CHECKOUT / rel
        if source.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / rel)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "snapshot")
    return git(dest, "rev-parse", "HEAD").strip()


@pytest.fixture
def git_repo(tmp_path: Path) -> Callable[..., Path]:
    """git_repo({"src/a.py": ...}) -> a real repository with those files committed."""

    def make(files: dict[str, str], name: str = "repo") -> Path:
        root = write_files(tmp_path / name, files)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "init", "--allow-empty")
        return root.resolve()

    return make


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


@pytest.fixture
def run_curator(tmp_path: Path) -> Callable[..., Run]:
    """Run the real `curator` command in a process of its own, as a user would (forked
    from a warm interpreter: tests/helpers/forkserver.py)."""

    def run(
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        input: str | None = None,
    ) -> Run:
        drop = ("GITHUB_ACTIONS", "NO_COLOR", "ONLOOKER_EVENTS_LOG", "CURATOR_NESTED")
        base = {k: v for k, v in os.environ.items() if k not in drop}
        base["ONLOOKER_DIR"] = str(tmp_path / "onlooker")
        base.setdefault("HOME", str(tmp_path / "home"))
        base["CLAUDE_CONFIG_DIR"] = base.get("CLAUDE_CONFIG_DIR_TEST", str(tmp_path / "claude"))
        base["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
        out = forkserver.run(
            args, cwd=cwd or tmp_path, env={**base, **(env or {})}, input=input, timeout=120
        )
        return Run(out.returncode, out.stdout, out.stderr)

    return run


def lint_json(run: Callable[..., Run], target: Path, select: str, *extra: str, **kw: Any) -> Run:
    """`curator lint TARGET --output-format json --select SELECT ...` through `run_curator`."""
    return run("lint", str(target), "--output-format", "json", "--select", select, *extra, **kw)


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """No test reads or writes the real ~/.claude, ~/.onlooker or ~/.config, nor shares a
    HOME with a test running beside it (pytest-xdist)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # made by the tests that need it
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("ONLOOKER_DIR", str(tmp_path / "onlooker"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in (
        "ONLOOKER_EVENTS_LOG",
        "CURATOR_NESTED",
        "GITHUB_ACTIONS",
        "NO_COLOR",
        "CURATOR_TODAY",
    ):
        monkeypatch.delenv(name, raising=False)
    yield
    clock.set_today(None)


# pytest-xdist hands a whole file to a worker (`--dist loadfile`), in collection order
# (`--no-loadscope-reorder`): the costliest files go first, so that none of them is left
# running alone at the end while the other workers idle. A hint for speed only: the files
# not named here follow in their usual order.
SLOW_FIRST = (
    "tests/session/test_hook_quick.py",
    "tests/fixes/test_apply_safety.py",
    "tests/llm/test_claude_cli.py",
    "tests/test_ci_workflow.py",
    "tests/test_git_safety_programs.py",
    "tests/test_git_safety_filters.py",
    "tests/session/test_hook_quick_variables.py",
    "tests/test_git_safety.py",
    "tests/llm/test_sweep.py",
    "tests/test_action.py",
    "tests/interpreter/test_rulebook.py",
    "tests/session/test_hook_deadline.py",
    "tests/session/test_hook.py",
    "tests/test_pre_commit.py",
    "tests/interpreter/test_rulebook_cache.py",
    "tests/findings/test_findings.py",
    "tests/llm/test_scan.py",
    "tests/session/test_ecosystem.py",
    "tests/interpreter/checks/test_paths.py",
    "tests/fixes/test_fix.py",
    "tests/plugin/test_launcher.py",
    "tests/interpreter/checks/test_dates.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: n for n, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Two workers a core for `-n auto`: a test waits much of its time (on a curator
    process, a fake server, a deadline), and a second worker fills the core meanwhile."""
    usable = getattr(os, "sched_getaffinity", None)  # Linux: the cores this process may use
    return 2 * (len(usable(0)) if usable else os.cpu_count() or 1)


def pytest_configure(config: pytest.Config) -> None:
    compileall.compile_dir(CHECKOUT / "curator", quiet=1)
    sockets = getattr(config, "workerinput", {}).get("forkservers")
    if sockets:
        forkserver.use(sockets)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist's controller: one set of fork servers for all its workers."""
    node.workerinput["forkservers"] = forkserver.share()


def pytest_sessionfinish(session: pytest.Session) -> None:
    forkserver.close()
