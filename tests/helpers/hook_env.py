"""A repository, its Claude Code store and curator's storage, for hook and review tests."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from curator.store.discovery import project_slug
from tests.conftest import Run, memory, write_files

FREEZE = memory("Merge freeze begins 2026-03-05.\n", name="freeze")
INDEX = "# Memory\n- [Freeze](freeze.md) — the merge freeze\n- [Gone](gone.md) — removed\n"
# Tests must not depend on machine speed: no rate gate, a generous budget and deadline.
CHEAP = (
    "cheap:\n  skip_if_session_age_under_seconds: 0\n  budget_ms: 60000\n  hook_timeout_ms: 60000\n"
)


def fake_api_config(base_url: str) -> str:
    """CHEAP, and the LLM tier asking the fake Messages API at `base_url`, once."""
    return CHEAP + (
        f"llm:\n  provider: anthropic\n  base_url: {base_url}\n  timeout_seconds: 5\n"
        "  max_retries: 0\n"
    )


POINTER = (
    "Curator: 2 open findings (1 broken-index, 1 date-decayed). Review with `/curator review`."
)


class Env:
    """A repository, its Claude Code store, curator's storage, and a way to run the hook."""

    def __init__(self, tmp: Path, repo: Path, run: Callable[..., Run]) -> None:
        self.tmp, self.repo, self._run = tmp, repo, run
        self.claude = tmp / "claude"
        self.store = self.claude / "projects" / project_slug(repo) / "memory"
        self.onlooker = tmp / "onlooker"
        self.events_log = self.onlooker / "logs" / "onlooker-events.jsonl"
        self.config_file = tmp / "xdg" / "curator" / "config.yaml"
        self.today = "2026-06-01"

    @property
    def project(self) -> Path:
        key = hashlib.sha256(f"root:{self.repo}".encode()).hexdigest()[:12]
        return self.onlooker / "curator" / key

    def env(self, **extra: str) -> dict[str, str]:
        return {
            "ONLOOKER_DIR": str(self.onlooker),
            "CURATOR_TODAY": self.today,
            "CURATOR_NESTED": "",
            "ONLOOKER_EVENTS_LOG": "",
            **extra,
        }

    def config(self, text: str) -> None:
        self.config_file.parent.mkdir(parents=True, exist_ok=True)
        self.config_file.write_text(text, encoding="utf-8")

    def hook(self, payload: str | None = None, **extra: str) -> Run:
        if payload is None:
            payload = json.dumps(
                {"session_id": "s-1", "cwd": str(self.repo), "source": "startup", "new": 1}
            )
        return self._run("hook", "session-start", input=payload, env=self.env(**extra))

    def curator(self, *args: str) -> Run:
        return self._run(*args, cwd=self.repo, env=self.env())

    def findings(self) -> list[dict[str, Any]]:
        folder = self.project / "findings"
        if not folder.is_dir():
            return []
        return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]

    def events(self) -> list[dict[str, Any]]:
        if not self.events_log.exists():
            return []
        return [json.loads(line) for line in self.events_log.read_text().splitlines()]


def make_env(tmp_path: Path, repo: Path, run_curator: Callable[..., Run]) -> Env:
    """The repository's store holds a decayed date and a broken index link."""
    made = Env(tmp_path, repo, run_curator)
    write_files(made.store, {"MEMORY.md": INDEX, "freeze.md": FREEZE})
    made.config(CHEAP)
    return made
