"""`curator rule CODE` and `curator rules [list|test]`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from curator.commands.common import config_from, config_option, user_errors
from curator.commands.terminal import echo
from curator.errors import UserError
from curator.interpreter.checks import TEMPLATE_VALUES, detail_keys
from curator.interpreter.rulebook import load_rules
from curator.interpreter.selftest import rule_problems, run_rule_tests
from curator.models import Rule


def _find(rules: list[Rule], key: str) -> Rule:
    for rule in rules:
        if key in (rule.code, rule.name):
            return rule
    raise UserError(f"no rule with code or name '{key}' (see `curator rules list`)")


@click.command()
@click.argument("code")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
@config_option
@user_errors
def rule(code: str, output_format: str, config_path: Path | None) -> None:
    """Show the documentation of rule CODE (a code or a name), as `ruff rule` does."""
    found = _find(load_rules(config_from(config_path)), code)
    if output_format == "json":
        echo(json.dumps(_as_dict(found), indent=2))
        return
    echo(f"# {found.name} ({found.code})\n")
    echo(f"Check: {found.check}. Tier: {found.tier}. Severity: {found.severity}.")
    if found.fixable:
        echo("Fixable: `curator fix` shows the exact edit; `--apply` makes it.")
    if found.opt_in:
        echo(f"Opt-in: runs only when selected by code or name (`--select {found.code}`).")
    echo(f"\n{found.summary}\n\n{found.docs}")
    if found.params:
        echo("\n## Parameters\n")
        for key, value in found.params.items():
            echo(f"- `{key}`: {json.dumps(value, ensure_ascii=False)}")
    echo("\n## Detail keys\n")
    values = ", ".join(f"`{key}`" for key in TEMPLATE_VALUES)
    echo(
        "What the diagnostic's `detail` holds; a message template may use each of these, "
        f"and {values}.\n"
    )
    for key, meaning in detail_keys(found).items():
        echo(f"- `{key}`: {meaning}")


def _as_dict(r: Rule) -> dict[str, object]:
    return {
        "code": r.code,
        "name": r.name,
        "check": r.check,
        "tier": r.tier,
        "severity": str(r.severity),
        "summary": r.summary,
        "fixable": r.fixable,
        "opt_in": r.opt_in,
        "params": r.params,
        "detail": detail_keys(r),
        "docs": r.docs,
        "source": str(r.source),
    }


@click.group(invoke_without_command=True)
@click.pass_context
def rules(ctx: click.Context) -> None:
    """List the rules (default) or run their self-tests."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_rules)


@rules.command("list")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
@config_option
@user_errors
def list_rules(output_format: str = "text", config_path: Path | None = None) -> None:
    """One line per rule: code, name, tier, severity, summary."""
    loaded = load_rules(config_from(config_path))
    if output_format == "json":
        echo(json.dumps([_as_dict(r) for r in loaded], indent=2))
        return
    for r in sorted(loaded, key=lambda r: r.code):
        opt_in = " (opt-in)" if r.opt_in else ""
        echo(f"{r.code}  {r.name:<28} {r.tier:<5} {r.severity!s:<7} {r.summary}{opt_in}")


@rules.command("test")
@click.argument("codes", nargs=-1)
@config_option
@user_errors
def test_rules(codes: tuple[str, ...], config_path: Path | None) -> None:
    """Run the `tests:` in each rule file (all rules, or the given codes or names)."""
    loaded = load_rules(config_from(config_path))
    chosen = [_find(loaded, c) for c in codes] if codes else loaded
    passed = failed = 0
    for r in sorted(chosen, key=lambda r: r.code):
        for problem in rule_problems(r):
            failed += 1
            echo(f"FAIL {r.code} {r.name}: {problem} ({r.source})")
        for result in run_rule_tests(r, loaded):
            if result.ok:
                passed += 1
                continue
            failed += 1
            echo(f"FAIL {r.code} {r.name}: {result.case.name} ({r.source}:{result.case.line})")
            for failure in result.failures:
                echo(f"     {failure}")
    echo(f"{passed} passed, {failed} failed")
    if failed:
        sys.exit(1)
