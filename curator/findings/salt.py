"""The salted hash that names a secret without repeating it.

A secret's finding is identified by sha256(salt + secret): the same leak is the same
finding on every run, a rotated credential is a new one, and the hash cannot be turned
back into a short password by trying candidates, because the salt stays on this machine
(`<storage root>/curator/secret_salt`, created once, readable by its owner only).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from curator.config import Config
from curator.findings.onlooker import secret_salt_file
from curator.hashing import sha256_text

SALT_BYTES = 32
_salts: dict[Path, str] = {}


def installation_salt(config: Config | None = None) -> str:
    """The salt, created on first use. An unwritable storage root gets a salt for this
    process only: hashes are then stable within the run, which persists nothing anyway."""
    path = secret_salt_file(config)
    if path in _salts:
        return _salts[path]
    salt = _read(path)
    if salt is None:
        import secrets  # only the first run on a machine makes a salt

        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            _create(path, secrets.token_hex(SALT_BYTES))
        salt = _read(path) or secrets.token_hex(SALT_BYTES)
    _salts[path] = salt
    return salt


def salted_hash(value: str, config: Config | None = None) -> str:
    """16 hex characters of sha256(salt, value)."""
    return sha256_text(f"{installation_salt(config)}\0{value}")[:16]


def _read(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if len(text) >= 2 * SALT_BYTES else None


def _create(path: Path, salt: str) -> None:
    # Written in full under a temporary name, then linked into place: a concurrent
    # session sees no salt or the whole salt, and the first link wins for everyone.
    import secrets

    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(salt + "\n")
        with contextlib.suppress(FileExistsError):
            os.link(temp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
