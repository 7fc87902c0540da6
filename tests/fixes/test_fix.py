"""`curator fix`: exact edits to MEMORY.md, shown as a diff, applied against the sha256
they were planned on, and undone from the journal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

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
    assert run_curator("fix", "memory").code == 1  # the diff, saved as the plan to apply
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
    undone = run_curator("fix", "memory", "--undo")
    assert (undone.code, undone.stdout) == (0, "restored memory/MEMORY.md\n")
    assert (store / "MEMORY.md").read_text() == INDEX
    again = run_curator("fix", "memory", "--undo")
    assert again.stderr == "curator: no applied fix to undo for memory\n"


def _plans(store: Path) -> list[deltas.FilePlan]:
    rules = load_rules()
    result = lint([target_for(store, Config(), store)], rules, rules, Config(), date(2026, 6, 1))
    return deltas.plan(result.diagnostics)


def test_a_file_changed_after_planning_is_refused_untouched(make_store, tmp_path):
    store = make_store(STORE)
    plans = _plans(store)
    edited = INDEX + "- [New](new.md) — written by a session meanwhile\n"
    (store / "MEMORY.md").write_text(edited)
    outcome = deltas.apply(plans, tmp_path / "curator" / "key" / "journal")
    assert outcome.applied == []
    assert outcome.refused == [
        (store / "MEMORY.md", "changed since it was checked; run curator again")
    ]
    assert (store / "MEMORY.md").read_text() == edited


def test_undo_refuses_a_file_edited_after_the_fix(make_store, tmp_path):
    store = make_store(STORE)
    journal = tmp_path / "curator" / "key" / "journal"
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


def _curator(tmp_path: Path, *args: str, kill_at: str | None = None) -> subprocess.Popen[str]:
    """The real CLI, as `run_curator` runs it, optionally SIGKILLed at a write point."""
    env = {k: v for k, v in os.environ.items() if k not in ("ONLOOKER_EVENTS_LOG",)}
    env.update(
        ONLOOKER_DIR=str(tmp_path / "onlooker"),
        HOME=str(tmp_path / "home"),
        CLAUDE_CONFIG_DIR=str(tmp_path / "claude"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    if kill_at is not None:
        env["CURATOR_KILL_AT"] = kill_at
    return subprocess.Popen([sys.executable, "-m", "curator", *args], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


SECRET_MEMORY = memory("The db password: hunter2-Xq9vLr7pWm3k\n", name="Db")


def test_apply_without_a_shown_plan_refuses_and_changes_nothing(make_store, run_curator, tmp_path):
    store = make_store(STORE)
    applied = run_curator("fix", "memory", "--apply")
    assert applied.code == 2
    assert applied.stderr == (
        "curator: error: no reviewed fix plan for memory; run `curator fix` first to see the "
        "diff, then `curator fix --apply` applies exactly that\n"
    )
    assert (store / "MEMORY.md").read_text() == INDEX
    assert not list((tmp_path / "onlooker").rglob("journal"))


def test_apply_makes_the_plan_shown_or_nothing_when_a_file_changed(make_store, run_curator):
    store = make_store({**STORE, "db.md": SECRET_MEMORY})
    shown = run_curator("fix", "memory")
    assert shown.code == 1 and "+The db password: <redacted" in shown.stdout
    # Another --select than the diff was shown for: refused, nothing applied.
    other = run_curator("fix", "memory", "--apply", "--select", "CUR010")
    assert other.code == 2 and "shown for other paths or --select/--ignore" in other.stderr
    # A session writes to MEMORY.md after the diff was shown: nothing is applied, in
    # either file, and the changed one is named.
    edited = INDEX + "- [New](new.md) — written by a session meanwhile\n"
    (store / "MEMORY.md").write_text(edited)
    refused = run_curator("fix", "memory", "--apply")
    assert refused.code == 1
    assert refused.stdout == ""
    assert refused.stderr == (
        "curator: memory/MEMORY.md: changed since the diff was shown\n"
        "curator: nothing applied; run `curator fix` to review the diff again\n"
    )
    assert (store / "MEMORY.md").read_text() == edited
    assert (store / "db.md").read_text() == SECRET_MEMORY


def test_apply_makes_the_reviewed_plan_not_a_new_one(make_store, run_curator):
    store = make_store(STORE)
    assert "-- [Gone](gone.md) — removed" in run_curator("fix", "memory").stdout
    # gone.md appears after the review: a new plan would keep line 3, the reviewed one
    # removes it, and MEMORY.md itself is as it was shown.
    (store / "gone.md").write_text(memory(name="Gone"))
    applied = run_curator("fix", "memory", "--apply")
    assert applied.code == 0, applied.stderr
    assert "memory/MEMORY.md: remove MEMORY.md line 3 (missing file)" in applied.stdout
    assert "- [Gone](gone.md)" not in (store / "MEMORY.md").read_text()
    again = run_curator("fix", "memory", "--apply")  # a plan is applied once
    assert again.code == 2 and "no reviewed fix plan for memory" in again.stderr


def test_a_clean_store_beside_one_with_fixes_does_not_stop_apply(make_store, run_curator):
    one = make_store(STORE, "one")
    clean = make_store({"MEMORY.md": "# Memory\n- [A](a.md) — a\n", "a.md": memory(name="A")})
    assert run_curator("fix", "one", "memory").code == 1
    applied = run_curator("fix", "one", "memory", "--apply")
    assert applied.code == 0, applied.stderr
    assert "one/MEMORY.md: add an index line for orphan.md" in applied.stdout
    assert (clean / "MEMORY.md").read_text() == "# Memory\n- [A](a.md) — a\n"
    assert "- [Lonely](orphan.md)" in (one / "MEMORY.md").read_text()
    # Nothing left to fix: the review says so, and applying it changes nothing.
    assert run_curator("fix", "memory").stdout == "Nothing to fix.\n"
    nothing = run_curator("fix", "memory", "--apply")
    assert (nothing.code, nothing.stdout) == (
        0,
        "Nothing to apply: the diff `curator fix` last showed was empty.\n",
    )


def test_names_and_file_names_are_escaped_in_the_index_line(make_store, run_curator):
    weird = "notes (v2) [#1] 100%?.md"
    name = '"Notes [draft]\\n  `x` \\\\ <b>"'
    store = make_store({"MEMORY.md": "# Memory\n", weird: memory(name=name, description="d")})
    shown = run_curator("fix", "memory")
    line = "- [Notes (draft) 'x' \\\\ \\<b>](notes%20%28v2%29%20%5B%231%5D%20100%25%3F.md) — d"
    assert "+" + line + "\n" in shown.stdout
    assert run_curator("fix", "memory", "--apply").code == 0
    assert (store / "MEMORY.md").read_text() == "# Memory\n" + line + "\n"
    # Read back by curator itself: the memory is linked, and the link is not broken.
    assert (
        run_curator("lint", "memory", "--select", "CUR01", "--output-format", "json").json() == []
    )


def test_undo_after_two_fixes_undoes_the_newest_only(make_store, run_curator):
    store = make_store(STORE)
    run_curator("fix", "memory")
    assert run_curator("fix", "memory", "--apply").code == 0
    first = (store / "MEMORY.md").read_text()
    (store / "later.md").write_text(memory(name="Later", description="second fix"))
    run_curator("fix", "memory")
    assert run_curator("fix", "memory", "--apply").code == 0
    assert (store / "MEMORY.md").read_text() == first + "- [Later](later.md) — second fix\n"
    assert run_curator("fix", "memory", "--undo").stdout == "restored memory/MEMORY.md\n"
    assert (store / "MEMORY.md").read_text() == first
    assert run_curator("fix", "memory", "--undo").code == 0
    assert (store / "MEMORY.md").read_text() == INDEX


def test_two_projects_keep_their_own_journal(make_store, run_curator, tmp_path):
    one, two = make_store(STORE, "one"), make_store(STORE, "two")
    for name in ("one", "two"):  # one is fixed first, two last
        run_curator("fix", name)
        assert run_curator("fix", name, "--apply").code == 0
    fixed = (two / "MEMORY.md").read_text()
    assert len(list((tmp_path / "onlooker" / "curator").glob("*/journal/*.json"))) == 2
    undone = run_curator("fix", "one", "--undo")  # one's fix, though two's is newer
    assert undone.stdout == "restored one/MEMORY.md\n"
    assert (one / "MEMORY.md").read_text() == INDEX
    assert (two / "MEMORY.md").read_text() == fixed
    assert "no applied fix to undo for one" in run_curator("fix", "one", "--undo").stderr
    assert run_curator("fix", "two", "--undo").stdout == "restored two/MEMORY.md\n"


@pytest.mark.parametrize("point", ["fix:backups", "fix:journal", "fix:file:0", "fix:file:1"])
def test_a_fix_killed_at_any_write_point_is_rolled_back(make_store, run_curator, tmp_path, point):
    store = make_store({**STORE, "db.md": SECRET_MEMORY})
    run_curator("fix", "memory")
    killed = _curator(tmp_path, "fix", "memory", "--apply", kill_at=point)
    killed.communicate(timeout=120)
    assert killed.returncode == -signal.SIGKILL
    files = {"MEMORY.md": INDEX, "db.md": SECRET_MEMORY}
    changed = [n for n, text in files.items() if (store / n).read_text() != text]
    # Files change only once the journal entry is on disk, one after the other.
    expected = {"fix:backups": [], "fix:journal": [], "fix:file:0": ["MEMORY.md"]}
    assert changed == expected.get(point, ["MEMORY.md", "db.md"])
    undone = run_curator("fix", "memory", "--undo")  # the next command rolls it back first
    assert undone.code == 0, undone.stderr
    assert "Traceback" not in undone.stderr
    lines = undone.stderr.splitlines()
    if point == "fix:backups":  # killed before the journal entry: nothing was changed
        assert lines == ["curator: no applied fix to undo for memory"]
    else:
        assert lines == [
            "curator: a `curator fix --apply` was interrupted; rolled back: "
            f"{len(changed)} of 2 files put back as they were, temporary files removed",
            "curator: no applied fix to undo for memory",
        ]
    assert undone.stdout == ""
    assert (store / "MEMORY.md").read_text() == INDEX
    db = (store / "db.md").read_text()
    assert db == SECRET_MEMORY or "hunter2" not in db  # restored with its secret masked
