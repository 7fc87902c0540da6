"""repo.tree: tracked-file listing, the one-pass word search, the state key for caches."""

from __future__ import annotations

from curator.repo import tree
from tests.conftest import git, write_files


def test_tracked_files_honour_gitignore(git_repo):
    repo = git_repo({".gitignore": "secret/\n", "src/a.py": "A\n"})
    write_files(repo, {"secret/key.py": "K\n", "untracked.py": "U\n"})
    assert tree.tracked_files(repo) == (".gitignore", "src/a.py")


def test_find_words_leaves_the_excluded_folder_out(git_repo):
    repo = git_repo({"src/a.py": "class Alpha: ...\n", "memory/m.md": "`Beta` and `Alpha`\n"})
    assert tree.find_words(repo, {"Alpha", "Beta"}) == {"Alpha", "Beta"}
    assert tree.find_words(repo, {"Alpha", "Beta"}, exclude="memory") == {"Alpha"}


def test_state_key_changes_with_head_and_with_dirty_content(git_repo, tmp_path):
    repo = git_repo({"src/a.py": "A = 1\n"})
    clean = tree.state_key(repo)
    assert clean and "+" not in clean
    (repo / "src/a.py").write_text("A = 2\n")
    dirty = tree.state_key(repo)
    assert dirty and dirty.startswith(clean + "+")
    (repo / "src/a.py").write_text("A = 3\n")
    assert tree.state_key(repo) not in (clean, dirty)
    git(repo, "commit", "-qam", "three")
    committed = tree.state_key(repo)
    assert committed not in (clean, dirty)
    (repo / "notes.md").write_text("new, untracked\n")  # a path memories may name
    assert tree.state_key(repo) != committed
    plain = write_files(tmp_path / "plain", {"x.py": "X\n"})
    assert tree.state_key(plain) is None
