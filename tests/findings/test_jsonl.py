"""Streaming JSONL: matching lines forward, complete lines backward, across chunk edges."""

from __future__ import annotations

import io

import pytest

from curator.findings.jsonl import Shapes, lines_backward, lines_containing


def containing(data: bytes, max_line: int = 50) -> tuple[list[bytes], Shapes]:
    shapes = Shapes()
    found = list(lines_containing(io.BytesIO(data), b"use", shapes, max_line=max_line))
    return found, shapes


@pytest.mark.parametrize("chunk", [5, 7, 16, 1024])
def test_lines_containing_yields_matches_and_counts_shapes(monkeypatch, chunk):
    monkeypatch.setattr("curator.findings.jsonl.CHUNK", chunk)  # lines straddle chunk edges
    data = (
        b'{"z": 0}\n{"a": "use 1"}\n'
        + b"x" * 120  # longer than max_line: malformed, never buffered
        + b'\n{"b": 2}\n\n{"torn": "use\n{"c": "use 3"}'
    )
    found, shapes = containing(data)
    assert found == [b'{"a": "use 1"}', b'{"torn": "use', b'{"c": "use 3"}']
    assert (shapes.lines, shapes.malformed) == (6, 2)


def test_lines_containing_oversized_last_line(monkeypatch):
    monkeypatch.setattr("curator.findings.jsonl.CHUNK", 16)
    found, shapes = containing(b'{"ok": 1}\n' + b"y" * 200)
    assert found == []
    assert (shapes.lines, shapes.malformed) == (2, 1)


@pytest.mark.parametrize("chunk", [3, 8, 64 * 1024])
def test_backward_yields_newest_first(chunk):
    lines = [f'{{"n": {i}}}'.encode() for i in range(20)]
    data = b"\n".join(lines) + b"\n"
    assert list(lines_backward(io.BytesIO(data), chunk=chunk)) == lines[::-1]


def test_backward_drops_oversized_lines():
    data = b"first\n" + b"z" * 100 + b"\nlast\n"
    assert list(lines_backward(io.BytesIO(data), chunk=8, max_line=40)) == [b"last", b"first"]
