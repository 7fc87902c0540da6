"""CUR101/CUR102 as a user meets them: the hard synthetic store, a 40-sentence store in
eight languages committed months ago, the write date from git, hostile dates, and the
per-memory cache that must notice a new write date."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import pytest

from curator.config import Config
from curator.interpreter.context import Context
from curator.interpreter.engine import run_checks
from curator.interpreter.rulebook import load_rules
from curator.interpreter.run_cache import MemoryMemo
from curator.store.reading import read_store
from tests.conftest import Run, git, lint_json, memory, write_files
from tests.helpers.history_repo import commit
from tests.helpers.hook_env import make_env

TODAY = "2026-12-01"


def labelled(lines: list[tuple[str, str | None]], **fm: str) -> tuple[str, dict[int, str]]:
    """A memory made of labelled sentences: (text, expected code or None) -> (text, line->code)."""
    extra = "".join(f"{k}: {v}\n" for k, v in fm.items())
    head = memory("", extra=extra)
    first = head.count("\n") + 1
    expected = {first + i: code for i, (_, code) in enumerate(lines) if code}
    return head + "".join(f"{text}\n" for text, _ in lines), expected


def date_hits(run: Run) -> set[tuple[str, int, str]]:
    assert run.code in (0, 1), run.stderr
    assert "Traceback" not in run.stderr
    return {
        (Path(d["filename"]).name, d["location"]["row"], d["code"])
        for d in run.json()
        if d["code"] in ("CUR101", "CUR102")
    }


def precision_recall(found: set[tuple[str, int, str]], expected: set[tuple[str, int, str]]):
    true = len(found & expected)
    return (true / len(found) if found else 1.0), (true / len(expected) if expected else 1.0)


# -- The hard synthetic store: English traps around ten decayed plans ---------------------

HARD = {
    "project_plans.md": (
        [
            ("Merge freeze begins 2026-03-05; only hotfixes until then.", "CUR101"),
            ("The API must be finished by 2026-04-30.", "CUR101"),
            ("Registration opens 2026-04-02.", "CUR101"),
            ("Keep the old endpoint until the migration lands on 2026-05-15.", "CUR101"),
            ("Release is scheduled for Q2 2026.", "CUR101"),
            ("The certificate expires on June 30, 2026.", "CUR101"),
            ("Target: March 2026 for the v2 cutover.", "CUR101"),
            ("This should be done by next week.", "CUR102"),
            ("Revisit the cache design in two weeks.", "CUR102"),
            ("Ship the docs by end of month.", "CUR102"),
        ],
        {"modified": "2026-02-02"},
    ),
    "project_history.md": (
        [
            ("Backup completed 2026-06-20.", None),
            ("- 2026-07-06: weight 81.2 kg", None),
            ("Since 2026-01-10 we deploy with Argo.", None),
            ("As of March 2026, the API is v2.", None),
            ("Shipped 2026-03-01, two weeks before the deadline.", None),
            ("The outage was due to the 2026-03-01 config push.", None),
            ("The migration took 3 days in March 2026.", None),
            ("We run the sync twice a week.", None),
            ("Cell R2026C4 and range A1:C20 hold the totals.", None),
            ("Upgrade to v2026.03.01 when convenient.", None),
            ("Deadline 2027-03-01 for the audit.", None),
            ("~~Freeze until 2026-03-01~~", None),
            ("`release: 2026-03-01` in the config.", None),
            ("We shipped it the next week, as planned.", None),
            ("Every Friday we plan next week.", None),
            ("The CLAUDE.md file grew 67% in two weeks.", None),
            ('He said "let us ship next week" in the thread.', None),
            ("Ticket #2026-03-01 is due.", None),
            ("Finished on 2026-04-15, ahead of the deadline.", None),
            ("Approved by Jo on 2026-04-20.", None),
            ("Deadlines (e.g., PHX April 24) are tracked in the sheet.", None),
            ("Plan (2026-06-11, decided by the team) is below.", None),
        ],
        {"modified": "2026-02-02"},
    ),
}


def test_hard_synthetic_store_precision_and_recall_are_one(make_store, run_curator):
    files, expected = {}, set()
    for name, (lines, fm) in HARD.items():
        files[name], by_line = labelled(lines, **fm)
        expected |= {(name, line, code) for line, code in by_line.items()}
    store = make_store(files)

    found = date_hits(lint_json(run_curator, store, "CUR101,CUR102", "--today", TODAY))

    assert precision_recall(found, expected) == (1.0, 1.0)
    assert found == expected


# -- 40 sentences in eight languages, committed on 2026-03-10, mtimes of today -------------

FORTY = {
    "project_en.md": [
        ("The billing freeze starts 2026-04-01.", "CUR101"),
        ("We will revisit pricing next month.", "CUR102"),
        ("The audit is due May 20.", "CUR101"),
        ("Should be done by next week.", "CUR102"),
        ("Target: Q2 2026 for the new API.", "CUR101"),
        ("Planned for H1.", "CUR101"),
        ("Backup completed 2026-06-20.", None),
        ("Since 2026-01-10 we deploy with Argo.", None),
        ("The outage was due to a config push on 2026-03-01.", None),
        ("The migration took 3 days.", None),
        ("Deadline 2027-03-01 for the renewal.", None),
        ("Every Friday we plan next week.", None),
        ("We shipped it the next week, as planned.", None),
        ("Deploys run twice a week.", None),
        ("Cell R2026C4 holds the total.", None),
        ("The review is due 2027-01-15.", None),
    ],
    "project_de.md": [
        ("Die Migration ist bis 15.04.2026 geplant.", "CUR101"),
        ("Die Frist endet am 30. Juni 2026.", "CUR101"),
        ("Das Review machen wir nächste Woche.", "CUR102"),
        ("Beach-Body bis 20. Mai halten.", "CUR101"),
        ("Am 15.04.2026 ausgeliefert.", None),
        ("Seit 1. März 2026 nutzen wir Argo.", None),
        ("Die Rechnung wurde am 3. März 2026 bezahlt.", None),
    ],
    "project_es.md": [
        ("El plazo vence el 30 de junio de 2026.", "CUR101"),
        ("Lo revisamos la semana que viene.", "CUR102"),
        ("El producto se lanzó el 3 de marzo de 2026.", None),
    ],
    "project_fr.md": [
        ("La migration est prévue pour le 3 avril 2026.", "CUR101"),
        ("On livre la semaine prochaine.", "CUR102"),
        ("Livré le 5 mai 2026.", None),
    ],
    "project_pt.md": [
        ("O prazo de entrega é 30/06/2026.", "CUR101"),
        ("Concluído em 2 de maio de 2026.", None),
    ],
    "project_zh.md": [
        ("截止2026年6月30日提交报告。", "CUR101"),
        ("下周完成迁移。", "CUR102"),
        ("2026年3月1日已完成迁移。", None),
    ],
    "project_ja.md": [
        ("決算は5月末期限。", "CUR101"),
        ("来週までにレビューする。", "CUR102"),
        ("2026年4月1日リリース済み。", None),
        ("毎週金曜日に来週の計画を立てる。", None),
    ],
    "project_ko.md": [
        ("2026년 6월 30일까지 마이그레이션 예정.", "CUR101"),
        ("2026년 3월 1일 배포 완료.", None),
    ],
}


@pytest.fixture
def forty(tmp_path: Path) -> tuple[Path, Path, set[tuple[str, int, str]]]:
    """The 40 sentences in a dotfiles repository, committed on 2026-03-10, mtimes today;
    and a separate repository the memories talk about."""
    files, expected = {}, set()
    for name, lines in FORTY.items():
        files[f"claude/memory/{name}"], by_line = labelled(lines)
        expected |= {(name, line, code) for line, code in by_line.items()}
    dotfiles = write_files(tmp_path / "dotfiles", files)
    git(dotfiles, "init", "-q", "-b", "main")
    commit(dotfiles, "memories", "2026-03-10")
    for path in (dotfiles / "claude" / "memory").iterdir():
        path.touch()  # a fresh clone: every mtime is today
    project = write_files(tmp_path / "project", {"README.md": "project\n"})
    git(project, "init", "-q", "-b", "main")
    commit(project, "memories", "2026-11-01")
    return dotfiles / "claude" / "memory", project, expected


def test_forty_sentences_are_judged_exactly(forty, run_curator):
    store, project, expected = forty
    assert sum(len(v) for v in FORTY.values()) == 40
    assert len(expected) == 20

    run = lint_json(
        run_curator, store, "CUR101,CUR102", "--today", TODAY, "--repo-root", str(project)
    )

    assert date_hits(run) == expected
    relative = [d for d in run.json() if d["code"] == "CUR102"]
    assert relative and all(
        "relative to the commit of 2026-03-10" in d["message"] for d in relative
    ), [d["message"] for d in relative]
    audit = next(d for d in run.json() if d["detail"]["date_text"] == "May 20")
    assert audit["detail"]["date"] == "2026-05-20"
    assert audit["detail"]["written_source"] == "commit"
    assert "the first after the commit of 2026-03-10" in audit["message"]


def test_outside_git_the_same_relative_phrases_are_still_fresh(forty, tmp_path, run_curator):
    store, _, expected = forty
    copy = shutil.copytree(store, tmp_path / "copy" / "memory")
    run = lint_json(run_curator, copy, "CUR102", "--today", TODAY)
    assert date_hits(run) == set()  # written "today" by their mtimes: nothing is past yet
    assert any(code == "CUR102" for _, _, code in expected)


def test_evidence_in_full_output_and_json(make_store, run_curator):
    text = memory("Beach-Body bis 12.06. halten.\n", extra="modified: 2026-04-27")
    store = make_store({"project_cut.md": text})

    run = lint_json(run_curator, store, "CUR101", "--today", TODAY)
    (hit,) = run.json()
    assert hit["detail"] | {"days_past": 0} == hit["detail"] | {
        "date_text": "12.06.",
        "date": "2026-06-12",
        "intent_word": "bis",
        "written": "2026-04-27",
        "written_source": "modified",
        "written_from": "modified: 2026-04-27",
        "days_past": 0,
    }
    assert hit["detail"]["days_past"] == 172
    full = run_curator("lint", str(store), "--select", "CUR101", "--today", TODAY)
    assert (
        "Planned date 'bis 12.06.' is 172 days past ('12.06.' read as 2026-06-12, the first "
        "after modified: 2026-04-27; intent 'bis')" in full.stdout
    )


def test_an_offset_in_another_language_is_read_by_dateparser(make_store, run_curator):
    text = memory(
        "Das Review wird in drei Wochen wiederholt.\nレビューは3日後に予定。\n",
        extra="modified: 2026-02-02",
    )
    store = make_store({"project_de.md": text})
    run = lint_json(run_curator, store, "CUR102", "--today", TODAY)
    dates = sorted((d["location"]["row"], d["detail"]["date"]) for d in run.json())
    assert dates == [(7, "2026-02-23"), (8, "2026-02-05")]


# -- Hostile input: impossible frontmatter dates, many dates ------------------------------

HOSTILE_FM = {
    "project_feb30.md": memory(
        "Ship it next week.\n", extra="modified: 2026-02-30\ncreated_at: 2026-01-05"
    ),
    "project_far.md": memory(
        "Ship it next week.\n", extra="modified: 9999-12-31T23:59:59Z\ncreated_at: 2026-01-05"
    ),
    "project_zero.md": memory("Ship it next week.\n", extra="modified: 0000-00-00"),
}


def test_impossible_frontmatter_dates_become_cur001(make_store, run_curator):
    store = make_store(HOSTILE_FM)

    run = lint_json(run_curator, store, "CUR001,CUR101,CUR102", "--today", TODAY)

    assert run.code == 1 and "Traceback" not in run.stderr, run.stderr
    problems = sorted(
        (Path(d["filename"]).name, d["location"]["row"], d["message"])
        for d in run.json()
        if d["code"] == "CUR001"
    )
    tail = "; the write date comes from the next source"
    assert problems == [
        ("project_far.md", 5, f"Frontmatter is not usable: modified: 9999-12-31T23:59:59+00:00 is in the future{tail}"),
        ("project_feb30.md", 5, f"Frontmatter is not usable: modified: 2026-02-30 is not a real date{tail}"),
        ("project_zero.md", 5, f"Frontmatter is not usable: modified: 0000-00-00 is not a real date{tail}"),
    ]  # fmt: skip
    relative = {Path(d["filename"]).name: d["message"] for d in run.json() if d["code"] == "CUR102"}
    assert relative == {
        "project_feb30.md": "'next week' meant 2026-01-18 relative to created_at: 2026-01-05, "
        "317 days ago",
        "project_far.md": "'next week' meant 2026-01-18 relative to created_at: 2026-01-05, "
        "317 days ago",
    }  # project_zero.md falls back to its mtime: today, so next week is not past


def dense_memory(lines: int) -> str:
    """About 330 KB: a deadline on every line, then one line holding a thousand dates."""
    body = "".join(f"- Deadline for batch {i}: freeze until 2026-0{i % 9 + 1}-1{i % 9}.\n"
                   for i in range(lines))  # fmt: skip
    body += "Freeze until 2026-03-05; " * 1000 + "\n"
    return memory(body, name="dense")


def test_many_dates_in_one_memory_are_capped_and_reported_once(make_store, run_curator):
    store = make_store({"project_dense.md": dense_memory(6000), "project_ok.md": HARD_ONE})
    assert (store / "project_dense.md").stat().st_size > 330_000

    run = lint_json(run_curator, store, "CUR101", "--today", TODAY)

    assert run.code == 1 and "Traceback" not in run.stderr, run.stderr
    notes = [line for line in run.stderr.splitlines() if "holds more than" in line]
    assert notes == [
        "curator: CUR101: project_dense.md holds more than 500 dates; only the first 500 were read"
    ]
    by_file: dict[str, int] = {}
    for d in run.json():
        by_file[Path(d["filename"]).name] = by_file.get(Path(d["filename"]).name, 0) + 1
    assert by_file["project_ok.md"] == 1
    assert 0 < by_file["project_dense.md"] <= 500


HARD_ONE = memory("Merge freeze begins 2026-03-05.\n", name="ok")


def test_the_hook_answers_json_with_hostile_dates_in_the_store(
    tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]
) -> None:
    env = make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)
    write_files(env.store, {**HOSTILE_FM, "project_dense.md": dense_memory(6000)})
    env.today = TODAY

    run = env.hook()

    assert run.code == 0, run.stderr
    answer = json.loads(run.stdout)
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "date-decayed" in answer["hookSpecificOutput"]["additionalContext"]


# -- The per-memory cache notices a new write date ----------------------------------------


def test_a_commit_that_dates_an_unchanged_memory_invalidates_its_cached_hits(tmp_path: Path):
    repo = write_files(tmp_path / "dotfiles", {"memory/project_a.md": memory("Ship next week.\n")})
    git(repo, "init", "-q", "-b", "main")
    store = repo / "memory"
    rules = [r for r in load_rules() if r.code == "CUR102"]
    today = date(2026, 12, 1)

    def run(memo: MemoryMemo) -> list[str]:
        ctx = Context(store=read_store(store), config=Config(), today=today)
        found = run_checks(ctx, rules, rules, None, None, memo)
        memo.save()
        return [d.message for d in found]

    memo_dir = tmp_path / "cache"
    assert run(MemoryMemo(memo_dir, "k")) == []  # untracked: written today (its mtime)
    mtime = (store / "project_a.md").stat().st_mtime
    commit(repo, "memories", "2026-03-10")
    os.utime(store / "project_a.md", (mtime, mtime))  # same content, same mtime: only git changed

    assert run(MemoryMemo(memo_dir, "k")) == [
        "'next week' meant 2026-03-22 relative to the commit of 2026-03-10, 254 days ago"
    ]


def test_a_run_on_part_of_the_store_reads_numeric_dates_in_the_stores_order(make_store, tmp_path):
    store = make_store(
        {
            "project_us.md": memory("Report was filed 04/15/2026.\n"),
            "project_due.md": memory("Renewal due 03/04/2026.\n"),
        }
    )
    rules = [r for r in load_rules() if r.code == "CUR101"]

    def run() -> list[str]:
        memo = MemoryMemo(tmp_path / "cache", "k")
        ctx = Context(store=read_store(store), config=Config(), today=date(2026, 12, 1))
        found = run_checks(ctx, rules, rules, None, None, memo)
        memo.save()
        return [d.message for d in found]

    first = run()
    (store / "project_due.md").write_text(memory("Renewal due 03/04/2026!\n"))
    second = run()  # only project_due.md is read again; the order comes from the store

    assert (
        first
        == second
        == [
            "Deadline 'due 03/04/2026' is 272 days past ('03/04/2026' read as 2026-03-04; "
            "intent 'due')"
        ]
    )


# -- The grace boundary ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "body", "config", "due"),
    [
        ("CUR101", "Merge freeze begins 2026-03-05.\n", "", date(2026, 3, 5)),
        ("CUR102", "Ship it next week.\n", "", date(2026, 3, 8)),
        ("CUR101", "Merge freeze begins 2026-03-05.\n", "grace_days: 3", date(2026, 3, 5)),
    ],
    ids=["absolute", "relative", "configured"],
)
def test_a_date_decays_the_day_after_its_grace_period_ends(
    make_store, run_curator, tmp_path, code, body, config, due
):
    """Exactly `grace_days` past is still inside the grace; the day after is not."""
    grace = 3 if config else 14
    store = make_store({"project_due.md": memory(body, extra="modified: 2026-03-01")})
    settings = tmp_path / "curator.yaml"
    settings.write_text(f"rules: {{{code}: {{params: {{{config}}}}}}}\n" if config else "{}\n")

    def days_past(today: date) -> list[int]:
        run = lint_json(
            run_curator, store, code, "--config", str(settings), "--today", today.isoformat()
        )
        assert run.code in (0, 1), run.stderr
        return [d["detail"]["days_past"] for d in run.json()]

    boundary = due + timedelta(days=grace)
    assert days_past(boundary - timedelta(days=1)) == []
    assert days_past(boundary) == []
    assert days_past(boundary + timedelta(days=1)) == [grace + 1]


# -- Edges of reading a day -----------------------------------------------------------------


def test_a_month_day_on_the_write_date_is_that_day_not_next_year(make_store, run_curator):
    """'due June 12' written on June 12 means that day: the first such day on or after the
    write date includes the write date itself."""
    text = memory("The report is due June 12.\n", extra="modified: 2026-06-12")
    store = make_store({"project_due.md": text})
    run = lint_json(run_curator, store, "CUR101", "--today", TODAY)
    assert [d["detail"]["date"] for d in run.json()] == ["2026-06-12"]


@pytest.mark.parametrize(
    ("settling", "date_read"),
    [("04/15/2026", "2026-12-05"), ("15/04/2026", "2026-05-12")],
    ids=["month-first-store", "day-first-store"],
)
def test_an_ambiguous_numeric_date_is_read_in_the_stores_order(
    make_store, run_curator, settling, date_read
):
    """`12/05/2026` settles nothing by itself; the store's other dates say which is the day."""
    store = make_store(
        {
            "project_filed.md": memory(f"Report was filed {settling}.\n"),
            "project_due.md": memory("Renewal due 12/05/2026.\n", extra="modified: 2026-01-05"),
        }
    )
    run = lint_json(run_curator, store, "CUR101", "--today", "2027-02-01")
    due = [d for d in run.json() if d["path"].endswith("project_due.md")]
    assert [d["detail"]["date"] for d in due] == [date_read]


@pytest.mark.parametrize(
    ("modified", "codes"),
    [("2026-12-02", []), ("2026-12-03", ["CUR001", "CUR102"])],
    ids=["tomorrow", "the-day-after"],
)
def test_a_modified_date_of_tomorrow_is_a_write_date(make_store, run_curator, modified, codes):
    """A time zone ahead of the runner's writes tomorrow's date: it is the write date (no
    CUR001, 'next week' is not past). Two days ahead is in the future: the write date falls
    back to created_at, and 'next week' from there is long past."""
    extra = f"modified: {modified}\ncreated_at: 2026-01-05"
    store = make_store({"project_tz.md": memory("Ship it next week.\n", extra=extra)})
    run = lint_json(run_curator, store, "CUR001,CUR102", "--today", TODAY)
    assert "Traceback" not in run.stderr
    assert sorted(d["code"] for d in run.json()) == codes


# -- A date ahead of the memory's last write ------------------------------------------------

AHEAD_BODY = (
    "Rückflug 20.06.2026, Hinflug LH 6002.\n"  # ahead of every write: a plan by itself
    "Sprint review 2026-04-25 with the team.\n"  # ahead of `modified`, not of the commit
    "Auth fix of April 2026 and the token scope.\n"  # a month that had begun
    "Conference call 2026-04-28 about the budget.\n"  # a day after: time zones, not a plan
    "Migrated the store 2026-06-01.\n"  # a history word: history
)


def test_a_date_ahead_of_the_memorys_last_write_is_a_plan(tmp_path: Path, run_curator):
    """The last write is the latest of the frontmatter date, the last commit and (for a
    file git does not vouch for) the mtime: a dated line past it looked ahead."""
    text = memory(AHEAD_BODY, extra="modified: 2026-04-20")
    repo = write_files(tmp_path / "dotfiles", {"memory/project_trip.md": text})
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "memories", "2026-04-27")
    run = lint_json(run_curator, repo / "memory", "CUR101", "--today", "2026-12-02")
    assert [(d["location"]["row"], d["message"]) for d in run.json()] == [
        (
            text.splitlines().index(AHEAD_BODY.splitlines()[0]) + 1,
            "Planned date '20.06.2026' is 165 days past ('20.06.2026' read as 2026-06-20; "
            "ahead of the memory's last write, the commit of 2026-04-27)",
        )
    ]
    assert run.json()[0]["severity"] == "info"
    # A copy git does not vouch for was written when its mtime says: today, ahead of nothing.
    copy = shutil.copytree(repo / "memory", tmp_path / "copy" / "memory")
    assert lint_json(run_curator, copy, "CUR101", "--today", "2026-12-02").json() == []


def test_a_commit_that_moves_the_last_write_invalidates_cached_date_hits(tmp_path: Path):
    """The frontmatter date (the write date) stays; the commit moves the last write back
    to before the trip, and the cached answer of the untracked file must not be reused."""
    text = memory(AHEAD_BODY, extra="modified: 2026-04-20")
    repo = write_files(tmp_path / "dotfiles", {"memory/project_trip.md": text})
    git(repo, "init", "-q", "-b", "main")
    store = repo / "memory"
    rules = [r for r in load_rules() if r.code == "CUR101"]

    def run(memo: MemoryMemo) -> list[str]:
        ctx = Context(store=read_store(store), config=Config(), today=date(2026, 12, 2))
        found = run_checks(ctx, rules, rules, None, None, memo)
        memo.save()
        return [d.message for d in found]

    memo_dir = tmp_path / "cache"
    assert run(MemoryMemo(memo_dir, "k")) == []  # untracked: last written today (its mtime)
    mtime = (store / "project_trip.md").stat().st_mtime
    commit(repo, "memories", "2026-04-27")
    os.utime(store / "project_trip.md", (mtime, mtime))
    assert [m.split(" (")[0] for m in run(MemoryMemo(memo_dir, "k"))] == [
        "Planned date '20.06.2026' is 165 days past"
    ]


PERIOD_BODY = (
    "2026-05-08 石垣島で約1ヶ月のPSF検証を並走\n"  # a period still running at the last write
    "PSF検証期間は約1ヶ月（推論：2026-05-08着手→週次レビュー）\n"  # the length first, no space
    "Pilot for 6 weeks from 2026-03-02 with the support team.\n"  # over before the last write
    "Release 2026-05-08; keep the cache for 30 days.\n"  # another clause: not its length
    "Kickoff 2026-04-30, then 2026-05-06 for 2 weeks of onboarding.\n"  # the nearer date's
)


def test_a_dated_period_still_running_at_the_last_write_is_a_plan(tmp_path: Path, run_curator):
    text = memory(PERIOD_BODY)
    repo = write_files(tmp_path / "dotfiles", {"memory/project_psf.md": text})
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "memories", "2026-05-11")
    run = lint_json(run_curator, repo / "memory", "CUR101", "--today", "2026-12-02")
    first = text.splitlines().index(PERIOD_BODY.splitlines()[0]) + 1
    last = "still running at the memory's last write, the commit of 2026-05-11"
    assert [(d["location"]["row"], d["message"]) for d in run.json()] == [
        (
            first,
            f"Planned period '2026-05-08 … 約1ヶ月' is 177 days past (ends 2026-06-08; {last})",
        ),
        (
            first + 1,
            f"Planned period '約1ヶ月 … 2026-05-08' is 177 days past (ends 2026-06-08; {last})",
        ),
        (
            first + 4,
            f"Planned period '2026-05-06 … for 2 weeks' is 196 days past (ends 2026-05-20; {last})",
        ),
    ]
