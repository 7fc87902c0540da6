"""Errors a user can cause: they carry a file and a line and end the run with exit 2."""

from __future__ import annotations

from pathlib import Path


class UserError(Exception):
    """A configuration, rule or usage error. Printed once, cleanly; exit code 2."""

    def __init__(self, message: str, path: Path | str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = Path(path) if path is not None else None
        self.line = line

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        where = str(self.path) if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"
