"""A fake Anthropic Messages API on 127.0.0.1 for tests that drive the real SDK and the
real Claude Code CLI.

It records every request (path, headers, JSON body) and answers from a script: a list of
steps consumed in order (a status code to fail with, a raw body, a delay past the
client's timeout, an exact answer), then the `answer` function, which builds the answer
from the request. The default answer judges pairs from a table keyed by memory file
names, and memory types from another.

The SDK asks with a forced tool (`tool_choice`) and gets a JSON message. The CLI streams
(`"stream": true`) and gets server-sent events: with `--json-schema` it offers a
`StructuredOutput` tool and the answer is a call of it; without, the answer is text.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STRUCTURED = "StructuredOutput"  # the tool the CLI offers for --json-schema
MEMORY_TAG = re.compile(r'<memory number="(\d+)" file="([^"]+)"')
SINGLE_TAG = re.compile(r'<memory file="([^"]+)"')
ITEM_TAG = re.compile(r'<item number="(\d+)">(.*?)</item>', re.S)
INDEX_LINE = re.compile(r"^L(\d+): ", re.M)
INDEX_TOOL = "record_index_verdicts"


@dataclass
class Step:
    """One scripted response: `status` with an error body, a raw `body`, or a `delay`."""

    status: int = 200
    body: str | None = None
    delay: float = 0.0
    tool_input: Any = None  # a 200 whose tool_use input is exactly this
    text: str | None = None  # a 200 whose answer is this text, with no tool call


@dataclass
class FakeMessagesAPI:
    verdicts: dict[frozenset[str], tuple[str, str]] = field(default_factory=dict)
    types: dict[str, tuple[str, float]] = field(default_factory=dict)
    # the index sweep: memory file -> (verdict, rationale) for the index lines beside it
    index: dict[str, tuple[str, str]] = field(default_factory=dict)
    script: list[Step] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    answer: Callable[[dict[str, Any]], Any] | None = None
    server: ThreadingHTTPServer | None = None
    batches: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    polls_before_end: int = 1  # retrieve calls that still say in_progress

    @property
    def base_url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def count(self) -> int:
        return len(self.requests)

    def default_answer(self, body: dict[str, Any]) -> Any:
        prompt = prompt_text(body)
        if answer_tool(body) == INDEX_TOOL:
            return self.index_answer(prompt)
        if "<memory number=" not in prompt:
            file = SINGLE_TAG.search(prompt)
            kind, confidence = self.types.get(file.group(1) if file else "", ("project", 0.9))
            return {"type": kind, "confidence": confidence, "rationale": "fake judgement"}
        numbers = {f: int(n) for n, f in MEMORY_TAG.findall(prompt)}
        pairs = []
        for files, (verdict, rationale) in sorted(
            self.verdicts.items(), key=lambda item: sorted(item[0])
        ):
            a, b = sorted(files)
            if a in numbers and b in numbers:
                pairs.append(
                    {"a": numbers[a], "b": numbers[b], "verdict": verdict, "rationale": rationale}
                )
        return {"pairs": pairs}

    def index_answer(self, prompt: str) -> dict[str, Any]:
        """A verdict from `index` for each memory of each item, on the item's first line."""
        entries = []
        for number, text in ITEM_TAG.findall(prompt):
            line = int(INDEX_LINE.findall(text)[0])
            for memory, file in MEMORY_TAG.findall(text):
                if file in self.index:
                    verdict, rationale = self.index[file]
                    entries.append(
                        {
                            "item": int(number),
                            "memory": int(memory),
                            "line": line,
                            "verdict": verdict,
                            "rationale": rationale,
                        }
                    )
        return {"entries": entries}

    def respond(self, body: dict[str, Any]) -> Step:
        """The step that answers this request: scripted, else `answer`'s value."""
        if self.script:
            step = self.script.pop(0)
            if step.status != 200 or step.body is not None or step.delay:
                return step
            if step.tool_input is not None or step.text is not None:
                return step
        return Step(tool_input=(self.answer or self.default_answer)(body))

    def messages(self) -> list[dict[str, Any]]:
        """The bodies of the Messages requests received, in order."""
        return [r["body"] for r in self.requests if r["path"].split("?")[0] == "/v1/messages"]


def prompt_text(body: dict[str, Any]) -> str:
    """The text of the first user message (a string, or text blocks)."""
    content = next(m["content"] for m in body["messages"] if m["role"] == "user")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


def answer_tool(body: dict[str, Any]) -> str | None:
    """The tool an answer is a call of: the SDK's forced tool, or the CLI's
    StructuredOutput; None when the request wants text."""
    forced = body.get("tool_choice", {}).get("name")
    if forced:
        return str(forced)
    names = [t.get("name") for t in body.get("tools", [])]
    return STRUCTURED if STRUCTURED in names else None


def message(request: dict[str, Any], step: Step) -> dict[str, Any]:
    """A Messages API response: one tool_use block with the step's input, or (when the
    step has text, or the request offers no answer tool) one text block."""
    tool = answer_tool(request)
    if step.text is not None or tool is None:
        text = step.text if step.text is not None else json.dumps(step.tool_input)
        content: dict[str, Any] = {"type": "text", "text": text}
        stop = "end_turn"
    else:
        content = {"type": "tool_use", "id": "toolu_fake", "name": tool, "input": step.tool_input}
        stop = "tool_use"
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "fake"),
        "content": [content],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def events(reply: dict[str, Any]) -> bytes:
    """The same message as server-sent events, the way the API streams it."""
    block = reply["content"][0]
    if block["type"] == "tool_use":
        start_block = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        start_block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    head = {**reply, "content": [], "stop_reason": None}
    sequence = [
        {"type": "message_start", "message": head},
        {"type": "content_block_start", "index": 0, "content_block": start_block},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": reply["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
        {"type": "message_stop"},
    ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in sequence).encode()


def batch_object(api: FakeMessagesAPI, batch_id: str, ended: bool) -> dict[str, Any]:
    results = api.batches[batch_id]
    return {
        "id": batch_id,
        "type": "message_batch",
        "archived_at": None,
        "cancel_initiated_at": None,
        "created_at": "2026-06-01T00:00:00Z",
        "ended_at": "2026-06-01T00:01:00Z" if ended else None,
        "expires_at": "2026-06-02T00:00:00Z",
        "processing_status": "ended" if ended else "in_progress",
        "request_counts": {
            "processing": 0 if ended else len(results),
            "succeeded": sum(1 for r in results if r["result"]["type"] == "succeeded"),
            "errored": sum(1 for r in results if r["result"]["type"] == "errored"),
            "canceled": 0,
            "expired": 0,
        },
        "results_url": f"{api.base_url}/v1/messages/batches/{batch_id}/results" if ended else None,
    }


def create_batch(api: FakeMessagesAPI, body: dict[str, Any]) -> dict[str, Any]:
    batch_id = f"msgbatch_{len(api.batches) + 1}"
    results = []
    for item in body["requests"]:
        step = api.respond(item["params"])
        if step.status != 200 or step.body is not None:
            error = {"type": "error", "error": {"type": "api_error", "message": "fake"}}
            result: dict[str, Any] = {"type": "errored", "error": error}
        else:
            result = {"type": "succeeded", "message": message(item["params"], step)}
        results.append({"custom_id": item["custom_id"], "result": result})
    api.batches[batch_id] = results
    return batch_object(api, batch_id, ended=False)


def _handler(api: FakeMessagesAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            api.requests.append({"path": self.path, "method": "GET"})
            parts = self.path.split("?")[0].strip("/").split("/")
            batch_id = parts[3] if len(parts) >= 4 else ""
            if batch_id not in api.batches:
                self._send(404, b'{"type": "error", "error": {"type": "not_found_error"}}')
            elif parts[-1] == "results":
                lines = "".join(json.dumps(r) + "\n" for r in api.batches[batch_id])
                self._send(200, lines.encode(), "application/binary")
            else:
                polls = sum(1 for r in api.requests if r["path"].endswith(batch_id))
                ended = polls > api.polls_before_end
                self._send(200, json.dumps(batch_object(api, batch_id, ended)).encode())

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            body = json.loads(raw)
            headers = {k.lower(): v for k, v in self.headers.items()}
            api.requests.append({"path": self.path, "headers": headers, "body": body})
            if self.path.startswith("/v1/messages/batches"):
                self._send(200, json.dumps(create_batch(api, body)).encode())
                return
            step = api.respond(body)
            if step.delay:
                time.sleep(step.delay)
            kind = "application/json"
            if step.status != 200:
                error = {"type": "error", "error": {"type": "api_error", "message": "fake"}}
                payload = json.dumps(error).encode()
                self.send_response(step.status)
                self.send_header("retry-after-ms", "1")
            elif step.body is not None:
                payload = step.body.encode()
                self.send_response(200)
            elif body.get("stream"):
                payload, kind = events(message(body, step)), "text/event-stream"
                self.send_response(200)
            else:
                payload = json.dumps(message(body, step)).encode()
                self.send_response(200)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            with contextlib.suppress(OSError):  # the client gave up (timeout test)
                self.wfile.write(payload)

    return Handler


def start(api: FakeMessagesAPI) -> FakeMessagesAPI:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(api))
    server.daemon_threads = True
    api.server = server
    # a short poll: `stop` (shutdown) waits up to one poll interval
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    return api


def stop(api: FakeMessagesAPI) -> None:
    if api.server is not None:
        api.server.shutdown()
        api.server.server_close()
