"""CUR206 command_missing: make, npm and just targets the history removed or renamed are
reported with their commit; targets the repository never had are not."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import lint_json, memory
from tests.helpers.history_repo import commit, recording_git

MAKE_V1 = "setup:\n\tpip install -e .\n\ntest:\n\tpytest -q\n\nclean:\n\trm -rf build\n"
# `setup` renamed to `bootstrap` (same recipe); `clean` removed; `test` kept.
MAKE_V2 = "bootstrap:\n\tpip install -e .\n\ntest:\n\tpytest -q\n"
NPM_V1 = '{"scripts": {"build:prod": "vite build --mode production", "lint": "eslint ."}}'
NPM_V2 = '{"scripts": {"build": "vite build --mode production"}}'
JUST_V1 = "fmt:\n    ruff format .\n\nserve port='8000':\n    python -m http.server {{port}}\n"
JUST_V2 = "format:\n    ruff format .\n"


def command_repo(root: Path) -> Path:
    commit(
        root,
        "init",
        "2026-01-10",
        files={
            "Makefile": MAKE_V1,
            "web/package.json": NPM_V1,
            "justfile": JUST_V1,
            "README.md": "Run `make deploy`.\n",
        },
    )
    commit(root, "docs", "2026-02-01", files={"README.md": "Run make.\n"})
    commit(
        root,
        "build: one entry point",
        "2026-03-12",
        files={"Makefile": MAKE_V2, "web/package.json": NPM_V2, "justfile": JUST_V2},
    )
    return root.resolve()


def test_removed_and_renamed_targets_are_reported_and_unknown_ones_are_not(
    tmp_path, make_store, run_curator
):
    repo = command_repo(tmp_path / "repo")
    body = (
        "Set up with `make setup`, then `make test` and `make clean`.\n"
        "Build with `npm run build:prod` or `npm run lint`; `pnpm build` works too.\n"
        "Format with `just fmt`; serve with `just serve`.\n"
        "Deploy with `make deploy`, test with `uv run pytest`, docs with `just docs`.\n"
        "```sh\nmake setup\n```\n"
    )
    store = make_store({"project_build.md": memory(body, extra="modified: 2026-02-01")})
    run = lint_json(run_curator, store, "CUR206", "--repo-root", str(repo), "--today", "2026-06-01")
    assert run.code == 1, run.stderr  # warnings fail a lint by default
    got = [(d["location"]["row"], d["location"]["column"], d["message"]) for d in run.json()]
    when = "; the memory was written 2026-02-01 (frontmatter modified), before that"
    sha = next(d["detail"]["commit"] for d in run.json())
    ev = f'in {sha} (2026-03-12, "build: one entry point"){when}'
    assert got == [
        (7, 14, f"`make setup`: target 'setup' was renamed to 'bootstrap' {ev}"),
        (7, 49, f"`make clean`: target 'clean' was removed from Makefile {ev}"),
        (8, 13, f"`npm run build:prod`: target 'build:prod' was renamed to 'build' {ev}"),
        (8, 37, f"`npm run lint`: target 'lint' was removed from web/package.json {ev}"),
        (9, 14, f"`just fmt`: target 'fmt' was renamed to 'format' {ev}"),
        (9, 37, f"`just serve`: target 'serve' was removed from justfile {ev}"),
        (12, 1, f"`make setup`: target 'setup' was renamed to 'bootstrap' {ev}"),
    ]
    assert {d["detail"]["tool"] for d in run.json()} == {"make", "npm", "just"}


def test_a_target_defined_again_today_is_not_reported(tmp_path, make_store, run_curator):
    repo = command_repo(tmp_path / "repo")
    commit(repo, "setup again", "2026-04-01", files={"Makefile": MAKE_V1})
    # `make deploy` is missing, so history is read: it still knows setup and clean were
    # removed once, but they are back.
    body = "Run `make setup` and `make clean`, then `make deploy`.\n"
    store = make_store({"project_build.md": memory(body)})
    run = lint_json(run_curator, store, "CUR206", "--repo-root", str(repo), "--today", "2026-06-01")
    assert run.code == 0 and run.json() == [], run.stderr


def test_targets_moved_into_an_include_a_variable_or_an_alias_are_still_defined(
    tmp_path, make_store, run_curator
):
    repo = tmp_path / "repo"
    make = "setup:\n\tpip install -e .\n\nlint:\n\truff check\n\ncheck:\n\tpytest\n"
    commit(repo, "init", "2026-01-10", files={"Makefile": make, "justfile": "t:\n    pytest\n"})
    # setup moves into an included file with no makefile name, lint into a variable's
    # list; check is removed though `.PHONY` still names it; `t` becomes an alias.
    commit(
        repo,
        "split the makefile",
        "2026-03-12",
        files={
            "Makefile": (
                ".PHONY: check lint\ninclude tools/rules\nLINTERS = lint\n"
                "$(LINTERS):\n\truff check\n"
            ),
            "tools/rules": "setup:\n\tpip install -e .\n",
            "justfile": "test:\n    pytest -q\nalias t := test\n",
        },
    )
    body = "Run `make setup`, `make lint`, `make check` and `just t`.\n"
    store = make_store({"project_build.md": memory(body)})
    run = lint_json(
        run_curator, store, "CUR206", "--repo-root", str(repo.resolve()), "--today", "2026-06-01"
    )
    assert [d["detail"]["command"] for d in run.json()] == ["make check"], run.stderr


def test_a_branch_that_never_had_a_target_does_not_remove_it(tmp_path, make_store, run_curator):
    repo = tmp_path / "repo"
    commit(repo, "init", "2026-01-10", files={"Makefile": "test:\n\tpytest\n"})
    git = ["git", "-C", str(repo)]
    subprocess.run([*git, "checkout", "-q", "-b", "side"], check=True)
    commit(repo, "side work", "2026-01-20", files={"Makefile": "test:\n\tpytest -x\n"})
    subprocess.run([*git, "checkout", "-q", "main"], check=True)
    commit(repo, "add serve", "2026-01-15", files={"Makefile": "test:\n\tpytest\nserve:\n\tpy\n"})
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e", "GIT_COMMITTER_DATE": "2026-02-01T12:00:00+00:00"}  # fmt: skip
    merged = "test:\n\tpytest -x\nserve:\n\tpy\n"
    subprocess.run([*git, "merge", "-q", "--no-commit", "side"], env=env, check=False)
    (repo / "Makefile").write_text(merged)
    subprocess.run([*git, "commit", "-qam", "merge side"], env=env, check=True)
    # `serve` went away only where the side branch (which never had it) touched the file.
    commit(repo, "drop serve", "2026-03-01", files={"Makefile": "test:\n\tpytest -x\n"})
    store = make_store({"project_build.md": memory("Run `make serve`.\n")})
    run = lint_json(
        run_curator, store, "CUR206", "--repo-root", str(repo.resolve()), "--today", "2026-06-01"
    )
    (only,) = run.json()
    assert only["detail"]["subject"] == "drop serve", run.stderr


def test_a_renamed_target_comes_with_a_fix_that_rewrites_the_command(
    tmp_path, make_store, run_curator
):
    repo = command_repo(tmp_path / "repo")
    body = "Set up with `make setup`; clean with `make clean`.\n"
    store = make_store({"project_build.md": memory(body)})
    before = (store / "project_build.md").read_text()
    args = ("--select", "CUR206", "--repo-root", str(repo), "--today", "2026-06-01")
    shown = run_curator("fix", str(store), *args)
    assert "+Set up with `make bootstrap`; clean with `make clean`." in shown.stdout, shown.stderr
    applied = run_curator("fix", str(store), "--apply", *args)
    assert applied.code == 0, applied.stderr
    # The rename is certain (same recipe): rewritten. The removal has no fix.
    after = before.replace("`make setup`", "`make bootstrap`")
    assert (store / "project_build.md").read_text() == after
    again = lint_json(run_curator, store, "CUR206", *args[2:])
    assert [d["detail"]["command"] for d in again.json()] == ["make clean"]


def test_a_repository_git_cannot_answer_for_leaves_the_rule_not_run(
    tmp_path, make_store, run_curator
):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)  # no commit: no HEAD
    store = make_store({"project_build.md": memory("Run `make setup`.\n")})
    run = run_curator("lint", str(store), "--select", "CUR206", "--repo-root", str(repo))
    assert (run.code, run.stdout) == (
        0,
        "No findings, but not every selected rule ran: CUR206 (the notes on stderr say why).\n",
    )
    assert "command_missing (CUR206) skipped: git could not read the manifests of" in run.stderr


def test_the_manifests_history_comes_from_the_history_index_pass(tmp_path, make_store, run_curator):
    repo = command_repo(tmp_path / "repo")
    # The Makefile moves and changes after the removal: its versions follow the rename.
    subprocess.run(["git", "-C", str(repo), "mv", "Makefile", "build.mk"], check=True)
    commit(repo, "make: one file", "2026-04-02", files={"build.mk": MAKE_V2 + "lint:\n\truff\n"})
    # Every git call the lint makes, through a `git` that writes its arguments down.
    calls, env = recording_git(tmp_path)
    body = "Run `make setup`, `make clean` and `make lint`; the old `src/gone.py` is gone.\n"
    store = make_store({"project_build.md": memory(body)})
    args = ("--repo-root", str(repo), "--today", "2026-06-01")
    run = lint_json(run_curator, store, "CUR201,CUR206", *args, env=env)
    got = [(d["detail"]["target"], d["detail"]["file_was"], d["message"]) for d in run.json()]
    assert [g[:2] for g in got] == [("setup", "Makefile"), ("clean", "Makefile")], run.stderr
    assert all('"build: one entry point"' in message for _, _, message in got)
    logs = [c for c in calls.read_text().splitlines() if " log " in f" {c} "]
    assert len([c for c in logs if "--first-parent" in c]) == 1, logs  # the index's pass
