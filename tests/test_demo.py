"""The README's first command: the demo store, its project's history, the stale references."""

from __future__ import annotations

import shutil
import subprocess
import sys

from tests.conftest import CHECKOUT

DEMO = CHECKOUT / "examples" / "demo"


def test_the_demo_shows_stale_references_with_their_commits(tmp_path, run_curator):
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo, ignore=shutil.ignore_patterns(".git"))
    before = {p: p.read_bytes() for p in (demo / "project").rglob("*") if p.is_file()}
    for _ in range(2):  # the second run changes nothing
        done = subprocess.run([sys.executable, str(demo / "make_history.py")], check=False)
        assert done.returncode == 0
    after = {p: p.read_bytes() for p in (demo / "project").rglob("*") if p.is_file()}
    assert {p: b for p, b in after.items() if ".git" not in p.parts} == before
    log = subprocess.run(
        ["git", "-C", str(demo / "project"), "log", "--format=%h %s"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert log.splitlines() == [
        "f761a51 queue rewrite: FlushQueue becomes RetryQueue",
        "7c4e5d4 drop the legacy importer",
        "bcfeaa0 billing: retry queue, settings and the old importer",
    ]

    run = run_curator(
        "lint", "memory", "--repo-root", "project", "--output-format", "concise",
        "--select", "CUR2", cwd=demo,
    )  # fmt: skip
    assert run.code == 1, run.stderr
    # The lines the README shows, word for word.
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    for line in run.stdout.splitlines():
        if " CUR201 " in line or " CUR202 " in line:
            assert f"examples/demo/{line}" in readme
    assert sum(" CUR201 " in ln or " CUR202 " in ln for ln in run.stdout.splitlines()) == 2
