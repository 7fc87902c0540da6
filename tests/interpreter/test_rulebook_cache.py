"""The compiled-rulebook cache and lint's result cache: a warm run answers as a cold one,
and a stale, torn or foreign cache file is rebuilt without a word to the user."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from curator.interpreter import cache_format
from curator.models import Diagnostic, Severity
from tests.conftest import Run, memory, write_files

RULE = """\
code: TEAM001
name: team_word
check: pattern
severity: warning
summary: A memory names the team's codeword
patterns: ['\\bbluebird\\b']
message: "MESSAGE-AAAA: {{ match }}"
docs: |
  ## What it does
  x
tests:
  - name: found
    files: {a.md: "---\\nname: a\\ndescription: d\\ntype: user\\n---\\nbluebird\\n"}
    expect: [{code: TEAM001, file: a.md, line: 6}]
  - name: clean
    files: {b.md: "---\\nname: b\\ndescription: d\\ntype: user\\n---\\nNo.\\n"}
    expect: []
"""

STORE = {
    "MEMORY.md": "- [Freeze](project_freeze.md) — the freeze\n- [Gone](project_gone.md) — gone\n",
    "project_freeze.md": memory("Merge freeze begins 2026-03-05 for bluebird.\n", name="freeze"),
    "feedback_orphan.md": memory(
        "Deploy with `password: Xk9#mQ2vL7pR` never.\n",
        name="orphan",
        type="feedback",
        description='"quoted: needs YAML"',
        extra="metadata:\n  node_type: memory\n  created: 2026-01-04",
    ),
    "no_frontmatter.md": "Just text about bluebird.\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write_files(root / "memory", STORE)
    write_files(root / "pack", {"team_word.yaml": RULE})
    (root / ".curator.yaml").write_text("rule_paths: [pack]\n", encoding="utf-8")
    return root


def cache_files(tmp_path: Path, folder: str) -> list[Path]:
    return sorted((tmp_path / "onlooker" / "curator" / "cache" / folder).rglob("*.json"))


def lint(run_curator: Callable[..., Run], root: Path, *args: str) -> Run:
    return run_curator("lint", "memory", "--today", "2026-06-01", *args, cwd=root)


def test_a_warm_run_reads_the_rulebook_and_results_from_the_cache(
    tmp_path: Path, project: Path, run_curator: Callable[..., Run]
) -> None:
    cold = lint(run_curator, project, "--output-format", "json")
    assert cold.code == 1, cold.stderr
    (rulebook,) = cache_files(tmp_path, "rulebook")
    assert {p.name for p in cache_files(tmp_path, "lint")} >= {"results.json", "memo.json"}
    # Never beside the user's rule files.
    assert sorted(p.name for p in (project / "pack").iterdir()) == ["team_word.yaml"]
    warm = lint(run_curator, project, "--output-format", "json")
    assert (warm.code, warm.stdout, warm.stderr) == (cold.code, cold.stdout, cold.stderr)
    codes = {d["code"] for d in warm.json()}
    assert {"TEAM001", "CUR101", "CUR010", "CUR503"} <= codes
    # The cache holds JSON, not pickle: reading it cannot run code.
    assert json.loads(rulebook.read_bytes())["rules"]


@pytest.mark.parametrize(
    "fmt", ["full", "concise", "json", "json-lines", "github", "sarif", "junit"]
)
def test_diagnostics_are_the_same_with_and_without_the_caches(
    tmp_path: Path, project: Path, run_curator: Callable[..., Run], fmt: str
) -> None:
    cache = tmp_path / "onlooker" / "curator" / "cache"
    first = lint(run_curator, project, "--output-format", fmt, "--no-color")
    warm = lint(run_curator, project, "--output-format", fmt, "--no-color")
    shutil.rmtree(cache)
    cold = lint(run_curator, project, "--output-format", fmt, "--no-color")
    assert first.stdout.strip() and first.code == 1
    assert (warm.code, warm.stdout, warm.stderr) == (first.code, first.stdout, first.stderr)
    assert (cold.code, cold.stdout, cold.stderr) == (first.code, first.stdout, first.stderr)


def test_a_truncated_cache_is_rebuilt_without_a_message(
    tmp_path: Path, project: Path, run_curator: Callable[..., Run]
) -> None:
    cold = lint(run_curator, project, "--output-format", "json")
    for path in cache_files(tmp_path, "rulebook") + cache_files(tmp_path, "lint"):
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    torn = lint(run_curator, project, "--output-format", "json")
    assert (torn.code, torn.stdout, torn.stderr) == (cold.code, cold.stdout, cold.stderr)
    (rulebook,) = cache_files(tmp_path, "rulebook")
    assert json.loads(rulebook.read_bytes())["rules"]  # written whole again


def test_a_foreign_cache_file_is_rebuilt_without_a_message(
    tmp_path: Path, project: Path, run_curator: Callable[..., Run]
) -> None:
    cold = lint(run_curator, project, "--output-format", "json")
    (rulebook,) = cache_files(tmp_path, "rulebook")
    key = json.loads(rulebook.read_bytes())["key"]
    # Right key, but a tag naming something curator never caches: not built, a miss.
    rulebook.write_text(json.dumps({"key": key, "rules": [{"$os.system": "echo hi"}]}))
    foreign = lint(run_curator, project, "--output-format", "json")
    assert (foreign.code, foreign.stdout, foreign.stderr) == (cold.code, cold.stdout, cold.stderr)


def test_a_rule_file_changed_to_the_same_size_is_read_again(
    tmp_path: Path, project: Path, run_curator: Callable[..., Run]
) -> None:
    before = lint(run_curator, project, "--output-format", "json", "--select", "TEAM001")
    assert {d["message"] for d in before.json()} == {"MESSAGE-AAAA: bluebird"}
    rule = project / "pack" / "team_word.yaml"
    stat = rule.stat()
    rule.write_text(RULE.replace("AAAA", "BBBB"), encoding="utf-8")
    assert rule.stat().st_size == stat.st_size
    # An editor's save moves the mtime; set it apart explicitly, as a coarse filesystem
    # clock could give the same tick to both writes.
    os.utime(rule, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    after = lint(run_curator, project, "--output-format", "json", "--select", "TEAM001")
    assert {d["message"] for d in after.json()} == {"MESSAGE-BBBB: bluebird"}
    assert after.stderr == before.stderr


def test_an_edited_memory_is_linted_again(
    tmp_path: Path, project: Path, run_curator: Callable[..., Run]
) -> None:
    lint(run_curator, project, "--output-format", "json")
    path = project / "memory" / "project_freeze.md"
    path.write_text(memory("Merge freeze begins 2026-04-05.\n", name="freeze"))
    warm = lint(run_curator, project, "--output-format", "json")
    shutil.rmtree(tmp_path / "onlooker" / "curator" / "cache")
    cold = lint(run_curator, project, "--output-format", "json")
    assert warm.stdout == cold.stdout
    assert not any(d["code"] == "TEAM001" and "freeze" in d["path"] for d in warm.json())
    assert any(d["code"] == "CUR101" and "2026-04-05" in d["message"] for d in warm.json())


def test_cached_values_come_back_as_they_were() -> None:
    diagnostic = Diagnostic(
        code="CUR101",
        name="date_decayed",
        severity=Severity.WARNING,
        path=Path("/s/a.md"),
        line=3,
        column=1,
        end_line=3,
        end_column=9,
        message="m",
        memory_files=("a.md",),
        detail={"day": date(2026, 3, 5), "$odd": [1, (2, 3)], 4: b"\x00", "s": {1}},
    )
    value = {"entries": {("CUR101", "a.md"): ("sha", 1.5, "", (diagnostic,))}}
    assert cache_format.loads(cache_format.dumps(value)) == value


@pytest.mark.parametrize(
    "data",
    [b"", b"\x80\x04\x95", b'{"$os.system": "id"}', b'{"$Rule": {"nope": 1}}', b"[" * 100_000],
)
def test_a_file_curator_did_not_write_is_a_miss(data: bytes) -> None:
    with pytest.raises(cache_format.CacheError):
        cache_format.loads(data)


def test_a_named_tuple_is_refused_not_read_back_as_a_tuple() -> None:
    """Read back, a NamedTuple would lose its class: the cache refuses it, a miss later."""
    from curator.repo.mapping import RepoChoice

    with pytest.raises(cache_format.CacheError):
        cache_format.dumps({"choice": RepoChoice(None, "none")})
    assert cache_format.loads(cache_format.dumps((1, (2,)))) == (1, (2,))


def test_a_relinked_symlink_is_read_afresh(
    tmp_path: Path, project: Path, run_curator: Callable[..., Run]
) -> None:
    """Two memories that are symlinks to a missing file, then to each other: the result is
    keyed on what the links lead to, not on the links' own stat."""
    store = project / "memory"
    for name in ("a.md", "b.md"):
        (store / name).symlink_to("missing.md")

    def unreadable() -> list[str]:
        run = lint(run_curator, project, "--output-format", "json", "--select", "CUR004")
        return sorted(f"{Path(d['filename']).name}: {d['message']}" for d in run.json())

    assert unreadable() == [
        "a.md: Cannot read memory file: symlink leads nowhere: No such file or directory",
        "b.md: Cannot read memory file: symlink leads nowhere: No such file or directory",
    ]
    for name, other in (("a.md", "b.md"), ("b.md", "a.md")):
        (store / name).unlink()
        (store / name).symlink_to(other)
    looped = [f"{n}: Cannot read memory file: symlink loop; not read" for n in ("a.md", "b.md")]
    assert unreadable() == looped
    shutil.rmtree(tmp_path / "onlooker" / "curator" / "cache")
    assert unreadable() == looped


def test_a_rule_with_more_results_than_the_bound_runs_afresh_instead_of_being_cached(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    """Reading a cached diagnostic back costs about what a cheap rule takes to make it:
    an index of thousands of broken links is linted, not decoded (issue 26, item 10)."""
    from curator.interpreter.run_cache import MAX_CACHED_PER_RULE

    root = tmp_path / "project"
    links = [f"- [N{i}](gone_{i}.md) — gone" for i in range(MAX_CACHED_PER_RULE + 1)]
    write_files(root / "memory", {"MEMORY.md": "\n".join(links) + "\n"})
    cold = lint(run_curator, root, "--output-format", "json")
    assert cold.code == 1, cold.stderr
    assert sum(d["code"] == "CUR010" for d in cold.json()) == MAX_CACHED_PER_RULE + 1
    (results,) = [p for p in cache_files(tmp_path, "lint") if p.name == "results.json"]
    by_code = cache_format.loads(results.read_bytes())["by_code"]
    assert "CUR010" not in by_code and by_code  # the other rules' results are kept
    warm = lint(run_curator, root, "--output-format", "json")
    assert (warm.code, warm.stdout) == (cold.code, cold.stdout)


def test_a_results_file_over_the_size_bound_is_not_read(
    tmp_path: Path, project: Path, run_curator: Callable[..., Run]
) -> None:
    """A results file larger than the bound (another version's, or grown by hand) is a
    miss: its key matches, yet the run lints afresh rather than decode it."""
    from curator.interpreter.run_cache import MAX_RESULTS_BYTES

    cold = lint(run_curator, project, "--output-format", "json")
    (results,) = [p for p in cache_files(tmp_path, "lint") if p.name == "results.json"]
    text = results.read_text(encoding="utf-8")
    assert "project_gone.md" in text
    tampered = text.replace("project_gone.md", "TAMPERED.md")
    results.write_text(tampered + " " * MAX_RESULTS_BYTES, encoding="utf-8")
    warm = lint(run_curator, project, "--output-format", "json")
    assert "TAMPERED" not in warm.stdout
    assert (warm.code, warm.stdout) == (cold.code, cold.stdout)
