"""The session-start hook's answer, promised within a deadline whatever the store holds.

The hook forks: the child does the work (find the store, scan, persist) and sends its
answer up a pipe; the parent waits for it until the deadline and prints it. Past the
deadline the parent answers from what finished (the findings stored so far) and exits,
and the child goes on in the background, detached from Claude Code's pipes, until it is
done or its own hard limit kills it with everything it started in its process group
(the detached history build and LLM sweep are their own sessions and keep running).

The child speaks one JSON object a line on one pipe: `{"tell": {...}}` for what the
parent may need if it must answer alone (the project's state folder), then
`{"answer": {...}}`. Its stderr is a second pipe the parent copies to its own while it
waits (once the parent has gone, the child's stderr writes go nowhere).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

Send = Callable[[dict[str, Any]], None]


@dataclass
class Heard:
    """What the parent heard from the child by the time it answered."""

    answer: dict[str, Any] | None = None
    told: dict[str, Any] = field(default_factory=dict)
    finished: bool = False  # the child's answer came in time


class _QuietStderr:
    """The child's sys.stderr: once the parent has gone, a write is dropped, not an error."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        with contextlib.suppress(OSError, ValueError):
            self._stream.write(text)
            self._stream.flush()
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()


def answer_within(
    deadline: float,
    work: Callable[[Send], dict[str, Any]],
    background_limit: int,
    stderr: TextIO | None = None,
) -> Heard:
    """Run `work` in a child and hear its answer until `deadline` (monotonic seconds).

    `work(send)` returns the hook's output and may `send({"tell": {...}})` early. Where
    fork is missing (Windows), `work` runs inline, unbounded: `session.start` calls this
    there only in the detached process that scans for a hook that has already answered.
    The child lives at most `background_limit` seconds.
    """
    err = stderr or sys.stderr
    if sys.platform == "win32" or not hasattr(os, "fork"):
        return Heard(work(lambda message: None), finished=True)
    read_end, write_end = os.pipe()
    err_read, err_write = os.pipe()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        os.close(err_read)
        _child(write_end, err_write, work, background_limit)
    os.close(write_end)
    os.close(err_write)
    try:
        heard = _listen(read_end, err_read, deadline, err)
    finally:
        os.close(read_end)  # a late child's writes now fail quietly
        os.close(err_read)
    if heard.finished:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reap it if it is gone already
    return heard


def _listen(fd: int, err_fd: int, deadline: float, err: TextIO) -> Heard:
    """Read messages and copy stderr until the answer and the end of stderr, or the
    deadline, whichever comes first."""
    heard = Heard()
    buffer = b""
    open_fds = [fd, err_fd]
    while open_fds:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select(open_fds, [], [], left)
        if not ready:
            break
        for ready_fd in ready:
            chunk = os.read(ready_fd, 65536)
            if not chunk:  # closed: the child is done with it (or gone)
                open_fds.remove(ready_fd)
            elif ready_fd == err_fd:
                err.write(chunk.decode("utf-8", "replace"))
                err.flush()
            else:
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    _take(_message(line), heard)
    return heard


def _take(message: dict[str, Any], heard: Heard) -> None:
    if isinstance(message.get("tell"), dict):
        heard.told.update(message["tell"])
    if isinstance(message.get("answer"), dict):
        heard.answer, heard.finished = message["answer"], True


def _message(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return {}
    return message if isinstance(message, dict) else {}


def _child(
    write_end: int, err_write: int, work: Callable[[Send], dict[str, Any]], limit: int
) -> None:
    """Do the work and send the answer; exit without returning, whatever happens."""
    status = 0
    try:
        _own_group_with_limit(limit)
        # Claude Code waits until the hook's stdout and stderr close: let go of them.
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(err_write, 2)
        os.close(err_write)
        sys.stderr = _QuietStderr(sys.stderr)

        def send(message: dict[str, Any]) -> None:
            data = memoryview((json.dumps(message, default=str) + "\n").encode("utf-8"))
            with contextlib.suppress(OSError):  # the parent answered and left
                while data:
                    data = data[os.write(write_end, data) :]

        answer = work(send)
        sys.stderr.flush()
        os.dup2(null, 2)  # stderr ends before the answer, so the parent has all of it
        send({"answer": answer})
    except BaseException:  # the child must reach os._exit
        status = 1
    finally:
        os._exit(status)


def _own_group_with_limit(limit: int) -> None:
    """The forked child's own process group, ended whole after `limit` seconds (POSIX
    only, as fork is)."""
    if sys.platform == "win32":
        return
    os.setsid()  # its own process group: the hard limit takes its git calls along
    signal.signal(signal.SIGALRM, _kill_group)
    signal.alarm(max(1, limit))
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource  # a loop in C code the alarm cannot interrupt still ends

        resource.setrlimit(resource.RLIMIT_CPU, (max(1, limit), max(1, limit) + 5))


def _kill_group(signum: int, frame: object) -> None:
    from curator.git import kill_all  # git runs in groups of its own

    kill_all()
    if sys.platform != "win32":  # set only by the forked child's alarm
        os.killpg(os.getpgid(0), signal.SIGKILL)
