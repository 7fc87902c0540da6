"""The store reader: frontmatter shapes, line maps, and files that cannot be memories."""

from __future__ import annotations

import os
import socket
from datetime import date
from pathlib import Path

import pytest

from curator.store.reading import read_store
from tests.conftest import memory, write_files
from tests.helpers.hostile import add_fifo, add_symlink_loop, assert_clean, changed, snapshot


def test_reads_flat_and_nested_frontmatter(make_store):
    root = make_store(
        {
            "MEMORY.md": "- [A](a.md)\n- [B](b.md)\n",
            "a.md": memory(type="feedback", name="A"),
            "b.md": "---\nname: B\ndescription: d\nmetadata:   \n  type: project\n"
            "  node_type: memory\n  modified: 2026-02-10\n---\nBody line.\n",
        }
    )
    store = read_store(root)
    by_rel = {m.rel: m for m in store.memories}
    assert by_rel["a.md"].type == "feedback"
    assert by_rel["b.md"].type == "project"
    assert by_rel["b.md"].frontmatter["modified"] == date(2026, 2, 10)
    assert by_rel["b.md"].body_line == 9
    assert by_rel["b.md"].lines[by_rel["b.md"].body_line - 1] == "Body line."
    assert [e.target for e in store.index.entries] == ["a.md", "b.md"]


def test_invalid_yaml_keeps_what_it_can(make_store):
    root = make_store({"a.md": '---\nname: x\ndescription: "a b\ntype: user\n---\nBody\n'})
    (m,) = read_store(root).memories
    assert m.frontmatter_error is not None
    assert m.frontmatter_error[0] == 3
    assert "`description:` on line 3" in m.frontmatter_error[1]
    assert m.type == "user"  # read leniently so type-based rules still apply


# Claude Code 2.1.328 retries a failed parse with these values quoted and leading tabs as
# spaces, and reads every one of these blocks; so does curator.
CLAUDE_READS = {
    "colon-space": (
        "description: deploys: always via the pipeline",
        "deploys: always via the pipeline",
    ),
    "backtick": ("description: `make` is the entry", "`make` is the entry"),
    "at-sign": ("description: @alice owns this", "@alice owns this"),
    "percent": ("description: %d of runs", "%d of runs"),
    "flow-brace": ("description: {not a map", "{not a map"),
    "pipe": ("description: a | b tables", "a | b tables"),
}


@pytest.mark.parametrize("shape", sorted(CLAUDE_READS))
def test_frontmatter_claude_code_reads_through_its_retry(make_store, shape):
    line, value = CLAUDE_READS[shape]
    root = make_store({"a.md": f"---\nname: x\n{line}\ntype: user\n---\nBody\n"})
    (m,) = read_store(root).memories
    assert m.frontmatter_error is None
    assert m.frontmatter["description"] == value


def test_frontmatter_tabs_that_start_a_line_become_spaces(make_store):
    root = make_store({"a.md": "---\nname: x\nmetadata:\n\ttype: project\n---\nBody\n"})
    (m,) = read_store(root).memories
    assert m.frontmatter_error is None
    assert m.type == "project"


def test_frontmatter_a_list_is_not_a_mapping(make_store):
    root = make_store({"a.md": "---\n- a\n- b\n---\nBody\n"})
    (m,) = read_store(root).memories
    assert m.frontmatter_error == (2, "frontmatter is a list, not a mapping")


def test_crlf_and_bom(make_store):
    root = make_store({"a.md": b"\xef\xbb\xbf---\r\nname: x\r\ntype: user\r\n---\r\nBody\r\n"})
    (m,) = read_store(root).memories
    assert m.type == "user"
    assert m.lines == ("---", "name: x", "type: user", "---", "Body")
    assert m.locate(m.text.index("Body")) == (5, 1)


def test_bad_files_become_problems(make_store, tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text("secret")
    root = make_store(
        {
            "binary.md": b"\x89PNG\r\n\x1a\n\x00\x00",
            "latin1.md": b"caf\xe9\n",
            "huge.md": "x" * (1024 * 1024 + 1),
            "ok.md": memory(),
        }
    )
    os.symlink(outside, root / "escape.md")
    store = read_store(root)
    reasons = {p.rel: p.reason for p in store.problems}
    assert reasons == {
        "binary.md": "binary",
        "latin1.md": "encoding",
        "huge.md": "huge",
        "escape.md": "symlink",
    }
    assert [m.rel for m in store.memories] == ["ok.md"]


def test_subfolders_are_read_and_hidden_folders_skipped(make_store):
    root = make_store({"sub/a.md": memory(), ".git/x.md": "x", "MEMORY.md": ""})
    assert [m.rel for m in read_store(root).memories] == ["sub/a.md"]


# -- Hostile files: FIFOs, sockets, symlink loops, symlinked folders (issue #17) ----------


def test_special_files_and_symlink_loops_are_reported_never_waited_on(
    run_curator, tmp_path: Path
) -> None:
    root = write_files(tmp_path / "memory", {"a.md": memory("Freeze until 2026-03-05.\n")})
    add_fifo(root, "MEMORY.md")  # the index too: reading it would wait for a writer forever
    add_fifo(root, "pipe.md")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(root / "sock.md"))
    add_symlink_loop(root)
    before = snapshot(tmp_path, skip=(tmp_path / "onlooker",))

    for output in ("json", "full"):  # the text report shows each file's line: never a FIFO's
        run = run_curator("lint", str(root), "--output-format", output, "--today", "2026-06-01")
        assert_clean(run, (1,))

    run = run_curator("lint", str(root), "--output-format", "json", "--today", "2026-06-01")
    problems = {
        (Path(d["filename"]).name, d["detail"]["reason"], d["detail"]["problem"])
        for d in run.json()
        if d["code"] == "CUR004"
    }
    assert problems == {
        ("MEMORY.md", "special", "a FIFO, not a regular file; not read"),
        ("pipe.md", "special", "a FIFO, not a regular file; not read"),
        ("sock.md", "special", "a socket, not a regular file; not read"),
        ("loop_a.md", "unreadable", "symlink loop; not read"),
        ("loop_b.md", "unreadable", "symlink loop; not read"),
    }
    assert any(d["code"] == "CUR101" for d in run.json())  # the real memory is still linted
    assert changed(before, snapshot(tmp_path, skip=(tmp_path / "onlooker",))) == []


def test_symlinked_folders_are_not_followed_and_files_only_into_store_or_repo(
    run_curator, git_repo, tmp_path: Path
) -> None:
    repo = git_repo({"docs/plan.md": memory("Freeze until 2026-03-05.\n", name="plan")})
    outside = write_files(
        tmp_path / "outside",
        {"deep/evil.md": memory("Freeze until 2026-03-05.\n"), "note.md": "x\n"},
    )
    root = write_files(tmp_path / "memory", {"MEMORY.md": "- [Plan](plan.md)\n"})
    os.symlink(repo / "docs" / "plan.md", root / "plan.md")  # into the repository: read
    os.symlink(outside / "note.md", root / "note.md")  # out of both: refused
    os.symlink(outside / "deep", root / "deep")  # a symlinked folder: never walked
    (root / "topics").mkdir()
    os.symlink(root / "topics", root / "folder.md")  # a folder behind a memory's name

    run = run_curator("lint", str(root), "--repo-root", str(repo), "--output-format", "json",
                      "--today", "2026-06-01")  # fmt: skip

    assert_clean(run, (1,))
    got = {(Path(d["filename"]).name, d["code"], d["detail"].get("reason")) for d in run.json()}
    assert ("plan.md", "CUR101", None) in got
    assert ("note.md", "CUR004", "symlink") in got
    assert ("folder.md", "CUR004", "special") in got
    assert not any("evil" in d["filename"] or "evil" in d["message"] for d in run.json())


def test_the_file_a_symlinked_index_leads_to_is_the_index_not_a_memory(make_store):
    root = make_store({"a.md": memory(name="a"), "real/index.md": "- [A](../a.md)\n"})
    (root / "MEMORY.md").symlink_to("real/index.md")
    store = read_store(root)
    assert [m.rel for m in store.memories] == ["a.md"]
    assert store.index is not None and store.index.lines == ("- [A](../a.md)",)


def test_frontmatter_the_error_is_where_the_retry_fails_not_where_strict_did(make_store):
    # Line 3's colon-space the retry quotes; line 4's unclosed quote it cannot.
    block = 'name: x\ndescription: deploys: always\ntype: "user\n'
    root = make_store({"a.md": f"---\n{block}---\nBody\n"})
    (m,) = read_store(root).memories
    assert m.frontmatter_error is not None
    assert m.frontmatter_error[0] == 4
    assert "`type:` on line 4" in m.frontmatter_error[1]
