"""Random bytes and random frontmatter through the reader and the engine: never a traceback."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator.config import Config
from curator.interpreter.context import Context
from curator.interpreter.engine import run_checks
from curator.interpreter.rulebook import load_rules
from curator.store.reading import read_store

RULES = [r for r in load_rules() if r.tier == "cheap"]

frontmatter_values = st.one_of(
    st.text(max_size=40),
    st.integers(),
    st.lists(st.text(max_size=5), max_size=3),
    st.sampled_from(["", "~", "[", "{a: b", "'", '"', ": :", "`x`", "- a\n- b", "&a *a"]),
)
frontmatter = st.dictionaries(
    st.sampled_from(["name", "description", "type", "metadata", "modified", "created_at", "x"]),
    frontmatter_values,
    max_size=6,
)


def _lint(files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, data in files.items():
            (root / name).write_bytes(data)
        ctx = Context(store=read_store(root), config=Config(), today=date(2026, 6, 1))
        for d in run_checks(ctx, RULES, RULES):
            assert d.line >= 1 and d.column >= 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=600), st.binary(max_size=300))
def test_random_bytes(memory_bytes, index_bytes):
    _lint({"a.md": memory_bytes, "MEMORY.md": index_bytes})


@settings(max_examples=150, deadline=None)
@given(frontmatter, st.text(max_size=300))
def test_random_frontmatter_and_body(fm, body):
    lines = ["---"] + [f"{k}: {v}" for k, v in fm.items()] + ["---", body]
    _lint(
        {
            "a.md": "\n".join(lines).encode("utf-8", "surrogatepass"),
            "MEMORY.md": b"- [A](a.md)\n- [B](../b.md)\n",
        }
    )


def test_import_of_cli_stays_light():
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import curator.cli"],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines()}
    assert not imported & {"anthropic", "dateparser", "jinja2"}


def test_hostile_lines_do_not_hang(make_store, run_curator):
    """Lines built to make naive link and comment patterns quadratic finish promptly
    (run_curator's subprocess timeout is the guard, not a timing assertion)."""
    hostile = (
        "[a](" * 60_000
        + "\n"
        + "[[" * 60_000
        + "\n"
        + "<!-- curator-disable " * 20_000
        + "\n"
        + "``" * 60_000
        + "x\n"
        + "[" * 60_000
        + "\n"
    )
    make_store({"MEMORY.md": hostile, "a.md": "---\nname: a\ntype: user\n---\n" + hostile})
    out = run_curator("lint", "memory", "--output-format", "json", "--today", "2026-11-30")
    assert out.code in (0, 1), out.stderr
    assert {d["code"] for d in out.json()} >= {"CUR013"}
