"""The findings store, `curator scan`, `curator lint --persist` and `curator findings`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from curator.findings.events import EventLog
from curator.findings.project import ProjectDir
from curator.findings.store import load, new_finding, open_store
from curator.findings.ulid import is_ulid, new_ulid
from tests.conftest import Run, memory, write_files
from tests.helpers.hook_env import INDEX, Env, make_env


@pytest.fixture
def env(tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]) -> Env:
    return make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)


def test_ulids_sort_by_time_and_use_crockford_base32() -> None:
    first, second = new_ulid(ms=1_000), new_ulid(ms=2_000)
    assert is_ulid(first) and is_ulid(second)
    assert first < second
    assert new_ulid(ms=0).startswith("0000000000")
    assert not is_ulid("0" * 25 + "U")  # U is not in Crockford's alphabet


def test_scan_persists_and_reports_json(env: Env) -> None:
    run = env.curator("scan", "--output-format", "json")
    assert run.code == 0, run.stderr
    [summary] = run.json()
    assert (summary["mode"], summary["findings_new"], summary["findings_open"]) == ("scan", 2, 2)
    assert sorted(f["kind"] for f in env.findings()) == ["broken_index", "date_decayed"]
    again = env.curator("scan", "--output-format", "json").json()[0]
    assert (again["findings_new"], again["findings_resolved"]) == (0, 0)


def test_lint_persist_writes_the_same_findings_as_the_hook(env: Env) -> None:
    run = env.curator("lint", "--persist", "--output-format", "concise")
    assert run.code == 1  # findings, as without --persist
    assert "CUR010" in run.stdout
    from_lint = {f["deduped_hash"] for f in env.findings()}
    env.hook()
    assert {f["deduped_hash"] for f in env.findings()} == from_lint
    modes = [e["payload"]["mode"] for e in env.events() if e["event_type"].endswith("complete")]
    assert modes == ["lint", "session_start"]


def test_lint_persist_on_one_file_resolves_nothing_elsewhere(env: Env) -> None:
    env.curator("scan")
    (env.store / "MEMORY.md").write_text("# Memory\n- [Freeze](freeze.md) — the merge freeze\n")
    run = env.curator("lint", "--persist", str(env.store / "freeze.md"))
    assert run.code == 1
    assert all(f["status"] == "open" for f in env.findings())  # MEMORY.md was not linted


def test_findings_list_show_ack_resolve(env: Env) -> None:
    env.curator("scan")
    listed = env.curator("findings", "list", "--output-format", "json").json()
    assert [f["kind"] for f in listed] == ["broken_index", "date_decayed"]
    first = listed[0]["id"]

    text = env.curator("findings", "list").stdout.splitlines()
    assert text[0].startswith(f"{first[10:17]}   open         CUR010 broken_index")
    assert text[-1] == "2 open finding(s)"

    shown = env.curator("findings", "show", first, "--output-format", "json").json()
    assert shown[0]["detail"] == {"target": "gone.md", "title": "Gone"}

    resolved = env.curator("findings", "resolve", first, "--reason", "fixed by hand")
    assert resolved.code == 0
    assert env.curator("findings", "list", "--output-format", "json").json()[0]["kind"] == (
        "date_decayed"
    )
    everything = env.curator("findings", "list", "--status", "all", "--output-format", "json")
    record = next(f for f in everything.json() if f["id"] == first)
    assert record["status"] == "resolved"
    assert record["resolution"]["by"] == "user"
    assert record["resolution"]["reason"] == "fixed by hand"

    missing = env.curator("findings", "ack", "01ZZZZZZZZZZZZZZZZZZZZZZZZ")
    assert missing.code == 2
    assert "no finding with id" in missing.stderr


def test_manifest_is_rebuilt_when_a_finding_outlives_it(tmp_path: Path) -> None:
    project = ProjectDir(tmp_path / "state")
    values = dict(code="CUR010", kind="broken_index", memory_files=["MEMORY.md"], detail={},
                  message="m", deduped_hash="h1")  # fmt: skip
    with open_store(project) as store:
        store.add(new_finding(**values))
    # A crash after a finding file was renamed in but before the manifest was written:
    stray = new_finding(**{**values, "deduped_hash": "h2"})
    (project.findings / f"{stray.id}.json").write_text(json.dumps(stray.to_json()))
    os.utime(project.manifest, ns=(1, 1))
    assert {f.deduped_hash for f in load(project).findings.values()} == {"h1", "h2"}


def test_event_lines_never_tear_under_concurrent_writers(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    writer = (
        "import sys\nfrom pathlib import Path\nfrom curator.findings.events import EventLog\n"
        "log = EventLog(Path(sys.argv[1]), 's')\n"
        "for i in range(200):\n"
        "    log.emit('curator.test', {'i': i, 'pad': 'x' * 3000})\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", writer, str(log)]) for _ in range(6)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    lines = log.read_text().splitlines()
    assert len(lines) == 1200
    assert all(json.loads(line)["payload"]["pad"] == "x" * 3000 for line in lines)
    assert EventLog(log).emit("curator.test", {}) is True


def test_findings_for_a_named_store_from_anywhere(env: Env, tmp_path: Path) -> None:
    env.curator("scan")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = env._run(
        "findings", "list", "--store", str(env.store), "--output-format", "json",
        cwd=elsewhere, env=env.env(),
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert len(run.json()) == 2
    none = env._run("findings", "list", cwd=elsewhere, env=env.env())
    assert none.code == 2
    assert "no memory store for this project" in none.stderr


def test_findings_name_the_store_as_lint_does(env: Env, tmp_path: Path) -> None:
    env.curator("scan")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def run(*args: str) -> Run:
        return env._run("findings", *args, cwd=elsewhere, env=env.env())

    listed = run("list", str(env.store), "--output-format", "json")
    assert listed.code == 0, listed.stderr
    assert [f["kind"] for f in listed.json()] == ["broken_index", "date_decayed"]
    ids = [f["id"] for f in listed.json()]
    first = ids[0]
    # ULIDs made in the same millisecond share 10 characters: the prefix must be one no
    # other id has (1 in 1,000 runs, 12 characters were not), or `show` rightly refuses it.
    size = next(n for n in range(12, 27) if not any(i.startswith(first[:n]) for i in ids[1:]))
    shown = run("show", str(env.store), first[:size], "--output-format", "json")
    assert shown.code == 0, shown.stderr
    assert [f["id"] for f in shown.json()] == [first]
    acked = run("ack", str(env.store), first, "--reason", "known")
    assert acked.stdout.startswith(f"acknowledged {first[10:17]}")
    assert " broken_index " in acked.stdout
    assert run("list", "--store", str(env.store)).stdout.splitlines()[-1] == "1 open finding(s)"
    both = run("list", str(env.store), "--store", str(tmp_path))
    assert both.code == 2
    assert "name the store once: STORE or --store, not both" in both.stderr


def test_short_ids_are_shown_and_taken_and_an_unclear_one_lists_the_candidates(
    env: Env,
) -> None:
    env.curator("scan")
    ids = sorted(f["id"] for f in env.findings())
    listed = env.curator("findings", "list").stdout.splitlines()
    shorts = [line.split()[0] for line in listed[:-1]]
    # The random part's first 7 characters, as git shortens a commit id (two random parts
    # sharing 7 characters would be a 1 in 2**35 chance).
    assert sorted(shorts) == sorted(i[10:17] for i in ids)
    for finding_id in ids:
        short = finding_id[10:17].lower()
        shown = env.curator("findings", "show", short, "--output-format", "json")
        assert (shown.code, [f["id"] for f in shown.json()]) == (0, [finding_id]), shown.stderr
    common = next(ids[0][:n] for n in range(26, 0, -1) if ids[1].startswith(ids[0][:n]))
    unclear = env.curator("findings", "show", common)
    assert unclear.code == 2
    assert unclear.stderr.startswith(
        f"curator: error: id '{common}' is ambiguous: 2 findings match ("
    )
    for finding_id in ids:
        assert f"{finding_id[10:17]} CUR" in unclear.stderr
    missing = env.curator("findings", "show", "ZZZZZZZZ")
    assert (missing.code, missing.stderr) == (
        2,
        "curator: error: no finding with id 'ZZZZZZZZ' in this store "
        "(`curator findings list --status all` shows every id)\n",
    )


def test_two_sessions_acknowledging_at_once_change_it_once(env: Env, tmp_path: Path) -> None:
    env.curator("scan")
    finding = env.findings()[0]
    base = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    base.update(
        HOME=str(tmp_path / "home"),
        CLAUDE_CONFIG_DIR=str(env.claude),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        **env.env(),
    )
    command = [sys.executable, "-m", "curator", "findings", "ack", finding["id"]]
    procs = [
        subprocess.Popen(command, cwd=env.repo, env=base, stdout=subprocess.PIPE) for _ in range(4)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    for p in procs:
        assert p.stdout is not None
        p.stdout.close()
    acks = [e for e in env.events() if e["event_type"] == "curator.finding.acknowledged"]
    assert len(acks) == 1
    assert {f["id"]: f["status"] for f in env.findings()}[finding["id"]] == "acknowledged"


def test_a_held_lock_times_out_instead_of_hanging(tmp_path: Path) -> None:
    from curator.findings import atomic

    lock = tmp_path / ".lock"
    with atomic.locked(lock), pytest.raises(TimeoutError), atomic.locked(lock, timeout=0.05):
        pass  # flock locks belong to open file descriptions: the inner one must wait


def test_a_rule_that_could_not_run_in_full_resolves_nothing(env: Env, tmp_path: Path) -> None:
    """A link into the repository can only be judged with the repository at hand."""
    (env.store / "MEMORY.md").write_text(
        "# Memory\n- [Freeze](freeze.md) — f\n- [Log](../../../../repo/gone.md) — g\n"
    )
    env.curator("scan")
    by_kind = {f["kind"]: f for f in env.findings()}
    assert by_kind["broken_index"]["detail"]["target"] == "../../../../repo/gone.md"

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # Without the checkout on disk, nothing can say which repository the store is about.
    env.repo.rename(tmp_path / "moved-away")
    run = env._run("scan", str(env.store), "--output-format", "json", cwd=elsewhere, env=env.env())
    assert run.code == 0, run.stderr
    assert "CUR010" in run.json()[0]["skipped_rules"]
    assert {f["kind"]: f["status"] for f in env.findings()}["broken_index"] == "open"


def test_unused_findings_stay_open_when_usage_cannot_be_measured(env: Env) -> None:
    """No transcript left to read says nothing about use: CUR301 did not run in full."""
    from tests.helpers.transcript_fixtures import tool_use_line, write_transcript

    old = memory("Ship small PRs.\n", name="old", extra="modified: 2026-01-02")
    write_files(env.store, {"old.md": old, "MEMORY.md": INDEX + "- [Old](old.md) — o\n"})
    transcript = write_transcript(
        env.store.parent,
        [
            tool_use_line(
                str(env.repo), "2026-05-30T10:00:00Z", "Read", str(env.store / "freeze.md")
            )
        ],
    )
    env.curator("scan")
    unused = [f for f in env.findings() if f["kind"] == "unused_low_signal"]
    assert [f["memory_files"] for f in unused] == [["old.md"]]
    transcript.unlink()
    env.curator("scan")
    status = {f["kind"]: f["status"] for f in env.findings()}
    assert status["unused_low_signal"] == "open"


def test_events_survive_a_kill_and_a_torn_line_swallows_no_event(tmp_path: Path) -> None:
    write_files(tmp_path / "memory", {"MEMORY.md": "- [Gone](gone.md) — x\n", "a.md": memory()})
    log = tmp_path / "onlooker" / "logs" / "onlooker-events.jsonl"
    base = {k: v for k, v in os.environ.items() if k != "ONLOOKER_EVENTS_LOG"}
    base.update(ONLOOKER_DIR=str(tmp_path / "onlooker"), HOME=str(tmp_path / "home"),
                CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))  # fmt: skip

    def scan(**extra: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "curator", "scan", "memory"]
        return subprocess.run(command, cwd=tmp_path, env={**base, **extra}, capture_output=True,
                              text=True, timeout=120)  # fmt: skip

    # SIGKILLed just before its last event: every event it wrote is there, whole.
    killed = scan(CURATOR_KILL_AT="event:curator.scan.complete")
    assert killed.returncode == -signal.SIGKILL
    written = log.read_bytes()
    kinds = [json.loads(line)["event_type"] for line in written.splitlines()]
    assert kinds[0] == "curator.scan.started" and "curator.finding.broken_index" in kinds
    assert "curator.scan.complete" not in kinds
    # Another writer killed halfway through its line leaves it torn, with no newline.
    torn = b'{"id": "01J0000000000000000000000", "event_type": "other.plugin.ev'
    with log.open("ab") as handle:
        handle.write(torn)
    assert scan().returncode in (0, 1)
    after = log.read_bytes()
    assert after.startswith(written + torn + b"\n")  # earlier lines untouched
    lines = after.splitlines()
    assert lines[len(kinds)] == torn  # the fragment stays a line of its own
    later = [json.loads(line)["event_type"] for line in lines[len(kinds) + 1 :]]
    assert later[0] == "curator.scan.started" and later[-1] == "curator.scan.complete"


def test_two_index_lines_linking_one_missing_file_make_one_finding(env: Env) -> None:
    """One identity (CUR010, MEMORY.md, target gone.md) reported on two lines is one finding."""
    (env.store / "MEMORY.md").write_text(
        "# Memory\n- [Freeze](freeze.md) — the merge freeze\n"
        "- [Gone](gone.md) — removed\n- [Gone again](gone.md) — removed, listed twice\n"
    )
    run = env.curator("lint", "--persist", "--output-format", "json")
    assert run.code == 1, run.stderr
    broken = [(d["code"], d["location"]["row"]) for d in run.json() if d["code"] == "CUR010"]
    assert broken == [("CUR010", 3), ("CUR010", 4)]  # lint shows both lines

    listed = env.curator("findings", "list", "--output-format", "json")
    assert listed.code == 0, listed.stderr
    broken_findings = [
        (f["code"], f["detail"]["target"], f["line"], f["status"])
        for f in listed.json()
        if f["kind"] == "broken_index"
    ]
    assert broken_findings == [("CUR010", "gone.md", 3, "open")]
    again = env.curator("scan", "--output-format", "json").json()[0]
    assert again["findings_new"] == 0  # the next run still counts it once
    assert [f["kind"] for f in env.findings()].count("broken_index") == 1


_HOLDER = """
import sys
from pathlib import Path
from curator.findings.project import ProjectDir
from curator.findings.store import new_finding, open_store

with open_store(ProjectDir(Path(sys.argv[1]))) as store:
    store.add(new_finding(code="CUR010", kind="broken_index", memory_files=["MEMORY.md"],
                          detail={}, message="m", deduped_hash="held"))
    print("holding", flush=True)
    sys.stdin.readline()  # hold the lock until the test says so
print("released", flush=True)
"""

_CONTENDER = """
import sys
from pathlib import Path
from curator.findings import atomic
from curator.findings.project import ProjectDir
from curator.findings.store import load

project = ProjectDir(Path(sys.argv[1]))
try:
    with atomic.locked(project.lock, timeout=0.2):
        print("acquired", sorted(f.deduped_hash for f in load(project).findings.values()))
except TimeoutError as exc:
    print("timed out:", exc)
"""


def test_a_second_process_cannot_take_the_findings_lock_while_one_holds_it(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    lock = ProjectDir(state).lock

    def contend() -> str:
        done = subprocess.run(
            [sys.executable, "-c", _CONTENDER, str(state)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    with subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(state)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    ) as holder:  # fmt: skip
        assert holder.stdout is not None and holder.stdin is not None
        try:
            assert holder.stdout.readline() == "holding\n"
            # Held by another process: the contender waits its 0.2 s and gives up.
            assert contend() == f"timed out: {lock} is locked by another process"
            holder.stdin.write("\n")
            holder.stdin.flush()
            assert holder.stdout.readline() == "released\n"
            assert holder.wait(timeout=60) == 0
        finally:
            holder.kill()  # a no-op once it has exited
    # Released: the next process takes it and sees what the holder saved under it.
    assert contend() == "acquired ['held']"
