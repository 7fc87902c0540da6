"""`curator fix`: exact edits to MEMORY.md, shown as a diff, applied against the sha256
they were planned on, and undone from the journal."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from curator.config import Config
from curator.fixes import deltas
from curator.interpreter.rulebook import load_rules
from curator.linting import lint, target_for
from tests.conftest import memory

INDEX = "# Memory\n- [A](a.md) — a\n- [Gone](gone.md) — removed\n- [A again](a.md) — twice\n"
STORE = {
    "MEMORY.md": INDEX,
    "a.md": memory(name="A"),
    "orphan.md": memory(name="Lonely", description="Prefer  small   PRs"),
}


def test_diff_by_default_changes_nothing(make_store, run_curator):
    store = make_store(STORE)
    out = run_curator("fix", "memory")
    assert out.code == 1
    assert out.stdout == (
        "--- a/memory/MEMORY.md\n"
        "+++ b/memory/MEMORY.md\n"
        "@@ -1,4 +1,3 @@\n"
        " # Memory\n"
        " - [A](a.md) — a\n"
        "-- [Gone](gone.md) — removed\n"
        "-- [A again](a.md) — twice\n"
        "+- [Lonely](orphan.md) — Prefer small PRs\n"
    )
    assert "3 fixes in 1 files" in out.stderr
    assert (store / "MEMORY.md").read_text() == INDEX


def test_apply_then_nothing_left_then_undo(make_store, run_curator):
    store = make_store(STORE)
    applied = run_curator("fix", "memory", "--apply")
    assert applied.code == 0, applied.stderr
    assert applied.stdout.splitlines() == [
        "memory/MEMORY.md: remove MEMORY.md line 3 (missing file)",
        "memory/MEMORY.md: remove MEMORY.md line 4 (duplicate of line 2)",
        "memory/MEMORY.md: add an index line for orphan.md",
    ]
    fixed = "# Memory\n- [A](a.md) — a\n- [Lonely](orphan.md) — Prefer small PRs\n"
    assert (store / "MEMORY.md").read_text() == fixed
    lint_out = run_curator("lint", "memory", "--select", "CUR01", "--output-format", "json")
    assert lint_out.json() == []
    assert run_curator("fix", "memory").stdout == "Nothing to fix.\n"
    undone = run_curator("fix", "--undo")
    assert (undone.code, undone.stdout) == (0, "restored memory/MEMORY.md\n")
    assert (store / "MEMORY.md").read_text() == INDEX
    assert run_curator("fix", "--undo").stderr == "curator: no applied fix to undo\n"


def _plans(store: Path) -> list[deltas.FilePlan]:
    rules = load_rules()
    result = lint([target_for(store, Config(), store)], rules, rules, Config(), date(2026, 6, 1))
    return deltas.plan(result.diagnostics)


def test_a_file_changed_after_planning_is_refused_untouched(make_store, tmp_path):
    store = make_store(STORE)
    plans = _plans(store)
    edited = INDEX + "- [New](new.md) — written by a session meanwhile\n"
    (store / "MEMORY.md").write_text(edited)
    outcome = deltas.apply(plans, tmp_path / "journal")
    assert outcome.applied == []
    assert outcome.refused == [
        (store / "MEMORY.md", "changed since it was checked; run curator again")
    ]
    assert (store / "MEMORY.md").read_text() == edited


def test_undo_refuses_a_file_edited_after_the_fix(make_store, tmp_path):
    store = make_store(STORE)
    journal = tmp_path / "journal"
    assert deltas.apply(_plans(store), journal).applied == [store / "MEMORY.md"]
    (store / "MEMORY.md").write_text("# Memory\n- [A](a.md)\n")
    outcome = deltas.undo(journal)
    assert outcome.refused == [(store / "MEMORY.md", "changed since the fix; not restored")]
    assert (store / "MEMORY.md").read_text() == "# Memory\n- [A](a.md)\n"


def test_a_line_with_other_links_is_not_removed_and_crlf_is_kept(make_store):
    store = make_store(
        {
            "MEMORY.md": "| [A](a.md) | [Gone](gone.md) |\r\n- [Old](old.md)\r\n",
            "a.md": memory(),
        }
    )
    (plan,) = _plans(store)
    assert [(e.start_line, e.end_line, e.content) for e in plan.edits] == [(2, 3, "")]
    text = (store / "MEMORY.md").read_bytes().decode()
    assert deltas.apply_edits(text, plan.edits) == "| [A](a.md) | [Gone](gone.md) |\r\n"
