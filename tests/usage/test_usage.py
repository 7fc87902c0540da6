"""CUR301/CUR300 end to end: a fake `<config>/projects/` tree, a real repository with a real
worktree, and the real `curator lint` reading the transcripts and the event log."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from curator.store.discovery import project_slug
from tests.conftest import git, memory, write_files
from tests.helpers.hostile import assert_clean
from tests.helpers.transcript_fixtures import (
    tool_result_line,
    tool_use_line,
    user_line,
    write_transcript,
)

TODAY = "2026-06-01"
RECENT = "2026-05-25T10:00:00.000Z"
OLD = "2026-03-01T10:00:00.000Z"  # before the 30-day window
MEMORIES = [
    "read_main",
    "read_worktree",
    "edited_in_subfolder",
    "read_by_sibling",
    "read_long_ago",
    "read_via_other_root",
    "never",
]


def old(name: str) -> str:
    return memory(f"About {name}.\n", name=name, extra="modified: 2026-01-10")


@pytest.fixture
def project(tmp_path: Path, git_repo):
    """A repository, a worktree of it, its store in `<config>/projects/<slug>/memory`."""
    repo = git_repo({"README.md": "hi\n", "src/app.py": "x = 1\n"})
    worktree = (tmp_path / "wt-feature").resolve()
    git(repo, "worktree", "add", "-q", str(worktree), "-b", "feature")
    config = tmp_path / "claude"
    projects = config / "projects"
    store = projects / project_slug(repo) / "memory"
    files = {f"{name}.md": old(name) for name in MEMORIES}
    files["young.md"] = memory("New.\n", name="young", extra="modified: 2026-05-28")
    files["MEMORY.md"] = "".join(f"- [{n}]({n}.md) — hook\n" for n in [*MEMORIES, "young"])
    write_files(store, files)
    return repo, worktree, projects, store


def lint(run_curator, repo: Path, tmp_path: Path, *extra: str, env: dict[str, str] | None = None):
    result = run_curator(
        "lint",
        "--select",
        "CUR3",
        "--output-format",
        "json",
        "--today",
        TODAY,
        *extra,
        cwd=repo,
        env={"ONLOOKER_DIR": str(tmp_path / "onlooker"), **(env or {})},
    )
    assert result.code in (0, 1), result.stderr
    return result


def reported(result) -> dict[str, list[str]]:
    by_code: dict[str, list[str]] = {}
    for d in result.json():
        by_code.setdefault(d["code"], []).append(Path(d["filename"]).name)
    return {code: sorted(names) for code, names in by_code.items()}


def test_transcripts_of_every_checkout_count(project, tmp_path, run_curator):
    repo, worktree, projects, store = project
    main = projects / project_slug(repo)
    write_transcript(
        main,
        [
            user_line(str(repo), RECENT, "what did we decide?"),
            tool_use_line(str(repo), RECENT, "Read", str(store / "read_main.md")),
            tool_result_line(str(repo), RECENT, "     1→---"),
            "{this is not json",
            tool_use_line(str(repo), OLD, "Read", str(store / "read_long_ago.md")),
            # torn mid-write: a tool-use line without its closing brace
            tool_use_line(str(repo), RECENT, "Read", str(store / "never.md"))[:-1],
        ],
    )
    # A worktree session: another path, so another slug folder.
    write_transcript(
        projects / project_slug(worktree),
        [tool_use_line(str(worktree), RECENT, "Read", str(store / "read_worktree.md"))],
    )
    # A session started in a subfolder: the root's slug plus `-src`.
    sub = repo / "src"
    write_transcript(
        projects / project_slug(sub),
        [tool_use_line(str(sub), RECENT, "Edit", str(store / "edited_in_subfolder.md"))],
    )
    # A sibling project whose slug happens to extend ours: not this repository.
    sibling = Path(str(repo) + "-old")
    write_transcript(
        projects / project_slug(sibling),
        [tool_use_line(str(sibling), RECENT, "Read", str(store / "read_by_sibling.md"))],
    )
    # The same store reached through another config root (a moved home folder).
    other_root = f"/home/someone/.claude/projects/{store.parent.name}/memory/read_via_other_root.md"
    write_transcript(main, [tool_use_line(str(repo), RECENT, "Read", other_root)])

    result = lint(run_curator, repo, tmp_path)

    assert reported(result) == {
        "CUR301": ["never.md", "read_by_sibling.md", "read_long_ago.md"],
    }
    first = next(d for d in result.json() if d["code"] == "CUR301")
    assert first["severity"] == "info"
    assert first["fix"] is None
    assert first["location"] == {"row": 1, "column": 1}
    assert first["detail"]["sources"] == "transcripts"
    assert "in the last 30 days (written 2026-01-10" in first["message"]
    assert "2 malformed transcript or event-log line(s) skipped" in result.stderr


def test_window_from_config_and_from_rule_params(project, tmp_path, run_curator):
    repo, _, projects, store = project
    write_transcript(
        projects / project_slug(repo),
        [tool_use_line(str(repo), OLD, "Read", str(store / "read_long_ago.md"))],
    )
    wide = tmp_path / "wide.yaml"
    wide.write_text("usage: {window_days: 120}\n", encoding="utf-8")
    result = lint(run_curator, repo, tmp_path, "--config", str(wide))
    assert "read_long_ago.md" not in reported(result)["CUR301"]
    assert "never.md" in reported(result)["CUR301"]

    narrow = tmp_path / "narrow.yaml"
    narrow.write_text(
        "usage: {window_days: 120}\nrules: {CUR301: {params: {window_days: 30}}}\n",
        encoding="utf-8",
    )
    result = lint(run_curator, repo, tmp_path, "--config", str(narrow))
    assert "read_long_ago.md" in reported(result)["CUR301"]


def test_event_log_tail_counts_recalled_and_referenced(project, tmp_path, run_curator):
    repo, _, _, store = project
    log = tmp_path / "onlooker" / "logs" / "onlooker-events.jsonl"
    log.parent.mkdir(parents=True)

    def event(kind: str, stamp: str, payload: dict) -> str:
        return json.dumps(
            {
                "id": "01J",
                "schema_version": 1,
                "runtime": "claude-code",
                "plugin": "librarian",
                "timestamp": stamp,
                "session_id": "s1",
                "event_type": kind,
                "payload": payload,
            }
        )

    lines = [event("memory.recalled", OLD, {"memory_file": str(store / "never.md")})]
    lines += [event("tool.used", RECENT, {"tool": "Bash"})] * 50
    lines += [
        event("memory.recalled", RECENT, {"memory_file": str(store / "read_main.md")}),
        event("memory.referenced", RECENT, {"memory_file": "read_worktree.md", "cwd": str(repo)}),
        event("memory.referenced", RECENT, {"memory_file": "read_by_sibling.md", "cwd": "/x"}),
        "not json at all",
    ]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")

    result = lint(run_curator, repo, tmp_path)

    assert reported(result)["CUR301"] == [
        "edited_in_subfolder.md",
        "never.md",
        "read_by_sibling.md",
        "read_long_ago.md",
        "read_via_other_root.md",
    ]
    assert result.json()[0]["detail"]["sources"] == "event log"
    assert "1 malformed" in result.stderr


def test_no_source_says_so_once(project, tmp_path, run_curator):
    repo, _, _, _ = project
    result = lint(run_curator, repo, tmp_path)
    assert reported(result) == {"CUR300": ["MEMORY.md"]}
    (only,) = result.json()
    assert "onlooker-events.jsonl" in only["message"]
    assert "no transcripts of this project under" in only["message"]
    assert "unused memories (CUR301) are not reported" in only["message"]


def test_a_store_claude_code_does_not_keep_here_gets_the_same_answer_on_every_machine(
    tmp_path, run_curator
):
    """A copied store (CI, the demo): a note, no CUR300, whether or not this machine has a
    Claude Code projects folder."""
    store = write_files(tmp_path / "copy" / "memory", {"MEMORY.md": "- [A](a.md) — a\n"})
    write_files(store, {"a.md": old("a")})
    args = ("lint", str(store), "--select", "CUR3", "--output-format", "json", "--today", TODAY)
    runs = []
    for _ in range(2):
        runs.append(run_curator(*args))
        (tmp_path / "claude" / "projects").mkdir(parents=True, exist_ok=True)
    assert [(r.code, r.json()) for r in runs] == [(0, []), (0, [])]
    assert runs[0].stderr == runs[1].stderr
    assert "CUR300 unused_undetectable: the store is not under " in runs[0].stderr


def test_event_log_path_from_environment(project, tmp_path, run_curator):
    repo, _, _, store = project
    log = tmp_path / "elsewhere.jsonl"
    stamp = RECENT
    payload = {"memory_files": [str(store / n) for n in ("never.md", "read_main.md")]}
    line = {"timestamp": stamp, "event_type": "memory.referenced", "payload": payload}
    log.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = lint(run_curator, repo, tmp_path, env={"ONLOOKER_EVENTS_LOG": str(log)})
    assert "never.md" not in reported(result)["CUR301"]
    assert "read_main.md" not in reported(result)["CUR301"]
    assert "CUR300" not in reported(result)


def test_unchanged_transcripts_come_from_the_cache(project, tmp_path, run_curator):
    repo, _, projects, store = project
    transcript = write_transcript(
        projects / project_slug(repo),
        [tool_use_line(str(repo), RECENT, "Read", str(store / "read_main.md"))],
    )
    first = lint(run_curator, repo, tmp_path)
    cache = tmp_path / "onlooker" / "curator" / "cache" / "usage-transcripts.json"
    entries = json.loads(cache.read_text(encoding="utf-8"))["transcripts"]
    assert entries[str(transcript)]["uses"] == {str(store / "read_main.md"): RECENT}

    # Doctor the cached entry: an unchanged transcript must be answered from the cache.
    entries[str(transcript)]["uses"] = {str(store / "never.md"): RECENT}
    cache.write_text(json.dumps({"version": 1, "transcripts": entries}), encoding="utf-8")
    second = lint(run_curator, repo, tmp_path)
    assert "read_main.md" not in reported(first)["CUR301"]
    assert "read_main.md" in reported(second)["CUR301"]
    assert "never.md" not in reported(second)["CUR301"]

    # A changed transcript (new size and mtime) is read again.
    with transcript.open("a", encoding="utf-8") as fh:
        fh.write(user_line(str(repo), RECENT, "more") + "\n")
    third = lint(run_curator, repo, tmp_path)
    assert reported(third) == reported(first)


def test_transcripts_last_written_before_the_window_are_not_opened(project, tmp_path, run_curator):
    repo, _, projects, store = project
    stale = write_transcript(
        projects / project_slug(repo),
        [tool_use_line(str(repo), RECENT, "Read", str(store / "read_main.md"))],
    )
    # The file's own mtime says it predates the window, so its (odd) content is never read.
    os.utime(stale, (1767225600, 1767225600))  # 2026-01-01
    result = lint(run_curator, repo, tmp_path)
    assert "read_main.md" in reported(result)["CUR301"]
    assert "CUR300" not in reported(result)


def test_read_budget_holds_the_rule_back_until_the_cache_catches_up(project, tmp_path, run_curator):
    repo, _, projects, store = project
    folder = projects / project_slug(repo)
    newer = write_transcript(
        folder, [tool_use_line(str(repo), RECENT, "Read", str(store / "read_main.md"))]
    )
    older = write_transcript(
        folder, [tool_use_line(str(repo), RECENT, "Read", str(store / "never.md"))]
    )
    now = time.time()
    os.utime(newer, (now - 60, now - 60))
    os.utime(older, (now - 120, now - 120))
    config = tmp_path / "budget.yaml"
    config.write_text("rules: {CUR301: {params: {read_budget_mb: 0.0001}}}\n", encoding="utf-8")

    first = lint(run_curator, repo, tmp_path, "--config", str(config))
    assert reported(first) == {}
    assert "1 transcript(s) not read yet (read_budget_mb)" in first.stderr

    second = lint(run_curator, repo, tmp_path, "--config", str(config))
    assert "not read yet" not in second.stderr
    unused = reported(second)["CUR301"]
    assert "read_main.md" not in unused and "never.md" not in unused
    assert "read_long_ago.md" in unused


def test_a_corrupt_cache_and_a_binary_transcript_are_survived(project, tmp_path, run_curator):
    repo, _, projects, store = project
    folder = projects / project_slug(repo)
    write_transcript(folder, [tool_use_line(str(repo), RECENT, "Read", str(store / "never.md"))])
    (folder / "garbage.jsonl").write_bytes(b"\x00\xff\xfe binary\n\x89PNG\r\n")
    cache = tmp_path / "onlooker" / "curator" / "cache" / "usage-transcripts.json"
    cache.parent.mkdir(parents=True)
    cache.write_text("{not json", encoding="utf-8")

    result = lint(run_curator, repo, tmp_path)

    assert "never.md" not in reported(result)["CUR301"]
    assert "2 malformed transcript or event-log line(s) skipped" in result.stderr
    assert json.loads(cache.read_text(encoding="utf-8"))["version"] == 1


def test_a_read_through_a_symlink_counts(project, tmp_path, run_curator):
    repo, _, projects, store = project
    link = tmp_path / "notes"  # e.g. a repository folder linked to the store
    link.symlink_to(store)
    via_link = link / "read_main.md"
    write_transcript(
        projects / project_slug(repo), [tool_use_line(str(repo), RECENT, "Read", str(via_link))]
    )
    result = lint(run_curator, repo, tmp_path)
    assert "read_main.md" not in reported(result)["CUR301"]
    assert "never.md" in reported(result)["CUR301"]


def test_a_line_nested_past_the_stack_is_skipped_and_counted(project, tmp_path, run_curator):
    """Issue #17: `json.loads` raises RecursionError, not ValueError, on deep nesting."""
    repo, _, projects, store = project
    deep = '{"type": "tool_use", "input": {"file_path": "x.md"}, "n": ' + "[" * 100_000
    deep += "]" * 100_000 + "}"
    write_transcript(
        projects / project_slug(repo),
        [deep, tool_use_line(str(repo), RECENT, "Read", str(store / "read_main.md"))],
    )
    log = tmp_path / "onlooker" / "logs" / "onlooker-events.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text('{"event_type": "memory.recalled", "x": ' + "[" * 100_000 + "]" * 100_000
                   + "}\n", encoding="utf-8")  # fmt: skip

    result = lint(run_curator, repo, tmp_path)

    assert_clean(result, (0, 1))
    assert "read_main.md" not in reported(result)["CUR301"]  # the good line still counts
    assert "never.md" in reported(result)["CUR301"]
    assert "2 malformed transcript or event-log line(s) skipped" in result.stderr
