"""Secrets in memories (CUR5xx): token shapes, credentials in URLs, assignments, private keys.

Each rule is one family (`params.family`); its shapes and thresholds are data in the rule
file and matched by `store.secrets`. The four families are found together, once per file
and run, so that a GitHub token inside a URL is one finding, not two. Memories and
MEMORY.md are both read, frontmatter included.

A hit never carries the secret: its detail has the masked form (`ghp_…(40)`) and a salted
hash (`findings.salt`), which is the finding's identity: the same leak stays the same
finding across runs, a rotated credential is a new one. The fix replaces the secret with
`params.redaction`; rotating the credential is still the user's job, since git history
keeps it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from curator import templates
from curator.findings.salt import salted_hash
from curator.interpreter.patterns import PatternTimeout
from curator.models import Edit, Fix, Hit
from curator.store import masking
from curator.store.secrets import PARAMS as SECRET_PARAMS
from curator.store.secrets import (
    Detector,
    Family,
    ScanTimeout,
    Secret,
    family_of,
    find_secrets,
    params_problem,
)

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {**SECRET_PARAMS, "said": {}}
_SHARED = "secrets.found"
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "kind": "the kind of secret",
        "masked": "the secret, masked",
        "length": "its length",
        "secret_hash": "a salted hash that identifies it",
        "host": "the URL's host (secret_in_url)",
        "key": "the key it is assigned to (secret_assignment)",
        "user": "the user a password is written next to (secret_assignment's user/password pair)",
        "said": "the message's subject, from `said`: the user's password, or the key's secret",
    }
}


def validate(params: dict[str, Any]) -> str | None:
    """A problem with the params, said in one line, or None (called by the rule loader)."""
    return params_problem(params)


def families_of(rules: list[Rule]) -> list[Family]:
    """The families of every secrets rule in a rule set: what masking uses."""
    return [family_of(r.code, r.params) for r in rules if r.check == "secrets"]


def install(rules: list[Rule]) -> None:
    """Mask with this rule set's secrets rules from now on (called when rules are loaded)."""
    masking.use(families_of(rules))


class _File(NamedTuple):
    """A memory or MEMORY.md: what a hit and its fix need."""

    path: Path
    rel: str
    text: str
    sha256: str
    is_memory: bool = True  # a memory's name is scanned too; MEMORY.md's is fixed


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    detector = _detector(rule)
    for file in _files(ctx):
        found = _found(ctx, detector, file)
        for secret in found:
            if secret.code == rule.code:
                yield _hit(rule, ctx, file, secret, found)
        if file.is_memory:
            # A file name is text like any other (`reference_ghp_….md`).
            for secret in _found(ctx, detector, file, name=True):
                if secret.code == rule.code:
                    yield _name_hit(ctx, file, secret)


def _name_hit(ctx: Context, file: _File, secret: Secret) -> Hit:
    """A secret in a memory's file name: reported on the file, with no fix (renaming the
    file is the user's call, and its links must follow)."""
    detail: dict[str, Any] = {
        "kind": f"{secret.kind} (in the file name)",
        "masked": masking.masked_form(secret.value),
        "length": len(secret.value),
        "secret_hash": salted_hash(secret.value, ctx.config),
    }
    return Hit(file.path, 1, 1, detail=detail, memory_files=(file.rel,))


def _detector(rule: Rule) -> Detector:
    """The installed families, this rule's own as its (possibly tuned) params say."""
    own = family_of(rule.code, rule.params)
    installed = masking.detector()
    if own in installed.families:
        return installed  # the usual case: one shared scan serves all four rules
    return Detector((*(f for f in installed.families if f.code != rule.code), own))


def _files(ctx: Context) -> Iterator[_File]:
    # Secrets apply to every memory whatever its type: `applies_to` is not consulted.
    for memory in ctx.store.memories:
        yield _File(memory.path, memory.rel, memory.text, memory.sha256)
    index = ctx.store.index
    if index is not None:
        yield _File(index.path, index.path.name, index.text, index.sha256, is_memory=False)


def _found(ctx: Context, detector: Detector, file: _File, name: bool = False) -> list[Secret]:
    """The secrets of one file (or of its name), found once per run for all the secrets
    rules."""
    memo: dict[tuple[Path, bool], tuple[Detector, list[Secret]]]
    memo = ctx.shared.setdefault(_SHARED, {})
    known = memo.get((file.path, name))
    if known is not None and known[0] is detector:
        return known[1]
    try:
        found = find_secrets(file.rel if name else file.text, detector)
    except ScanTimeout as exc:
        raise PatternTimeout(str(exc)) from None
    memo[(file.path, name)] = (detector, found)
    return found


def _hit(rule: Rule, ctx: Context, file: _File, secret: Secret, others: list[Secret]) -> Hit:
    starts = _line_starts(file.text)
    line, column = _locate(starts, secret.start)
    end_line, end_column = _locate(starts, secret.end)
    detail: dict[str, Any] = {
        "kind": secret.kind,
        "masked": masking.masked_form(secret.value),
        "length": len(secret.value),
        "secret_hash": salted_hash(secret.value, ctx.config),
    }
    if secret.family == "url":
        detail["host"] = secret.key
    elif secret.key:
        detail["key"] = secret.key
    if secret.family == "assignment" and secret.extra.get("user"):
        detail["user"] = secret.extra["user"]
    said = rule.params["said"]  # how the message names it: a user's password, or a key's
    form = said.get("user") if "user" in detail else said.get("key") if "key" in detail else None
    if form:
        detail["said"] = templates.render(str(form), detail)
    return Hit(
        file.path,
        line,
        column,
        end_line,
        end_column,
        detail=detail,
        memory_files=(file.rel,),
        fix=_redaction(rule, file, starts, secret, others, detail),
    )


def _redaction(
    rule: Rule,
    file: _File,
    starts: list[int],
    secret: Secret,
    others: list[Secret],
    detail: dict[str, Any],
) -> Fix:
    """Replace the lines that hold the secret with the same lines, every secret on them
    redacted: two rules' fixes for one line are then the same edit, made once."""
    first, last = _locate(starts, secret.start)[0], _locate(starts, secret.end)[0]
    changed = True
    while changed:  # widen to every secret that shares a line with the region
        changed = False
        for other in others:
            a, b = _locate(starts, other.start)[0], _locate(starts, other.end)[0]
            if a <= last and first <= b and (a < first or b > last):
                first, last, changed = min(a, first), max(b, last), True
    begin = starts[first - 1]
    end = starts[last] if last < len(starts) else len(file.text)
    inside = [s._replace(start=s.start - begin, end=s.end - begin) for s in others
              if begin <= s.start and s.end <= end]  # fmt: skip
    content = masking.hide(file.text[begin:end], inside, rule.params["redaction"])
    content = content.replace("\r\n", "\n")
    if not content.endswith("\n"):
        content += "\n"
    edit = Edit(first, last + 1, content)
    description = templates.render(str(rule.params["fix_description"]), detail)
    return Fix("REPLACE", file.path, file.sha256, (edit,), True, description)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    at = text.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    if len(starts) > 1 and starts[-1] == len(text):
        starts.pop()  # a final newline does not open a line
    return starts


def _locate(starts: list[int], offset: int) -> tuple[int, int]:
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1
