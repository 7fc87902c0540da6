"""Stream JSONL files without holding them in memory: forward in chunks, or back from the end."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

CHUNK = 1024 * 1024
MAX_LINE = 32 * 1024 * 1024  # a longer line is counted as malformed, never buffered


@dataclass
class Shapes:
    """Line counts kept while scanning: every line's shape is checked, few are parsed."""

    lines: int = 0
    malformed: int = 0  # not `{...}` on one line, or longer than the limit


def lines_containing(
    fh: BinaryIO, needle: bytes, shapes: Shapes, max_line: int = MAX_LINE
) -> Iterator[bytes]:
    """Yield the complete lines that contain `needle`, reading in chunks.

    Other lines are never split out or copied: their shape is counted over whole chunks
    (a raw newline cannot occur inside a JSON string, so a line is well shaped when a
    `}` ends it). Memory stays bounded by `max_line` plus one chunk.
    """
    carry = b""  # the start of a line that continues in the next chunk
    skipping = False  # inside a line longer than max_line: drop it up to its newline
    while True:
        chunk = fh.read(CHUNK)
        if not chunk:
            break
        first = chunk.find(b"\n")
        if first == -1:
            if not skipping:
                carry += chunk
                if len(carry) > max_line:
                    carry, skipping = b"", True
            continue
        if skipping or len(carry) + first > max_line:
            shapes.lines += 1
            shapes.malformed += 1
            skipping = False
        else:
            line = carry + chunk[:first]
            yield from _block(line, 0, len(line), needle, shapes, max_line)
        last = chunk.rfind(b"\n")
        if last > first:
            yield from _block(chunk, first + 1, last, needle, shapes, max_line)
        carry = chunk[last + 1 :]
    if skipping:
        shapes.lines += 1
        shapes.malformed += 1
    elif carry:
        yield from _block(carry, 0, len(carry), needle, shapes, max_line)


def _block(
    buf: bytes, lo: int, hi: int, needle: bytes, shapes: Shapes, max_line: int
) -> Iterator[bytes]:
    """The lines of buf[lo:hi] (no newline at hi): count shapes, yield the needle's lines."""
    lines = buf.count(b"\n", lo, hi) + 1
    closed = buf.count(b"}\n", lo, hi) + (buf[hi - 1 : hi] == b"}")
    if closed < lines:  # rare: only then pay for finding the empty lines
        blank = buf.count(b"\n\n", lo, hi) + (lo == hi or buf[lo : lo + 1] == b"\n")
        blank += hi > lo and buf[hi - 1 : hi] == b"\n"
        lines -= blank
    shapes.lines += lines
    shapes.malformed += max(lines - closed, 0)
    position = buf.find(needle, lo, hi)
    while position != -1:
        begin = max(buf.rfind(b"\n", lo, position) + 1, lo)
        end = buf.find(b"\n", position, hi)
        end = hi if end == -1 else end
        if end - begin <= max_line:
            yield buf[begin:end]
        position = buf.find(needle, end, hi)


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
