"""The one YAML loader refuses what would hang whatever walks the result (issue #17): an
alias bomb, an alias that contains itself, a document over the size limit."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import yaml

from curator import yamlio
from tests.conftest import Run, memory
from tests.helpers.hook_env import make_env
from tests.helpers.hostile import assert_clean, changed, snapshot

STORE = {"MEMORY.md": "- [A](a.md)\n", "a.md": memory()}


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    """`a0` holds nine strings, each next level nine aliases of the one before: 9**10
    strings once expanded, from a file of a few hundred bytes."""
    lines = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_in_the_configuration_is_exit_2_and_writes_nothing(
    make_store, run_curator: Callable[..., Run], tmp_path: Path
) -> None:
    make_store(STORE)
    config = tmp_path / ".curator.yaml"
    config.write_text(alias_bomb(), encoding="utf-8")
    before = snapshot(tmp_path)

    run = run_curator("lint", "memory")

    assert_clean(run, (2,))
    assert run.stderr.startswith(
        f"curator: error: {config}: its aliases expand to more than 100,000 nodes"
    )
    assert changed(before, snapshot(tmp_path)) == []


def test_an_alias_bomb_in_a_rule_file_is_exit_2(make_store, run_curator, tmp_path: Path) -> None:
    make_store(STORE)
    pack = tmp_path / "pack" / "team"
    pack.mkdir(parents=True)
    bomb = pack / "bomb.yaml"
    bomb.write_text("code: CUR950\nname: bomb\n" + alias_bomb(), encoding="utf-8")
    (tmp_path / ".curator.yaml").write_text("rule_paths: [pack]\n", encoding="utf-8")

    for args in (("lint", "memory"), ("rules", "list"), ("rules", "test")):
        run = run_curator(*args)
        assert_clean(run, (2,))
        assert f"{bomb}: its aliases expand to more than 100,000 nodes" in run.stderr


def test_an_alias_that_contains_itself_and_an_oversized_file_are_refused(
    make_store, run_curator, tmp_path: Path
) -> None:
    make_store(STORE)
    config = tmp_path / ".curator.yaml"
    config.write_text("select: &s [CUR0, *s]\n", encoding="utf-8")
    run = run_curator("lint", "memory")
    assert_clean(run, (2,))
    assert f"{config}: an alias contains itself; refused" in run.stderr

    config.write_text("# padding\n" * 120_000, encoding="utf-8")
    run = run_curator("lint", "memory")
    assert_clean(run, (2,))
    assert f"{config}: it is 1,200,000 bytes, over the 1,048,576-byte limit" in run.stderr


def test_an_alias_bomb_in_frontmatter_is_cur001(make_store, run_curator) -> None:
    fm = "---\nname: bomb\ndescription: d\ntype: user\n" + alias_bomb() + "---\nBody.\n"
    make_store({**STORE, "bomb.md": fm})

    run = run_curator("lint", "memory", "--output-format", "json", "--select", "CUR001")

    assert_clean(run, (1,))
    (only,) = run.json()
    assert only["filename"].endswith("bomb.md")
    assert (
        "frontmatter not loaded: its aliases expand to more than 100,000 nodes" in only["message"]
    )


def test_the_hook_answers_with_an_alias_bomb_for_a_configuration(
    tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]
) -> None:
    env = make_env(tmp_path, git_repo({"src/app.py": "x = 1\n"}), run_curator)
    env.config(alias_bomb())

    run = env.hook()

    assert_clean(run, (0,))
    assert json.loads(run.stdout) == {}
    assert "its aliases expand to more than 100,000 nodes" in run.stderr
    assert env.findings() == []


def test_sharing_by_alias_within_the_limit_loads() -> None:
    assert yamlio.load("base: &b {x: 1}\nother: *b\n") == {"base": {"x": 1}, "other": {"x": 1}}
    node = yaml.compose("a: &x [1, 2]\nb: *x\n", Loader=yaml.SafeLoader)
    assert yamlio.expanded_size(node) == 9  # the mapping, two keys, the list twice over
