"""Stream JSONL files without holding them in memory: forward in chunks, or back from the end."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

CHUNK = 1024 * 1024
MAX_LINE = 32 * 1024 * 1024  # a longer line is skipped (reported as None), not buffered


def lines_forward(fh: BinaryIO, max_line: int = MAX_LINE) -> Iterator[bytes | None]:
    """Yield each line (without its newline); None for a line longer than `max_line`.

    Memory stays bounded by `max_line` + one chunk whatever the file holds.
    """
    carry = b""
    oversized = False
    while True:
        chunk = fh.read(CHUNK)
        if not chunk:
            break
        parts = chunk.split(b"\n")
        if len(parts) == 1:
            if not oversized:
                carry += chunk
                if len(carry) > max_line:
                    oversized, carry = True, b""
            continue
        first = parts[0]
        if oversized or len(carry) + len(first) > max_line:
            yield None
        else:
            yield carry + first
        oversized = False
        yield from (p if len(p) <= max_line else None for p in parts[1:-1])
        carry = parts[-1]
        if len(carry) > max_line:
            oversized, carry = True, b""
    if oversized:
        yield None
    elif carry:
        yield carry


def lines_backward(
    fh: BinaryIO, chunk: int = 64 * 1024, max_line: int = MAX_LINE
) -> Iterator[bytes]:
    """Yield complete lines from the end of the file towards its start (newest first).

    A line longer than `max_line` is dropped rather than buffered.
    """
    fh.seek(0, 2)
    position = fh.tell()
    carry = b""
    dropping = False  # inside an oversized line: discard up to the newline before it
    while position > 0:
        step = min(chunk, position)
        position -= step
        fh.seek(position)
        parts = (fh.read(step) + carry).split(b"\n")
        carry = parts[0]
        tail = parts[1:]
        if dropping and tail:
            tail, dropping = tail[:-1], False
        for line in reversed(tail):
            if line.strip():
                yield line
        if len(carry) > max_line:
            carry, dropping = b"", True
    if carry.strip() and not dropping:
        yield carry
