"""Streaming JSONL: bounded lines forward, complete lines backward, across chunk edges."""

from __future__ import annotations

import io

import pytest

from curator.jsonl import lines_backward, lines_forward


def forward(data: bytes, max_line: int = 50) -> list[bytes | None]:
    return list(lines_forward(io.BytesIO(data), max_line=max_line))


def test_forward_yields_lines_and_marks_oversized_ones(monkeypatch):
    monkeypatch.setattr("curator.jsonl.CHUNK", 7)  # lines straddle chunk edges
    data = b'{"a": 1}\n' + b"x" * 120 + b'\n{"b": 2}\n\n{"c": 3}'
    assert forward(data) == [b'{"a": 1}', None, b'{"b": 2}', b"", b'{"c": 3}']


def test_forward_oversized_last_line_without_newline(monkeypatch):
    monkeypatch.setattr("curator.jsonl.CHUNK", 16)
    assert forward(b"ok\n" + b"y" * 200) == [b"ok", None]


@pytest.mark.parametrize("chunk", [3, 8, 64 * 1024])
def test_backward_yields_newest_first(chunk):
    lines = [f'{{"n": {i}}}'.encode() for i in range(20)]
    data = b"\n".join(lines) + b"\n"
    assert list(lines_backward(io.BytesIO(data), chunk=chunk)) == lines[::-1]


def test_backward_drops_oversized_lines():
    data = b"first\n" + b"z" * 100 + b"\nlast\n"
    assert list(lines_backward(io.BytesIO(data), chunk=8, max_line=40)) == [b"last", b"first"]
