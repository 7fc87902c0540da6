"""Stale commands: `make setup`, `npm run build:prod`, `just lint` whose target is gone.

A command is a reference to a target of one of the repository's manifests (a Makefile
rule, a package.json script, a justfile recipe, ...). The rule's `commands` say how each
tool's command line names its target and which manifest kind defines it; `manifests`
say which file names are which kind. Commands are read from inline code spans and from
the lines of fenced code blocks.

A target the manifests define at HEAD is fine. One they do not is reported only when
history shows a manifest of that kind defined it and a commit took it out
(`repo.manifests`): the commit, its date and subject, and the new name when the same
commit added a target with the same recipe. A target the repository never had (another
project's command, an example) is not reported. As for paths and symbols, a command in
a sentence that narrates the change, or in a journal, is held back as right as written.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from curator.interpreter import narration, patterns, stale
from curator.models import Hit, Memory
from curator.repo import manifests, references

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "commands": [],  # [{tool, manifest, pattern}]: the pattern's `target` group
    "manifests": {},  # kind -> file name globs
    "skip_fenced": False,
    "max_manifest_versions": 5000,
    "max_per_file": 50,
    **stale.PARAMS,
}
MESSAGES = ("removed", "renamed", "written_before", "written_after")
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "command": "the command as the memory writes it",
        "tool": "the tool that runs it (make, npm, just, ...)",
        "target": "the target it names",
        "file_was": "the manifest that defined it",
        "new_name": "the target the same commit added with the same recipe, or empty",
        "commit": "the commit that removed or renamed it (short sha)",
        "evidence_kind": "removed or renamed",
        **stale.EVIDENCE_DETAIL,
    }
}


@dataclass(frozen=True)
class Command:
    text: str  # the command as written, up to its target
    tool: str
    kind: str  # the manifest kind that defines its targets
    target: str
    start: int  # offset of the command in the memory's text


def validate(params: dict[str, Any]) -> str | None:
    """A problem with the params, said in one line, or None (called by the rule loader)."""
    manifests_ = params["manifests"]
    if not isinstance(manifests_, dict) or not all(
        isinstance(v, list) and all(isinstance(g, str) for g in v) for v in manifests_.values()
    ):
        return "manifests must map a kind to a list of file name globs"
    for i, spec in enumerate(params["commands"]):
        if not isinstance(spec, dict) or set(spec) != {"tool", "manifest", "pattern"}:
            return f"commands[{i}] takes tool, manifest and pattern"
        if spec["manifest"] not in manifests_:
            return f"commands[{i}].manifest '{spec['manifest']}' is not in manifests"
        try:
            compiled = patterns.compile_pattern(str(spec["pattern"]))
        except Exception as exc:  # regex.error and friends
            return f"commands[{i}]: bad pattern: {exc}"
        if "target" not in compiled.groupindex:
            return f"commands[{i}].pattern needs a `target` group"
    return stale.validate_params(params, MESSAGES)


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    hits = stale.once(ctx, ("commands", rule.code), lambda: _examine(rule, ctx))
    if hits is not None:
        yield from hits


def _examine(rule: Rule, ctx: Context) -> list[Hit] | None:
    root = ctx.repo_root
    if root is None or not root.is_dir():
        return None  # linting.lint drops this rule for such stores and says why, once
    found = [(m, cs) for m in ctx.memories(rule) if (cs := list(_commands(rule, m)))]
    if not found:
        return []
    repo = root.resolve()
    wanted = {(c.kind, c.target) for _, commands in found for c in commands}
    # Under the session-start hook's deadline, git gets only the time left.
    timeout = manifests.TIMEOUT_SECONDS
    if ctx.deadline is not None:
        timeout = max(0.05, min(timeout, ctx.deadline - time.monotonic()))
    known = manifests.read(
        repo,
        rule.params["manifests"],
        rule.params["max_manifest_versions"],
        wanted,
        timeout,
        index=lambda: stale.shared_index(ctx),  # history: its first-parent pass's versions
    )
    if known is None:
        ctx.skipped.add(rule.code)  # git could not answer (in time): findings stay open
        note = f"{rule.name} ({rule.code}) skipped: git could not read the manifests of {repo}"
        if note not in ctx.notes:
            ctx.notes.append(note)
        return None
    for limit in known.limits:
        if (note := f"{rule.name} ({rule.code}): {limit}") not in ctx.notes:
            ctx.notes.append(note)
    rules = narration.compile_narration(rule.params)
    hits: list[Hit] = []
    for memory, commands in found:
        count = 0
        for command in commands:
            if known.defines(command.kind, command.target):
                continue
            removal = known.removed.get((command.kind, command.target))
            if removal is None:
                continue  # a target the repository never had: not this project's
            hit = _hit(ctx, rule, memory, command, removal)
            end = command.start + len(command.text)
            reason = stale.held_back(rules, memory, command.start, end, [removal.commit])
            if reason is not None:
                hits.append(stale.hold(hit, reason))
                continue
            count += 1
            if count <= rule.params["max_per_file"]:
                hits.append(hit)
    return hits


def _hit(
    ctx: Context, rule: Rule, memory: Memory, command: Command, removal: manifests.Removal
) -> Hit:
    line, column = memory.locate(command.start)
    end_line, end_column = memory.locate(command.start + len(command.text))
    values: dict[str, Any] = {
        "command": command.text,
        "tool": command.tool,
        "target": command.target,
        "file_was": removal.file,
        "new_name": removal.renamed_to or "",
        "commit_obj": removal.commit,
    }
    kind = "renamed" if removal.renamed_to else "removed"
    detail = stale.evidence(ctx, rule, kind, values, memory)
    fix = None
    if removal.renamed_to:  # the target, the command's last word, gets the new name
        at = command.start + len(command.text) - len(command.target)
        fix = stale.rewrite_fix(memory, at, command.target, removal.renamed_to, command.text)
    return Hit(memory.path, line, column, end_line, end_column, detail=detail, fix=fix)


def _commands(rule: Rule, memory: Memory) -> Iterator[Command]:
    """The commands of a memory's code spans and fenced lines, each once."""
    texts = [(r.text, r.start) for r in references.scan(memory, True).code]
    if not rule.params["skip_fenced"]:
        for number in sorted(memory.fenced_lines):
            line = memory.lines[number - 1]
            if not line.lstrip().startswith(("```", "~~~")):
                texts.append((line, memory.line_starts[number - 1]))
    seen: set[int] = set()
    for text, base in texts:
        for spec in rule.params["commands"]:
            for match in patterns.compile_pattern(str(spec["pattern"])).finditer(text):
                start = base + match.start("command" if "command" in match.re.groupindex else 0)
                if start in seen:
                    continue
                seen.add(start)
                end = match.end("target")
                yield Command(
                    text=text[start - base : end],
                    tool=str(spec["tool"]),
                    kind=str(spec["manifest"]),
                    target=match.group("target"),
                    start=start,
                )
