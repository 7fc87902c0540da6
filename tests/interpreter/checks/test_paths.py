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

LIVE_DEAD = """\
Live: `src/app/server.py` and `src/app/server.py:40`, [settings](config/settings.yaml),
`./README.md`, docs/guide.md in prose, the folder `src/app/`, plain `server.py`,
the ignored-but-present `.env.local`, and `src/app`.

Dead: `src/app/old_server.py`, scripts/migrate.sh in prose, [removed](docs/removed.md),
the folder `src/legacy/`, plain `gone_module.py`, `./tools/gen.py:12`.
"""
DEAD = [
    "src/app/old_server.py",
    "scripts/migrate.sh",
    "docs/removed.md",
    "src/legacy/",
    "gone_module.py",
    "./tools/gen.py",
]


@pytest.fixture
def project(git_repo, make_store):
    repo = git_repo(
        {
            "README.md": "# app\n",
            ".gitignore": ".env.local\n",
            "src/app/server.py": "class AppServer: ...\n",
            "config/settings.yaml": "a: 1\n",
            "docs/guide.md": "guide\n",
        }
    )
    (repo / ".env.local").write_text("SECRET=1\n")
    store = make_store({"project_app.md": memory(LIVE_DEAD)})
    return repo, store


def test_every_dead_path_is_found_and_no_live_one(project, run_curator):
    repo, store = project
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    text = (store / "project_app.md").read_text()
    expected = sorted(("project_app.md", *locate(text, p), p) for p in DEAD)
    assert found(run) == expected
    assert run.code == 1
    messages = {d["detail"]["path"]: d["message"] for d in run.json()}
    assert messages["gone_module.py"] == "'gone_module.py' does not exist"


def test_end_column_spans_the_reference(project, run_curator):
    repo, store = project
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    first = next(d for d in run.json() if d["detail"]["path"] == "src/app/old_server.py")
    assert first["end_location"]["column"] - first["location"]["column"] == len(
        "src/app/old_server.py"
    )


def test_linked_worktree_checks_against_the_main_checkout(git_repo, tmp_path, run_curator):
    main = git_repo({"src/a.py": "A = 1\n"})
    worktree = tmp_path / "wt"
    git(main, "worktree", "add", "-q", "-b", "feature", str(worktree))
    git(worktree, "rm", "-q", "src/a.py")
    write_files(worktree, {"src/b.py": "B = 2\n"})
    git(worktree, "add", "-A")
    git(worktree, "commit", "-q", "-m", "move")
    claude = tmp_path / "claude"
    store = claude / "projects" / discovery.project_slug(main) / "memory"
    body = "Config is in `src/a.py`; the new code is in `src/b.py`.\n"
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
    assert found(run) == [("project_layout.md", *locate(text, "src/b.py"), "src/b.py")]


def test_submodule_checks_against_its_own_root(git_repo, tmp_path, run_curator):
    lib = git_repo({"src/core.py": "class CoreThing: ...\n"}, name="lib-origin")
    sup = git_repo({"docs/super.md": "super\n"}, name="super")
    git(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    git(sup, "commit", "-q", "-m", "add lib")
    sub = sup / "lib"
    assert discovery.repo_root(sub) == sub.resolve()
    claude = tmp_path / "claude"
    store = claude / "projects" / discovery.project_slug(sub.resolve()) / "memory"
    body = "Core is `src/core.py`; the overview is `docs/super.md`.\n"
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
    assert found(run) == [("project_lib.md", *locate(text, "docs/super.md"), "docs/super.md")]


TRAVERSAL = [
    "../../etc/passwd",
    "../../../../../../../../etc/shadow",
    "src/../../../outside.txt",
    "~/../../etc/passwd",
]


def test_traversal_is_out_of_bounds_and_never_probed(git_repo, make_store, tmp_path, monkeypatch):
    repo = git_repo({"src/a.py": "A = 1\n"})
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

    got = [(d.detail["path"], str(d.severity), d.message) for d in result.diagnostics]
    assert [g[0] for g in got] == [*TRAVERSAL, "../../../etc/hosts"]
    assert all(sev == "info" and "points outside" in msg for _, sev, msg in got)
    roots = (repo, store.resolve(), home.resolve())
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
    repo = tmp_path / "myrepo"
    write_files(
        repo,
        {
            "README.md": "x\n",
            "CLAUDE.md": "x\n",
            "src/app.py": "x\n",
            "docs/guide.md": "x\n",
            "conf/app.toml": "x\n",
        },
    )
    store = make_store({"project_noise.md": memory(NOT_PATHS)})
    run = lint_json(run_curator, store, "CUR201", "--repo-root", str(repo))
    assert found(run) == []
    assert run.code == 0


def test_home_and_store_relative_paths(tmp_path, make_store, run_curator):
    repo = write_files(tmp_path / "repo", {"README.md": "x\n"})
    home = write_files(tmp_path / "home", {".config/tool/config.toml": "x\n"})
    body = (
        "Tool config: `~/.config/tool/config.toml`; old one `~/.config/tool/old.toml`.\n"
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
    path = "~/.config/tool/old.toml"
    assert found(run) == [("project_h.md", *locate(text, path), path)]


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
