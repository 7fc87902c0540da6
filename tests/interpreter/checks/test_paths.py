"""CUR201 path_broken against real repositories: live and dead paths, worktrees,
submodules, traversal attempts and the families of things that only look like paths."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pytest

from curator.config import Config
from curator.interpreter.rulebook import load_rules
from curator.linting import lint, target_for
from curator.store import discovery
from tests.conftest import found, git, lint_json, locate, memory, write_files
from tests.helpers.history_repo import commit

LIVE_DEAD = """\
Live: `src/app/server.py` and `src/app/server.py:40`, [settings](config/settings.yaml),
`./README.md`, docs/guide.md in prose, the folder `src/app/`, plain `server.py`,
the ignored-but-present `.env.local`, and `src/app`.

Stale: `src/app/old_server.py`, scripts/migrate.sh in prose, [a doc](docs/removed.md),
the folder `src/legacy/`, plain `gone_module.py`, `./tools/gen.py:12`, [setup](docs/setup.md).

Never here: `services/api/server.go`, web/src/App.tsx in prose, [plan](docs/plan-2027.md).
"""
GONE = [
    "src/app/old_server.py",
    "scripts/migrate.sh",
    "docs/removed.md",
    "src/legacy/",
    "gone_module.py",
    "./tools/gen.py",
    "docs/setup.md",
]


@pytest.fixture
def project(tmp_path, make_store):
    repo = tmp_path / "repo"
    commit(
        repo,
        "init",
        "2026-01-10",
        files={
            "README.md": "# app\n",
            ".gitignore": ".env.local\n",
            "src/app/server.py": "class AppServer: ...\n",
            "src/app/old_server.py": "class OldServer: ...\n",
            "src/legacy/a.py": "A = 1\n",
            "src/legacy/b.py": "B = 1\n",
            "scripts/migrate.sh": "echo\n",
            "docs/removed.md": "x\n",
            "docs/setup.md": "# Setup\n",
            "gone_module.py": "G = 1\n",
            "tools/gen.py": "print()\n",
            "config/settings.yaml": "a: 1\n",
            "docs/guide.md": "guide\n",
        },
    )
    gone = ("src/app/old_server.py", "src/legacy", "scripts/migrate.sh", "docs/removed.md",
            "gone_module.py", "tools/gen.py")  # fmt: skip
    commit(repo, "drop the old code", "2026-03-02", delete=gone)
    commit(repo, "rename setup", "2026-03-05", rename={"docs/setup.md": "docs/install.md"})
    (repo / ".env.local").write_text("SECRET=1\n")
    store = make_store({"project_app.md": memory(LIVE_DEAD, extra="modified: 2026-02-01")})
    return repo.resolve(), store


def test_only_what_history_shows_gone_is_reported(project, run_curator):
    repo, store = project
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    text = (store / "project_app.md").read_text()
    expected = sorted(("project_app.md", *locate(text, p), p) for p in GONE)
    assert found(run) == expected  # nothing the repository never had
    assert run.code == 1
    messages = {d["detail"]["path"]: d["message"] for d in run.json()}
    deleted = messages["gone_module.py"]
    assert deleted.startswith("'gone_module.py' was deleted in ")
    assert deleted.endswith(
        ' (2026-03-02, "drop the old code"); the memory was written 2026-02-01 (frontmatter modified), before that'
    )
    assert messages["src/legacy/"].startswith("'src/legacy/' was deleted in ")
    assert messages["docs/setup.md"].startswith("'docs/setup.md' moved to 'docs/install.md' in ")
    detail = next(d["detail"] for d in run.json() if d["detail"]["path"] == "docs/setup.md")
    assert detail["evidence_kind"] == "moved" and detail["commit_date"] == "2026-03-05"
    assert detail["written"] == "2026-02-01" and detail["written_after"] is False


def test_a_memory_written_after_the_removal_says_so(tmp_path, make_store, run_curator):
    repo = tmp_path / "repo"
    commit(repo, "init", "2026-01-10", files={"tools/viewer.py": "x = 1\n"})
    commit(repo, "drop viewer", "2026-03-12", delete=("tools/viewer.py",))
    body = "Open `tools/viewer.py` to inspect runs.\n"
    store = make_store({"project_v.md": memory(body, extra="modified: 2026-04-01")})
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    (diagnostic,) = run.json()
    assert diagnostic["message"].endswith(
        '(2026-03-12, "drop viewer"); the memory was written 2026-04-01 (frontmatter modified), when it was already gone'
    )


def test_end_column_spans_the_reference(project, run_curator):
    repo, store = project
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    first = next(d for d in run.json() if d["detail"]["path"] == "src/app/old_server.py")
    assert first["end_location"]["column"] - first["location"]["column"] == len(
        "src/app/old_server.py"
    )


def test_a_moved_path_comes_with_a_fix_that_rewrites_it(project, run_curator):
    repo, store = project
    shown = run_curator("fix", str(store), "--select", "CUR201", "--repo-root", str(repo))
    assert shown.code == 1, shown.stderr
    assert "-Stale: `src/app/old_server.py`" not in shown.stdout
    assert (
        "+the folder `src/legacy/`, plain `gone_module.py`, `./tools/gen.py:12`, [setup](docs/install.md)."
        in shown.stdout
    )
    before = (store / "project_app.md").read_text()
    applied = run_curator(
        "fix", str(store), "--apply", "--select", "CUR201", "--repo-root", str(repo)
    )
    assert applied.code == 0, applied.stderr
    assert (store / "project_app.md").read_text() == before.replace(
        "[setup](docs/setup.md)", "[setup](docs/install.md)"
    )
    again = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    assert "docs/setup.md" not in {p for *_, p in found(again)}


def test_short_references_match_trailing_components(tmp_path, make_store, run_curator):
    repo = tmp_path / "repo"
    commit(
        repo,
        "init",
        "2026-01-10",
        files={"src/ingest.py": "a\n", "tools/load/run.py": "b\n", "tools/copy/run.py": "c\n"},
    )
    commit(repo, "cleanup", "2026-02-10", delete=("src/ingest.py", "tools/load", "tools/copy"))
    body = "Run `ingest.py` first, then `load/run.py`; `run.py` is the entry point.\n"
    store = make_store({"project_s.md": memory(body)})
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    messages = {d["detail"]["path"]: d["message"] for d in run.json()}
    assert messages["ingest.py"].startswith("'ingest.py' was deleted in ")
    assert messages["load/run.py"].startswith("'load/run.py' was deleted in ")
    assert messages["run.py"].startswith(
        "'run.py' matches 2 files this repository had and lost: tools/copy/run.py (deleted in "
    )


def test_what_is_right_as_written_is_held_back_and_listed(tmp_path, make_store, run_curator):
    repo = tmp_path / "repo"
    commit(
        repo,
        "init",
        "2026-01-10",
        files={"a/viewer.py": "x\n", "a/old.sh": "x\n", "a/local.env": "x\n", "a/kept.py": "x\n"},
    )
    commit(repo, "cleanup", "2026-03-02", delete=("a/viewer.py", "a/local.env", "a/kept.py"))
    commit(repo, "rename", "2026-03-03", rename={"a/old.sh": "a/new.sh"})
    (repo / ".gitignore").write_text("a/local.env\n")
    body = (
        "We removed `a/viewer.py` in the cleanup.\n"
        "`a/old.sh` -> `a/new.sh` is the rename.\n"
        "Secrets live in `a/local.env` on each machine.\n"
        "If `a/kept.py` exists, delete it.\n"
    )
    store = make_store(
        {
            "project_c.md": memory(body),
            "session_2026-02-01_work.md": memory("Edited `a/viewer.py` today.\n"),
        }
    )
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    assert found(run) == []
    assert run.code == 0
    assert (
        "curator: 5 references the history shows gone held back as right as written "
        "(conditional 1, ignored now (taken out of git on purpose) 1, journal 1, narrated 1, "
        "renamed (arrow) 1); --show-silenced lists them"
    ) in run.stderr
    listed = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo), "--show-silenced")
    lines = [ln for ln in listed.stderr.splitlines() if "held back" in ln]
    assert len(lines) == 5
    assert any(
        ln.startswith("memory/project_c.md:6:") and "(narrated 'removed')" in ln for ln in lines
    )
    assert any("session_2026-02-01_work.md:6:" in ln and "(journal)" in ln for ln in lines)


def test_linked_worktree_checks_against_the_main_checkout(tmp_path, run_curator):
    main = tmp_path / "repo"
    commit(main, "init", "2026-01-10", files={"src/a.py": "A = 1\n", "src/old.py": "O = 1\n"})
    commit(main, "drop old", "2026-02-10", delete=("src/old.py",))
    main = main.resolve()
    worktree = tmp_path / "wt"
    git(main, "worktree", "add", "-q", "-b", "feature", str(worktree), "HEAD~1")
    assert (worktree / "src/old.py").exists()  # the worktree still has it; main does not
    claude = tmp_path / "claude"
    store = claude / "projects" / discovery.project_slug(main) / "memory"
    body = "Config is in `src/a.py`; the legacy code is in `src/old.py`.\n"
    write_files(store, {"project_layout.md": memory(body)})

    run = run_curator(
        "lint",
        "--output-format",
        "json",
        "--select",
        "CUR201",
        cwd=worktree,
        env={"CLAUDE_CONFIG_DIR": str(claude)},
    )
    text = (store / "project_layout.md").read_text()
    # The store is shared by every worktree and its root is the main checkout.
    assert found(run) == [("project_layout.md", *locate(text, "src/old.py"), "src/old.py")]


def test_submodule_checks_against_its_own_root(git_repo, tmp_path, run_curator):
    lib = tmp_path / "lib-origin"
    commit(lib, "init", "2026-01-10", files={"src/core.py": "C = 1\n", "src/old_core.py": "O\n"})
    commit(lib, "drop old core", "2026-02-10", delete=("src/old_core.py",))
    sup = tmp_path / "super"
    commit(sup, "init", "2026-01-10", files={"docs/super.md": "super\n", "docs/gone.md": "g\n"})
    commit(sup, "drop gone", "2026-02-10", delete=("docs/gone.md",))
    git(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    git(sup, "commit", "-q", "-m", "add lib")
    sub = sup / "lib"
    assert discovery.repo_root(sub) == sub.resolve()
    claude = tmp_path / "claude"
    store = claude / "projects" / discovery.project_slug(sub.resolve()) / "memory"
    body = "Core is `src/core.py`, once `src/old_core.py`; the superproject had `docs/gone.md`.\n"
    write_files(store, {"project_lib.md": memory(body)})

    run = run_curator(
        "lint",
        "--output-format",
        "json",
        "--select",
        "CUR201",
        cwd=sub,
        env={"CLAUDE_CONFIG_DIR": str(claude)},
    )
    text = (store / "project_lib.md").read_text()
    expected = [("project_lib.md", *locate(text, "src/old_core.py"), "src/old_core.py")]
    assert found(run) == expected


TRAVERSAL = [
    "../../etc/passwd",
    "../../../../../../../../etc/shadow",
    "src/../../../outside.txt",
    "~/../../etc/passwd",
]


def test_traversal_is_never_probed_nor_reported(make_store, tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    commit(repo, "init", "2026-01-10", files={"src/a.py": "A = 1\n", "etc/passwd": "x\n"})
    commit(repo, "drop", "2026-01-11", delete=("etc/passwd",))
    repo = repo.resolve()
    body = "".join(f"Look at `{p}` now.\n" for p in TRAVERSAL)
    body += "And [the file](../../../etc/hosts).\n"
    store = make_store({"project_evil.md": memory(body)})
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))

    probed: list[str] = []
    real_lexists, real_exists, real_is_dir = os.path.lexists, Path.exists, Path.is_dir

    def spy_lexists(path):
        probed.append(str(path))
        return real_lexists(path)

    def spy_exists(self, *args, **kwargs):
        probed.append(str(self))
        return real_exists(self, *args, **kwargs)

    def spy_is_dir(self, *args, **kwargs):
        probed.append(str(self))
        return real_is_dir(self, *args, **kwargs)

    rules = load_rules()
    selected = [r for r in rules if r.code == "CUR201"]
    monkeypatch.setattr(os.path, "lexists", spy_lexists)
    monkeypatch.setattr(Path, "exists", spy_exists)
    monkeypatch.setattr(Path, "is_dir", spy_is_dir)
    target = target_for(store.resolve(), Config(), Path.cwd(), repo)
    result = lint([target], rules, selected, Config(), today=date(2026, 6, 1))
    monkeypatch.undo()

    assert result.diagnostics == []  # climbing out is not a claim about this repository
    roots = (repo, store.resolve())
    outside = [
        p for p in probed if not any(Path(os.path.normpath(p)).is_relative_to(r) for r in roots)
    ]
    assert outside == []


NOT_PATHS = """\
Globs `src/*.py` and src/**/*.ts; templates `docs/{name}.md` and `out/<id>.json`; `$HOME/x.sh`.
Versions v1.2/3.4 and `v2.0/2.1`; fractions 1/2.5 and 3/4; dates 2024/01/02.md and `2025/12/31`.
URLs https://example.com/a/b.py, www.example.org/x/y.md, github.com/org/repo/blob/x.py.
Build output `node_modules/react/index.js`, `dist/app.js`, `.venv/lib/site.py`, build/x.o.
Read README/ARCHITECTURE/CONTRIBUTING/CLAUDE.md first. `application/json`, `feature/login`,
`origin/main`, and/or, read/write, TCP/IP, `@scope/pkg`, `git@github.com:org/repo.git`.
Our own folder: `myrepo/src/app.py` and myrepo/docs/guide.md. Flags `--config=conf/app.toml`.
"""


def test_false_positive_families_are_not_reported(tmp_path, make_store, run_curator):
    # History had a file at every place a misread would look, and lost it: only the
    # filters keep these from being reported.
    lookalikes = [
        "application/json", "feature/login", "origin/main", "and/or", "read/write", "TCP/IP",
        "dist/app.js", "build/x.o", "node_modules/react/index.js", ".venv/lib/site.py",
        "2024/01/02.md", "2025/12/31", "v2.0/2.1", "docs/x.md", "README", "ARCHITECTURE",
        "CONTRIBUTING", "conf/old.toml", "www.example.org/x/y.md",
    ]  # fmt: skip
    repo = tmp_path / "myrepo"
    live = {"README.md": "x\n", "CLAUDE.md": "x\n", "src/app.py": "x\n", "docs/guide.md": "x\n",
            "conf/app.toml": "x\n"}  # fmt: skip
    commit(repo, "init", "2026-01-10", files={**live, **{f: "x\n" for f in lookalikes}})
    commit(repo, "drop lookalikes", "2026-02-10", delete=tuple(lookalikes))
    store = make_store({"project_noise.md": memory(NOT_PATHS)})
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    assert found(run) == []
    assert run.code == 0
    assert "held back" not in run.stderr  # not even looked up


def test_home_is_the_repositorys_copy_of_claude_never_the_runners(
    tmp_path, make_store, run_curator
):
    repo = tmp_path / "dotfiles"
    commit(
        repo,
        "init",
        "2026-01-10",
        files={
            "claude/settings.json": "{}\n",
            "claude/CLAUDE.md": "x\n",
            "claude/hooks/notify.sh": "echo\n",
            "claude/hooks/old.sh": "echo\n",
        },
    )
    commit(
        repo, "drop old hook", "2026-02-10", delete=("claude/hooks/old.sh", "claude/settings.json")
    )
    # The runner's home has the old hook: it must not vouch for the repository.
    home = write_files(
        tmp_path / "home", {".claude/hooks/old.sh": "echo\n", ".config/t.toml": "x\n"}
    )
    body = (
        "Hooks: `~/.claude/hooks/notify.sh` and `~/.claude/hooks/old.sh`.\n"
        "Settings in `~/.claude/settings.json`; tool config `~/.config/gone.toml`.\n"
        "See [the other memory](feedback_x.md) and `notes/extra.md`.\n"
    )
    store = make_store(
        {
            "project_h.md": memory(body),
            "feedback_x.md": memory("x\n", type="feedback"),
            "notes/extra.md": "x\n",
        }
    )
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo), env={"HOME": str(home)})
    text = (store / "project_h.md").read_text()
    path = "~/.claude/hooks/old.sh"
    assert found(run) == [("project_h.md", *locate(text, path), path)]
    (diagnostic,) = run.json()
    assert diagnostic["message"].startswith("'~/.claude/hooks/old.sh' was deleted in ")

    # Pinned in config, and no copy at all: nothing under ~ is checked.
    config = write_files(
        tmp_path / "cfg", {".curator.yaml": "references: {home_in_repo: elsewhere}\n"}
    )
    pinned = lint_json(
        run_curator, store, "CUR201", "--repo-root", str(repo),
        "--config", str(config / ".curator.yaml"), env={"HOME": str(home)},
    )  # fmt: skip
    assert found(pinned) == []


def test_no_repository_root_skips_with_one_note(make_store, tmp_path, run_curator):
    store = make_store(
        {
            "project_a.md": memory("`src/a.py` has `FlushQueue`.\n"),
            "project_b.md": memory("`src/b.py` too.\n"),
        }
    )
    outside_git = tmp_path / "plain"
    outside_git.mkdir()
    run = run_curator("lint", str(store), "--output-format", "json", cwd=outside_git)
    codes = {d["code"] for d in run.json()}
    assert not codes & {"CUR201", "CUR202"}
    notes = [line for line in run.stderr.splitlines() if "path and symbol" in line]
    assert notes == [
        f"curator: path and symbol rules skipped for 1 store with no known repository "
        f"({store.resolve()}); map them under `repositories:` in .curator.yaml or pass "
        "--repo-root"
    ]


def test_suppression_hides_a_deliberate_mention(tmp_path, make_store, run_curator):
    repo = write_files(tmp_path / "repo", {"README.md": "x\n"})
    body = "<!-- curator-disable-next-line CUR201 -->\nThe removed `scripts/old.sh` is gone.\n"
    store = make_store({"project_s.md": memory(body)})
    run = run_curator(
        "lint", str(store), "--output-format", "json", "--select", "CUR2", "--repo-root", str(repo)
    )
    assert found(run) == []


def test_bad_skip_pattern_is_a_clean_config_error(tmp_path, make_store, run_curator):
    store = make_store({"project_a.md": memory("`src/a.py`\n")})
    config = write_files(
        tmp_path,
        {".curator.yaml": "rules:\n  path_broken:\n    params: {skip_patterns: ['(open']}\n"},
    )
    run = run_curator("lint", str(store), "--config", str(config / ".curator.yaml"))
    assert run.code == 2
    assert "bad skip_patterns regex" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    "flag",
    ["kind: journal", "metadata:\n  kind: session-log", "metadata:\n  journal: yes"],
    ids=["top-level", "metadata-kind", "metadata-journal"],
)
def test_a_journal_flag_in_the_frontmatter_or_under_metadata_holds_it_back(
    tmp_path, make_store, run_curator, flag
):
    """Claude Code keeps extra frontmatter keys under `metadata:`; a journal flag there
    marks a dated log as surely as one at the top."""
    repo = tmp_path / "repo"
    commit(repo, "init", "2026-01-10", files={"a/viewer.py": "x\n"})
    commit(repo, "cleanup", "2026-03-02", delete=("a/viewer.py",))
    store = make_store({"project_viewer.md": memory("Edited `a/viewer.py` today.\n", extra=flag)})
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    assert (found(run), run.code) == ([], 0)
    assert "(journal 1)" in run.stderr


@pytest.mark.parametrize(
    ("written", "after", "wording"),
    [
        ("2026-03-11", False, "before that"),
        ("2026-03-12", False, "the same day"),  # a day says neither before nor after
        ("2026-03-13", True, "when it was already gone"),
    ],
)
def test_the_written_wording_agrees_with_written_after(
    tmp_path, make_store, run_curator, written, after, wording
):
    repo = tmp_path / "repo"
    commit(repo, "init", "2026-01-10", files={"tools/viewer.py": "x = 1\n"})
    commit(repo, "drop viewer", "2026-03-12", delete=("tools/viewer.py",))
    body = "Open `tools/viewer.py` to inspect runs.\n"
    store = make_store({"project_v.md": memory(body, extra=f"modified: {written}")})
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    (diagnostic,) = run.json()
    assert diagnostic["detail"]["written_after"] is after
    assert diagnostic["message"].endswith(
        f"the memory was written {written} (frontmatter modified), {wording}"
    )


def test_agents_skills_and_commands_named_resolve_to_the_dotfiles_copy(
    tmp_path, make_store, run_curator
):
    repo = tmp_path / "dotfiles"
    commit(
        repo,
        "init",
        "2026-01-10",
        files={
            "claude/settings.json": "{}\n",
            "claude/CLAUDE.md": "x\n",
            "claude/agents/reviewer.md": "x\n",
            "claude/agents/tester.md": "x\n",
            "claude/skills/pdf/SKILL.md": "x\n",
            "claude/commands/ship.md": "x\n",
            "claude/agents/deployer.md": "x\n",
        },
    )
    commit(
        repo,
        "retire the reviewer",
        "2026-02-10",
        delete=(
            "claude/agents/reviewer.md",
            "claude/skills/pdf/SKILL.md",
            "claude/agents/deployer.md",
        ),
    )
    body = (
        "Ask the `reviewer` agent before merging; the `tester` agent runs the suite.\n"
        "Reports use skill `pdf`; release with `/ship`; `/compact` when the context is full.\n"
    )
    listing = "- [H](project_h.md) — releases go through the `deployer` agent\n"
    store = make_store({"MEMORY.md": listing, "project_h.md": memory(body)})
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    text = (store / "project_h.md").read_text()
    assert found(run) == [
        ("MEMORY.md", *locate(listing, "deployer"), "deployer"),
        ("project_h.md", *locate(text, "reviewer"), "reviewer"),
        ("project_h.md", *locate(text, "pdf"), "pdf"),
    ]
    messages = [d["message"] for d in run.json()]
    assert messages[1].startswith("'reviewer' was deleted in ")
    assert '"retire the reviewer"' in messages[1]
