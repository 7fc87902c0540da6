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
