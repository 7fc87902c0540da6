"""The one place that decides which rules run: select / extend-select / ignore.

As in ruff, a token is a code (`CUR101`), a code prefix (`CUR1`, `CUR`), `ALL`, or a rule
name (`date_decayed`); when a rule is both selected and ignored, the more specific token
wins, and a tie goes to ignore. An opt-in rule (`opt_in: true`, CUR203) runs only when a
token names it exactly, by code or by name: `ALL` and prefixes leave it off.
"""

from __future__ import annotations

from collections.abc import Iterable

from curator.errors import UserError
from curator.models import Rule

_NAME_SPECIFICITY = 1000


def _specificity(rule: Rule, tokens: Iterable[str]) -> int:
    best = -1
    for token in tokens:
        if token == "ALL":
            best = max(best, 0)
        elif token == rule.name:
            best = max(best, _NAME_SPECIFICITY)
        elif rule.code.startswith(token):
            best = max(best, len(token))
    return best


def validate_tokens(rules: list[Rule], tokens: Iterable[str], option: str) -> None:
    for token in tokens:
        if token == "ALL":
            continue
        if not any(r.name == token or r.code.startswith(token) for r in rules):
            raise UserError(f"{option}: '{token}' matches no rule code, prefix or name")


def select_rules(
    rules: list[Rule],
    select: list[str] | None = None,
    extend_select: list[str] | None = None,
    ignore: list[str] | None = None,
    include_llm: bool = False,
) -> list[Rule]:
    chosen_tokens = [*(select or ["ALL"]), *(extend_select or [])]
    ignore = ignore or []
    chosen = []
    for rule in rules:
        if rule.tier == "llm" and not include_llm:
            continue
        if rule.opt_in and not {rule.code, rule.name} & set(chosen_tokens):
            continue
        selected = _specificity(rule, chosen_tokens)
        if selected >= 0 and selected > _specificity(rule, ignore):
            chosen.append(rule)
    return chosen
