"""Options parsed without click: the forms `curator lint` is run with from pre-commit, CI and
by hand, and the code lists every command takes.

Loading click costs a small store's lint about a tenth of its run, so `cli.main` hands
`lint`'s arguments to `lint_params` first. It understands each option of `curator lint`
in its plain forms (`--opt value`, `--opt=value`, flags) and returns exactly the
parameters click would; anything else (help, `--`, `-oFILE`, a value click would refuse,
a path click would check and reject) returns None, and click parses the command line as
before, errors and all. A test holds the two parsers to the same answers.
"""

from __future__ import annotations

import os
import stat
from datetime import date
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

# `curator lint`'s flags: the token -> (parameter, value).
FLAGS: dict[str, tuple[str, bool]] = {
    "--statistics": ("show_statistics", True),
    "--exit-zero": ("exit_zero", True),
    "--llm": ("llm", True),
    "--no-llm": ("llm", False),
    "--batch": ("batch", True),
    "--all": ("all_stores", True),
    "--persist": ("persist", True),
    "--color": ("color", True),
    "--no-color": ("color", False),
    "--show-silenced": ("show_silenced", True),
    "--verbose": ("verbose", True),
    "-v": ("verbose", True),
}
# Options that take a value: the token -> parameter.
VALUES: dict[str, str] = {
    "--select": "select",
    "--extend-select": "extend_select",
    "--ignore": "ignore",
    "--config": "config_path",
    "--output-format": "output_format",
    "--output-file": "output_file",
    "-o": "output_file",
    "--fail-on": "fail_on",
    "--today": "today",
    "--repo-root": "repo_root",
    "--store": "store_paths",
}
MULTIPLE = frozenset({"select", "extend_select", "ignore", "store_paths"})
FAIL_ON = ("error", "warning", "info")


def split_codes(values: tuple[str, ...]) -> list[str]:
    """`--select A,B --select C` as ["A", "B", "C"]."""
    return [code.strip() for value in values for code in value.split(",") if code.strip()]


def lint_defaults() -> dict[str, Any]:
    """The parameters of `curator lint` given no option, as click passes them."""
    params: dict[str, Any] = {"paths": ()}
    params.update({name: () for name in MULTIPLE})
    params.update({name: None for name in VALUES.values() if name not in MULTIPLE})
    params.update({name: False for name, _ in FLAGS.values()})
    params["color"] = None
    return params


def lint_params(args: list[str]) -> dict[str, Any] | None:
    """`curator lint`'s parameters from its arguments, or None when click must parse them."""
    from curator.reporters import FORMATS

    params = lint_defaults()
    paths: list[Path] = []
    many: dict[str, list[Any]] = {name: [] for name in MULTIPLE}
    rest = list(args)
    while rest:
        token = rest.pop(0)
        if not token.startswith("-"):
            path = _path(token, file_okay=True, dir_okay=True, exists=False)
            if path is None:
                return None
            paths.append(path)
            continue
        if token in FLAGS:
            name, flag = FLAGS[token]
            params[name] = flag
            continue
        option, equals, value = token.partition("=")
        if option not in VALUES or (option == "-o" and equals):
            return None  # help, `--`, a short cluster, an unknown option: click's to say
        if not equals:
            if not rest or rest[0].startswith("-"):
                return None  # a missing value, or one that looks like an option
            value = rest.pop(0)
        name = VALUES[option]
        converted = _convert(name, value, FORMATS)
        if converted is None:
            return None
        if name in MULTIPLE:
            many[name].append(converted)
        else:
            params[name] = converted
    params["paths"] = tuple(paths)
    params.update({name: tuple(values) for name, values in many.items()})
    return params


def _convert(name: str, value: str, formats: Any) -> Any:
    """The value click would pass, or None where click would refuse it or check more."""
    if name == "store_paths":
        return _path(value, file_okay=True, dir_okay=True, exists=False)
    if name in MULTIPLE:
        return value
    if name == "output_format":
        return value if value in formats else None
    if name == "fail_on":
        return value if value in FAIL_ON else None
    if name == "today":
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    if name == "repo_root":
        return _path(value, file_okay=False, dir_okay=True, exists=True)
    return _path(value, file_okay=True, dir_okay=False, exists=False)  # config, output file


def _path(value: str, *, file_okay: bool, dir_okay: bool, exists: bool) -> Path | None:
    """`click.Path(path_type=Path)`'s answer for a path it accepts; None for one it refuses."""
    if not value:
        return None
    try:
        info = os.stat(value)
    except ValueError:
        return None  # a NUL in the path: click's to report
    except OSError:
        return None if exists else Path(value)
    if not file_okay and stat.S_ISREG(info.st_mode):
        return None
    if not dir_okay and stat.S_ISDIR(info.st_mode):
        return None
    if not os.access(value, os.R_OK):
        return None
    return Path(value)
