"""`curator calibrate --labels FILE`: how well the pair sweep finds labelled pairs."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from curator.commands.calibration import TARGETS, Calibration, calibrate, with_group_size
from curator.commands.common import config_from, config_option, user_errors
from curator.commands.terminal import echo
from curator.errors import UserError
from curator.interpreter.rulebook import check_prompts, load_rules


@click.command()
@click.option(
    "--labels",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help='Labelled pairs: {"pairs": [{"id", "label", "memory_a": {"file", "text"}, ...}]}.',
)
@click.option("--no-llm", is_flag=True, help="Measure candidates only; ask no model.")
@click.option("--rule", "rule_key", default="CUR401", help="The pair rule whose params to use.")
@click.option("--group-size", type=int, default=None, help="Override the rule's group_size.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
@config_option
@user_errors
def calibrate_command(
    labels: Path,
    no_llm: bool,
    rule_key: str,
    group_size: int | None,
    output_format: str,
    config_path: Path | None,
) -> None:
    """Report candidate recall within the call budget, verdict precision/recall per
    label, and a table of recall by group size and budget."""
    config = config_from(config_path)
    rule = next((r for r in load_rules(config) if rule_key in (r.code, r.name)), None)
    if rule is None or rule.check != "pairs":
        raise UserError(f"'{rule_key}' is not a pair-sweep rule (try CUR401)")
    check_prompts([rule])
    if group_size is not None and group_size < 2:
        raise UserError("--group-size must be at least 2")
    result, notes = calibrate(labels, with_group_size(rule, group_size), config, not no_llm)
    for note in notes:
        echo(f"curator: {note}", err=True)
    if output_format == "json":
        data = asdict(result)
        data["candidate_recall"] = round(result.candidate_recall, 3)
        echo(json.dumps(data, indent=2))
        return
    echo(report(result), nl=False)


def report(result: Calibration) -> str:
    covered = sum(result.covered.get(t, 0) for t in TARGETS)
    total = sum(result.totals.get(t, 0) for t in TARGETS)
    lines = [
        f"{result.pairs} labelled pairs, {result.memories} memories in one store; "
        f"{result.pairs_examined} pairs scored, {result.requests_planned} requests planned "
        f"(group_size {result.group_size})",
        f"candidate recall within {result.budget} requests: {covered}/{total} "
        f"contradict+redundant ({result.candidate_recall:.1%})",
    ]
    for label, n in sorted(result.totals.items()):
        lines.append(f"  {label:<11} {result.covered.get(label, 0):>3}/{n:<3} covered")
    lines.append("")
    lines.append("group_size  requests  pairs_covered  recall")
    for row in result.table:
        lines.append(
            f"{row['group_size']:>10}  {row['requests']:>8}  {row['pairs_covered']:>13}  "
            f"{row['recall']:>6.1%}"
        )
    if result.verdicts:
        lines.append("")
        lines.append("verdict      precision  recall  predicted  labelled")
        for label, s in result.verdicts.items():
            lines.append(
                f"{label:<11}  {s['precision']:>9.1%}  {s['recall']:>6.1%}  "
                f"{int(s['predicted']):>9}  {int(s['labelled']):>8}"
            )
        if result.not_answered:
            lines.append(f"{result.not_answered} pair(s) got no answer")
    return "\n".join(lines) + "\n"
