"""`.curator.yaml`: discovery, validation against the defaults, dotted access.

Found by walking up from the working directory, then `$XDG_CONFIG_HOME/curator/config.yaml`,
then the built-in defaults; `--config` pins one file. Every key is validated; an unknown
key, a wrong type or a number outside its range (`RANGES`) is a UserError with the file
and line.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

from curator import yamlio
from curator.errors import UserError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from typing import Any

CONFIG_NAME = ".curator.yaml"

# None means "a string, unset by default". Lists hold strings.
DEFAULTS: dict[str, Any] = {
    "memory_store": None,
    "storage": None,
    "repo_root": None,
    # store slug (or glob over slugs) -> the repository its memories talk about; null = none
    "repositories": {},
    "select": [],
    "extend_select": [],
    "ignore": [],
    "rules": {},
    "rule_paths": [],
    "fail_on": "warning",
    # `enabled: false` turns the session-start scan (cheap) or the LLM sweep (llm) off for
    # a project without uninstalling anything.
    # `hook_timeout_ms`: the hook answers within it whatever happens; what is left goes
    # on in the background for at most `background_limit_seconds`.
    "cheap": {
        "enabled": True,
        "budget_ms": 500,
        "skip_if_session_age_under_seconds": 5,
        "hook_timeout_ms": 3000,
        "background_limit_seconds": 60,
    },
    "llm": {
        "enabled": True,
        "provider": "auto",
        "model": "claude-haiku-4-5-20251001",
        "interval_days": 7,
        "max_pairs": 50,
        "base_url": None,
        "timeout_seconds": 60,
        "max_retries": 2,
        "answer_attempts": 2,
        "claude_command": "claude",
        "batch": False,
        "batch_poll_seconds": 10,
        "batch_wait_seconds": 3600,
    },
    "references": {
        "check_urls": False,
        "url_allowlist": [],
        # The repository folder that is a copy of ~/.claude (a dotfiles repository);
        # unset: found by the path rule's `home_mirrors`.
        "home_in_repo": None,
        # What a dotfiles repository's checkout is called: a store it keeps whose slug names
        # a folder so called (or the checkout's own folder name), or a folder inside it, is
        # a store of that repository.
        "dotfiles_names": ["dotfiles", ".dotfiles", "dots", ".dots"],
        # Files whose removed lines do not count as code that had an identifier.
        "history_exclude": [
            "*.md",
            "*.mdx",
            "*.markdown",
            "*.txt",
            "*.rst",
            "*.adoc",
            "*.lock",
            "*.min.js",
            "*.map",
            "*.svg",
            "package-lock.json",
        ],
    },
    "usage": {"window_days": 30},
    # Files in a store folder that are not memories, by name (globs on the file name or
    # the store-relative path): the owner's notes and the archive index Claude Code's
    # compaction scripts leave. No memory rule reads them; secrets are still looked for.
    "not_memories": [
        "README.md",
        "README.*.md",
        "SETUP.md",
        "CHANGELOG.md",
        "LICENSE.md",
        "CONTRIBUTING.md",
        "*-archive.md",
        "*_archive.md",
    ],
    # Memory types a team uses on purpose besides Claude Code's four (CUR003).
    "types": {"extra": []},
    "surfacer": {"max_pointer_chars": 200, "skip_when_zero": True},
}
# Every numeric setting's range, both ends included: a value outside it is a config error
# (a negative timeout, a deadline past what a timer can hold).
RANGES: dict[str, tuple[int, int]] = {
    "cheap.budget_ms": (0, 600_000),
    "cheap.skip_if_session_age_under_seconds": (0, 86_400),
    "cheap.hook_timeout_ms": (1, 600_000),
    "cheap.background_limit_seconds": (1, 86_400),
    "llm.interval_days": (0, 3_650),
    "llm.max_pairs": (0, 100_000),
    "llm.timeout_seconds": (1, 3_600),
    "llm.max_retries": (0, 20),
    "llm.answer_attempts": (1, 20),
    "llm.batch_poll_seconds": (0, 3_600),
    "llm.batch_wait_seconds": (0, 604_800),
    "usage.window_days": (1, 3_650),
    "surfacer.max_pointer_chars": (20, 100_000),
}
PATH_KEYS = ("memory_store", "storage", "repo_root")
SEVERITIES = ("error", "warning", "info")


class Config:
    """The validated configuration (`data`, every key present) and the file it came from.

    Read-only. A plain class, not a dataclass: the session-start hook's quick path
    imports this module, and importing `dataclasses` would cost it more than its work.
    """

    __slots__ = ("data", "source")
    data: dict[str, Any]
    source: Path | None

    def __init__(self, data: dict[str, Any] | None = None, source: Path | None = None) -> None:
        object.__setattr__(self, "data", copy.deepcopy(DEFAULTS) if data is None else data)
        object.__setattr__(self, "source", source)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Config is read-only (tried to set {name!r}); use with_value")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Config):
            return NotImplemented
        return (self.data, self.source) == (other.data, other.source)

    __hash__ = None  # type: ignore[assignment]  # its data is a dict

    def __repr__(self) -> str:
        return f"Config(data={self.data!r}, source={self.source!r})"

    def get(self, dotted: str) -> Any:
        value: Any = self.data
        for part in dotted.split("."):
            value = value[part]
        return value

    def path(self, key: str) -> Path | None:
        """A path-valued key, relative to the config file's folder."""
        value = self.data.get(key)
        if not value:
            return None
        path = Path(os.path.expandvars(value)).expanduser()
        if not path.is_absolute() and self.source is not None:
            path = self.source.parent / path
        return path

    def repositories(self) -> list[tuple[str, Path | None]]:
        """`repositories:` as (slug or glob, repository root or None), in file order."""
        out: list[tuple[str, Path | None]] = []
        for pattern, value in self.data["repositories"].items():
            root = None
            if value:
                root = Path(os.path.expandvars(value)).expanduser()
                if not root.is_absolute() and self.source is not None:
                    root = self.source.parent / root
            out.append((str(pattern), root))
        return out

    def with_value(self, dotted: str, value: Any) -> Config:
        """A copy with one key set (command-line flags that override the file)."""
        data = copy.deepcopy(self.data)
        *parents, last = dotted.split(".")
        target = data
        for part in parents:
            target = target[part]
        target[last] = value
        return Config(data=data, source=self.source)

    def rule_paths(self) -> list[Path]:
        base = self.source.parent if self.source is not None else Path.cwd()
        return [base / Path(p).expanduser() for p in self.data["rule_paths"]]


def config_candidates(cwd: Path) -> list[Path]:
    """Where a configuration may be, first found wins: `.curator.yaml` in `cwd` or a
    folder above it, then the user's `$XDG_CONFIG_HOME/curator/config.yaml`."""
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return [*(folder / CONFIG_NAME for folder in (cwd, *cwd.parents)),
            Path(xdg) / "curator" / "config.yaml"]  # fmt: skip


def find_config(cwd: Path) -> Path | None:
    return next((path for path in config_candidates(cwd) if path.is_file()), None)


def load_config(explicit: Path | None = None, cwd: Path | None = None) -> Config:
    """Load and validate the configuration; defaults when there is no file."""
    if explicit is not None and not explicit.is_file():
        raise UserError("config file not found", explicit)
    path = explicit or find_config((cwd or Path.cwd()).resolve())
    if path is None:
        return Config()
    raw, lines = yamlio.load_file(path)
    if raw is None:
        return Config(source=path)
    if not isinstance(raw, dict):
        raise UserError("configuration must be a mapping", path, 1)
    data = copy.deepcopy(DEFAULTS)
    _merge(data, raw, DEFAULTS, path, lines, "")
    if data["fail_on"] not in SEVERITIES:
        raise UserError(
            f"fail_on must be one of {', '.join(SEVERITIES)}", path, lines.get("fail_on")
        )
    _check_rule_overrides(data["rules"], path, lines)
    _check_repositories(data["repositories"], path, lines)
    return Config(data=data, source=path)


def _type_name(default: Any) -> str:
    if default is None:
        return "a string"
    return {
        bool: "true or false",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a mapping",
    }[type(default)]


def _merge(
    into: dict[str, Any],
    raw: dict[Any, Any],
    schema: dict[str, Any],
    path: Path,
    lines: dict[str, int],
    prefix: str,
) -> None:
    for key, value in raw.items():
        dotted = f"{prefix}{key}"
        line = lines.get(dotted)
        if key not in schema:
            known = ", ".join(sorted(schema))
            raise UserError(f"unknown key '{dotted}' (known: {known})", path, line)
        default = schema[key]
        if isinstance(default, dict) and default and key != "rules":
            if not isinstance(value, dict):
                raise UserError(f"'{dotted}' must be a mapping", path, line)
            _merge(into[key], value, default, path, lines, dotted + ".")
            continue
        if not _fits(value, default):
            raise UserError(f"'{dotted}' must be {_type_name(default)}", path, line)
        if dotted in RANGES and not RANGES[dotted][0] <= value <= RANGES[dotted][1]:
            low, high = RANGES[dotted]
            raise UserError(f"'{dotted}' must be from {low:,} to {high:,}", path, line)
        into[key] = value


def _fits(value: Any, default: Any) -> bool:
    if default is None:
        return value is None or isinstance(value, str)
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, list):
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if isinstance(default, dict):
        return isinstance(value, dict)
    return isinstance(value, type(default))


def _check_rule_overrides(rules: dict[Any, Any], path: Path, lines: dict[str, int]) -> None:
    for key, override in rules.items():
        line = lines.get(f"rules.{key}")
        if not isinstance(override, dict):
            raise UserError(f"rules.{key} must be a mapping of severity/params", path, line)
        for sub, value in override.items():
            if sub not in ("severity", "params"):
                raise UserError(
                    f"unknown key 'rules.{key}.{sub}' (known: params, severity)",
                    path,
                    lines.get(f"rules.{key}.{sub}", line),
                )
            if sub == "severity" and value not in SEVERITIES:
                raise UserError(
                    f"rules.{key}.severity must be one of {', '.join(SEVERITIES)}",
                    path,
                    lines.get(f"rules.{key}.severity", line),
                )
            if sub == "params" and not isinstance(value, dict):
                raise UserError(f"rules.{key}.params must be a mapping", path, line)


def _check_repositories(mapping: dict[Any, Any], path: Path, lines: dict[str, int]) -> None:
    for key, value in mapping.items():
        line = lines.get(f"repositories.{key}", lines.get("repositories"))
        if not isinstance(key, str) or not key:
            raise UserError("repositories: keys must be store slugs or globs", path, line)
        if value is not None and not isinstance(value, str):
            raise UserError(
                f"repositories.{key} must be a repository path (or null for none)", path, line
            )


def rule_override(config: Config, code: str, name: str) -> dict[str, Any]:
    rules: dict[str, Any] = config.data["rules"]
    merged: dict[str, Any] = {}
    for key in (name, code):
        merged.update(rules.get(key) or {})
    return merged
