"""`curator lint` paths as pre-commit passes them, and `--all` over every store."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import memory, write_files

BROKEN_INDEX = "- [A](a.md) — a\n- [Gone](gone.md) — removed\n"


def store_files(index: str = BROKEN_INDEX) -> dict[str, str]:
    return {
        "MEMORY.md": index,
        "a.md": memory("Alpha.\n", name="a"),
        "b.md": memory("Beta, never linked.\n", name="b"),
        "notes/c.md": memory("Gamma, in a subfolder, never linked.\n", name="c"),
    }


def codes_by_file(run) -> set[tuple[str, str]]:
    return {(Path(d["path"]).name, d["code"]) for d in run.json()}


def test_a_named_file_reports_only_its_own_findings(run_curator, make_store) -> None:
    store = make_store(store_files())
    run = run_curator("lint", "--output-format", "json", str(store / "b.md"), cwd=store)
    assert run.code == 1
    assert codes_by_file(run) == {("b.md", "CUR011")}  # not MEMORY.md's broken link


def test_memory_md_alone_reports_the_index_rules(run_curator, make_store) -> None:
    store = make_store(store_files())
    run = run_curator("lint", "--output-format", "json", "MEMORY.md", cwd=store)
    assert run.code == 1
    assert codes_by_file(run) == {("MEMORY.md", "CUR010")}
    [diagnostic] = run.json()
    assert diagnostic["location"] == {"row": 2, "column": 3}
    assert diagnostic["store"] == str(store.resolve())


def test_a_file_in_a_store_subfolder_is_linted_in_its_store(run_curator, make_store) -> None:
    store = make_store(store_files())
    run = run_curator("lint", "--output-format", "json", "memory/notes/c.md", cwd=store.parent)
    assert codes_by_file(run) == {("c.md", "CUR011")}
    # In its store's context: the orphan check knew the index, whose links do not name it.
    assert run.json()[0]["store"] == str(store.resolve())


def test_files_of_two_stores_in_one_call(run_curator, tmp_path: Path) -> None:
    one = write_files(tmp_path / "p/-a/memory", store_files())
    two = write_files(tmp_path / "p/-b/memory", store_files("- [A](a.md) — a\n"))
    run = run_curator(
        "lint", "--output-format", "json", str(one / "MEMORY.md"), str(two / "a.md"),
        str(two / "b.md"),
    )  # fmt: skip
    found = {(Path(d["store"]).parent.name, Path(d["path"]).name, d["code"]) for d in run.json()}
    assert found == {("-a", "MEMORY.md", "CUR010"), ("-b", "b.md", "CUR011")}


def test_a_symlinked_memory_keeps_its_findings(run_curator, make_store, tmp_path: Path) -> None:
    store = make_store({"MEMORY.md": "- [A](a.md) — a\n", "a.md": memory("Alpha.\n")})
    (store / "b.md").symlink_to(store / "a.md")
    run = run_curator("lint", "--output-format", "json", str(store / "b.md"))
    assert codes_by_file(run) == {("b.md", "CUR011")}


def test_all_lints_every_store_under_the_config(run_curator, tmp_path: Path) -> None:
    projects = tmp_path / "claude/projects"
    write_files(projects / "-home-me-api/memory", store_files())
    write_files(projects / "-home-me-web/memory", {"MEMORY.md": "- [A](a.md) — a\n"})
    write_files(projects / "-home-me-web/memory", {"a.md": memory("Alpha.\n")})
    write_files(projects / "-home-me-old", {"notes.txt": "a project with no memory folder"})

    run = run_curator(
        "lint", "--all", "--output-format", "concise", "--ignore", "CUR300", cwd=tmp_path
    )

    assert run.code == 1, run.stderr
    assert run.stdout.splitlines() == [
        "== claude/projects/-home-me-api/memory: 3 findings ==",
        "claude/projects/-home-me-api/memory/MEMORY.md:2:3: CUR010 MEMORY.md links 'gone.md',"
        " which does not exist",
        "claude/projects/-home-me-api/memory/b.md:1:1: CUR011 'b.md' is neither linked nor"
        " named in MEMORY.md, nor in any memory it reaches, so the agent is never pointed to it",
        "claude/projects/-home-me-api/memory/notes/c.md:1:1: CUR011 'notes/c.md' is neither"
        " linked nor named in MEMORY.md, nor in any memory it reaches, so the agent is never"
        " pointed to it",
        "",
        "== claude/projects/-home-me-web/memory: clean ==",
        "",
        "Found 3 findings (1 error, 2 warning) in 2 stores.",
    ]


def test_all_under_a_folder_finds_dotfiles_and_project_layouts(run_curator, tmp_path) -> None:
    repo = tmp_path / "dotfiles"
    write_files(repo / "claude/projects/-home-me-api/memory", {"MEMORY.md": ""})
    write_files(repo / ".claude/memory", {"MEMORY.md": "- [X](x.md) — x\n"})
    write_files(repo / "node_modules/pkg/memory", {"MEMORY.md": "- [X](x.md) — x\n"})
    write_files(repo / "docs", {"memory.md": "not a store"})

    run = run_curator("lint", "--all", ".", "--output-format", "json", cwd=repo)

    stores = {Path(d["store"]).relative_to(repo.resolve()).as_posix() for d in run.json()}
    assert stores == {".claude/memory"}
    concise = run_curator("lint", "--all", ".", "--output-format", "concise", cwd=repo)
    headers = [line for line in concise.stdout.splitlines() if line.startswith("==")]
    assert headers == [
        "== .claude/memory: 1 finding ==",
        "== claude/projects/-home-me-api/memory: clean ==",
    ]


def test_all_with_no_stores_is_a_usage_error(run_curator, tmp_path: Path) -> None:
    run = run_curator("lint", "--all", cwd=tmp_path)
    assert run.code == 2
    assert run.stderr == f"curator: error: no memory stores under {tmp_path}/claude/projects\n"
    run = run_curator("lint", "--all", "nowhere.md", cwd=tmp_path)
    assert run.code == 2


def test_json_of_all_names_each_store(run_curator, tmp_path: Path) -> None:
    projects = tmp_path / "claude/projects"
    write_files(projects / "-a/memory", {"MEMORY.md": "- [X](x.md) — x\n"})
    write_files(projects / "-b/memory", {"MEMORY.md": "- [Y](y.md) — y\n"})
    run = run_curator("lint", "--all", "--output-format", "json-lines", cwd=tmp_path)
    stores = [Path(json.loads(line)["store"]).parent.name for line in run.stdout.splitlines()]
    assert stores == ["-a", "-b"]


def test_all_finds_stores_by_content_and_honours_gitignore(run_curator, tmp_path: Path) -> None:
    from tests.conftest import git

    repo = tmp_path / "work"
    linked = {"MEMORY.md": "- [A](a.md) — a\n", "a.md": memory(name="a")}
    framed = {"feedback_testing.md": memory(name="testing", type="feedback")}
    write_files(repo / "claude-memory", linked)
    write_files(repo / "memories", framed)  # no index: found by its frontmatter
    write_files(repo / ".claude/memory", linked)
    write_files(repo / "agent-memory", linked)
    write_files(repo / "notes", {"MEMORY.md": "# Ideas\nNo links here.\n", "x.md": "plain\n"})
    write_files(repo / "ws", {
        "AGENTS.md": "# Agents\n", "MEMORY.md": "Prose.\n",
        "memory/2026-03-01.md": "# 2026-03-01\n- Set up.\n",
    })  # fmt: skip
    write_files(repo / "node_modules/pkg/memory", linked)
    write_files(repo / "env", {"pyvenv.cfg": "home = /usr\n", "lib/memory/MEMORY.md": "[a](a.md)"})
    write_files(repo / "scratch/memory", linked)  # gitignored
    write_files(repo, {".gitignore": "scratch/\n"})
    git(repo, "init", "-q", "-b", "main")
    write_files(repo / ".git/memory", linked)  # never entered

    run = run_curator("lint", "--all", ".", "--verbose", "--output-format", "concise", cwd=repo)

    assert run.code in (0, 1), run.stderr
    assert [line for line in run.stderr.splitlines() if line.startswith("curator: store")] == [
        "curator: store .claude/memory (claude; a MEMORY.md that links files)",
        "curator: store agent-memory (claude; a MEMORY.md that links files)",
        "curator: store claude-memory (claude; a MEMORY.md that links files)",
        "curator: store memories (claude; markdown files with memory frontmatter)",
        "curator: store ws (openclaw; an OpenClaw workspace: daily notes in memory/)",
    ]
    headers = [line for line in run.stdout.splitlines() if line.startswith("==")]
    assert [h.split(":")[0] for h in headers] == [
        "== .claude/memory", "== agent-memory", "== claude-memory", "== memories", "== ws"
    ]  # fmt: skip


def test_a_folder_that_is_not_a_store_gets_one_message_everywhere(run_curator, tmp_path) -> None:
    docs = write_files(tmp_path / "docs", {"guide.md": "# Guide\n", "api.md": "# API\n"})
    message = (
        f"curator: error: {docs}: not a memory store: no MEMORY.md, no memory files with "
        "frontmatter, and not an OpenClaw workspace\n"
    )
    for args in (
        ("lint", str(docs)),
        ("lint", "--store", str(docs)),  # the plain parser
        ("lint", f"--store={docs}", "--"),  # click
        ("fix", str(docs)),
        ("fix", "--store", str(docs)),
        ("scan", str(docs)),
        ("scan", "--store", str(docs)),
        ("review", str(docs)),
        ("review", "--store", str(docs)),
        ("findings", "list", str(docs)),
        ("findings", "list", "--store", str(docs)),
        ("findings", "show", str(docs), "01J000"),
        ("findings", "show", "--store", str(docs), "01J000"),
    ):
        run = run_curator(*args)
        assert (run.code, run.stderr) == (2, message), args
    missing = tmp_path / "nowhere"
    for args in (
        ("lint", str(missing)),
        ("review", str(missing)),
        ("findings", "list", str(missing)),
    ):
        run = run_curator(*args)
        assert (run.code, run.stderr) == (2, f"curator: error: {missing}: no such file or folder\n")
