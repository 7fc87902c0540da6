"""Fold a run's diagnostics into the findings store.

New identities become open findings (their files' names masked, as all text curator
keeps: `store.masking`); a finding that is still reproduced keeps its id
(its message and line are refreshed); an acknowledged one is left alone; an open or
acknowledged finding whose rule ran in full on this store and no longer reproduces is
resolved automatically. Rules that did not run (skipped, over budget, not selected)
resolve nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from curator.findings.events import EventLog
from curator.findings.fingerprint import fingerprint
from curator.findings.payloads import finding_payload, status_payload
from curator.findings.project import ProjectDir
from curator.findings.store import Finding, FindingsStore, new_finding, open_store, timestamp
from curator.models import Diagnostic, Rule
from curator.store.masking import mask


@dataclass
class Outcome:
    new: list[Finding] = field(default_factory=list)
    resolved: list[Finding] = field(default_factory=list)
    open: list[Finding] = field(default_factory=list)  # every open finding after the run


def record(
    project: ProjectDir,
    store_root: Path,
    diagnostics: Iterable[Diagnostic],
    rules: dict[str, Rule],
    ran: set[str],
    events: EventLog | None = None,
    only: frozenset[str] | set[str] | None = None,
) -> Outcome:
    """Persist one run over one store. `ran`: codes of rules that ran in full.

    `only`, when given, is the set of store-relative files the run was limited to;
    findings about other files are neither resolved nor touched.
    """
    with open_store(project) as store:
        outcome = _reconcile(store, store_root, list(diagnostics), rules, ran, only)
    if events is not None:
        for finding in outcome.new:
            rule = rules.get(finding.code)
            fields = rule.event if rule is not None else None
            events.emit(f"curator.finding.{finding.kind}", finding_payload(finding, fields))
        for finding in outcome.resolved:
            events.emit("curator.finding.resolved", status_payload(finding, "auto"))
    return outcome


def _reconcile(
    store: FindingsStore,
    store_root: Path,
    diagnostics: list[Diagnostic],
    rules: dict[str, Rule],
    ran: set[str],
    only: frozenset[str] | set[str] | None,
) -> Outcome:
    outcome = Outcome()
    if only is not None:  # findings keep their files' names masked (`reference_ghp_….md`)
        only = {mask(f) for f in only}
    existing = store.by_hash()
    seen: set[str] = set()
    for diagnostic in diagnostics:
        rule = rules.get(diagnostic.code)
        if rule is not None and not rule.persist:
            continue  # a note about the run (CUR300, CUR900), not about a memory
        digest = fingerprint(diagnostic, rule)
        if digest in seen:
            continue  # the same identity reported twice in one run (two lines, one target)
        seen.add(digest)
        live = [f for f in existing.get(digest, []) if f.status != "resolved"]
        if live:
            _refresh(store, live[0], diagnostic, store_root)
            continue
        finding = new_finding(
            code=diagnostic.code,
            kind=diagnostic.name,
            memory_files=sorted(mask(f) for f in diagnostic.memory_files),
            detail=_jsonable(diagnostic.detail),
            message=diagnostic.message,
            deduped_hash=digest,
            severity=str(diagnostic.severity),
            file=mask(_relative(diagnostic.path, store_root)),
            line=diagnostic.line,
            store=str(store_root),
        )
        store.add(finding)
        outcome.new.append(finding)

    for finding in store.findings.values():
        if finding.status == "resolved" or finding.deduped_hash in seen:
            continue
        if finding.code not in ran or finding.store != str(store_root):
            continue
        if only is not None and not set(finding.memory_files) <= only:
            continue
        finding.status = "resolved"
        finding.resolution = {
            "by": "auto",
            "at": timestamp(),
            "reason": "no longer reproduced by a full run of its rule",
            "action": "auto",
        }
        store.touch(finding)
        outcome.resolved.append(finding)
    outcome.open = store.sorted("open")
    return outcome


def _refresh(store: FindingsStore, finding: Finding, diagnostic: Diagnostic, root: Path) -> None:
    """Keep a reproduced finding current (days past, line) without a new identity."""
    detail = _jsonable(diagnostic.detail)
    if (finding.message, finding.line, finding.detail) == (
        diagnostic.message,
        diagnostic.line,
        detail,
    ):
        return
    finding.message, finding.line, finding.detail = diagnostic.message, diagnostic.line, detail
    finding.file = mask(_relative(diagnostic.path, root))
    store.touch(finding)


def _relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _jsonable(detail: dict[str, object]) -> dict[str, object]:
    plain: dict[str, object] = json.loads(json.dumps(detail, default=str))
    return plain
