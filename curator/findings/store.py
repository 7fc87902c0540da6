"""Findings: diagnostics that persist until a person deals with them.

One JSON file per finding, `findings/<ULID>.json`, is the truth; `manifest.json` holds
every record too, so loading is one read. The manifest is trusted only when it lists the
same ids as the folder and is not older than the folder's last rename; otherwise the
folder is read once and the manifest rebuilt. Callers change findings inside `open_store`,
which holds the project's lock for the whole read-modify-write.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from curator import clock
from curator.findings import atomic
from curator.findings.project import ProjectDir
from curator.findings.ulid import is_ulid, new_ulid

STATUSES = ("open", "acknowledged", "resolved")
MANIFEST_VERSION = 1


@dataclass
class Finding:
    id: str
    code: str
    kind: str
    memory_files: list[str]
    detail: dict[str, Any]
    message: str
    created_at: str
    updated_at: str
    deduped_hash: str
    status: str = "open"
    resolution: dict[str, Any] | None = None
    severity: str = "warning"
    file: str = ""  # store-relative file the diagnostic points at
    line: int = 1
    store: str = ""  # the memory store folder, so review can open the file

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Finding | None:
        """A Finding from a parsed file, or None when the record is not one."""
        if not isinstance(data, dict):
            return None
        known = {f for f in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in known}
        try:
            finding = cls(**values)
        except TypeError:
            return None
        if finding.status not in STATUSES or not isinstance(finding.memory_files, list):
            return None
        return finding


# A ULID's random part starts after its 10 characters of milliseconds; short ids are
# prefixes of it, never shorter than git's 7.
RANDOM_AT = 10
SHORT_ID_MIN = 7


def timestamp() -> str:
    return clock.now().isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class FindingsStore:
    """A project's findings, loaded once; `save` writes back what changed."""

    project: ProjectDir
    findings: dict[str, Finding] = field(default_factory=dict)
    dirty: set[str] = field(default_factory=set)
    unreadable: set[str] = field(default_factory=set)  # finding files that do not parse

    def by_hash(self) -> dict[str, list[Finding]]:
        out: dict[str, list[Finding]] = {}
        for finding in self.findings.values():
            out.setdefault(finding.deduped_hash, []).append(finding)
        return out

    def add(self, finding: Finding) -> None:
        self.findings[finding.id] = finding
        self.dirty.add(finding.id)

    def touch(self, finding: Finding) -> None:
        finding.updated_at = timestamp()
        self.dirty.add(finding.id)

    def sorted(self, status: str | None = None) -> list[Finding]:
        chosen = (f for f in self.findings.values() if status is None or f.status == status)
        # Findings of one run share a millisecond; file and line make the order stable.
        return sorted(chosen, key=lambda f: (f.created_at, f.file, f.line, f.code, f.id))

    def matching(self, prefix: str) -> list[Finding]:
        """The findings an id names (case-insensitive): the whole id, a prefix of it, or a
        prefix of its random part (a short id, as `short_ids` gives), oldest first."""
        prefix = prefix.strip().upper()
        if not prefix:
            return []
        if prefix in self.findings:
            return [self.findings[prefix]]
        return [
            f
            for i, f in sorted(self.findings.items())
            if i.startswith(prefix) or i[RANDOM_AT:].startswith(prefix)
        ]

    def short_ids(self) -> dict[str, str]:
        """Each finding's short id: the shortest prefix of its ULID's random part, at least
        SHORT_ID_MIN characters, that no other finding's random part or whole id starts
        with (ids of one scan share their time part, so it says nothing), as git shortens
        commit ids."""
        ids = sorted(self.findings)
        out: dict[str, str] = {}
        for finding_id in ids:
            tail = finding_id[RANDOM_AT:]
            size = SHORT_ID_MIN
            while size < len(tail) and len(self.matching(tail[:size])) > 1:
                size += 1
            out[finding_id] = tail[:size]
        return out

    def save(self) -> None:
        if not self.dirty:
            return
        for finding_id in sorted(self.dirty):
            path = self.project.findings / f"{finding_id}.json"
            atomic.write_json(path, self.findings[finding_id].to_json())
        # The manifest goes last: its mtime then covers every rename above.
        records = {i: f.to_json() for i, f in sorted(self.findings.items())}
        manifest = {
            "version": MANIFEST_VERSION,
            "findings": records,
            "unreadable": sorted(self.unreadable),  # left in place for a person to look at
        }
        atomic.write_json(self.project.manifest, manifest)
        self.dirty.clear()


def new_finding(**values: Any) -> Finding:
    now = timestamp()
    return Finding(id=new_ulid(), created_at=now, updated_at=now, **values)


def load(project: ProjectDir) -> FindingsStore:
    """Every finding of the project, in one pass (the manifest, else one folder read)."""
    store = FindingsStore(project)
    try:
        names = os.listdir(project.findings)
        folder_mtime = os.stat(project.findings).st_mtime_ns
    except FileNotFoundError:
        return store
    ids = {n[:-5] for n in names if n.endswith(".json") and is_ulid(n[:-5])}
    manifest = _trusted_manifest(project, ids, folder_mtime)
    if manifest is not None:
        records, unreadable = manifest
        for finding_id, record in records.items():
            finding = Finding.from_json(record)
            if finding is not None:
                store.findings[finding_id] = finding
        store.unreadable = unreadable
        return store
    for finding_id in sorted(ids):
        finding = Finding.from_json(atomic.read_json(project.findings / f"{finding_id}.json"))
        if finding is not None and finding.id == finding_id:
            store.findings[finding_id] = finding
        else:
            store.unreadable.add(finding_id)
    return store


def _trusted_manifest(
    project: ProjectDir, ids: set[str], folder_mtime: int
) -> tuple[dict[str, Any], set[str]] | None:
    """(records, unreadable ids) when the manifest matches the folder, else None."""
    try:
        manifest_mtime = os.stat(project.manifest).st_mtime_ns
    except FileNotFoundError:
        return None
    if manifest_mtime < folder_mtime:
        return None  # a finding was written after the manifest: a crash between the two
    data = atomic.read_json(project.manifest)
    if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
        return None
    records = data.get("findings")
    unreadable = data.get("unreadable", [])
    if not isinstance(records, dict) or not isinstance(unreadable, list):
        return None
    if set(records) | set(unreadable) != ids:
        return None
    return records, {str(i) for i in unreadable}


@contextmanager
def open_store(project: ProjectDir) -> Iterator[FindingsStore]:
    """Load under the project's lock, yield, and save what changed, still under the lock."""
    with atomic.locked(project.lock):
        store = load(project)
        yield store
        store.save()
