"""A fake Messages API on 127.0.0.1 that streams, for sessions of the real Claude Code CLI.

`claude -p` sends `POST /v1/messages?beta=true` with `"stream": true` and reads
server-sent events. This server records every request (method, path, JSON body) and
answers each message request with one short text reply as a stream, so a test can start
a real session and then read what the model was sent (the system prompt, the hook's
context) without any network.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

NOT_FOUND = b'{"type": "error", "error": {"type": "not_found_error"}}'


@dataclass
class FakeClaudeAPI:
    """The recorded requests and the text every reply carries."""

    reply: str = "hi"
    requests: list[dict[str, Any]] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_port}"

    def messages(self) -> list[dict[str, Any]]:
        """The bodies of the message requests, in order."""
        return [r["body"] for r in self.requests if r["path"].split("?")[0] == "/v1/messages"]


def reply_message(model: str, text: str) -> dict[str, Any]:
    """The assistant message whose only block is `text`, as a non-streaming reply."""
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def sse_events(model: str, text: str) -> bytes:
    """The same message as the event stream `"stream": true` asks for."""
    start = {**reply_message(model, text), "content": [], "stop_reason": None}
    start["usage"] = {"input_tokens": 10, "output_tokens": 1}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def _handler(api: FakeClaudeAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            api.requests.append({"method": "GET", "path": self.path, "body": None})
            self._send(404, NOT_FOUND, "application/json")

        def do_HEAD(self) -> None:
            api.requests.append({"method": "HEAD", "path": self.path, "body": None})
            self.send_response(200)
            self.end_headers()

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
            api.requests.append({"method": "POST", "path": self.path, "body": body})
            if not self.path.startswith("/v1/messages") or not isinstance(body, dict):
                self._send(404, NOT_FOUND, "application/json")
            elif self.path.startswith("/v1/messages/count_tokens"):
                self._send(200, b'{"input_tokens": 10}', "application/json")
            elif body.get("stream"):
                self._send(
                    200, sse_events(body.get("model", "fake"), api.reply), "text/event-stream"
                )
            else:
                message = reply_message(body.get("model", "fake"), api.reply)
                self._send(200, json.dumps(message).encode(), "application/json")

    return Handler


@contextmanager
def serving(reply: str = "hi") -> Iterator[FakeClaudeAPI]:
    """A running server for the duration of the block."""
    api = FakeClaudeAPI(reply=reply)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(api))
    server.daemon_threads = True
    api.server = server
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
