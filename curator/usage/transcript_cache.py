"""Per-transcript results kept between runs, keyed by (path, size, mtime).

A session start mostly sees transcripts that have not changed since the last run; their
results come from here and the files are not opened. The cache is one small JSON file
shared by every project; it is a cache, so a corrupt or unwritable one is ignored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from curator.usage.transcripts import TranscriptUses

CACHE_NAME = "usage-transcripts.json"
VERSION = 1


class TranscriptCache:
    """Load once, look up and store per transcript, save once if anything changed."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, dict[str, object]] = {}
        self.dirty = False
        if path is None:
            return
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return
        if isinstance(data, dict) and data.get("version") == VERSION:
            entries = data.get("transcripts")
            self.entries = entries if isinstance(entries, dict) else {}

    def get(self, transcript: Path, size: int, mtime_ns: int) -> TranscriptUses | None:
        entry = self.entries.get(str(transcript))
        if not isinstance(entry, dict) or entry.get("size") != size:
            return None
        uses = entry.get("uses")
        if entry.get("mtime_ns") != mtime_ns or not isinstance(uses, dict):
            return None
        cwd = entry.get("cwd")
        malformed = entry.get("malformed")
        return TranscriptUses(
            cwd=cwd if isinstance(cwd, str) else None,
            uses={str(k): str(v) for k, v in uses.items()},
            malformed=malformed if isinstance(malformed, int) else 0,
        )

    def put(self, transcript: Path, size: int, mtime_ns: int, uses: TranscriptUses) -> None:
        self.entries[str(transcript)] = {
            "size": size,
            "mtime_ns": mtime_ns,
            "cwd": uses.cwd,
            "uses": uses.uses,
            "malformed": uses.malformed,
        }
        self.dirty = True

    def save(self) -> None:
        """Write atomically (temp file + rename), dropping transcripts that no longer exist."""
        if self.path is None or not self.dirty:
            return
        import tempfile  # only a run that read new transcripts pays for it

        live = {k: v for k, v in self.entries.items() if os.path.exists(k)}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".usage-", dir=self.path.parent)
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": VERSION, "transcripts": live}, fh)
            os.replace(tmp, self.path)
        except OSError:
            Path(tmp).unlink(missing_ok=True)
            return
        self.dirty = False
