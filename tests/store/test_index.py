from __future__ import annotations

from curator.store.index import parse_index


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
