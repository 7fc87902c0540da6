"""`curator lint` without click (`cli.main` → `commands.argv` → `commands.lint_run`): the
same bytes, exit codes and errors as the same command line parsed by click, in real
processes, and click never loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import memory

# The command line through click alone, as before the plain path existed.
CLICK = (
    "import sys; from curator.cli import command_group; "
    "command_group().main(args=sys.argv[1:], prog_name='curator')"
)
# The command line as `curator` runs it, saying on stderr whether click was loaded.
PLAIN = (
    "import atexit, sys; "
    "atexit.register(lambda: sys.stderr.write('click loaded: %s\\n' % ('click' in sys.modules)));"
    "from curator.cli import main; main()"
)

STORE = {
    "MEMORY.md": "# Memory\n- [Gone](project_gone.md) — deleted\n- [Log](project_log.md)\n",
    "project_log.md": memory(
        "Merge freeze begins 2026-03-05, \x1b[31mred\x1b[0m on a terminal.\n",
        name="log",
    ),
    "feedback_orphan.md": memory("Prefer small PRs.\n", type="feedback"),
}


def _run(program: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "GITHUB_ACTIONS")}
    return subprocess.run(
        [sys.executable, "-c", program, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _both(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], str]:
    """The plain run, and what click loaded in it; the click run must match it exactly."""
    plain = _run(PLAIN, args, cwd)
    by_click = _run(CLICK, args, cwd)
    stderr, _, loaded = plain.stderr.rpartition("click loaded: ")
    assert (plain.returncode, plain.stdout, stderr) == (
        by_click.returncode,
        by_click.stdout,
        by_click.stderr,
    ), args
    return plain, loaded.strip()


@pytest.mark.parametrize(
    "extra",
    [
        ["--output-format", "json"],
        ["--output-format=full", "--no-color"],
        ["--output-format", "concise", "--exit-zero"],
        ["--output-format", "sarif", "--today", "2026-11-30"],
        ["--statistics", "--fail-on", "error"],
        ["--select", "CUR011,CUR010", "--output-format", "github", "-v"],
    ],
    ids=" ".join,
)
def test_plain_runs_say_what_click_runs_say(make_store, tmp_path, extra) -> None:
    make_store(STORE)
    plain, loaded = _both(["lint", "memory", *extra], tmp_path)
    assert loaded == "False"
    assert plain.returncode in (0, 1) and plain.stdout
    assert "\x1b" not in plain.stdout  # escapes from the memory never reach a pipe


def test_errors_read_the_same(make_store, tmp_path) -> None:
    make_store(STORE)
    (tmp_path / "empty").mkdir()
    plain, loaded = _both(["lint", "empty", "--output-format", "json"], tmp_path)
    assert loaded == "False"
    assert plain.returncode == 2
    assert "curator: error:" in plain.stderr and "Traceback" not in plain.stderr
    # A value click refuses is click's to report, with its usage line and exit code 2.
    plain, loaded = _both(["lint", "memory", "--output-format", "yaml"], tmp_path)
    assert loaded == "True" and plain.returncode == 2
    assert "Invalid value for '--output-format'" in plain.stderr


def test_report_written_to_a_file(make_store, tmp_path) -> None:
    make_store(STORE)
    _both(["lint", "memory", "-o", "out.json", "--output-format", "json"], tmp_path)
    written = (tmp_path / "out.json").read_text(encoding="utf-8")
    assert '"code": "CUR010"' in written


def test_a_closed_pipe_ends_quietly(make_store, tmp_path) -> None:
    """`curator lint | head -1`: exit 1 as click's main would, no traceback."""
    files = {"MEMORY.md": "# Memory\n"}
    for i in range(400):  # far more output than a pipe holds
        files[f"note_{i:03}.md"] = "no frontmatter here, line one\n" * 3
    make_store(files)
    proc = subprocess.Popen(
        [sys.executable, "-m", "curator", "lint", "memory", "--output-format", "full"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr
