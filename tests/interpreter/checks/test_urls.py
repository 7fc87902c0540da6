"""CUR203 url_unchecked and CUR204 url_dead, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from curator.repo.url_probe import probe_all
from tests.conftest import lint_json, locate, memory, write_files


class Handler(BaseHTTPRequestHandler):
    requests: ClassVar[list[tuple[str, str]]] = []
    release = threading.Event()

    def _answer(self, method: str) -> None:
        Handler.requests.append((method, self.path))
        if self.path == "/ok":
            status = 200
        elif self.path == "/nohead":
            status = 405 if method == "HEAD" else 200
        elif self.path == "/moved":
            self.send_response(301)
            self.send_header("Location", "/ok")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        elif self.path == "/hang":
            Handler.release.wait(10)
            status = 200
        else:
            status = 404
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_HEAD(self) -> None:
        self._answer("HEAD")

    def do_GET(self) -> None:
        self._answer("GET")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    Handler.requests = []
    Handler.release = threading.Event()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    Handler.release.set()
    httpd.shutdown()
    httpd.server_close()


def store_with_urls(make_store, base: str):
    body = (
        f"Live {base}/ok, HEAD refused {base}/nohead and moved ({base}/moved).\n"
        f"Gone: [the page]({base}/gone). Elsewhere: https://docs.example.com/guide.\n"
    )
    return make_store({"reference_links.md": memory(body, type="reference")})


def config(tmp_path, check_urls: bool):
    text = f"references:\n  check_urls: {str(check_urls).lower()}\n  url_allowlist: [127.0.0.1]\n"
    return write_files(tmp_path, {".curator.yaml": text}) / ".curator.yaml"


def test_dead_allowlisted_url_is_reported_and_others_are_unchecked(
    server, make_store, tmp_path, run_curator
):
    store = store_with_urls(make_store, server)
    run = lint_json(run_curator, store, "CUR203,CUR204", "--config", str(config(tmp_path, True)))
    assert run.code == 1, run.stderr
    text = (store / "reference_links.md").read_text()
    got = sorted(
        (d["code"], d["location"]["row"], d["location"]["column"], d["detail"]["url"])
        for d in run.json()
    )
    external = "https://docs.example.com/guide"
    assert got == [
        ("CUR203", *locate(text, external), external),
        ("CUR204", *locate(text, f"{server}/gone"), f"{server}/gone"),
    ]
    dead = next(d for d in run.json() if d["code"] == "CUR204")
    assert dead["message"] == f"URL is dead (HTTP 404): {server}/gone"
    assert ("GET", "/nohead") in Handler.requests  # HEAD refused, GET answered
    assert all(path != "/guide" for _, path in Handler.requests)


def test_no_request_is_made_when_check_urls_is_off(server, make_store, tmp_path, run_curator):
    store = store_with_urls(make_store, server)
    run = lint_json(
        run_curator,
        store,
        "CUR2,CUR203",
        "--config",
        str(config(tmp_path, False)),
        "--repo-root",
        str(tmp_path),
    )
    assert [d["code"] for d in run.json()] == ["CUR203"]
    assert Handler.requests == []


def test_url_unchecked_is_off_unless_named(make_store, tmp_path, run_curator):
    body = "Boards: https://grafana.example.com/d/latency.\n"
    store = make_store({"MEMORY.md": "- [B](reference_b.md)\n", "reference_b.md": memory(body)})

    def codes(*args: str, cwd: Path | None = None) -> list[str]:
        run = run_curator("lint", str(store), "--output-format", "json", *args, cwd=cwd)
        assert run.code in (0, 1), run.stderr
        return [d["code"] for d in run.json() if d["code"].startswith("CUR2")]

    assert codes() == []
    assert codes("--select", "ALL") == []
    assert codes("--select", "CUR2") == []
    assert codes("--extend-select", "CUR203") == ["CUR203"]
    assert codes("--select", "url_unchecked") == ["CUR203"]
    project = write_files(tmp_path / "project", {".curator.yaml": "extend_select: [CUR203]\n"})
    assert codes(cwd=project) == ["CUR203"]


def test_a_url_without_a_host_is_not_reported(make_store, run_curator):
    body = "Typos: https:///x, http://:80/y and https://?q=1; real: https://docs.example.com/a.\n"
    store = make_store({"reference_b.md": memory(body)})
    run = lint_json(run_curator, store, "CUR203")
    assert [(d["detail"]["host"], d["message"]) for d in run.json()] == [
        ("docs.example.com", "URL on docs.example.com is unchecked (host not in "
         "references.url_allowlist)")
    ]  # fmt: skip


def test_unanswered_url_past_the_budget_is_unknown_not_dead(server):
    results = probe_all(
        [f"{server}/hang", f"{server}/gone"], budget_seconds=0.5, timeout=5, workers=1
    )
    # One worker: the hanging probe holds it past the budget; /gone is never reached.
    assert f"{server}/hang" not in results
    assert f"{server}/gone" not in results


def test_refused_connection_is_dead(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    url = f"http://127.0.0.1:{port}/x"
    result = probe_all([url], budget_seconds=5, timeout=2)[url]
    assert result.status is None and result.error
