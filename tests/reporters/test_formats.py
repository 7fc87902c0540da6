"""The CI formats against their consumers: SARIF against the official 2.1.0 schema, JUnit
through a JUnit parser, GitHub annotations in workflow-command syntax."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from junitparser import Failure, JUnitXml

from tests.conftest import memory, write_files

SCHEMA = json.loads(
    (Path(__file__).parents[1] / "fixtures/sarif-schema-2.1.0.json").read_text(encoding="utf-8")
)
TODAY = "2026-06-01"

# One store with a finding of every cheap kind there is (a second store for CUR016, which
# needs a store without MEMORY.md), and a rule pack whose template fails (CUR900).
CHEAP_CODES = {
    "CUR001", "CUR002", "CUR003", "CUR004", "CUR005",
    "CUR010", "CUR011", "CUR012", "CUR013", "CUR014", "CUR015", "CUR016",
    "CUR101", "CUR102", "CUR900", "CUR901",
}  # fmt: skip


def every_kind(root: Path) -> Path:
    index = [
        "- [Deploy](feedback_deploy.md) — deploys",
        "- [Release](project_release.md) — release",
        "- [Choice](project_choice.md) — a choice",
        "- [Long](project_long.md) — long",
        "- [Freeze](project_freeze.md) — freeze",
        "- [Cache](project_cache.md) — cache",
        "- [Quiet](project_quiet.md) — quiet",
        "- [Gone](project_gone.md) — removed",
        "- [Deploy again](./feedback_deploy.md) — twice",
        "- [Passwd](../../../../../../etc/passwd) — outside",
        "- [Wordy](project_release.md) — " + "very " * 70 + "long",
    ]
    index += [f"- note {n}" for n in range(200)]
    files: dict[str, str | bytes] = {
        "MEMORY.md": "\n".join(index) + "\n",
        "feedback_deploy.md": (
            '---\nname: deploy\ndescription: "deploys always via the pipeline\n'
            "type: feedback\n---\nBody.\n"
        ),
        "project_release.md": "---\nname: release\ntype: project\n---\nBody.\n",
        "project_choice.md": memory(name="choice", type="decision"),
        "project_long.md": memory("".join(f"line {n}\n" for n in range(800)), name="long"),
        "project_freeze.md": memory("Merge freeze begins 2026-03-05.\n", name="freeze"),
        "project_cache.md": memory(
            "Revisit the cache design next week.\n", name="cache", extra="modified: 2026-02-02"
        ),
        "project_quiet.md": memory(
            "<!-- curator-disable-next-line CUR101 -->\nNothing dated here.\n", name="quiet"
        ),
        "project_orphan.md": memory("Never linked.\n", name="orphan"),
        "image.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    }
    write_files(root / "stores/-home-me-api/memory", files)
    write_files(root / "stores/-home-me-web/memory", {"a.md": memory(name="a")})
    write_files(
        root / "pack",
        {
            "broken_template.yaml": (
                "code: CUR950\nname: broken_template\ncheck: pattern\ntier: cheap\n"
                "severity: info\nsummary: A rule whose message names nothing it has\n"
                "patterns: ['Never linked']\nmessage: 'found {{ nothing_here }}'\n"
                "docs: |\n  ## What it does\n  x\n  ## Why it matters\n  x\n"
                "  ## Example\n  x\n  ## How to fix\n  x\n"
                "tests:\n  - name: fires\n    files: {a.md: 'x'}\n    expect: []\n"
            )
        },
    )
    (root / ".curator.yaml").write_text("rule_paths: [pack]\n", encoding="utf-8")
    return root


def lint(run_curator, root: Path, fmt: str, *extra: str):
    return run_curator(
        "lint", "--all", "stores", "--today", TODAY, "--output-format", fmt, *extra, cwd=root
    )


def test_sarif_validates_against_the_schema_for_every_cheap_kind(run_curator, tmp_path) -> None:
    root = every_kind(tmp_path / "repo")
    run = lint(run_curator, root, "sarif")
    assert run.code == 1, run.stderr
    log = run.json()

    jsonschema.Draft4Validator(SCHEMA).validate(log)
    [sarif_run] = log["runs"]
    results = sarif_run["results"]
    assert {r["ruleId"] for r in results} >= CHEAP_CODES

    rules = sarif_run["tool"]["driver"]["rules"]
    for result in results:
        rule = rules[result["ruleIndex"]]
        assert rule["id"] == result["ruleId"]
        assert rule["shortDescription"]["text"] and "## How to fix" in rule["help"]["markdown"]
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        # Repository-relative, against the checkout root GitHub knows as SRCROOT.
        assert location["uriBaseId"] == "SRCROOT"
        assert location["uri"].startswith(("stores/-home-me-", "pack/")), location["uri"]
    assert sarif_run["originalUriBaseIds"]["SRCROOT"]["uri"] == root.as_uri() + "/"
    broken = next(r for r in results if r["ruleId"] == "CUR010")
    assert broken["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "stores/-home-me-api/memory/MEMORY.md", "uriBaseId": "SRCROOT"},
        "region": {"startLine": 8, "startColumn": 3, "endLine": 8, "endColumn": 26},
    }
    assert broken["level"] == "error"
    assert rules[broken["ruleIndex"]]["defaultConfiguration"] == {"level": "error"}
    prints = [r["partialFingerprints"]["curatorFinding/v1"] for r in results]
    assert len(set(prints)) == len(prints)  # distinct findings never share an alert


def test_sarif_fingerprints_survive_shifted_lines(run_curator, tmp_path: Path) -> None:
    store = write_files(
        tmp_path / "memory",
        {
            "MEMORY.md": "- [Gone](gone.md) — x\n- [Also gone](also.md) — y\n",
            "project_freeze.md": memory("Merge freeze begins 2026-03-05.\n"),
        },
    )

    def prints() -> dict[tuple[str, int], str]:
        run = run_curator("lint", "memory", "--today", TODAY, "--output-format", "sarif")
        return {
            (
                r["ruleId"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"],
            ): r["partialFingerprints"]["curatorFinding/v1"]
            for r in run.json()["runs"][0]["results"]
        }

    before = prints()
    (store / "MEMORY.md").write_text(
        "# Index\n\n- [Gone](gone.md) — x\n- [Also gone](also.md) — y\n", encoding="utf-8"
    )
    (store / "project_freeze.md").write_text(
        memory("A new first line.\n\nMerge freeze begins 2026-03-05.\n"), encoding="utf-8"
    )
    after = prints()
    assert set(before) == {("CUR010", 1), ("CUR010", 2), ("CUR011", 1), ("CUR101", 6)}
    assert set(after) == {("CUR010", 3), ("CUR010", 4), ("CUR011", 1), ("CUR101", 8)}
    assert after[("CUR011", 1)] == before[("CUR011", 1)]
    assert after[("CUR010", 3)] == before[("CUR010", 1)]
    assert after[("CUR010", 4)] == before[("CUR010", 2)]
    assert after[("CUR101", 8)] == before[("CUR101", 6)]
    assert before[("CUR010", 1)] != before[("CUR010", 2)]


def test_junit_loads_in_a_junit_parser(run_curator, tmp_path: Path) -> None:
    root = every_kind(tmp_path / "repo")
    out = root / "curator.xml"
    run = lint(run_curator, root, "junit", "--output-file", str(out))
    assert run.code == 1 and run.stdout == ""

    xml = JUnitXml.fromfile(str(out))
    suites = {suite.name: suite for suite in xml}
    assert set(suites) == {
        "curator: stores/-home-me-api/memory",
        "curator: stores/-home-me-web/memory",
    }
    web = suites["curator: stores/-home-me-web/memory"]
    [case] = list(web)
    [failure] = case.result
    assert isinstance(failure, Failure)
    assert failure.type == "CUR016"
    assert failure.message == "The store has 1 memory but no MEMORY.md index"
    api = suites["curator: stores/-home-me-api/memory"]
    assert api.tests == api.failures == len(list(api)) >= len(CHEAP_CODES) - 1
    broken = next(c for c in api if c.result[0].type == "CUR010")
    assert broken.classname == "stores/-home-me-api/memory/MEMORY.md"
    assert broken.name == "CUR010 broken_index at stores/-home-me-api/memory/MEMORY.md:8:3"


def test_junit_of_a_clean_store_has_one_passing_case(run_curator, tmp_path: Path) -> None:
    write_files(tmp_path / "memory", {"MEMORY.md": "- [A](a.md) — a\n", "a.md": memory()})
    run = run_curator("lint", "memory", "--output-format", "junit", "-o", "out.xml")
    assert run.code == 0
    [suite] = list(JUnitXml.fromfile(str(tmp_path / "out.xml")))
    [case] = list(suite)
    assert (suite.tests, suite.failures, case.name, case.result) == (1, 0, "no findings", [])


def test_junit_survives_control_characters_in_messages(run_curator, tmp_path: Path) -> None:
    write_files(tmp_path / "memory", {"MEMORY.md": "- [Bell](bell\x07.md) — x\n"})
    run = run_curator("lint", "memory", "--output-format", "junit", "-o", "out.xml")
    assert run.code == 1
    [suite] = list(JUnitXml.fromfile(str(tmp_path / "out.xml")))
    [case] = list(suite)
    assert case.result[0].message == "MEMORY.md links 'bell\ufffd.md', which does not exist"


# `::level prop=value,...::message` with values escaped as GitHub's toolkit does:
# % \r \n in the message; also : and , in property values.
ANNOTATION = re.compile(r"^::(error|warning|notice) ((?:\w+=[^,:]*,?)+)::(.*)$")


def unescape(text: str) -> str:
    for escaped, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, char)
    return text


def test_github_annotations_are_workflow_commands(run_curator, tmp_path: Path) -> None:
    # A folder name and an index target holding every character that needs escaping.
    write_files(
        tmp_path / "a,b:c%d/memory",
        {"MEMORY.md": "- [Odd](100%,done:x.md) — x\n", "a.md": memory()},
    )
    run = run_curator("lint", "a,b:c%d/memory", "--output-format", "github")
    assert run.code == 1
    lines = run.stdout.splitlines()
    parsed = []
    for line in lines:
        match = ANNOTATION.match(line)
        assert match, line
        level, props, message = match.groups()
        fields = dict(p.split("=", 1) for p in props.rstrip(",").split(","))
        parsed.append((level, {k: unescape(v) for k, v in fields.items()}, unescape(message)))
    assert parsed[0] == (
        "error",
        {
            "file": "a,b:c%d/memory/MEMORY.md",
            "line": "1",
            "col": "3",
            "endLine": "1",
            "endColumn": "24",
            "title": "CUR010 (broken_index)",
        },
        "CUR010 MEMORY.md links '100%,done:x.md', which does not exist",
    )
    assert lines[0].startswith("::error file=a%2Cb%3Ac%25d/memory/MEMORY.md,line=1,")
    assert parsed[1][0] == "warning" and parsed[1][1]["file"] == "a,b:c%d/memory/a.md"


def test_github_messages_escape_newlines_and_percent() -> None:
    from curator.models import Diagnostic, Severity
    from curator.reporters import ReportContext
    from curator.reporters.github import render

    message = "first line\r\nsecond: 100%, done"
    d = Diagnostic("CUR999", "x", Severity.INFO, Path("/w/m/a.md"), 2, 1, 2, 5, message)
    out = render([d], ReportContext(format="github", cwd=Path("/w")))
    assert out == (
        "::notice file=m/a.md,line=2,col=1,endLine=2,endColumn=5,title=CUR999 (x)"
        "::CUR999 first line%0D%0Asecond: 100%25, done\n"
    )
    assert unescape(ANNOTATION.match(out.rstrip("\n")).group(3)) == f"CUR999 {message}"


@pytest.mark.parametrize("value,expected", [("true", "::error "), ("false", "memory/MEMORY.md:1")])
def test_github_format_is_the_default_inside_actions(
    run_curator, tmp_path: Path, value: str, expected: str
) -> None:
    write_files(tmp_path / "memory", {"MEMORY.md": "- [Gone](gone.md) — x\n"})
    run = run_curator("lint", "memory", env={"GITHUB_ACTIONS": value})
    assert run.code == 1
    assert run.stdout.startswith(expected)
    explicit = run_curator(
        "lint", "memory", "--output-format", "concise", env={"GITHUB_ACTIONS": value}
    )
    assert explicit.stdout.startswith("memory/MEMORY.md:1:3: CUR010")
