"""Which slug folders and transcript files belong to a project."""

from __future__ import annotations

from pathlib import Path

from curator.store.discovery import SLUG_MAX, project_slug
from curator.usage.measure import transcript_files
from curator.usage.transcripts import TranscriptUses, in_project, project_folders


def folders(projects: Path, *names: str) -> None:
    for name in names:
        (projects / name).mkdir(parents=True)


def test_checkout_subfolder_and_worktree_slugs_are_found(tmp_path):
    repo, worktree = Path("/home/a/proj"), Path("/srv/wt/proj-feature")
    projects = tmp_path / "projects"
    folders(
        projects,
        "-home-a-proj",
        "-home-a-proj-src-api",
        "-home-a-proj-old",  # a sibling or a subfolder: the transcript's cwd decides
        "-srv-wt-proj-feature",
        "-home-a-other",
    )
    found = [p.name for p in project_folders(projects, [repo, worktree], "-home-a-proj")]
    assert found == [
        "-home-a-proj",
        "-home-a-proj-old",
        "-home-a-proj-src-api",
        "-srv-wt-proj-feature",
    ]
    sibling = projects / "-home-a-proj-old"
    assert not in_project(TranscriptUses(cwd="/home/a/proj-old"), sibling, [repo], None)
    assert in_project(TranscriptUses(cwd="/home/a/proj/old"), sibling, [repo], None)
    # No cwd to go by: only a folder named exactly after a checkout counts.
    assert not in_project(TranscriptUses(), sibling, [repo], None)
    assert in_project(TranscriptUses(), projects / "-home-a-proj", [repo], None)


def test_long_slugs_match_by_their_cut_prefix(tmp_path):
    repo = Path("/home/a/" + "deep/" * 50 + "proj")
    slug = project_slug(repo)
    assert len(slug) > SLUG_MAX
    projects = tmp_path / "projects"
    folders(projects, slug[:SLUG_MAX] + "-1a2b3c", "-home-a-deep")
    assert [p.name for p in project_folders(projects, [repo], None)] == [
        slug[:SLUG_MAX] + "-1a2b3c"
    ]


def test_subagent_transcripts_count_and_the_store_is_never_read(tmp_path):
    folder = tmp_path / "-home-a-proj"
    for rel in ("s1.jsonl", "s1/subagents/agent-1.jsonl", "memory/notes.jsonl", "s1/x.txt"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("{}\n", encoding="utf-8")
    found = sorted(Path(e.path).relative_to(folder).as_posix() for e in transcript_files(folder))
    assert found == ["s1.jsonl", "s1/subagents/agent-1.jsonl"]
