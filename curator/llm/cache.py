"""The verdict cache: one JSON file per answered question, keyed by what the answer
depends on (model, the hash of instructions, prompt and schema, the memories' body
hashes), so re-sweeping an unchanged store asks nothing. Only validated answers are
stored."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from curator.config import Config
from curator.findings import onlooker
from curator.hashing import sha256_text
from curator.llm.question import Request


def cache_dir(config: Config) -> Path:
    return onlooker.cache_dir(config) / "verdicts"


def cache_key(request: Request, body_hashes: list[str]) -> str:
    """What an answer depends on: the model, the judge's instructions, the prompt, the
    schema, and the bodies of the memories asked about."""
    asked = request.system + "\n" + request.prompt + json.dumps(request.schema, sort_keys=True)
    return sha256_text(json.dumps([request.model, sha256_text(asked), body_hashes]))


class VerdictCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.hits = 0

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def has(self, key: str) -> bool:
        return self._path(key).is_file()

    def get(self, key: str) -> Any | None:
        try:
            stored = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None  # missing or torn: ask again
        if not isinstance(stored, dict) or "answer" not in stored:
            return None
        self.hits += 1
        return stored["answer"]

    def put(self, key: str, answer: Any, meta: dict[str, Any]) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # temp file + rename: a concurrent sweep never reads half an answer
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({**meta, "answer": answer}, handle)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only or full disk costs calls next time, never the sweep
