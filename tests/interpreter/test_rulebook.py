"""User rule packs: every mistake in a rule file is exit 2 naming the file and line;
a hostile pattern or template cannot hang or escape."""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.conftest import memory
from tests.helpers.hostile import assert_clean, changed, snapshot

GOOD = """\
code: TEAM001
name: secret_in_memory
check: pattern
severity: error
summary: A memory holds something that looks like an API key
patterns: ['\\b(?:sk-ant-|ghp_)[A-Za-z0-9_-]{20,}']
message: "Memory holds what looks like a secret ({{ match }})"
docs: |
  ## What it does
  x
tests:
  - name: found
    files: {a.md: "---\\nname: a\\ndescription: d\\ntype: user\\n---\\nkey sk-ant-abcdefghijklmnopqrstuvwx\\n"}
    expect: [{code: TEAM001, file: a.md, line: 6, column: 5}]
  - name: clean
    files: {b.md: "---\\nname: b\\ndescription: d\\ntype: user\\n---\\nNo keys.\\n"}
    expect: []
"""


@pytest.fixture
def pack(tmp_path):
    folder = tmp_path / "team-rules"
    folder.mkdir()
    (tmp_path / ".curator.yaml").write_text("rule_paths: [team-rules]\n")

    def write(text: str, name: str = "secret_in_memory.yaml"):
        path = folder / name
        path.write_text(textwrap.dedent(text))
        return path

    return write


def test_user_rule_runs_and_self_tests(pack, make_store, run_curator):
    pack(GOOD)
    make_store(
        {"MEMORY.md": "- [A](a.md)\n", "a.md": memory("token ghp_abcdefghijklmnopqrstuvwxyz0123\n")}
    )
    out = run_curator("lint", "memory", "--select", "TEAM", "--output-format", "concise")
    assert out.stdout.splitlines()[0] == (
        "memory/a.md:6:7: TEAM001 Memory holds what looks like a secret "
        "(ghp_abcdefghijklmnopqrstuvwxyz0123)"
    )
    tests = run_curator("rules", "test", "TEAM001")
    assert tests.stdout.splitlines()[-1] == "2 passed, 0 failed"
    assert tests.code == 0


@pytest.mark.parametrize(
    "change,line,error",
    [
        (("severity: error", "severity: error\ncolour: red"), 5, "unknown key 'colour'"),
        (("check: pattern", "check: grep"), 3, "unknown check 'grep'"),
        (("ghp_)", "ghp_"), 6, "bad pattern"),
        (("({{ match }})", "({{ match }"), 7, "bad message"),
        (("name: secret_in_memory", "name: other"), 2, "must match the file name"),
        (("code: TEAM001", "code: team1"), 1, "must look like CUR101"),
        (("severity: error", "severity: fatal"), 4, "severity must be"),
        (("  - name: clean\n", "  - name: clean\n    written: last week\n"), 15, "written must be"),
    ],
)
def test_rule_errors_name_file_and_line(pack, make_store, run_curator, change, line, error):
    path = pack(GOOD.replace(*change))
    make_store({"a.md": memory()})
    out = run_curator("lint", "memory")
    assert out.code == 2, out.stdout
    assert out.stderr.startswith(f"curator: error: {path}:{line}: ")
    assert error in out.stderr
    assert "Traceback" not in out.stderr


def test_catastrophic_pattern_times_out_as_cur900(pack, make_store, run_curator):
    pack(GOOD.replace("'\\b(?:sk-ant-|ghp_)[A-Za-z0-9_-]{20,}'", "'(x+x+)+y'"))
    make_store({"a.md": memory("x" * 5000 + "\n")})
    out = run_curator("lint", "memory", "--select", "TEAM001,CUR900", "--output-format", "json")
    codes = [(d["code"], d["detail"].get("rule")) for d in out.json()]
    assert codes == [("CUR900", "TEAM001")]
    assert "pattern timed out" in out.json()[0]["message"]


def test_hostile_template_cannot_reach_python(pack, make_store, run_curator):
    pack(GOOD.replace("({{ match }})", "{{ match.__class__.__mro__[1].__subclasses__() }}"))
    make_store({"a.md": memory("key sk-ant-abcdefghijklmnopqrstuvwx\n")})
    out = run_curator("lint", "memory", "--select", "TEAM001,CUR900", "--output-format", "json")
    assert [d["code"] for d in out.json()] == ["CUR900"]
    assert out.json()[0]["message"].startswith("Rule TEAM001 failed: message template failed")
    assert "Traceback" not in out.stderr


LOOPING_TEMPLATES = [
    ("{% for i in range(10**9) %}x{% endfor %}", "range() of 1,000,000,000 items, over 10,000"),
    ("{% for i in range(9999) %}{% for j in range(9999) %}{% endfor %}{% endfor %}",
     "range() items past 100,000 in one render"),
    ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "recursion"),
    ("{% macro f(n) %}{% if n %}{{ f(n-1) }}{{ f(n-1) }}{% endif %}{% endmacro %}{{ f(60) }}",
     "more than 10,000 calls"),
    ("{% for a in match * 50 %}{% for b in match * 50 %}{% for c in match * 50 %}"
     "{% endfor %}{% endfor %}{% endfor %}", "ran past 2 seconds"),
    ("{{ match * 10**9 }}", "built a value of"),
    ("{% set ns = namespace(s=match) %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}"
     "{% endfor %}{{ ns.s }}", "'~' built a string over 1,000,000 characters"),
    ("{{ match|center(10**9) }}", "a filter argument of 1,000,000,000"),
    ("{{ '{:>999999999}'.format(match) }}", "is too wide"),
    ("{% for i in range(9000) %}{{ match * 20 }}{% endfor %}", "output over 1,000,000"),
    ("{{ 1 / 0 }}", "division by zero"),
]  # fmt: skip


@pytest.mark.parametrize(
    "template,reason",
    LOOPING_TEMPLATES,
    ids=["range", "nested-ranges", "recursive-macro", "exponential-macro", "loops-over-data",
         "multiply", "concat", "filter-width", "format-width", "output", "division"],
)  # fmt: skip
def test_a_template_that_would_run_unbounded_ends_in_cur900(
    pack, make_store, run_curator, template, reason
):
    """Issue #17: ranges, calls, built values, output and time are bounded per render."""
    pack(GOOD.replace('"Memory holds what looks like a secret ({{ match }})"', repr(template)))
    make_store({"a.md": memory("key sk-ant-abcdefghijklmnopqrstuvwx\n")})

    out = run_curator("lint", "memory", "--select", "TEAM001,CUR900", "--output-format", "json")

    assert_clean(out, (1,))
    (only,) = out.json()
    assert only["code"] == "CUR900" and only["detail"]["rule"] == "TEAM001"
    assert only["message"].startswith("Rule TEAM001 failed: message template failed: ")
    assert reason in only["message"]


def test_self_tests_never_write_outside_their_temporary_store(pack, run_curator, tmp_path):
    """Issue #17: a case's file names are confined to the case's temporary folders."""
    escaped = tmp_path / "escaped.md"
    cases = {
        "climbs out": {"files": {"../../../escaped.md": "x"}},
        "absolute": {"files": {str(escaped): "x"}},
        "climbs out from a subfolder": {"files": {"ok.md": "x", "a/../../../../escaped.md": "x"}},
        "repository file": {"repo": {"../../escaped.md": "x"}, "files": {"ok.md": "x"}},
        "history rename": {
            "files": {"ok.md": "x"},
            "history": "[{date: 2026-01-01, files: {a.py: x}},"
                       " {date: 2026-01-02, rename: {a.py: ../../escaped.md}}]",
        },
    }  # fmt: skip
    body = "".join(
        f"  - name: {name}\n"
        + "".join(
            f"    {k}: {v if isinstance(v, str) else json.dumps(v)}\n" for k, v in case.items()
        )
        + "    expect: []\n"
        for name, case in cases.items()
    )
    rule = pack(GOOD + body)
    runs_in = tmp_path / "tmp"
    runs_in.mkdir()
    before = snapshot(tmp_path, skip=(runs_in, tmp_path / "onlooker"))

    out = run_curator("rules", "test", "TEAM001", env={"TMPDIR": str(runs_in)})

    assert_clean(out, (1,))
    assert out.stdout.splitlines()[-1] == "2 passed, 5 failed"
    text = rule.read_text()
    for name in cases:
        line = text[: text.index(f"- name: {name}\n")].count("\n") + 1
        assert f"FAIL TEAM001 secret_in_memory: {name} ({rule}:{line})" in out.stdout
    assert out.stdout.count("the case was not run") == 5
    assert "file '../../../escaped.md' is not a relative path inside the test's store" in out.stdout
    assert changed(before, snapshot(tmp_path, skip=(runs_in, tmp_path / "onlooker"))) == []
    assert list(runs_in.iterdir()) == []  # the temporary folders are gone too


def test_rule_docs_and_list(run_curator):
    doc = run_curator("rule", "CUR101")
    assert doc.code == 0
    assert doc.stdout.startswith("# date_decayed (CUR101)\n")
    assert "## How to fix" in doc.stdout
    listing = run_curator("rules", "list").stdout.splitlines()
    assert listing[0].startswith("CUR001  frontmatter_invalid")
    missing = run_curator("rule", "CUR999")
    assert (missing.code, "no rule with code or name 'CUR999'" in missing.stderr) == (2, True)


def test_rule_lists_the_detail_keys_a_message_may_use(run_curator):
    doc = run_curator("rule", "CUR010")
    assert doc.stdout.endswith(
        "## Detail keys\n\n"
        "What the diagnostic's `detail` holds; a message template may use each of these, "
        "and `code`, `name`, `file`.\n\n"
        "- `target`: the link's target\n"
        "- `title`: the link's text\n"
    )
    as_json = run_curator("rule", "CUR901", "--output-format", "json").json()
    assert as_json["detail"] == {"codes": "the codes the comment names", "line": "its line"}
