"""Which repository a store talks about: `repositories:` mapping, dotfiles layouts, notes."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from curator.config import Config, load_config
from curator.interpreter.rulebook import load_rules
from curator.linting import lint, target_for
from curator.models import Rule, Severity
from curator.repo.mapping import REPOSITORY_CHECKS, locate_repository
from curator.store.discovery import project_slug
from tests.conftest import memory, write_files

API = "claude/projects/-home-me-work-api/memory"
WEB = "claude/projects/-home-me-work-web/memory"
SCRATCH = "claude/projects/-home-me-scratch/memory"


def reference_notes(result) -> list[str]:
    """The notes about path and symbol rules (usage and LLM rules add their own)."""
    return [n for n in result.notes if n.startswith("path and symbol")]


@pytest.fixture
def dotfiles(git_repo) -> Path:
    return git_repo(
        {
            f"{API}/MEMORY.md": "- [A](a.md) — a\n",
            f"{API}/a.md": memory("See `src/app.py`.\n"),
            f"{WEB}/MEMORY.md": "",
            f"{SCRATCH}/MEMORY.md": "",
        },
        name="dotfiles",
    )


def config_file(folder: Path, text: str) -> Config:
    path = folder / ".curator.yaml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def test_an_unmapped_dotfiles_store_has_no_repository(dotfiles: Path, tmp_path: Path) -> None:
    # The store is inside a git repository, but that repository is the dotfiles one: its
    # files are not what the memories talk about.
    assert locate_repository(dotfiles / API, Config(), None, tmp_path).root is None


def test_a_project_store_uses_the_repository_that_holds_it(git_repo, tmp_path: Path) -> None:
    project = git_repo({".claude/memory/MEMORY.md": "", "src/app.py": ""}, name="project")
    assert locate_repository(project / ".claude/memory", Config(), None, tmp_path).root == project


def test_stores_map_by_slug_or_glob_relative_to_the_config(dotfiles: Path, tmp_path: Path) -> None:
    api = write_files(tmp_path / "work/api", {"src/app.py": ""})
    web = write_files(tmp_path / "work/web", {"index.ts": ""})
    config = config_file(
        tmp_path,
        "repositories:\n"
        "  '-home-me-work-*': work/web\n"  # a glob; the exact slug below wins over it
        "  -home-me-work-api: work/api\n"
        "  -home-me-scratch: null\n",
    )
    assert locate_repository(dotfiles / API, config, None, tmp_path).root == api.resolve()
    assert locate_repository(dotfiles / WEB, config, None, tmp_path).root == web.resolve()
    assert locate_repository(dotfiles / SCRATCH, config, None, tmp_path).root is None
    # --repo-root still wins over everything.
    assert locate_repository(dotfiles / API, config, web, tmp_path).root == web.resolve()


def test_the_current_project_matches_its_own_slug_exactly(git_repo, tmp_path: Path) -> None:
    here = git_repo({"README.md": ""}, name="api")
    projects = tmp_path / "claude/projects"
    own = write_files(projects / project_slug(here) / "memory", {})
    longer = write_files(projects / (own.parent.name + "-other") / "memory", {})
    assert locate_repository(own, Config(), None, here).root == here
    # A slug that merely starts with the project's slug is another project.
    assert locate_repository(longer, Config(), None, here).root is None


def test_a_bad_mapping_is_a_config_error_with_its_line(tmp_path: Path) -> None:
    from curator.errors import UserError

    with pytest.raises(UserError) as caught:
        config_file(tmp_path, "select: []\nrepositories:\n  -home-me-x: [a, b]\n")
    assert str(caught.value) == (
        f"{tmp_path}/.curator.yaml:3: repositories.-home-me-x must be a repository path "
        "(or null for none)"
    )


def fake_rule(code: str, check: str) -> Rule:
    """A rule of a reference check (paths, symbols). Stores without a repository must never
    run it, so its check module is never imported here."""
    return Rule(
        code=code,
        name=f"{check}_rule",
        check=check,
        tier="cheap",
        severity=Severity.WARNING,
        summary="needs a repository",
        message="m",
        source=Path(f"{check}.yaml"),
    )


def test_unmapped_stores_skip_reference_rules_with_one_note(dotfiles: Path, tmp_path) -> None:
    rules = load_rules()
    selected = [*rules, fake_rule("CUR201", "paths"), fake_rule("CUR202", "symbols")]
    config = config_file(tmp_path, "repositories:\n  -home-me-scratch: null\n")
    targets = [target_for(dotfiles / s, config, tmp_path) for s in (API, WEB, SCRATCH)]

    result = lint(targets, rules, selected, config, date(2026, 6, 1))

    assert reference_notes(result) == [
        "path and symbol rules skipped for 2 stores with no known repository "
        "(-home-me-work-api, -home-me-work-web); map them under `repositories:` in "
        ".curator.yaml or pass --repo-root"
    ]
    assert {d.code for d in result.diagnostics} == set()  # the stores are otherwise clean


def test_a_mapping_to_a_missing_folder_says_so(dotfiles: Path, tmp_path: Path) -> None:
    rules = load_rules()
    config = config_file(tmp_path, "repositories:\n  -home-me-work-api: gone\n")
    selected = [*rules, fake_rule("CUR201", "paths")]
    target = target_for(dotfiles / API, config, tmp_path)
    result = lint([target], rules, selected, config, date(2026, 6, 1))
    assert reference_notes(result) == [
        "path and symbol rules skipped: mapped repository not found "
        f"(-home-me-work-api -> {tmp_path}/gone); fix `repositories:` in .curator.yaml"
    ]


def test_no_note_when_no_reference_rule_is_selected(dotfiles: Path, tmp_path: Path) -> None:
    rules = load_rules()
    selected = [r for r in rules if r.check not in REPOSITORY_CHECKS]
    target = target_for(dotfiles / API, Config(), tmp_path)
    result = lint([target], rules, selected, Config(), date(2026, 6, 1))
    assert reference_notes(result) == []


def test_a_slug_naming_one_existing_folder_is_that_repository(dotfiles, tmp_path) -> None:
    # Claude Code's slug of a project that exists on this machine: found without mapping.
    project = write_files(tmp_path / "work/my.api_v2", {"src/app.py": ""}).resolve()
    store = write_files(dotfiles / "claude/projects" / project_slug(project) / "memory", {})
    assert locate_repository(store, Config(), None, tmp_path).root == project


def test_an_ambiguous_slug_is_not_guessed(dotfiles: Path, tmp_path: Path) -> None:
    # `/work/a-b` and `/work/a/b` have the same slug.
    write_files(tmp_path / "work/a-b", {"x": ""})
    write_files(tmp_path / "work/a/b", {"x": ""})
    slug = project_slug(tmp_path / "work/a/b")
    assert slug == project_slug(tmp_path / "work/a-b")
    store = write_files(dotfiles / "claude/projects" / slug / "memory", {})
    assert locate_repository(store, Config(), None, tmp_path).root is None


OWN = "claude/projects/-Users-x-code-dotfiles-claude/memory"  # ~/code/dotfiles/claude
HOME_CLAUDE = "claude/projects/-Users-x--claude/memory"  # ~/.claude: the repository's claude/
ELSEWHERE = "claude/projects/-Users-x-code-aurora/memory"  # another project
PROJECT_CLAUDE = "claude/projects/-Users-x-code-web--claude/memory"  # ~/code/web/.claude


def test_a_dotfiles_store_whose_slug_ends_inside_it_is_that_repository(
    git_repo, tmp_path: Path, run_curator
) -> None:
    from tests.conftest import git, lint_json

    # The checkout is called `checkout` here; on its owner's machine it was ~/code/dotfiles.
    repo = git_repo(
        {
            f"{OWN}/MEMORY.md": "- [Sync](project_sync.md) — how sync runs\n",
            f"{OWN}/project_sync.md": memory("Sync runs `scripts/sync.sh` every hour.\n"),
            f"{HOME_CLAUDE}/MEMORY.md": "- [Hourly](hourly.md) — the sync job\n",
            f"{HOME_CLAUDE}/hourly.md": memory("Runs `~/code/dotfiles/scripts/sync.sh`.\n"),
            f"{ELSEWHERE}/MEMORY.md": "",
            f"{PROJECT_CLAUDE}/MEMORY.md": "",
            "claude/settings.json": "{}\n",
            "scripts/sync.sh": "echo\n",
        },
        name="checkout",
    )
    git(repo, "rm", "-q", "scripts/sync.sh")
    git(repo, "commit", "-q", "-m", "drop the sync script")

    assert locate_repository(repo / OWN, Config(), None, tmp_path).root == repo
    assert locate_repository(repo / HOME_CLAUDE, Config(), None, tmp_path).root == repo
    # `~/code/aurora` is not the dotfiles checkout, whatever folders the repository has.
    assert locate_repository(repo / ELSEWHERE, Config(), None, tmp_path).root is None
    assert locate_repository(repo / PROJECT_CLAUDE, Config(), None, tmp_path).root is None

    run = lint_json(run_curator, repo / OWN, "CUR201", "--today", "2026-12-02", cwd=tmp_path)
    assert [(d["code"], Path(d["filename"]).name, d["location"]["row"]) for d in run.json()] == [
        ("CUR201", "project_sync.md", 6)
    ]
    assert "'scripts/sync.sh' was deleted in" in run.json()[0]["message"]
    assert "no known repository" not in run.stderr
    # A sibling store's slug says where the checkout lives: `~/code/dotfiles/...` is the
    # repository's own file, checked with its history.
    home = lint_json(run_curator, repo / HOME_CLAUDE, "CUR201", "--today", "2026-12-02")
    assert [d["message"].split(" was ")[0] for d in home.json()] == [
        "'~/code/dotfiles/scripts/sync.sh'"
    ]


def test_a_repository_that_is_claudes_own_folder_answers_only_to_its_slug(
    git_repo, tmp_path: Path
) -> None:
    # ~/.claude itself under git: its stores talk about other projects, ~/dotfiles among them.
    repo = git_repo(
        {
            "projects/-Users-x-dotfiles/memory/MEMORY.md": "",
            "projects/-Users-x--claude/memory/MEMORY.md": "",
            "settings.json": "{}\n",
        },
        name="dotfiles",
    )
    other = repo / "projects/-Users-x-dotfiles/memory"
    assert locate_repository(other, Config(), None, tmp_path).root is None
    own = repo / "projects/-Users-x--claude/memory"
    assert locate_repository(own, Config(), None, tmp_path).root == repo
