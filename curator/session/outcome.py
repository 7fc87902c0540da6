"""What a scan reports (`curator.scan.complete`) and the watermark files it leaves."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from curator.findings.project import ProjectDir

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from curator.findings.store import Finding


@dataclass
class ScanReport:
    """What `curator.scan.complete` says, plus the open findings for the pointer."""

    mode: str
    outcome: str  # ok | partial | skipped | error
    skip_reason: str | None = None  # over_budget | rate_gate | history_pending | disabled
    findings_new: int = 0
    findings_resolved: int = 0
    duration_ms: int = 0
    open: list[Finding] = field(default_factory=list)
    skipped_rules: list[str] = field(default_factory=list)
    reused: bool = False  # the store was unchanged since the last full run: nothing re-checked

    def payload(self, store: Path) -> dict[str, object]:
        return {
            "mode": self.mode,
            "outcome": self.outcome,
            "skip_reason": self.skip_reason,
            "findings_new": self.findings_new,
            "findings_resolved": self.findings_resolved,
            "findings_open": len(self.open),
            "duration_ms": self.duration_ms,
            "store": str(store),
            "skipped_rules": self.skipped_rules,
            "reused": self.reused,
        }


def write_watermark(
    project: ProjectDir,
    report: ScanReport,
    signature: str | None = None,
    llm_rules: bool | None = None,
) -> None:
    """`last_cheap_scan.json`: when and how the last run went (the LLM sweep keeps its
    own, `last_llm_sweep.json`, through `curator.llm.gate`)."""
    from curator.session.watermark import write_watermark_of

    write_watermark_of(project, report.payload(Path()), signature, llm_rules)
