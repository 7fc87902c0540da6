"""Every built-in rule proves itself: its `tests:` pass, with a firing and a passing case."""

from __future__ import annotations

import re

import pytest

from curator.interpreter import engine
from curator.interpreter.checks import TEMPLATE_VALUES, detail_keys
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
def test_rule_case(rule, case, monkeypatch):
    """The case passes, and its diagnostics carry only the detail keys the rule's check
    declares (what `curator rule CODE` lists)."""
    keys: set[str] = set()
    made = engine.to_diagnostic

    def recording(r, hit, root):
        diagnostic = made(r, hit, root)
        if r.code == rule.code:
            keys.update(diagnostic.detail)
        return diagnostic

    monkeypatch.setattr(engine, "to_diagnostic", recording)
    result = run_case(rule, case, RULES)
    assert result.failures == ()
    assert keys <= set(detail_keys(rule)), (
        f"{rule.code}: undeclared {keys - set(detail_keys(rule))}"
    )


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.code}-{r.name}")
def test_a_message_uses_only_declared_values(rule):
    used = set(
        re.findall(r"{[{%]-?\s*(?:if\s+|not\s+)*(?!(?:endif|else)\b)([a-z_]+)", rule.message)
    )
    assert used <= set(detail_keys(rule)) | set(TEMPLATE_VALUES)


def test_every_rule_has_docs_sections():
    for rule in RULES:
        for heading in ("## What it does", "## Why it matters", "## Example", "## How to fix"):
            assert heading in rule.docs, f"{rule.code} docs lack {heading}"
