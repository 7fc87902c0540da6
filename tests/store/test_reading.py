"""The store reader: frontmatter shapes, line maps, and files that cannot be memories."""

from __future__ import annotations

import os
from datetime import date

from curator.store.reading import read_store
from tests.conftest import memory


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
    root = make_store({"a.md": "---\nname: x\ndescription: a: b\ntype: user\n---\nBody\n"})
    (m,) = read_store(root).memories
    assert m.frontmatter_error is not None
    assert m.frontmatter_error[0] == 3
    assert m.type == "user"  # read leniently so type-based rules still apply


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
