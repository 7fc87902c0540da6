"""The onlooker ecosystem's contract, scenario by scenario.

The original curator plugin's own end-to-end suite (onlooker-community/ecosystem,
test/bats/curator-session-start.bats) written again against this curator's hook: a real
repository with an origin remote, a store the project names in its `.curator.yaml`, the
hook as a subprocess, and the event log read back. Adapted where curator deliberately
differs: a path is stale only when history shows it was there; a bare past date is
history, so the dates here are plans; a pointer shortens itself instead of ending in "…".
Every event of every scenario validates against docs/schemas/onlooker-events.schema.json.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import CHECKOUT, Run, write_files
from tests.helpers.history_repo import commit, git

SCHEMA = json.loads(
    (CHECKOUT / "docs" / "schemas" / "onlooker-events.schema.json").read_text(encoding="utf-8")
)
ORIGIN = "git@github.com:org/curator-test.git"


class Project:
    def __init__(self, tmp: Path, run: Callable[..., Run]) -> None:
        self.tmp, self._run = tmp, run
        self.repo = tmp / "repo"
        commit(
            self.repo,
            "init",
            "2026-01-10",
            files={"scripts/live.py": "live\n", "scripts/legacy_ingest.py": "old\n"},
        )
        commit(
            self.repo,
            "drop the legacy pipeline",
            "2026-02-01",
            delete=("scripts/legacy_ingest.py",),
        )
        git(self.repo, "remote", "add", "origin", ORIGIN)
        self.home = tmp / "home"
        self.store = self.home / ".claude" / "projects" / "test-project" / "memory"
        self.store.mkdir(parents=True)
        self.onlooker = tmp / "onlooker"
        self.log = self.onlooker / "logs" / "onlooker-events.jsonl"
        key = hashlib.sha256(f"remote:{ORIGIN}".encode()).hexdigest()[:12]
        self.findings_dir = self.onlooker / "curator" / key / "findings"
        self.settings("")

    def settings(self, extra: str) -> None:
        """The project's `.curator.yaml`: the store it names, a generous budget."""
        text = (
            f"memory_store: {self.store}\n"
            "cheap: {budget_ms: 600000, skip_if_session_age_under_seconds: 0}\n"
            "rules: {date_decayed: {params: {grace_days: 7}}}\n" + extra
        )
        (self.repo / ".curator.yaml").write_text(text, encoding="utf-8")

    def memory(self, name: str, type_: str, body: str) -> Path:
        text = f"---\nname: {name}\ndescription: test\ntype: {type_}\n---\n\n{body}\n"
        return write_files(self.store, {name: text}) / name

    def index(self, *lines: str) -> None:
        write_files(self.store, {"MEMORY.md": "\n".join(lines) + "\n"})

    def hook(self) -> tuple[Run, dict[str, Any]]:
        payload = json.dumps({"cwd": str(self.repo), "source": "startup", "session_id": "sess-1"})
        run = self._run(
            "hook",
            "session-start",
            input=payload,
            cwd=self.repo,
            env={"HOME": str(self.home), "ONLOOKER_DIR": str(self.onlooker),
                 "CURATOR_TODAY": "2026-06-01", "ONLOOKER_EVENTS_LOG": ""},
        )  # fmt: skip
        assert run.code == 0, run.stderr
        out = json.loads(run.stdout)
        for event in self.events():
            jsonschema.validate(event, SCHEMA)
        return run, out

    def events(self, event_type: str | None = None) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        found = [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]
        return [e for e in found if event_type is None or e["event_type"] == event_type]

    def payloads(self, kind: str) -> list[dict[str, Any]]:
        return [e["payload"] for e in self.events(f"curator.finding.{kind}")]

    def finding_files(self) -> list[Path]:
        return sorted(self.findings_dir.glob("*.json")) if self.findings_dir.is_dir() else []


@pytest.fixture
def project(tmp_path: Path, run_curator: Callable[..., Run]) -> Project:
    return Project(tmp_path, run_curator)


def context(out: dict[str, Any]) -> str:
    return str(out.get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_an_empty_store_emits_the_scan_events(project: Project) -> None:
    _, out = project.hook()
    assert out == {}  # nothing to point at (surfacer.skip_when_zero)
    assert project.events("curator.scan.started")
    (complete,) = project.events("curator.scan.complete")
    assert (complete["payload"]["findings_new"], complete["payload"]["outcome"]) == (0, "ok")


def test_a_planned_date_past_the_grace_period(project: Project) -> None:
    project.memory(
        "project_freeze.md", "project", "Merge freeze begins 2026-03-05 for mobile release cut."
    )
    project.index("- [Freeze](project_freeze.md) — merge freeze date")
    _, out = project.hook()
    (payload,) = project.payloads("date_decayed")
    assert payload["memory_file"] == "project_freeze.md"
    assert payload["matched_phrase"] == "2026-03-05"
    assert isinstance(payload["days_past"], int) and payload["days_past"] > 7
    assert project.finding_files()
    assert (
        context(out) == "Curator: 1 open finding (1 date-decayed). Review with `/curator review`."
    )


def test_a_path_the_history_shows_gone(project: Project) -> None:
    project.memory("reference_legacy.md", "reference",
                   "See scripts/legacy_ingest.py for the old pipeline shape; scripts/live.py is current.")  # fmt: skip
    project.index("- [Legacy](reference_legacy.md) — old pipeline")
    project.hook()  # a small history is indexed inside the hook's budget
    (payload,) = project.payloads("path_broken")
    assert payload["memory_file"] == "reference_legacy.md"
    assert payload["broken_path"] == "scripts/legacy_ingest.py"
    assert payload["message"].startswith("'scripts/legacy_ingest.py' was deleted in ")


def test_memory_md_pointing_at_a_missing_file(project: Project) -> None:
    project.index("- [Ghost](feedback_ghost.md) — never existed")
    project.hook()
    (payload,) = project.payloads("broken_index")
    assert payload["referenced_file"] == "feedback_ghost.md"


def test_an_orphaned_memory(project: Project) -> None:
    project.memory("user_orphan.md", "user", "Some orphaned context.")
    project.index("# Memory")
    project.hook()
    (payload,) = project.payloads("orphaned_memory")
    assert payload["memory_file"] == "user_orphan.md"


def test_repeated_scans_dedupe(project: Project) -> None:
    project.memory("project_freeze.md", "project", "Release cut planned for 2025-01-01.")
    project.index("- [Freeze](project_freeze.md) — old date")
    project.hook()
    first = project.finding_files()
    assert len(first) >= 1
    project.log.unlink()
    project.hook()
    assert project.finding_files() == first
    (complete,) = project.events("curator.scan.complete")
    assert complete["payload"]["findings_new"] == 0


def test_the_pointer_counts_and_pluralizes_one_kind(project: Project) -> None:
    project.memory("project_a.md", "project", "Release cut planned for 2025-01-01.")
    project.memory("project_b.md", "project", "Code freeze starts 2024-06-30.")
    project.index("- [A](project_a.md) — a", "- [B](project_b.md) — b")
    _, out = project.hook()
    assert (
        context(out) == "Curator: 2 open findings (2 date-decayed). Review with `/curator review`."
    )


def test_index_entries_that_leave_the_store_are_never_read(project: Project) -> None:
    outside = project.home / ".claude" / "projects"
    sentinel = write_files(outside, {"sentinel.txt": "untouched\n"}) / "sentinel.txt"
    before = sentinel.stat()
    project.index(
        "- [Escape](../sentinel.txt) — traversal attempt",
        "- [Abs](/tmp/curator-abs-attempt.md) — absolute path attempt",
        "- [Normal](real.md) — clean reference",
    )
    project.memory("real.md", "project", "Normal body.")
    project.hook()
    referenced = {
        p["referenced_file"]
        for kind in ("broken_index", "index_link_outside_store")
        for p in project.payloads(kind)
    }
    assert referenced == {"../sentinel.txt", "/tmp/curator-abs-attempt.md"}
    after = sentinel.stat()
    assert (after.st_mtime_ns, after.st_atime_ns) == (before.st_mtime_ns, before.st_atime_ns)
    assert sentinel.read_text() == "untouched\n"


def test_urls_and_absolute_paths_are_not_paths(project: Project) -> None:
    body = (
        "See https://example.com/foo.py for upstream context.\n"
        "Also /usr/bin/python3.11 is the system python on macOS.\n"
        "But scripts/legacy_ingest.py is the broken in-repo path.\n"
    )
    project.memory("reference_urls.md", "reference", body)
    project.index("- [Refs](reference_urls.md) — mixed refs")
    project.hook()
    assert [p["broken_path"] for p in project.payloads("path_broken")] == [
        "scripts/legacy_ingest.py"
    ]


def test_the_pointer_adds_up_one_kind_across_memories(project: Project) -> None:
    project.memory("project_a.md", "project", "Stale plan: ship by 2025-01-01.")
    project.memory("project_b.md", "project", "Older deadline 2024-06-30.")
    project.index("- [A](project_a.md) — a", "- [B](project_b.md) — b")
    _, out = project.hook()
    assert "2 date-decayed" in context(out)
    assert "1 date-decayed, 1 date-decayed" not in context(out)


def test_cheap_enabled_false_skips_the_scan(project: Project) -> None:
    (project.repo / ".curator.yaml").write_text(
        f"memory_store: {project.store}\ncheap: {{enabled: false}}\n", encoding="utf-8"
    )
    project.memory("project_stale.md", "project", "Release planned for 2025-01-01.")
    project.index("- [S](project_stale.md) — s")
    _, out = project.hook()
    assert out == {}
    (complete,) = project.events("curator.scan.complete")
    assert (complete["payload"]["outcome"], complete["payload"]["skip_reason"]) == (
        "skipped",
        "disabled",
    )
    assert project.finding_files() == []
    assert not [e for e in project.events() if e["event_type"].startswith("curator.finding.")]


def test_the_pointer_fits_max_pointer_chars(project: Project) -> None:
    project.settings("surfacer: {max_pointer_chars: 40}\n")
    project.memory("project_a.md", "project", "Release cut planned for 2025-01-01.")
    project.memory("project_b.md", "project", "Code freeze starts 2024-06-30.")
    project.index("- [A](project_a.md) — a", "- [B](project_b.md) — b")
    _, out = project.hook()
    assert 0 < len(context(out)) <= 40
    assert context(out).startswith("Curator: 2 open findings")


def test_a_store_the_project_names_is_checked_against_that_project(
    project: Project, run_curator: Callable[..., Run]
) -> None:
    """`memory_store:` in the project's .curator.yaml: the hook and `curator lint` run in
    the repository check its paths against that repository, no `repositories:` needed."""
    project.memory("reference_legacy.md", "reference", "Replays use `scripts/legacy_ingest.py`.")
    project.index("- [Legacy](reference_legacy.md) — old pipeline")
    project.hook()
    assert [p["broken_path"] for p in project.payloads("path_broken")] == [
        "scripts/legacy_ingest.py"
    ]
    lint = run_curator(
        "lint", "--output-format", "json", "--select", "CUR201", cwd=project.repo,
        env={"HOME": str(project.home), "ONLOOKER_DIR": str(project.onlooker)},
    )  # fmt: skip
    assert lint.code == 1, lint.stderr
    assert [d["detail"]["path"] for d in lint.json()] == ["scripts/legacy_ingest.py"]
    assert "no known repository" not in lint.stderr


def test_acknowledged_and_resolved_events_name_the_finding_and_the_action(
    project: Project, run_curator: Callable[..., Run]
) -> None:
    project.index("- [Ghost](feedback_ghost.md) — never existed", "- [Other](other.md) — x")
    project.hook()
    ids = sorted(p["finding_id"] for p in project.payloads("broken_index"))
    env = {"HOME": str(project.home), "ONLOOKER_DIR": str(project.onlooker)}
    assert run_curator("findings", "ack", ids[0], cwd=project.repo, env=env).code == 0
    resolved = run_curator(
        "findings", "resolve", ids[1], "--action", "prune", cwd=project.repo, env=env
    )
    assert resolved.code == 0, resolved.stderr
    (ack,) = project.events("curator.finding.acknowledged")
    (res,) = project.events("curator.finding.resolved")
    assert ack["payload"]["finding_id"] == ids[0]
    assert (res["payload"]["finding_id"], res["payload"]["action"]) == (ids[1], "prune")
    for event in (ack, res):
        jsonschema.validate(event, SCHEMA)

    project.index("# Memory")  # both links gone: the rest resolves by itself
    project.hook()
    auto = [e["payload"] for e in project.events("curator.finding.resolved")]
    assert {p["action"] for p in auto} == {"prune", "auto"}


def test_every_rules_event_fields_are_in_the_schema() -> None:
    """A rule's `event:` fields and its memory fields are what the schema requires."""
    from curator.interpreter.rulebook import load_rules

    required: dict[str, set[str]] = {}
    for clause in SCHEMA["allOf"]:
        kind = clause["if"]["properties"]["event_type"].get("const", "")
        then = clause["then"]["properties"]["payload"]
        if kind.startswith("curator.finding."):
            required[kind.removeprefix("curator.finding.")] = set(then.get("required", []))
    for rule in load_rules():
        if not rule.persist:
            continue
        assert rule.name in required, f"{rule.name} has no payload in the schema"
        memory = required[rule.name] & {"memory_file", "memory_a", "memory_b"}
        assert required[rule.name] - memory == set(rule.event), rule.name


def test_schema_file_is_valid() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert os.path.getsize(CHECKOUT / "docs" / "events.md") > 0


def test_doctor_points_out_the_original_plugins_settings(
    project: Project, run_curator: Callable[..., Run]
) -> None:
    legacy = {
        "curator": {
            "memory_store_path": str(project.store),
            "cheap_checks": {"enabled": False, "wall_clock_budget_ms": 600000},
            "date_check": {"date_grace_period_days": 7},
            "llm_sweep": {"interval_days": 3, "temperature": 0.2},
        }
    }
    write_files(project.repo, {".claude/settings.json": json.dumps(legacy)})
    run = run_curator("doctor", cwd=project.repo, env={"HOME": str(project.home)})
    assert run.code == 1, run.stderr
    settings = project.repo / ".claude" / "settings.json"
    lines = run.stdout.splitlines()
    assert f"store: {project.store} (found by memory_store)" in lines
    assert f"repository: {project.repo.resolve()}" in lines
    assert f"{settings}: curator.cheap_checks.wall_clock_budget_ms = 600000" in lines
    assert "  in .curator.yaml: cheap: {budget_ms: 600000}" in lines
    assert "  in .curator.yaml: cheap: {enabled: false}" in lines
    assert "  in .curator.yaml: rules: {date_decayed: {params: {grace_days: 7}}}" in lines
    assert "  in .curator.yaml: llm: {interval_days: 3}" in lines
    assert any(ln.startswith("  in .curator.yaml: no equivalent") for ln in lines)
    assert "6 settings of the original curator plugin" in run.stderr

    settings.unlink()
    clean = run_curator("doctor", cwd=project.repo, env={"HOME": str(project.home)})
    assert clean.code == 0
