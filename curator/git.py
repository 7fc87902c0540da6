"""Running git in a project curator does not trust: one place, so every call is safe,
bounded, and fails the same quiet way.

Git runs programs that the repository's own configuration names: `core.fsmonitor` (on
`git status`), the clean, smudge and process commands of a filter driver (on `git
status` for a file whose stat data changed, on `git add`), `diff.<driver>.textconv`
(on `git log -p`), external diff commands, the pager, hooks (`post-index-change` when
status refreshes the index), `gpg.program` (when `log.showSignature` is on). curator
runs git in whatever folder a session starts in, so every call goes through `command`
and `environment`, which switch all of them off: no pager, no optional locks (never
`index.lock` taken from under the user's own git), no hooks, no fsmonitor, no textconv
or external diff, no signature checks, no fetch of any kind (no transport is allowed,
so no `core.sshCommand`, `ext::` URL or lazy fetch of a partial clone runs), and each
filter driver the configuration defines emptied (an empty command is no command, and
`required=false` lets git go on without it). A driver whose name `-c` cannot spell (it
holds `=`) makes the call refused rather than run. Aliases never apply: curator runs
built-in commands only, and git does not let an alias shadow one.

Every call ends within its timeout (`CURATOR_GIT_TIMEOUT` caps them all): past it git
and everything it started (its process group) are killed, and the call answers as a
failed one; `unavailable` says why, for the one line a command prints ("history
unavailable"). Claude Code's own git calls do much the same (see docs/reliability.md).

(The history index and the commit dates stream their long `git log` passes through
`stream`.)
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    import subprocess

TIMEOUT_SECONDS = 60
BOUND_VARIABLE = "CURATOR_GIT_TIMEOUT"  # seconds: caps every call's timeout

# Set on every call. Empty `core.fsmonitor` is off in every git version (2.36+ also
# reads "false"; older ones would run a program named "false").
SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", ""),
    ("core.hooksPath", os.devnull),
    ("log.showSignature", "false"),
    ("submodule.recurse", "false"),
    ("gc.auto", "0"),  # a commit (rule self-tests) starts no background gc
    ("maintenance.auto", "false"),
)
GLOBAL_FLAGS = ("--no-pager", "--no-optional-locks")
_NO_DIFF_PROGRAMS = ("--no-textconv", "--no-ext-diff")
# Flags right after the subcommand. Status never runs git inside a submodule, whose
# configuration (and filters) would be another repository's.
SUBCOMMAND_FLAGS: dict[str, tuple[str, ...]] = {
    "log": _NO_DIFF_PROGRAMS,
    "show": _NO_DIFF_PROGRAMS,
    "diff": _NO_DIFF_PROGRAMS,
    "status": ("--ignore-submodules=dirty",),
}
# Subcommands that never read a work tree file's content, so no filter can run: the
# filter drivers need not be listed first (one git process saved).
NO_FILTERS = frozenset(
    {"rev-parse", "config", "ls-tree", "rev-list", "merge-base", "log", "check-ignore", "worktree"}
)
FILTER_OFF = (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))
SAFE_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_NO_LAZY_FETCH": "1",  # git 2.44+; older ones are stopped by the next line
    "GIT_ALLOW_PROTOCOL": "none",  # no transport: nothing is fetched, no ssh or ext:: runs
}
LISTING_SECONDS = 10

_drivers: dict[str, tuple[str, ...] | None] = {}  # cwd -> its filter drivers (None: refused)
# Process groups of git calls still running. Their own groups take them out of reach of a
# signal to curator's (Ctrl-C, the hook's hard limit): `kill_all` reaches them, at exit too.
_live: set[int] = set()
_unavailable: dict[str, str] = {}  # cwd -> why git gave no answer there


def git_output(
    cwd: Path,
    *args: str,
    timeout: float = TIMEOUT_SECONDS,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> bytes | None:
    """stdout of `git -C cwd ARGS`, or None when git is missing, fails, times out or is
    refused. `env` adds to the environment (commit dates for rule self-tests)."""
    done = _run(cwd, args, timeout, stdin, env)
    return done.stdout if done is not None and done.returncode == 0 else None


def git_ok(cwd: Path, *args: str, timeout: float = TIMEOUT_SECONDS) -> bool:
    """Whether `git -C cwd ARGS` exits 0 (for questions git answers by status)."""
    done = _run(cwd, args, timeout, None, None)
    return done is not None and done.returncode == 0


def command(
    cwd: Path, args: Sequence[str], config: Sequence[tuple[str, str]] = ()
) -> list[str] | None:
    """The argv of `git -C cwd ARGS` with every repository-configured program off;
    `config` adds `-c` settings. None when the call must not run (a filter driver that
    cannot be switched off, or its listing failed)."""
    sub, rest = args[0], list(args[1:])
    settings = [*SAFE_CONFIG, *config]
    if sub not in NO_FILTERS:
        drivers = filter_drivers(cwd)
        if drivers is None:
            return None
        settings += [(f"filter.{d}.{key}", value) for d in drivers for key, value in FILTER_OFF]
    flags = [part for key, value in settings for part in ("-c", f"{key}={value}")]
    return [
        "git",
        *GLOBAL_FLAGS,
        "-C",
        str(cwd),
        *flags,
        sub,
        *SUBCOMMAND_FLAGS.get(sub, ()),
        *rest,
    ]


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of every git call: the process's, made safe, plus `extra`."""
    return {**os.environ, **SAFE_ENV, **(extra or {})}


def bound(timeout: float) -> float:
    """`timeout`, capped by `CURATOR_GIT_TIMEOUT` when that is set to a positive number."""
    try:
        cap = float(os.environ.get(BOUND_VARIABLE) or "inf")
    except ValueError:
        return timeout
    return min(timeout, cap) if cap > 0 else timeout


def filter_drivers(cwd: Path) -> tuple[str, ...] | None:
    """The filter drivers git's configuration defines for `cwd` (every scope, includes
    followed; reading configuration runs nothing); None when one has a name `-c` cannot
    spell or the listing failed."""
    key = str(cwd)
    if key not in _drivers:
        listing = ("config", "-z", "--name-only", "--get-regexp", r"^filter\.")
        done = _run(cwd, listing, LISTING_SECONDS, None, None)
        names: tuple[str, ...] | None = None
        if done is not None and done.returncode in (0, 1):  # 1: none defined
            keys = done.stdout.decode("utf-8", "surrogateescape").split("\0")
            names = tuple(dict.fromkeys(k[len("filter.") : k.rindex(".")] for k in keys if k))
            if any("=" in name for name in names):
                why = "a filter driver's name holds '=', so git cannot be told to skip it"
                _unavailable.setdefault(key, why)
                names = None
        _drivers[key] = names
    return _drivers[key]


def unavailable() -> dict[str, str]:
    """Why git gave no answer (timed out, refused), by the folder it ran in, for every
    folder this process ran it in."""
    return dict(_unavailable)


def timed_out(cwd: Path, args: Sequence[str], seconds: float) -> None:
    """Remember that `git ARGS` in `cwd` did not answer within `seconds`."""
    _unavailable.setdefault(str(cwd), f"git {args[0]} did not answer within {seconds:g} s (killed)")


def _run(
    cwd: Path,
    args: Sequence[str],
    timeout: float,
    stdin: bytes | None,
    env: dict[str, str] | None,
) -> subprocess.CompletedProcess[bytes] | None:
    import subprocess  # a store outside any repository runs no git at all

    argv = command(cwd, args)
    if argv is None:
        return None
    seconds = bound(timeout)
    try:
        proc = subprocess.Popen(
            argv,
            env=environment(env),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own group: a timeout kills what git started too
        )
    except OSError:
        return None
    _started(proc)
    try:
        out, err = proc.communicate(stdin, timeout=seconds)
    except subprocess.TimeoutExpired:
        timed_out(cwd, args, seconds)
        return None
    finally:
        end(proc)
        _close(proc)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


class Stream:
    """A git process whose stdout the caller reads as it comes (`stream`)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.expired = False  # killed at its bound

    def kill(self) -> None:
        self.expired = True
        end(self.proc)


@contextlib.contextmanager
def stream(
    cwd: Path,
    args: Sequence[str],
    timeout: float,
    *,
    config: Sequence[tuple[str, str]] = (),
    env: dict[str, str] | None = None,
    stdin: bool = False,
    stderr: bool = False,
) -> Iterator[Stream | None]:
    """`git ARGS` in `cwd` with stdout (and stdin, stderr when asked) as pipes; None when
    git is missing or the call is refused. At `timeout` seconds the process and what it
    started are killed (`Stream.expired`: the output ended early); on leaving, too."""
    import subprocess
    import threading

    argv = command(cwd, args, config)
    if argv is None:
        yield None
        return
    seconds = bound(timeout)
    try:
        proc = subprocess.Popen(
            argv,
            env=environment(env),
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if stderr else subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        yield None
        return
    _started(proc)
    running = Stream(proc)
    watchdog = threading.Timer(seconds, running.kill)
    watchdog.daemon = True
    watchdog.start()
    try:
        yield running
    finally:
        watchdog.cancel()
        end(proc)
        _close(proc)
        if running.expired:
            timed_out(cwd, args, seconds)


def end(proc: subprocess.Popen[bytes]) -> None:
    """Kill a git that is still running, with everything it started, and reap it."""
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            _kill_group(proc.pid, proc)
    with contextlib.suppress(Exception):
        proc.wait()
    _live.discard(proc.pid)


def kill_all() -> None:
    """Kill every git call of this process still running, with what it started."""
    for group in list(_live):
        with contextlib.suppress(OSError):
            _kill_group(group, None)


def _kill_group(group: int, proc: subprocess.Popen[bytes] | None) -> None:
    """SIGKILL to the group git leads; where there are no process groups (Windows), the
    process itself."""
    if sys.platform != "win32" and hasattr(os, "killpg"):
        os.killpg(group, signal.SIGKILL)
    elif proc is not None:
        proc.kill()


def _started(proc: subprocess.Popen[bytes]) -> None:
    if not _live:
        import atexit

        atexit.register(kill_all)  # registering twice only kills twice
    _live.add(proc.pid)


def _close(proc: subprocess.Popen[bytes]) -> None:
    for pipe in (proc.stdout, proc.stderr, proc.stdin):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
