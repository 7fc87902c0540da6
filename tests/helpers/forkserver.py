"""`python -m curator ARGS` as a fresh process forked from a warm interpreter.

A curator process spends most of a short run starting Python, importing its
dependencies and compiling the rule book's patterns: the anthropic SDK's import alone
takes a second of CPU, more than the whole lint of a test's store. Here a server process
(started once for all the test workers, by pytest-xdist's controller, or else by the
test process) imports those dependencies once, builds the rule book once (so that the
compiled regular expressions sit in the `regex` and `re` caches) and then forgets curator
(its modules leave `sys.modules`). Each run is a child forked from it that takes the
request's arguments, working folder, environment, umask and standard streams, imports
curator afresh and runs it as `python -m curator` does (`runpy`), to a real exit code or
signal, and ends as the interpreter ends (threads joined, atexit handlers run, stdout and
stderr flushed) but for the teardown that only frees memory. The caller gets what
`subprocess.run(..., capture_output=True)` gives; tests/test_forkserver.py holds the two
side by side.

What a forked child cannot be, a real `subprocess.run` still is: a run whose environment
sets a `PYTHON*`, `LC_*` or `LANG*` variable other than the suite's own (the interpreter
reads those as it starts: `-X importtime` tests, a `sitecustomize`), or with a
`preexec_fn`; and every run when `CURATOR_TEST_SPAWN=1`. Two servers with different hash
seeds take turns, so that two runs in a row never share a seed, as two fresh processes
almost never do. The anthropic SDK is in the servers for runs with an API key only: its
heap makes every fork dearer.
"""

from __future__ import annotations

import contextlib
import json
import locale
import os
import random
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The third-party and standard modules a curator run imports (curator's own are imported
# afresh by every run).
PRELOAD = ("dateparser", "jinja2", "jinja2.sandbox", "yaml", "regex", "click", "pathlib",
           "subprocess", "sqlite3", "difflib")  # fmt: skip
SDK = ("anthropic",)
# Variables the interpreter reads only as it starts, as the servers start with them.
STARTUP_VARIABLES = ("PYTHON", "LC_", "LANG")
_STARTUP = {k: v for k, v in os.environ.items() if k.startswith(STARTUP_VARIABLES)}
_HEADER = struct.Struct("!I")


# --- the server side (a script: `python forkserver.py SOCKET sdk|plain`) --------------------


def _serve(path: str, sdk: bool) -> None:
    import gc
    import importlib

    for name in PRELOAD + (SDK if sdk else ()):
        importlib.import_module(name)
    _warm()
    gc.collect()
    gc.freeze()  # no collection in a child touches (and so copies) the server's objects
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    listener.listen(64)
    os.rename(path + ".new", path)  # a client that finds the socket can connect
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ)  # EOF: the worker is gone
    while True:
        for key, _ in selector.select():
            if key.fileobj is not listener:
                _reap(block=True)
                os._exit(0)
            conn, _ = listener.accept()
            if os.fork() == 0:
                selector.close()
                listener.close()
                _handle(conn)  # returns only in the curator process
                return
            conn.close()
        _reap(block=False)


def _warm() -> None:
    """Import every curator module and build the rule book (parse the rule files, compile
    their patterns) once, then forget curator: each run imports it afresh, as a fresh
    process would, and finds only the third-party caches this left warm (the compiled
    regular expressions, which a cold rule book spends most of its time on)."""
    import importlib
    import pkgutil

    try:
        import curator

        for module in pkgutil.walk_packages(curator.__path__, "curator."):
            if not module.name.endswith("__main__"):
                importlib.import_module(module.name)
        from curator.config import load_config
        from curator.interpreter.rulebook import load_rules

        load_rules(load_config())
    except Exception as error:  # a speed-up only: the runs are the same without it
        sys.stderr.write(f"tests/helpers/forkserver.py: no warm-up: {error!r}\n")
    for name in [n for n in sys.modules if n == "curator" or n.startswith("curator.")]:
        del sys.modules[name]


def _reap(block: bool) -> None:
    """Wait for the finished handlers (for all, a few seconds at most, when `block`)."""
    end = time.monotonic() + 5
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if not block or time.monotonic() > end:
                return
            time.sleep(0.01)


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while len(data) < _HEADER.size:
        data += conn.recv(1 << 16)
    (size,) = _HEADER.unpack_from(data)
    while len(data) < _HEADER.size + size:
        chunk = conn.recv(1 << 16)
        if not chunk:
            os._exit(1)
        data += chunk
    return json.loads(data[_HEADER.size :]), list(fds)


def _handle(conn: socket.socket) -> None:
    """In a child of the server: fork the curator process, say its pid, wait for it and
    say how it ended."""
    request, fds = _receive(conn)
    pid = os.fork()
    if pid == 0:
        _become_curator(conn, request, fds)
        return  # on into the server's stack, and out: curator runs as a script would
    for fd in fds:
        os.close(fd)
    conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    _, status, usage = os.wait4(pid, 0)
    ended = {"code": os.waitstatus_to_exitcode(status), "cpu": usage.ru_utime + usage.ru_stime}
    conn.sendall(json.dumps(ended).encode() + b"\n")
    os._exit(0)


def _become_curator(conn: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    import runpy
    import types

    conn.close()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    if os.path.isdir("/proc/self/fd"):  # Linux: the open ones
        for name in os.listdir("/proc/self/fd"):
            if int(name) > 2:
                with contextlib.suppress(OSError):
                    os.close(int(name))
    else:
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()
    _standard_streams()
    sys.argv = ["-m", *request["args"]]
    sys.path[0] = os.getcwd()  # `-m` puts the working folder first
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        runpy._run_module_as_main("curator")  # type: ignore[attr-defined]
        code = 0
    except SystemExit as stop:
        code = _exit_code(stop.code)
    except BaseException as error:  # what the interpreter does with it, then its exit
        sys.excepthook(type(error), error, error.__traceback__)
        code = -signal.SIGINT if isinstance(error, KeyboardInterrupt) else 1
    _exit(code)


def _exit_code(code: object) -> int:
    """The exit status `SystemExit(code)` ends a Python process with."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    sys.stderr.write(f"{code}\n")
    return 1


def _exit(code: int) -> None:
    """End as the interpreter ends a process: non-daemon threads joined, atexit handlers
    run, stdout and stderr flushed (120 when that fails); then, without the teardown
    that only frees memory (clearing every module a fork shares with the server would
    cost more than most runs), the exit."""
    import atexit
    import threading

    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            code = 120
    if code < 0:  # KeyboardInterrupt: the interpreter re-raises SIGINT
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


def _standard_streams() -> None:
    """sys.stdin, stdout and stderr on the new 0, 1 and 2, made as the interpreter makes
    them as it starts (buffered unless `-u`; stdout line-buffered on a terminal)."""
    import io

    encoding, errors = sys.stdout.encoding, sys.stdout.errors or "strict"
    unbuffered = isinstance(sys.stdout.buffer, io.FileIO)  # `-u`, PYTHONUNBUFFERED

    def writer(fd: int, errors: str, line_buffering: bool) -> io.TextIOWrapper:
        raw = io.FileIO(fd, "w", closefd=False)
        return io.TextIOWrapper(
            raw if unbuffered else io.BufferedWriter(raw),
            encoding=encoding,
            errors=errors,
            line_buffering=line_buffering and not unbuffered,
            write_through=unbuffered,
        )

    reader = io.BufferedReader(io.FileIO(0, "r", closefd=False))
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(reader, encoding=encoding, errors=errors)  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = writer(1, errors, os.isatty(1))  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = writer(2, "backslashreplace", True)  # type: ignore[misc]


# --- the client side ---------------------------------------------------------------------


class _Server:
    def __init__(self, seed: int, sdk: bool, wait: bool = True) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="curator-forkserver-"))
        self.path = str(self.folder / "socket")
        env = {k: v for k, v in os.environ.items() if not k.startswith(STARTUP_VARIABLES)}
        env.update(_STARTUP, HOME=str(self.folder), XDG_CONFIG_HOME=str(self.folder / "xdg"))
        env.update(ONLOOKER_DIR=str(self.folder / "onlooker"))
        env.update(CLAUDE_CONFIG_DIR=str(self.folder / "claude"))
        env.setdefault("PYTHONHASHSEED", str(seed))
        self.process = subprocess.Popen(
            [sys.executable, __file__, self.path, "sdk" if sdk else "plain"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=self.folder,
            env=env,
        )
        if wait:
            assert self.process.stdout is not None
            ready = self.process.stdout.readline()
            assert ready == b"ready\n", ready

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        shutil.rmtree(self.folder, ignore_errors=True)


cpu_seconds = 0.0  # the CPU time of the runs so far (theirs and their children's)
_servers: dict[bool, list[_Server]] = {False: [], True: []}  # the ones this process started
_shared: dict[bool, list[str]] = {}  # the sockets of the ones pytest-xdist's controller did
_turns = {False: 0, True: 0}


def share() -> dict[str, list[str]]:
    """In pytest-xdist's controller: start the servers every worker uses (`use`), once
    for all of them; their sockets."""
    for sdk in (False, True):
        if not _servers[sdk]:
            seeds = random.sample(range(1, 2**32 - 1), 2)
            _servers[sdk].extend(_Server(seed, sdk, wait=False) for seed in seeds)
    return {"plain": [s.path for s in _servers[False]], "sdk": [s.path for s in _servers[True]]}


def use(sockets: dict[str, list[str]]) -> None:
    """In a worker: run through the controller's servers (`share`)."""
    _shared.update({False: sockets["plain"], True: sockets["sdk"]})


def _next_server(sdk: bool) -> str:
    """The socket of one of two servers (with or without the SDK), in turn."""
    turn = _turns[sdk] = (_turns[sdk] + 1) % 2
    if _shared:
        return _shared[sdk][turn]
    servers = _servers[sdk]
    if not servers:
        servers.extend(_Server(seed, sdk) for seed in random.sample(range(1, 2**32 - 1), 2))
    if not servers[turn].alive():
        servers[turn] = _Server(random.randrange(1, 2**32 - 1), sdk)
    return servers[turn].path


def _connect(path: str) -> socket.socket:
    """A connection to the server at `path`, once it has started (it may still be
    importing when a worker's first run comes)."""
    deadline = time.monotonic() + 120
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(path)
            return conn
        except (FileNotFoundError, ConnectionRefusedError):
            conn.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def close() -> None:
    """End the servers (at the end of the session)."""
    for servers in _servers.values():
        while servers:
            servers.pop().close()


def forkable(env: dict[str, str]) -> bool:
    """Whether a forked child can stand in for a fresh interpreter with this environment."""
    if os.environ.get("CURATOR_TEST_SPAWN") == "1" or not hasattr(os, "fork"):
        return False
    startup = {k: v for k, v in env.items() if k.startswith(STARTUP_VARIABLES)}
    return startup == _STARTUP


def run(
    args: list[str] | tuple[str, ...],
    *,
    cwd: Path | str,
    env: dict[str, str],
    input: str | bytes | None = None,
    text: bool = True,
    timeout: float | None = None,
    preexec_fn: Callable[[], Any] | None = None,
) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run([sys.executable, "-m", "curator", *args], capture_output=True, ...)`."""
    command = [sys.executable, "-m", "curator", *args]
    if preexec_fn is not None or not forkable(env):
        return subprocess.run(
            command,
            cwd=cwd,
            env=env,
            input=input,
            capture_output=True,
            text=text,
            timeout=timeout,
            preexec_fn=preexec_fn,
        )
    encoding = "utf-8" if sys.flags.utf8_mode else _locale_encoding()  # as subprocess does
    path = _next_server(sdk=bool(env.get("ANTHROPIC_API_KEY")))
    umask = os.umask(0o22)
    os.umask(umask)
    request = json.dumps(
        {"args": list(args), "cwd": os.fspath(cwd), "env": env, "umask": umask}
    ).encode()
    conn = _connect(path)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if input is not None else (0, -1)
    try:
        socket.send_fds(conn, [_HEADER.pack(len(request)) + request], [in_r, out_w, err_w])
    finally:
        os.close(out_w)
        os.close(err_w)
        if in_w != -1:
            os.close(in_r)
    replies = conn.makefile("rb")
    pid = json.loads(replies.readline())["pid"]
    data = input.encode(encoding) if isinstance(input, str) else input
    stdout, stderr, timed_out = _communicate(in_w, out_r, err_r, data, timeout)
    if timed_out:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    line = replies.readline()
    replies.close()
    conn.close()
    if timed_out:
        raise subprocess.TimeoutExpired(command, timeout or 0, stdout, stderr)
    ended = json.loads(line)
    code = ended["code"]
    global cpu_seconds
    cpu_seconds += ended["cpu"]
    if text:
        return subprocess.CompletedProcess(
            command, code, _translate(stdout, encoding), _translate(stderr, encoding)
        )
    return subprocess.CompletedProcess(command, code, stdout, stderr)


def _locale_encoding() -> str:
    getencoding = getattr(locale, "getencoding", None)  # Python 3.11+
    return str(getencoding()) if getencoding else locale.getpreferredencoding(False)


def _translate(data: bytes, encoding: str) -> str:
    """As `subprocess.run(text=True)` decodes: universal newlines."""
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def _communicate(
    in_w: int, out_r: int, err_r: int, data: bytes | None, timeout: float | None
) -> tuple[bytes, bytes, bool]:
    """Write `data` to the child's stdin and read its stdout and stderr to their end."""
    deadline = None if timeout is None else time.monotonic() + timeout
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    selector = selectors.DefaultSelector()
    selector.register(out_r, selectors.EVENT_READ)
    selector.register(err_r, selectors.EVENT_READ)
    view = memoryview(data or b"")
    if in_w != -1:
        if view:
            os.set_blocking(in_w, False)
            selector.register(in_w, selectors.EVENT_WRITE)
        else:
            os.close(in_w)
    timed_out = False
    try:
        while selector.get_map():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                timed_out = True
                break
            for key, _ in selector.select(left):
                fd = key.fd
                if fd == in_w:
                    try:
                        written = os.write(in_w, view[:65536])
                    except BrokenPipeError:
                        written = len(view)
                    view = view[written:]
                    if not view:
                        selector.unregister(in_w)
                        os.close(in_w)
                    continue
                chunk = os.read(fd, 65536)
                if chunk:
                    chunks[fd].append(chunk)
                else:
                    selector.unregister(fd)
                    os.close(fd)
    finally:
        for key in list(selector.get_map().values()):
            os.close(key.fd)
        selector.close()
    return b"".join(chunks[out_r]), b"".join(chunks[err_r]), timed_out


if __name__ == "__main__":
    _serve(sys.argv[1], sys.argv[2] == "sdk")
