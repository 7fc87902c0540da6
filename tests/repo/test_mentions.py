"""Where a name lives on in a repository: in code, or only in comments and docs."""

from __future__ import annotations

from pathlib import Path

from curator.interpreter.rulebook import load_rules
from curator.repo import mentions
from tests.helpers.history_repo import commit

RULE = next(r for r in load_rules() if r.code == "CUR202")
SYNTAXES = mentions.syntax_from(RULE.params["comment_syntax"])
DOCS = RULE.params["doc_files"]

FILES = {
    # JS: `//` in a string is no comment; a block comment spans lines; a template
    # literal holds `//` that is no comment either.
    "src/a.ts": (
        'const u = "see // docs"; callUrlName();\n'
        "/* blockOnly\n   spans lines */\n"
        "const t = `\n// notAComment\n`;\n"
        "x--; afterDecrement();  // lineOnly\n"
    ),
    # Shell: `$#` is the argument count, not a comment.
    "run.sh": "echo $#shellArgs\n# shellComment\n",
    # Python: a '#' in a string is no comment; a docstring is a string (code).
    "jobs.py": 'x = \'see # notes\'; hashInString = 1\n"""docstringName"""\n# pyComment\n',
    "docs/plan.md": "docOnly and lineOnly; afterDecrement is code elsewhere\n",
    "data.json": '{"jsonName": 1}\n',  # a file of no known syntax: all code
}
WORDS = [
    "callUrlName",
    "blockOnly",
    "notAComment",
    "afterDecrement",
    "lineOnly",
    "shellArgs",
    "shellComment",
    "hashInString",
    "docstringName",
    "pyComment",
    "docOnly",
    "jsonName",
    "nowhere",
]


def test_names_only_comments_and_docs_mention_are_told_from_code(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    commit(root, "init", "2026-01-10", files={**FILES, "store/keep.ts": "blockOnly();\n"})
    # The store is left out: a memory folder never vouches for a name.
    found = mentions.find_words(
        root.resolve(), [*WORDS, "bystander"], WORDS, SYNTAXES, DOCS, exclude="store"
    )
    assert found is not None
    present, commented = found
    assert present == set(WORDS) - {"nowhere"}  # every occurrence counts for presence
    summary = {w: (m.comments, m.docs, sorted(m.files)) for w, m in commented.items()}
    assert summary == {
        "blockOnly": (1, 0, ["src/a.ts"]),
        "lineOnly": (1, 1, ["docs/plan.md", "src/a.ts"]),
        "shellComment": (1, 0, ["run.sh"]),
        "pyComment": (1, 0, ["jobs.py"]),
        "docOnly": (0, 1, ["docs/plan.md"]),
    }
