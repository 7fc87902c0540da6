"""`curator lint` as a user runs it: a real subprocess, asserting codes, lines, exit codes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from tests.conftest import memory

TRUTH = {
    "MEMORY.md": (
        "# Memory\n"
        "- [Freeze](project_freeze.md) — release freeze\n"
        "- [Gone](project_gone.md) — deleted last month\n"
        "- [Log](project_log.md) — status log\n"
        "- [Also gone](sub/missing.md)\n"
    ),
    "project_freeze.md": memory(
        "Merge freeze begins 2026-03-05; only hotfixes until then.\n"
        "The 4.2 release cut is planned for Q1 2026.\n"
        "Next review: 2026-12-15 (still ahead).\n",
        name="freeze",
    ),
    "project_log.md": memory(
        "- 2026-03-01: freeze lifted\n"
        "Backup completed 2026-06-20.\n"
        "Since 2026-01-10 we deploy with Argo.\n",
        name="log",
    ),
    "feedback_orphan.md": memory("Prefer small PRs.\n", type="feedback"),
}


def _keys(items, codes):
    return sorted(
        (d["code"], d["path"], d["location"]["row"], d["location"]["column"])
        for d in items
        if d["code"] in codes
    )


def test_truth_store_reports_exactly_the_known_problems(make_store, run_curator, tmp_path):
    make_store(TRUTH)
    result = run_curator("lint", "memory", "--output-format", "json", "--today", "2026-11-30")
    assert result.code == 1, result.stderr
    items = result.json()
    assert _keys(items, {"CUR010", "CUR011", "CUR101"}) == [
        ("CUR010", "memory/MEMORY.md", 3, 3),
        ("CUR010", "memory/MEMORY.md", 5, 3),
        ("CUR011", "memory/feedback_orphan.md", 1, 1),
        ("CUR101", "memory/project_freeze.md", 6, 21),
        ("CUR101", "memory/project_freeze.md", 7, 36),
    ]
    freeze = next(d for d in items if d["code"] == "CUR101" and d["location"]["row"] == 6)
    assert freeze["message"] == (
        "Deadline 'freeze begins 2026-03-05' is 270 days past (intent 'freeze')"
    )
    assert freeze["severity"] == "warning"
    assert freeze["detail"]["date"] == "2026-03-05"
    assert freeze["end_location"] == {"row": 6, "column": 31}


def test_clean_store_exits_zero(make_store, run_curator):
    make_store({"MEMORY.md": "- [A](a.md) — a\n", "a.md": memory()})
    result = run_curator("lint", "memory", "--ignore", "CUR2,CUR3")
    assert (result.code, result.stdout) == (0, "All checks passed!\n")


def test_a_clean_run_with_rules_that_did_not_run_says_which(make_store, run_curator):
    make_store({"MEMORY.md": "- [A](a.md) — a\n", "a.md": memory()})
    result = run_curator("lint", "memory")  # no repository, no transcripts
    assert (result.code, result.stdout) == (
        0,
        "No findings, but not every selected rule ran: CUR201, CUR202, CUR205, CUR206, CUR207, "
        "CUR301 "
        "(the notes on stderr say why).\n",
    )
    assert "path and symbol rules skipped for 1 store with no known repository" in result.stderr
    assert "CUR301 unused_low_signal skipped: no transcripts or memory events" in result.stderr


def test_fail_on_and_exit_zero(make_store, run_curator):
    make_store({"MEMORY.md": "- [A](a.md)\n", "a.md": memory(), "orphan.md": memory()})
    assert run_curator("lint", "memory").code == 1
    assert run_curator("lint", "memory", "--fail-on", "error").code == 0
    assert run_curator("lint", "memory", "--exit-zero").code == 0


def test_concise_and_statistics(make_store, run_curator):
    make_store(TRUTH)
    concise = run_curator(
        "lint",
        "memory",
        "--output-format",
        "concise",
        "--today",
        "2026-11-30",
        "--select",
        "CUR010",
    )
    assert concise.stdout.splitlines() == [
        "memory/MEMORY.md:3:3: CUR010 MEMORY.md links 'project_gone.md', which does not exist",
        "memory/MEMORY.md:5:3: CUR010 MEMORY.md links 'sub/missing.md', which does not exist",
        "Found 2 findings (2 error).",
    ]
    stats = run_curator("lint", "memory", "--statistics", "--today", "2026-11-30")
    rows = stats.stdout.splitlines()
    assert "2\tCUR010\tbroken_index" in rows
    assert "2\tCUR101\tdate_decayed" in rows
    assert rows[0] == "count\tcode\tname"
    assert rows[-1] == f"{sum(int(r.split()[0]) for r in rows[1:-1])}\ttotal"


def test_full_format_shows_source_line_and_caret(make_store, run_curator):
    make_store({"MEMORY.md": "- [Gone](gone.md) — x\n"})
    out = run_curator("lint", "memory", "--select", "CUR010", "--no-color").stdout
    assert "1 | - [Gone](gone.md) — x\n  |   ^^^^^^^^^^^^^^^ error" in out
    assert "\x1b[" not in out
    colored = run_curator("lint", "memory", "--select", "CUR010", "--color").stdout
    assert "\x1b[" in colored
    assert "\x1b[" not in run_curator("lint", "memory", env={"NO_COLOR": "1"}).stdout


def test_select_ignore_by_prefix_code_and_name(make_store, run_curator):
    make_store(TRUTH)

    def codes(*args):
        out = run_curator(
            "lint", "memory", "--output-format", "json", "--today", "2026-11-30", *args
        )
        return sorted({d["code"] for d in out.json()})

    assert codes("--select", "CUR0") == ["CUR010", "CUR011"]
    assert codes("--select", "CUR0", "--ignore", "CUR011") == ["CUR010"]
    assert codes("--select", "ALL", "--ignore", "CUR0") == ["CUR101"]
    assert codes("--select", "date_decayed,broken_index") == ["CUR010", "CUR101"]
    assert codes("--ignore", "CUR", "--extend-select", "CUR011") == ["CUR011"]
    bad = run_curator("lint", "memory", "--select", "CUR777")
    assert bad.code == 2
    assert "--select: 'CUR777' matches no rule" in bad.stderr


def test_single_file_is_linted_in_its_store(make_store, run_curator):
    make_store(TRUTH)
    out = run_curator(
        "lint", "memory/feedback_orphan.md", "--output-format", "json", "--today", "2026-11-30"
    ).json()
    assert {(d["code"], d["path"]) for d in out} == {("CUR011", "memory/feedback_orphan.md")}
    index = run_curator(
        "lint", "memory/MEMORY.md", "--output-format", "json", "--today", "2026-11-30"
    ).json()
    assert {d["code"] for d in index} == {"CUR010"}


def test_machine_formats(make_store, run_curator):
    make_store(TRUTH)
    args = ("lint", "memory", "--today", "2026-11-30", "--select", "CUR010,CUR101")
    lines = run_curator(*args, "--output-format", "json-lines").stdout.splitlines()
    assert [json.loads(line)["code"] for line in lines] == ["CUR010", "CUR010", "CUR101", "CUR101"]
    github = run_curator(*args, "--output-format", "github").stdout.splitlines()
    assert github[0] == (
        "::error file=memory/MEMORY.md,line=3,col=3,endLine=3,endColumn=26,"
        "title=CUR010 (broken_index)::CUR010 MEMORY.md links 'project_gone.md', which does "
        "not exist"
    )
    auto = run_curator(*args, env={"GITHUB_ACTIONS": "true"}).stdout.splitlines()
    assert auto == github
    junit = ET.fromstring(run_curator(*args, "--output-format", "junit").stdout)
    assert junit.find("testsuite").get("failures") == "4"
    sarif = json.loads(run_curator(*args, "--output-format", "sarif").stdout)
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["CUR010", "CUR010", "CUR101", "CUR101"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "memory/MEMORY.md"
    )


def test_output_file(make_store, run_curator, tmp_path):
    make_store(TRUTH)
    result = run_curator("lint", "memory", "--output-format", "json", "-o", "out.json")
    assert result.stdout == ""
    assert json.loads((tmp_path / "out.json").read_text())
