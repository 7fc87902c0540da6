"""Give the demo project (`examples/demo/project`) a git history of its own, once.

The stale-reference rules report what the repository's history shows was here and is
gone, so the demo project needs one: a legacy importer that was deleted, and a queue
class that was renamed. This writes three dated commits into `project/.git` (ignored by
curator's own repository) and leaves the project's files exactly as they are checked in.
Run it again and it does nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent / "project"
OLD_QUEUE = '''"""Billing queue: retries with exponential backoff."""


class FlushQueue:
    def __init__(self, max_attempts: int = 5) -> None:
        self.max_attempts = max_attempts
'''
LEGACY = '''"""The old importer: replays exported invoices one by one."""


def replay(path: str) -> None:
    raise SystemExit("use the billing queue")
'''


def git(*args: str, day: str | None = None) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="Demo", GIT_AUTHOR_EMAIL="demo@example.com",
               GIT_COMMITTER_NAME="Demo", GIT_COMMITTER_EMAIL="demo@example.com")  # fmt: skip
    if day is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{day}T10:00:00+00:00"
    subprocess.run(["git", "-C", str(PROJECT), *args], env=env, check=True, capture_output=True)


def main() -> int:
    if (PROJECT / ".git").exists():
        return 0
    queue = PROJECT / "src" / "billing" / "queue.py"
    final_queue = queue.read_bytes()
    legacy = PROJECT / "scripts" / "legacy_ingest.py"
    try:
        git("init", "-q", "-b", "main")
        queue.write_text(OLD_QUEUE, encoding="utf-8")
        legacy.parent.mkdir(exist_ok=True)
        legacy.write_text(LEGACY, encoding="utf-8")
        git("add", "-A")
        git("commit", "-q", "-m", "billing: retry queue, settings and the old importer",
            day="2026-01-05")  # fmt: skip
        git("rm", "-q", "-r", "scripts")
        git("commit", "-q", "-m", "drop the legacy importer", day="2026-02-10")
        queue.write_bytes(final_queue)
        git("add", "-A")
        git("commit", "-q", "-m", "queue rewrite: FlushQueue becomes RetryQueue", day="2026-02-24")
    except (OSError, subprocess.CalledProcessError) as exc:
        queue.write_bytes(final_queue)
        print(f"make_history: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
