"""Writing to the terminal without click: what `curator lint`'s click-free path needs.

`echo` writes as `click.echo` does for text (a newline unless `nl=False`, a flush), and
is what every command writes through: control characters from a memory's text or file
name are escaped visibly (`\x1b`), never obeyed, and colour codes go when colour is
off, or unset and the stream is not a terminal. `plain_main`
ends a command run without click as click's own `main` ends one: a closed pipe exits 1
quietly, Ctrl-C prints `Aborted!` and exits 1.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable

from curator.errors import UserError
from curator.reporters.printable import for_terminal

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
_CLICK_GAVE_UP = 1  # click's main exits 1 on a closed pipe and on Ctrl-C


def echo(
    text: object = "", *, err: bool = False, nl: bool = True, color: bool | None = None
) -> None:
    """Write `text` to stdout (stderr with `err`), as `click.echo` does for a string: the
    one place curator's text reaches a terminal, a file or a pipe. Control characters are
    escaped (`printable.for_terminal`); colour codes stay only when colour is on (`color`,
    else whether the stream is a terminal)."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return  # no standard stream to write to (pythonw)
    out = str(text) + "\n" if nl else str(text)
    if out:
        stream.write(for_terminal(out, _colours(stream, color)))
    stream.flush()


def _colours(stream: Any, color: bool | None) -> bool:
    if color is not None:
        return color
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def user_errors(func: F) -> F:
    """Print a UserError once, as `curator: error: file:line: message`, and exit 2.

    A fault of the file system (a full disk, a storage folder that is a file, read-only
    or `/dev/null`) is one such line too, naming the path and the cause."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except UserError as exc:
            echo(f"curator: error: {exc}", err=True)
            sys.exit(EXIT_ERROR)
        except BrokenPipeError:
            raise  # the reader went away: the caller's main ends quietly
        except OSError as exc:
            echo(f"curator: error: {os_error(exc)}", err=True)
            sys.exit(EXIT_ERROR)

    return wrapper  # type: ignore[return-value]


def os_error(exc: OSError) -> str:
    """`path: cause` for a failed file operation, on one line."""
    cause = exc.strerror or str(exc)
    return f"{exc.filename}: {cause}" if exc.filename is not None else cause


def plain_main(command: Callable[..., object], params: dict[str, Any]) -> None:
    """Run a command whose options were parsed without click, and exit as click would."""
    try:
        try:
            command(**params)
        except BrokenPipeError:
            # The reader went away (`| head`): nothing more can be said, and Python's own
            # flush at exit must not complain either.
            with contextlib.suppress(AttributeError, OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(_CLICK_GAVE_UP)
        except (EOFError, KeyboardInterrupt):
            echo(err=True)  # closes the terminal's ^C echo
            echo("Aborted!", err=True)
            sys.exit(_CLICK_GAVE_UP)
        sys.exit(EXIT_CLEAN)
    except (EOFError, KeyboardInterrupt):
        sys.exit(_CLICK_GAVE_UP)  # interrupted while saying so: the exit code still stands
