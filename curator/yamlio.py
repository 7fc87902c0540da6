"""The one YAML loader: safe, C-accelerated when available, with line numbers on request.

PyYAML is imported on the first parse: a warm run whose memories' frontmatter is cached
and that has no config file never needs it.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.errors import UserError

if TYPE_CHECKING:
    import yaml


@lru_cache(maxsize=1)
def _loader() -> type[yaml.SafeLoader]:
    import yaml

    base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[valid-type,misc]
        """The safe loader, except that a timestamp naming no real day stays text."""

    def timestamp(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
        # `2026-02-30` or `0000-00-00` would raise ValueError out of the loader: keep the
        # text and let the caller judge it (frontmatter dates become a CUR001 diagnostic).
        try:
            return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
        except (ValueError, OverflowError):
            return loader.construct_scalar(node)

    Loader.add_constructor("tag:yaml.org,2002:timestamp", timestamp)
    return Loader


def yaml_error() -> type[Exception]:
    """`yaml.YAMLError`, for callers that catch it without importing PyYAML themselves."""
    import yaml

    return yaml.YAMLError


def load(text: str) -> Any:
    """Parse YAML text; raises yaml.YAMLError."""
    import yaml

    return yaml.load(text, Loader=_loader())


def error_line(exc: Exception) -> int | None:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return None if mark is None else int(mark.line) + 1


def load_file(path: Path) -> tuple[Any, dict[str, int]]:
    """Load a YAML file as data plus the 1-based line of each key of its top-level mapping.

    Any failure is a UserError naming the file and line.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read: {exc}", path) from None
    import yaml

    try:
        node = yaml.compose(text, Loader=_loader())
        data = load(text)
    except yaml.YAMLError as exc:
        reason = getattr(exc, "problem", None) or str(exc)
        raise UserError(f"invalid YAML: {reason}", path, error_line(exc)) from None
    return data, key_lines(node)


def key_lines(node: yaml.Node | None, prefix: str = "") -> dict[str, int]:
    """Map dotted key paths (`rules.CUR101.severity`) to their 1-based lines."""
    import yaml

    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = f"{prefix}{key_node.value}"
            lines[key] = key_node.start_mark.line + 1
            lines.update(key_lines(value_node, key + "."))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            key = f"{prefix}{i}"
            lines[key] = item.start_mark.line + 1
            lines.update(key_lines(item, key + "."))
    return lines
