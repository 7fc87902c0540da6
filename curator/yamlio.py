"""The one YAML loader: safe, C-accelerated when available, with line numbers on request.

Bounded: a document over MAX_BYTES, or whose aliases expand to more than MAX_NODES nodes
(a "billion laughs" alias bomb, or an alias that contains itself), is refused before
anything walks it.

PyYAML is imported on the first parse: a warm run whose memories' frontmatter is cached
and that has no config file never needs it.
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path

from curator.errors import UserError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from typing import Any

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


MAX_BYTES = 1024 * 1024  # rule files and configurations are a few KiB; 25 KiB the largest
MAX_NODES = 100_000  # nodes of the document with every alias expanded


class LimitExceeded(ValueError):
    """A document curator refuses to load: too large, or aliases that expand too far.
    Not a `yaml.YAMLError` (PyYAML is imported lazily): callers catch it by name."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def _children(node: yaml.Node) -> list[yaml.Node]:
    import yaml

    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def expanded_size(node: yaml.Node | None, limit: int = MAX_NODES) -> int:
    """Nodes in the document once every alias is expanded, counted without expanding
    (each shared node once, by post-order over the graph). Raises LimitExceeded past
    `limit` or on an alias that contains itself."""
    if node is None:
        return 0
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, done = stack.pop()
        key = id(current)
        if done:
            on_path.discard(key)
            size = 1 + sum(sizes[id(c)] for c in _children(current))
            if size > limit:
                raise LimitExceeded(
                    f"its aliases expand to more than {limit:,} nodes (an alias bomb?); refused"
                )
            sizes[key] = size
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise LimitExceeded("an alias contains itself; refused")
        on_path.add(key)
        stack.append((current, True))
        stack.extend((c, False) for c in _children(current) if id(c) not in sizes)
    return sizes[id(node)]


def _too_large(size: int) -> LimitExceeded:
    limit = f"the {MAX_BYTES:,}-byte limit for YAML"
    return LimitExceeded(f"it is {size:,} bytes, over {limit}; refused")


def _compose_and_load(text: str) -> tuple[yaml.Node | None, Any]:
    """The document's node graph (aliases checked) and its data, from one parse."""
    if len(text) > MAX_BYTES:
        raise _too_large(len(text.encode("utf-8", "surrogatepass")))
    loader = _loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        if "*" in text:  # no alias, nothing to expand
            expanded_size(node)
        return node, loader.construct_document(node)
    finally:
        loader.dispose()


def load(text: str) -> Any:
    """Parse YAML text; raises yaml.YAMLError, or LimitExceeded."""
    return _compose_and_load(text)[1]


def error_line(exc: Exception) -> int | None:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return None if mark is None else int(mark.line) + 1


def load_file(path: Path) -> tuple[Any, dict[str, int]]:
    """Load a YAML file as data plus the 1-based line of each key of its top-level mapping.

    Any failure is a UserError naming the file and line.
    """
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise UserError("not a regular file; not read", path)  # a FIFO would block
        if info.st_size > MAX_BYTES:
            raise UserError(_too_large(info.st_size).problem, path)
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read: {exc}", path) from None
    import yaml

    try:
        node, data = _compose_and_load(text)
    except LimitExceeded as exc:
        raise UserError(exc.problem, path) from None
    except yaml.YAMLError as exc:
        reason = getattr(exc, "problem", None) or str(exc)
        raise UserError(f"invalid YAML: {reason}", path, error_line(exc)) from None
    except RecursionError:
        raise UserError("invalid YAML: nested too deeply", path) from None
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
