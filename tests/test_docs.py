"""The docs show what the commands print: README's "Try it" and the docs/ examples that
need no network are run as written, and their output compared with what the docs show
(line for line where the output is stable; a `...` line in a doc stands for lines left
out). A doc that drifts from the code fails here."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import CHECKOUT, Run, memory, write_files

README = CHECKOUT / "README.md"
DOCS = CHECKOUT / "docs"


def block_after(path: Path, marker: str) -> list[str]:
    """The lines of the first fenced block after `marker` in a doc."""
    text = path.read_text(encoding="utf-8")
    start = text.index(marker)
    opening = text.index("```", start)
    body = text.index("\n", opening) + 1
    return text[body : text.index("```", body)].rstrip("\n").split("\n")


def assert_shows(shown: list[str], printed: str) -> None:
    """Every run of lines the doc shows is printed, in that order; `...` skips lines."""
    lines = printed.rstrip("\n").split("\n")
    at = 0
    chunks: list[list[str]] = [[]]
    for line in shown:
        if line == "...":
            chunks.append([])
        else:
            chunks[-1].append(line)
    for chunk in filter(None, chunks):
        size = len(chunk)
        found = next(
            (i for i in range(at, len(lines) - size + 1) if lines[i : i + size] == chunk), None
        )
        assert found is not None, f"not printed as the doc shows:\n{chunk}\n--- printed:\n{printed}"
        at = found + size
    if shown[-1] != "...":
        assert lines[-1] == shown[-1]


def curator_args(command: str) -> list[str]:
    """The arguments of the `curator` (or `.venv/bin/curator`) command in a shell line."""
    words = shlex.split(command.split("&&")[-1])
    assert words[0].endswith("curator"), command
    return words[1:]


def test_readme_try_it(tmp_path: Path, run_curator: Callable[..., Run]) -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Try it") : text.index("## Develop")]
    command = next(line for line in section.splitlines() if "/curator lint" in line)
    demo = tmp_path / "examples" / "demo"
    shutil.copytree(CHECKOUT / "examples" / "demo", demo, ignore=shutil.ignore_patterns(".git"))
    subprocess.run([sys.executable, str(demo / "make_history.py")], check=True)
    run = run_curator(*curator_args(command), cwd=tmp_path)
    assert run.code == 1, run.stderr
    shown = block_after(README, "`--repo-root` points the path and symbol checks")
    assert_shows(shown, run.stdout)


def test_stores_a_folder_that_is_not_a_store(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    write_files(tmp_path / "docs", {"guide.md": "# Guide\n"})
    (line,) = block_after(DOCS / "stores.md", "command says the same and exits 2")
    run = run_curator("lint", "docs", cwd=tmp_path)
    assert (run.code, run.stderr) == (2, line + "\n")


def test_stores_all_verbose(tmp_path: Path, run_curator: Callable[..., Run]) -> None:
    shown = block_after(DOCS / "stores.md", "`--verbose` prints each folder it took")
    home = tmp_path / "home"
    dotfiles = home / "dotfiles"
    write_files(
        dotfiles / ".claude" / "memory", {"MEMORY.md": "- [A](a.md) — a\n", "a.md": memory()}
    )
    write_files(dotfiles / "memories", {"b.md": memory(name="b")})
    write_files(dotfiles / "agent" / "memory", {"2026-05-01.md": "Notes.\n"})
    write_files(dotfiles / "agent", {"MEMORY.md": "# Memory\n"})
    args = [a.replace("~", str(home)) for a in curator_args(shown[0].removeprefix("$ "))]
    run = run_curator(*args, cwd=dotfiles, env={"HOME": str(home)})
    assert run.code in (0, 1), run.stderr
    said = [ln for ln in run.stderr.splitlines() if ln.startswith("curator: store ")]
    assert said == shown[1:]


def test_ci_every_store_at_once(tmp_path: Path, run_curator: Callable[..., Run]) -> None:
    shown = block_after(DOCS / "ci.md", "The text formats\nprint a header line per store")
    dotfiles = tmp_path / "dotfiles"  # a dotfiles checkout, not this machine's config folder
    projects = dotfiles / "claude" / "projects"
    write_files(
        projects / "-home-me-work-api" / "memory",
        {"MEMORY.md": "# Memory\n- [Tests](feedback_test.md) — how we test\n"},
    )
    write_files(
        projects / "-home-me-notes" / "memory", {"MEMORY.md": "- [A](a.md) — a\n", "a.md": memory()}
    )
    run = run_curator("lint", "--all", "claude", "--output-format", "concise", cwd=dotfiles)
    assert run.code == 1, run.stderr
    assert run.stdout.rstrip("\n").split("\n") == shown


def test_llm_without_a_provider(tmp_path: Path, run_curator: Callable[..., Run]) -> None:
    text = (DOCS / "llm.md").read_text(encoding="utf-8")
    said = re.search(
        r"`curator lint --llm --select CUR4` says on stderr\n`(.+?)` and ends\n`(.+?)`,", text, re.S
    )
    assert said is not None
    note, summary = (" ".join(part.split()) for part in said.groups())
    write_files(tmp_path / "memory", {"MEMORY.md": "- [A](a.md) — a\n", "a.md": memory()})
    (tmp_path / "c.yaml").write_text(json.dumps({"llm": {"claude_command": "no-such-claude"}}))
    run = run_curator(
        "lint", "memory", "--llm", "--select", "CUR4", "--config", "c.yaml",
        cwd=tmp_path, env={"ANTHROPIC_API_KEY": ""},
    )  # fmt: skip
    assert run.code == 0
    assert f"{note}\n" in run.stderr
    assert run.stdout == summary + "\n"


def test_claude_code_hook_without_a_payload(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    text = (DOCS / "claude-code.md").read_text(encoding="utf-8")
    said = re.search(r"says so in one stderr line\n\(`(.+?)`\)", text, re.S)
    assert said is not None
    run = run_curator("hook", "session-start", input="", cwd=tmp_path)
    assert (run.code, run.stdout) == (0, "{}\n")
    assert run.stderr == " ".join(said.group(1).split()) + "\n"


def test_rules_detail_keys_section(run_curator: Callable[..., Run]) -> None:
    """docs/rules.md: `curator rule CODE` lists a rule's detail keys."""
    assert "`curator rule CODE` lists a rule's detail keys" in " ".join(
        (DOCS / "rules.md").read_text(encoding="utf-8").split()
    )
    run = run_curator("rule", "CUR101")
    assert "\n## Detail keys\n" in run.stdout
    assert "- `days_past`: " in run.stdout
