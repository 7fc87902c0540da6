"""Which memories the LLM sweep puts in front of the model, on real stores.

    python bench/llm_reach.py OUT_DIR --repos /work/eval/repos \\
        --index ../shared/corpus/real/INDEX.tsv [--curator .venv/bin/curator] \\
        [--select CUR401,CUR402,CUR404] [--stores 02 04 ...]

Runs `curator lint --llm --select ...` on each `claude-typed` store of INDEX.tsv inside its
rebuilt repository (cwd = the repository, a fresh HOME, `llm.max_pairs` raised so that
every planned request goes out) against a local stand-in for the Messages API on
127.0.0.1 that answers every question with "nothing found" and logs each request. Writes
what `../shared/corpus/review/pairs_reached.py` reads: OUT_DIR/req-<store>.jsonl (one JSON
string a line: the request's system and message text, lowercased, whitespace collapsed),
OUT_DIR/memories ("<store> <memory count>") and OUT_DIR/repos (a link to --repos). Never
talks to a real API: the only base URL is the stand-in's.

Then prints how many requests each memory was in, store by store and over all stores: the
most, and how many memories were in 0, 1, 2, ... requests. A memory is in a request when
the request holds its text: its block (`file="<its store path>"`, as every prompt quotes
a memory) or the first 200 characters of its body. `MEMORY.md` is not a memory here (every
index request holds some of it). `--count-only` prints these figures from the logs
already in OUT_DIR without running anything.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

NOTHING: dict[str, Any] = {
    "record_pair_verdicts": {"pairs": []},
    "record_index_verdicts": {"entries": []},
    "record_memory_type": {"type": "project", "confidence": 0.1, "rationale": "stand-in"},
}


class Log:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.lock = threading.Lock()


def _text(body: dict[str, Any]) -> str:
    parts: list[str] = []
    system = body.get("system")
    if isinstance(system, str):
        parts.append(system)
    elif isinstance(system, list):
        parts += [b.get("text", "") for b in system]
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        else:
            parts += [b.get("text", "") for b in content if b.get("type") == "text"]
    return " ".join(" ".join(parts).lower().split())


def serve(log: Log) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            with log.lock:
                log.lines.append(json.dumps(_text(body), ensure_ascii=False))
            tool = body.get("tool_choice", {}).get("name", "")
            reply = {
                "id": "msg_standin",
                "type": "message",
                "role": "assistant",
                "model": body.get("model", "standin"),
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": tool, "input": NOTHING[tool]}
                ],
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            }
            payload = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def requests_per_memory(store: Path, lines: list[str]) -> dict[str, int]:
    """For each memory of the store, the number of logged requests that hold its text."""
    from curator.store.reading import read_store

    texts = [json.loads(line) for line in lines]
    counts = {}
    for memory in read_store(store).memories:
        needle = f'file="{memory.rel}"'.lower()
        head = " ".join(memory.body().lower().split())[:200]
        counts[memory.rel] = sum(1 for t in texts if needle in t or (len(head) >= 60 and head in t))
    return counts


def spread(counts: dict[str, int]) -> str:
    """`most 3; 0:12 1:40 2:7 3:1`: the most requests a memory was in, then how many
    memories were in each number of requests."""
    if not counts:
        return "no memories"
    by_number = Counter(counts.values())
    shown = " ".join(f"{k}:{by_number[k]}" for k in sorted(by_number))
    return f"most {max(counts.values())}; {shown}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--repos", type=Path, required=True)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--curator", default=str(Path(sys.executable).parent / "curator"))
    parser.add_argument("--select", default="CUR401,CUR402,CUR404")
    parser.add_argument("--today", default="2026-12-02")
    parser.add_argument("--stores", nargs="*", default=[])
    parser.add_argument("--count-only", action="store_true")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    link = args.out / "repos"
    if not link.exists():
        link.symlink_to(args.repos.resolve())
    rows = [r.split("\t") for r in args.index.read_text(encoding="utf-8").splitlines()[1:]]
    counts = []
    every: dict[str, int] = {}
    total = 0
    for row in rows:
        folder, memory_path, kind = row[0], row[3], row[4]
        if kind != "claude-typed" or (args.stores and folder[:2] not in args.stores):
            continue
        repo = args.repos / folder
        if not (repo / ".git").exists():
            continue
        store = folder[:2]
        if args.count_only:
            logged = args.out / f"req-{store}.jsonl"
            if logged.exists():
                lines = logged.read_text(encoding="utf-8").splitlines()
                per = requests_per_memory(repo / memory_path, lines)
                every.update({f"{store}:{k}": v for k, v in per.items()})
                total += len(lines)
                print(f"{folder}: {len(lines)} requests; a memory in {spread(per)}")
            continue
        log = Log()
        server = serve(log)
        with tempfile.TemporaryDirectory() as tmp:
            config = Path(tmp) / "curator.yaml"
            llm = {
                "provider": "anthropic",
                "base_url": f"http://127.0.0.1:{server.server_address[1]}",
                "max_pairs": 100000,
                "timeout_seconds": 30,
                "max_retries": 0,
            }
            config.write_text(json.dumps({"storage": f"{tmp}/storage", "llm": llm}))
            env = {
                "PATH": os.environ["PATH"],
                "HOME": tmp,
                "LANG": "C.UTF-8",
                "ANTHROPIC_API_KEY": "stand-in",
                "NO_COLOR": "1",
            }
            command = [args.curator, "lint", "--llm", "--select", args.select, "--config"]
            command += [str(config), "--today", args.today, "--output-format", "json"]
            run = subprocess.run(
                [*command, memory_path], cwd=repo, env=env, capture_output=True, text=True
            )
        server.shutdown()
        server.server_close()
        (args.out / f"req-{store}.jsonl").write_text(
            "".join(line + "\n" for line in log.lines), encoding="utf-8"
        )
        memories = sum(
            1
            for p in (repo / memory_path).rglob("*.md")
            if p.name != "MEMORY.md" and ".git" not in p.parts
        )
        counts.append(f"{store} {memories}")
        per = requests_per_memory(repo / memory_path, log.lines)
        every.update({f"{store}:{k}": v for k, v in per.items()})
        total += len(log.lines)
        print(
            f"{folder}: {len(log.lines)} requests, {memories} memories, rc {run.returncode}; "
            f"a memory in {spread(per)}"
        )
        if run.returncode not in (0, 1):
            print(run.stderr[-2000:], file=sys.stderr)
    if not args.count_only:
        (args.out / "memories").write_text("".join(c + "\n" for c in counts), encoding="utf-8")
    print(f"all stores: {total} requests, {len(every)} memories; a memory in {spread(every)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
