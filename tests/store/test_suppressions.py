from __future__ import annotations

from tests.conftest import memory

FREEZE = "Merge freeze begins 2026-03-05.\n"


def _codes(run_curator, *extra):
    out = run_curator(
        "lint",
        "memory",
        "--output-format",
        "json",
        "--today",
        "2026-11-30",
        "--select",
        "CUR101,CUR901,CUR011",
        *extra,
    )
    return sorted((d["code"], d["path"], d["location"]["row"]) for d in out.json())


def test_next_line_block_and_file_suppressions(make_store, run_curator):
    make_store(
        {
            "MEMORY.md": "- [A](a.md)\n- [B](b.md)\n- [C](c.md)\n",
            "a.md": memory("<!-- curator-disable-next-line CUR101 -->\n" + FREEZE + FREEZE),
            "b.md": memory(
                "<!-- curator-disable CUR1 -->\n"
                + FREEZE
                + FREEZE
                + "<!-- curator-enable CUR1 -->\n"
                + FREEZE
            ),
            "c.md": memory("<!-- curator-disable-file -->\n" + FREEZE),
            "orphan.md": memory("<!-- curator-disable-file CUR011 -->\n"),
        }
    )
    assert _codes(run_curator) == [
        ("CUR101", "memory/a.md", 8),
        ("CUR101", "memory/b.md", 10),
    ]


def test_unused_suppression_is_reported_only_for_rules_that_ran(make_store, run_curator):
    make_store(
        {
            "MEMORY.md": "- [A](a.md)\n",
            "a.md": memory(
                "<!-- curator-disable-next-line CUR101 -->\nNo date here.\n"
                "<!-- curator-disable-next-line CUR201 -->\nCUR201 is not selected.\n"
            ),
        }
    )
    assert _codes(run_curator) == [("CUR901", "memory/a.md", 6)]
    assert _codes(run_curator, "--ignore", "CUR901") == []


def test_a_bare_enable_closes_every_open_block(make_store, run_curator):
    """`<!-- curator-enable -->` with no codes ends every disable block open above it."""
    next_week = "Ship it next week.\n"
    body = (
        "<!-- curator-disable CUR101 -->\n"  # line 7
        "<!-- curator-disable CUR102 -->\n"
        "<!-- curator-disable -->\n"
        + FREEZE  # line 10: inside all three blocks
        + next_week
        + "<!-- curator-enable -->\n"  # line 12
        + FREEZE  # line 13: every block is closed
        + next_week
    )
    make_store({"MEMORY.md": "- [A](a.md)\n", "a.md": memory(body, extra="modified: 2026-03-01")})
    assert _codes(run_curator, "--extend-select", "CUR102") == [
        ("CUR101", "memory/a.md", 13),
        ("CUR102", "memory/a.md", 14),
    ]
