"""`commands.argv`: the click-free parse of `curator lint` gives click's own parameters, or
hands the command line to click."""

from __future__ import annotations

import random
from datetime import date
from pathlib import Path

import click
import pytest

from curator.commands.argv import lint_params, split_codes
from curator.commands.lint import lint


def click_params(args: list[str]) -> dict[str, object]:
    """What click passes `curator lint` for these arguments."""
    with lint.make_context("lint", list(args)) as ctx:
        return dict(ctx.params)


@pytest.fixture
def places(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "a.md").write_text("x\n")
    (tmp_path / "cfg.yaml").write_text("select: []\n")
    return {
        "store": str(tmp_path / "store"),
        "file": str(tmp_path / "store" / "a.md"),
        "config": str(tmp_path / "cfg.yaml"),
        "missing": str(tmp_path / "nowhere"),
    }


PLAIN = [
    [],
    ["{store}"],
    ["{store}", "--output-format", "json"],
    ["--output-format=sarif", "{store}", "{file}"],
    ["{file}", "{missing}"],
    ["--select", "CUR1,CUR2", "--select=CUR3", "--ignore", "CUR011", "--extend-select", "X"],
    ["--select="],
    ["--fail-on", "info", "--exit-zero", "--statistics", "{store}"],
    ["--today", "2026-11-30", "--today=2026-12-01"],
    ["--config", "{config}", "--config={missing}", "-o", "{missing}", "--output-file", "{missing}"],
    ["--repo-root", "{store}", "--all", "--persist", "--verbose", "-v", "--show-silenced"],
    ["--llm", "--no-llm", "--batch", "--color", "--no-color", "--color"],
    ["--output-format", "github", "--output-format", "full"],
    ["--store", "{store}", "{file}", "--store={missing}"],
]

FOR_CLICK = [
    ["-h"],
    ["--help"],
    ["--version"],
    ["--", "{store}"],
    ["-"],
    ["-vo", "{missing}"],
    ["-o{missing}"],
    ["-o={missing}"],
    ["--select"],
    ["--select", "--ignore"],
    ["--output-format", "yaml"],
    ["--fail-on", "fatal"],
    ["--today", "tomorrow"],
    ["--repo-root", "{missing}"],
    ["--repo-root", "{file}"],
    ["--config", "{store}"],
    ["--output-file", "{store}"],
    ["--config", ""],
    ["--statistics=yes"],
    ["--no-such-option"],
    ["--store"],
    ["--store", ""],
    ["--stat"],
    [""],
    ["bad\0path"],
]


def _fill(args: list[str], places: dict[str, str]) -> list[str]:
    return [a.format(**places) for a in args]


@pytest.mark.parametrize("args", PLAIN, ids=" ".join)
def test_plain_forms_parse_as_click_does(args: list[str], places: dict[str, str]) -> None:
    filled = _fill(args, places)
    ours = lint_params(filled)
    assert ours is not None, filled
    assert ours == click_params(filled)


@pytest.mark.parametrize("args", FOR_CLICK, ids=" ".join)
def test_other_forms_are_left_to_click(args: list[str], places: dict[str, str]) -> None:
    assert lint_params(_fill(args, places)) is None


def test_values_come_through_typed(places: dict[str, str]) -> None:
    params = lint_params(_fill(["{store}", "--today", "2026-11-30", "-o", "{missing}"], places))
    assert params is not None
    assert params["paths"] == (Path(places["store"]),)
    assert params["today"] == date(2026, 11, 30)
    assert params["output_file"] == Path(places["missing"])
    assert params["color"] is None and params["select"] == ()


def test_random_command_lines_agree_with_click(places: dict[str, str]) -> None:
    """Wherever the plain parser answers, click answers the same; where click refuses a
    command line, the plain parser never answers."""
    tokens = sorted(
        {t for args in PLAIN + FOR_CLICK for t in args}
        | {"CUR101", "json", "full", "error", "2026-02-30", "x,y"}
    )
    rng = random.Random(16)
    answered = 0
    for _ in range(3000):
        args = _fill([rng.choice(tokens) for _ in range(rng.randint(0, 6))], places)
        ours = lint_params(args)
        if ours is None:
            continue
        answered += 1
        try:
            theirs = click_params(args)
        except click.exceptions.ClickException as exc:
            pytest.fail(f"{args}: parsed plainly, but click refuses it: {exc}")
        assert ours == theirs, args
    assert answered > 300  # the comparison is not vacuous


def test_split_codes() -> None:
    assert split_codes(("CUR1, CUR2", "", "CUR3,")) == ["CUR1", "CUR2", "CUR3"]
