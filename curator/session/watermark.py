"""The watermarks a session start reads and writes: `last_cheap_scan.json` (the claim
that rate-gates starts, and how the last scan went, written from a
`curator.scan.complete` payload) and the LLM sweep's. Light, so the hook's quick path
uses them without the scan's report type."""

from __future__ import annotations

from curator import clock
from curator.config import Config
from curator.findings import atomic
from curator.findings.project import ProjectDir

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from typing import Any


def write_watermark_of(
    project: ProjectDir,
    complete: dict[str, object],
    signature: str | None = None,
    llm_rules: bool | None = None,
) -> None:
    """The watermark from a `curator.scan.complete` payload (the hook's quick path keeps
    the payload, not the report)."""
    now = clock.now()
    atomic.write_json(
        project.last_cheap_scan,
        {
            "timestamp": now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "epoch": now.timestamp(),
            **{key: complete[key] for key in WATERMARK_KEYS},
            "signature": signature,
            "llm_rules": llm_rules,
        },
    )


WATERMARK_KEYS = ("mode", "outcome", "skip_reason", "findings_open", "duration_ms")


def claim_scan(
    project: ProjectDir, gap_seconds: int, lock_timeout: float = 30.0
) -> tuple[bool, dict[str, Any]]:
    """(whether this hook should scan, the previous watermark, whose signature decides
    the fast path). The claim is recorded at once so racing hooks within the gap skip."""
    now = clock.now()
    with atomic.locked(project.lock, lock_timeout):
        last = atomic.read_json(project.last_cheap_scan)
        previous: dict[str, Any] = last if isinstance(last, dict) else {}
        epoch = previous.get("epoch")
        if isinstance(epoch, (int, float)) and 0 <= now.timestamp() - epoch < gap_seconds:
            return False, previous
        atomic.write_json(
            project.last_cheap_scan,
            {
                "timestamp": now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "epoch": now.timestamp(),
                "outcome": "running",
                "signature": None,
            },
        )
    return True, previous


def sweep_interval_passed(config: Config, project: ProjectDir) -> bool:
    """The LLM tier is on and no sweep finished within `llm.interval_days`."""
    if not config.get("llm.enabled"):
        return False
    from curator.llm.gate import sweep_due

    interval = int(config.get("llm.interval_days"))
    return sweep_due(project.last_llm_sweep, interval, clock.now())
