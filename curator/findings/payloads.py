"""What each event about a finding carries, for the other tools of the onlooker ecosystem.

curator's own fields (`finding_id`, `code`, `kind`, `message`, `detail`, ...) plus, at
the top level, the fields the ecosystem's design names for the kind: `memory_file` for a
finding about one memory, `memory_a`/`memory_b` for a pair, and the thing found under its
design name (`broken_path`, `matched_phrase`, ...), which the rule declares in its YAML
(`event: {broken_path: path}`: design field -> detail key). The schema is
docs/schemas/onlooker-events.schema.json; docs/events.md has a table per kind.
"""

from __future__ import annotations

from typing import Any

from curator.findings.store import Finding

# How a finding stopped being open: review's actions, the CLI's, or a run that no longer
# reproduces it.
ACTIONS = ("prune", "edit", "reclassify", "defer", "auto")


def finding_payload(finding: Finding, fields: dict[str, str] | None = None) -> dict[str, Any]:
    """The payload of `curator.finding.<kind>`."""
    payload: dict[str, Any] = {
        "finding_id": finding.id,
        "code": finding.code,
        "kind": finding.kind,
        "memory_files": finding.memory_files,
        "message": finding.message,
        "deduped_hash": finding.deduped_hash,
        "status": finding.status,
        "resolution": finding.resolution,
        "detail": finding.detail,
    }
    payload.update(memory_fields(finding))
    for name, key in (fields or {}).items():
        if key in finding.detail:
            payload[name] = finding.detail[key]
    return payload


def memory_fields(finding: Finding) -> dict[str, str]:
    """`memory_file` for one memory, `memory_a` and `memory_b` for a pair."""
    files = finding.memory_files
    if len(files) == 1:
        return {"memory_file": files[0]}
    if len(files) == 2:
        return {"memory_a": files[0], "memory_b": files[1]}
    return {}


def status_payload(finding: Finding, action: str | None = None) -> dict[str, Any]:
    """The payload of `curator.finding.acknowledged` and `curator.finding.resolved`."""
    payload: dict[str, Any] = {
        "finding_id": finding.id,
        "code": finding.code,
        "kind": finding.kind,
        "memory_files": finding.memory_files,
        "deduped_hash": finding.deduped_hash,
        "status": finding.status,
        "resolution": finding.resolution,
        **memory_fields(finding),
    }
    if action is not None:
        payload["action"] = action
    return payload
