"""ULIDs: 48 bits of milliseconds then 80 random bits, Crockford base32 (26 characters).

They sort by creation time, so `findings/` lists oldest first with a plain sort.
"""

from __future__ import annotations

import os
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_ulid(ms: int | None = None) -> str:
    """A fresh ULID; `ms` pins the timestamp part (milliseconds since the epoch)."""
    stamp = int(time.time() * 1000) if ms is None else ms
    value = ((stamp & (2**48 - 1)) << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def is_ulid(text: str) -> bool:
    return len(text) == 26 and all(c in _ALPHABET for c in text)
