from __future__ import annotations

from curator.store.index import parse_index
from tests.conftest import memory, write_files
from tests.helpers.hostile import assert_clean


def test_lenient_index_lines():
    lines = (
        "# Memory",
        "- [Title](file.md) — hook",
        "1. [Numbered](n.md) -- hook",
        "### [Heading](h.md)",
        "| [Cell](t.md) | x |",
        "See [prose](p.md#section) and [[wiki-note]] and [site](https://x.io/a.md).",
        "`[code](c.md)` is not a link; ![img](i.png) is an image",
        "```",
        "[fenced](f.md)",
        "```",
        "[spaces](<my file.md>) and [enc](my%20other.md)",
    )
    entries = parse_index(lines)
    got = [(e.line, e.column, e.target, e.is_url) for e in entries]
    assert got == [
        (2, 3, "file.md", False),
        (3, 4, "n.md", False),
        (4, 5, "h.md", False),
        (5, 3, "t.md", False),
        (6, 5, "p.md", False),
        (6, 49, "https://x.io/a.md", True),
        (6, 31, "wiki-note.md", False),
        (11, 1, "my file.md", False),
        (11, 28, "my other.md", False),
    ]


def test_a_60000_line_index_is_checked_in_linear_time(run_curator, tmp_path) -> None:
    """Issue #17: every broken line used to count the links of every other line (a
    quadratic run well past the subprocess timeout at this size); now it is linear."""
    lines = 60_000
    index = "".join(f"[](g{i}.md)\n" for i in range(lines)) + "- [A](a.md)\n- [A](a.md)\n"
    root = write_files(tmp_path / "memory", {"MEMORY.md": index, "a.md": memory()})
    assert (root / "MEMORY.md").stat().st_size < 1024 * 1024  # read, not CUR004 huge

    run = run_curator("lint", str(root), "--select", "CUR01", "--statistics",
                      "--today", "2026-06-01")  # fmt: skip

    assert_clean(run, (1,))
    rows = run.stdout.splitlines()[1:-1]  # between the header and the total
    counts = {line.split()[1]: int(line.split()[0]) for line in rows}
    assert counts == {"CUR010": lines, "CUR012": 1, "CUR013": 2}
