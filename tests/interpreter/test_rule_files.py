"""Every built-in rule proves itself: its `tests:` pass, with a firing and a passing case."""

from __future__ import annotations

import pytest

from curator.interpreter.rulebook import load_rules
from curator.interpreter.selftest import rule_problems, run_case

RULES = load_rules()


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.code}-{r.name}")
def test_rule_has_firing_and_passing_cases(rule):
    assert rule_problems(rule) == []


@pytest.mark.parametrize(
    "rule,case",
    [(r, c) for r in RULES for c in r.tests],
    ids=lambda v: getattr(v, "code", None) or getattr(v, "name", ""),
)
def test_rule_case(rule, case):
    result = run_case(rule, case, RULES)
    assert result.failures == ()


def test_every_rule_has_docs_sections():
    for rule in RULES:
        for heading in ("## What it does", "## Why it matters", "## Example", "## How to fix"):
            assert heading in rule.docs, f"{rule.code} docs lack {heading}"
