"""The real `curator hook session-start` against a real git repository and store."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from curator.interpreter.stale import HOOK_MAX_UPDATE
from tests.conftest import Run, git, memory, write_files
from tests.helpers import history_repo
from tests.helpers.history_repo import commit
from tests.helpers.hook_env import CHEAP, INDEX, POINTER, Env, make_env


@pytest.fixture
def env(tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]) -> Env:
    return make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["event_type"] for e in events]


def test_first_run_persists_findings_and_prints_the_pointer(env: Env) -> None:
    run = env.hook()
    assert run.code == 0, run.stderr
    assert (
        run.stdout
        == json.dumps(
            {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": POINTER}}
        )
        + "\n"
    )

    found = env.findings()
    assert sorted(f["kind"] for f in found) == ["broken_index", "date_decayed"]
    broken = next(f for f in found if f["kind"] == "broken_index")
    assert broken["code"] == "CUR010"
    assert broken["memory_files"] == ["MEMORY.md"]
    assert broken["status"] == "open" and broken["resolution"] is None
    assert broken["message"] == "MEMORY.md links 'gone.md', which does not exist"
    assert (env.project / "findings" / f"{broken['id']}.json").is_file()
    assert len(broken["id"]) == 26
    manifest = json.loads((env.project / "manifest.json").read_text())
    assert set(manifest["findings"]) == {f["id"] for f in found}
    assert (env.project / "last_cheap_scan.json").is_file()

    events = env.events()
    assert types(events)[0] == "curator.scan.started"
    assert types(events)[-1] == "curator.scan.complete"
    assert sorted(types(events)[1:-1]) == [
        "curator.finding.broken_index",
        "curator.finding.date_decayed",
    ]
    for event in events:
        assert set(event) == {
            "id", "schema_version", "runtime", "plugin", "timestamp",
            "session_id", "event_type", "payload",
        }  # fmt: skip
        assert event["plugin"] == "curator" and event["session_id"] == "s-1"
    complete = events[-1]["payload"]
    assert complete["mode"] == "session_start"
    assert complete["outcome"] == "ok" and complete["skip_reason"] is None
    assert (complete["findings_new"], complete["findings_resolved"]) == (2, 0)
    assert isinstance(complete["duration_ms"], int)


def test_reruns_the_same_day_and_a_day_later_create_nothing_new(env: Env) -> None:
    first = env.hook()
    before = {f["deduped_hash"]: f for f in env.findings()}

    second = env.hook()
    assert second.stdout == first.stdout
    assert {f["deduped_hash"]: f["id"] for f in env.findings()} == {
        h: f["id"] for h, f in before.items()
    }
    assert env.events()[-1]["payload"]["findings_new"] == 0

    env.today = "2026-06-02"
    third = env.hook()
    assert third.stdout == first.stdout
    after = {f["deduped_hash"]: f for f in env.findings()}
    assert {h: f["id"] for h, f in after.items()} == {h: f["id"] for h, f in before.items()}
    assert env.events()[-1]["payload"]["findings_new"] == 0
    date_finding = next(f for f in after.values() if f["kind"] == "date_decayed")
    # Same finding, current message: days past moved on, the identity did not.
    assert (
        date_finding["detail"]["days_past"]
        == before[date_finding["deduped_hash"]]["detail"]["days_past"] + 1
    )


def test_acknowledged_finding_stays_acknowledged(env: Env) -> None:
    env.hook()
    broken = next(f for f in env.findings() if f["kind"] == "broken_index")
    ack = env.curator("findings", "ack", broken["id"], "--reason", "kept on purpose")
    assert ack.code == 0, ack.stderr

    run = env.hook()
    context = run.json()["hookSpecificOutput"]["additionalContext"]
    assert context == "Curator: 1 open finding (1 date-decayed). Review with `/curator review`."
    again = {f["id"]: f for f in env.findings()}
    assert len(again) == 2
    assert again[broken["id"]]["status"] == "acknowledged"
    assert again[broken["id"]]["resolution"]["reason"] == "kept on purpose"
    assert "curator.finding.acknowledged" in types(env.events())
    assert env.events()[-1]["payload"]["findings_new"] == 0


def test_removing_the_dead_reference_resolves_its_finding(env: Env) -> None:
    env.hook()
    broken = next(f for f in env.findings() if f["kind"] == "broken_index")
    (env.store / "MEMORY.md").write_text("# Memory\n- [Freeze](freeze.md) — the merge freeze\n")

    run = env.hook()
    assert run.json()["hookSpecificOutput"]["additionalContext"] == (
        "Curator: 1 open finding (1 date-decayed). Review with `/curator review`."
    )
    resolved = {f["id"]: f for f in env.findings()}[broken["id"]]
    assert resolved["status"] == "resolved"
    assert resolved["resolution"]["by"] == "auto"
    events = env.events()
    assert events[-2]["event_type"] == "curator.finding.resolved"
    assert events[-2]["payload"]["finding_id"] == broken["id"]
    assert events[-1]["payload"]["findings_resolved"] == 1


def test_rules_skipped_over_budget_resolve_nothing(env: Env) -> None:
    env.hook()
    (env.store / "MEMORY.md").write_text("# Memory\n- [Freeze](freeze.md) — the merge freeze\n")
    env.config("cheap:\n  skip_if_session_age_under_seconds: 0\n  budget_ms: 0\n")

    run = env.hook()
    assert run.code == 0
    assert run.json()["hookSpecificOutput"]["additionalContext"] == POINTER
    assert all(f["status"] == "open" for f in env.findings())
    complete = env.events()[-1]["payload"]
    assert complete["outcome"] == "partial"
    assert complete["skip_reason"] == "over_budget"
    assert complete["findings_resolved"] == 0


def test_rate_gate_skips_a_scan_right_after_another(env: Env) -> None:
    env.config(
        "cheap:\n  skip_if_session_age_under_seconds: 3600\n  budget_ms: 60000\n  hook_timeout_ms: 60000\n"
    )
    first = env.hook()
    (env.store / "MEMORY.md").write_text("# Memory\n- [Freeze](freeze.md) — the merge freeze\n")
    second = env.hook()
    assert second.stdout == first.stdout  # not re-scanned: the old findings are shown
    complete = env.events()[-1]["payload"]
    assert (complete["outcome"], complete["skip_reason"]) == ("skipped", "rate_gate")


def test_pointer_length_and_skip_when_zero(env: Env) -> None:
    env.config(CHEAP + "surfacer:\n  max_pointer_chars: 82\n")
    context = env.hook().json()["hookSpecificOutput"]["additionalContext"]
    assert (
        context
        == "Curator: 2 open findings (1 broken-index, +1 more). Review with `/curator review`."
    )

    write_files(env.store, {"MEMORY.md": "- [Freeze](freeze.md) — f\n", "freeze.md": memory()})
    assert env.hook().stdout == "{}\n"
    env.config(CHEAP + "surfacer:\n  skip_when_zero: false\n")
    assert env.hook().json()["hookSpecificOutput"]["additionalContext"] == (
        "Curator: 0 open findings."
    )


def test_remote_origin_names_the_project(env: Env) -> None:
    git(env.repo, "remote", "add", "origin", "https://example.com/team/app.git")
    env.hook()
    key = hashlib.sha256(b"remote:https://example.com/team/app.git").hexdigest()[:12]
    assert len(list((env.onlooker / "curator" / key / "findings").glob("*.json"))) == 2


@pytest.mark.parametrize(
    "payload",
    ["", "not json", "[1, 2]", '{"cwd": 5, "session_id": null}', '{"cwd": "/does/not/exist"}'],
)
def test_broken_stdin_still_answers_json(env: Env, payload: str) -> None:
    run = env.hook(payload)
    assert run.code == 0
    assert isinstance(run.json(), dict)
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        ("", "no hook payload on stdin"),
        ("not json", "stdin is not JSON, not a hook payload"),
        ('{"cwd": "/does/not/exist"}', "the payload's cwd is missing or not a folder"),
    ],
)
def test_a_missing_or_broken_payload_answers_for_the_working_folder_and_says_so(
    env: Env, payload: str, said: str
) -> None:
    """Claude Code runs the hook in the project's folder: that folder stands in for the
    payload's `cwd`, with one stderr line."""
    run = env._run("hook", "session-start", input=payload, env=env.env(), cwd=env.repo)
    assert run.code == 0
    context = run.json()["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("Curator: 2 open findings (1 broken-index, 1 date-decayed).")
    assert run.stderr == f"curator: hook: {said}; answering for the working folder\n"


def test_a_huge_stdin_is_not_read_as_a_payload(env: Env) -> None:
    """100 MB piped in by mistake: the hook reads 1 MiB of it, says so, and answers from
    the process's own folder (the test runs outside the repository: `{}`)."""
    payload = json.dumps({"session_id": "s-1", "cwd": str(env.repo), "pad": "x" * 100_000_000})
    run = env.hook(payload)
    assert (run.code, run.stdout) == (0, "{}\n")
    assert "stdin is over 1048576 bytes, not a hook payload; ignored" in run.stderr
    assert "Traceback" not in run.stderr
    assert env.findings() == []


def test_nested_is_a_no_op(env: Env) -> None:
    run = env.hook(CURATOR_NESTED="1")
    assert (run.code, run.stdout) == (0, "{}\n")
    assert env.findings() == [] and env.events() == []


def test_no_store_no_git_is_quiet(env: Env, tmp_path: Path) -> None:
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    run = env.hook(json.dumps({"session_id": "x", "cwd": str(elsewhere)}))
    assert (run.code, run.stdout) == (0, "{}\n")


def test_bad_config_is_logged_not_raised(env: Env) -> None:
    env.config("cheap: [unclosed\n")
    run = env.hook()
    assert (run.code, run.stdout) == (0, "{}\n")
    assert "curator: hook: configuration error" in run.stderr
    assert "Traceback" not in run.stderr
    assert env.events()[-1]["payload"]["outcome"] == "error"


def test_internal_error_is_logged_not_raised(env: Env, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    run = env.hook(ONLOOKER_DIR=str(blocker), ONLOOKER_EVENTS_LOG=str(tmp_path / "ev.jsonl"))
    assert (run.code, run.stdout) == (0, "{}\n")
    assert "curator: hook: internal error" in run.stderr
    assert "Traceback" not in run.stderr
    logged = json.loads((tmp_path / "ev.jsonl").read_text().splitlines()[-1])
    assert logged["payload"]["outcome"] == "error"


def test_sixteen_hooks_at_once_leave_one_finding_per_hash(env: Env, tmp_path: Path) -> None:
    base = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    base.update(
        HOME=str(tmp_path / "home"),
        CLAUDE_CONFIG_DIR=str(env.claude),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        **env.env(),
    )
    payload = json.dumps({"session_id": "s", "cwd": str(env.repo), "source": "startup"})
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "curator", "hook", "session-start"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=base,
            text=True,
        )
        for _ in range(16)
    ]
    outputs = [p.communicate(payload, timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == POINTER

    found = env.findings()  # every file parses (json.loads above would raise)
    hashes = [f["deduped_hash"] for f in found]
    assert len(hashes) == len(set(hashes)) == 2
    lines = env.events_log.read_text().splitlines()
    events = [json.loads(line) for line in lines]
    assert types(events).count("curator.scan.complete") == 16
    assert types(events).count("curator.finding.broken_index") == 1


def test_the_hook_imports_no_heavy_library(env: Env) -> None:
    run = env.hook(PYTHONPROFILEIMPORTTIME="1")
    assert run.json()["hookSpecificOutput"]["additionalContext"] == POINTER
    imported = {line.split("|")[-1].strip() for line in run.stderr.splitlines() if "|" in line}
    assert "curator.interpreter.engine" in imported  # the rules really ran in this process
    assert not {"anthropic", "dateparser", "jinja2"} & imported


def test_cached_runs_agree_with_a_full_scan(env: Env) -> None:
    """After edits served partly from the per-memory cache, an uncached scan finds the same."""
    write_files(
        env.store,
        {
            "other.md": memory("Release cut planned for 2026-01-10.\n", name="other"),
            "MEMORY.md": INDEX + "- [Other](other.md) — o\n",
        },
    )
    env.hook()
    assert len(env.findings()) == 3
    (env.store / "other.md").write_text(memory("Nothing dated here.\n", name="other"))
    env.hook()
    env.hook()  # unchanged: the fast path
    state = {f["deduped_hash"]: f["status"] for f in env.findings()}
    assert sorted(state.values()) == ["open", "open", "resolved"]

    scan = env.curator("scan", "--output-format", "json").json()[0]
    assert (scan["findings_new"], scan["findings_resolved"]) == (0, 0)
    assert {f["deduped_hash"]: f["status"] for f in env.findings()} == state
    completes = [e["payload"] for e in env.events() if e["event_type"] == "curator.scan.complete"]
    assert [c["reused"] for c in completes] == [False, False, True, False]


def test_a_corrupt_finding_file_does_not_break_the_hook(env: Env) -> None:
    env.hook()
    victim = next((env.project / "findings").glob("*.json"))
    victim.write_text("{not json")
    (env.project / "manifest.json").unlink()  # so the folder is read again
    run = env.hook()
    assert run.code == 0
    assert run.json()["hookSpecificOutput"]["additionalContext"] == POINTER
    assert victim.read_text() == "{not json"  # left for a person to look at
    assert env.events()[-1]["payload"]["findings_new"] == 1  # its finding was re-created
    manifest = json.loads((env.project / "manifest.json").read_text())
    assert manifest["unreadable"] == [victim.stem]
    env.hook()
    assert env.events()[-1]["payload"]["findings_new"] == 0


def test_the_hook_never_waits_on_url_probes_but_scan_does(env: Env) -> None:
    import http.server
    import threading

    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:
            hits.append(self.path)
            self.send_response(404)
            self.end_headers()

        do_GET = do_HEAD

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    try:
        port = server.server_address[1]
        write_files(env.store, {"freeze.md": memory(f"Docs: http://127.0.0.1:{port}/gone\n")})
        env.config(CHEAP + "references:\n  check_urls: true\n  url_allowlist: [127.0.0.1]\n")
        assert env.hook().code == 0
        assert hits == []
        assert env.curator("scan").code == 0
        assert hits and set(hits) == {"/gone"}
        assert "url_dead" in {f["kind"] for f in env.findings()}
    finally:
        server.shutdown()
        server.server_close()


def test_the_hook_builds_history_in_the_background_then_reports_stale_paths(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    repo = tmp_path / "repo"
    commit(repo, "init", "2026-01-10", files={"src/app.py": "x\n", "scripts/ingest.py": "y\n"})
    commit(repo, "drop the old ingest", "2026-03-02", delete=("scripts/ingest.py",))
    # More history than the hook indexes inside its budget (a small one it just builds).
    for n in range(HOOK_MAX_UPDATE):
        history_repo.git(repo, "commit", "-q", "--allow-empty", "-m", f"w{n}", day="2026-03-03")
    env = make_env(tmp_path, repo.resolve(), run_curator)
    body = "Replays run through `scripts/ingest.py`.\n"
    write_files(env.store, {"project_ingest.md": memory(body, name="ingest")})
    index = INDEX + "- [Ingest](project_ingest.md) — replays\n"
    write_files(env.store, {"MEMORY.md": index})

    first = env.hook()
    assert first.code == 0
    assert first.json()["hookSpecificOutput"]["additionalContext"] == POINTER  # no CUR201 yet
    complete = [e for e in env.events() if e["event_type"] == "curator.scan.complete"][-1]
    assert (complete["payload"]["outcome"], complete["payload"]["skip_reason"]) == (
        "partial",
        "history_pending",
    )
    # The detached `curator history` leaves an index behind; wait for it (bounded).
    cache = env.onlooker / "curator" / "cache" / "history"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        built = list(cache.glob("*.sqlite"))
        if built and not list(cache.glob("*.building")):
            break
        time.sleep(0.2)
    assert list(cache.glob("*.sqlite")) and not list(cache.glob("*.building"))

    second = env.hook()
    kinds = sorted(f["kind"] for f in env.findings() if f["status"] == "open")
    assert kinds == ["broken_index", "date_decayed", "path_broken"]
    assert "3 open findings" in second.json()["hookSpecificOutput"]["additionalContext"]
    stale = next(f for f in env.findings() if f["kind"] == "path_broken")
    assert stale["message"].startswith("'scripts/ingest.py' was deleted in ")


def test_the_hook_says_nothing_where_auto_memory_is_off(env: Env) -> None:
    """Claude Code neither reads nor writes the store: no pointer, no scan."""
    settings = env.claude / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"autoMemoryEnabled": False}), encoding="utf-8")
    off = env.hook()
    assert (off.code, off.stdout, off.stderr) == (0, "{}\n", "")
    assert env.findings() == []
    forced = env.hook(CLAUDE_CODE_DISABLE_AUTO_MEMORY="0")  # the variable wins, as in Claude Code
    assert forced.json()["hookSpecificOutput"]["additionalContext"].startswith("Curator: 2 open")
    settings.write_text(json.dumps({}), encoding="utf-8")
    off = env.hook(CLAUDE_CODE_DISABLE_AUTO_MEMORY="1")
    assert (off.code, off.stdout) == (0, "{}\n")
