"""The format of curator's caches: JSON, with tags for the values JSON lacks.

A cache is only ever a shortcut, and a file anyone can write to the storage root must not
be able to run code when curator reads it: pickle would (its loader calls constructors the
file names), JSON cannot. Values curator caches that JSON lacks are written as one-key
objects whose key starts with `$` (`{"$date": "2026-05-01"}`, `{"$tuple": [...]}`, a
dataclass as `{"$Rule": {field: value}}`); a dict that could be mistaken for one is written
as its pairs. Reading builds only the classes named in `CLASSES`; any other class,
a NamedTuple included (it would come back a plain tuple), cannot be written.

Anything that does not decode to what was written (a torn file, another version's
layout, a foreign file) raises `CacheError`: the caller treats it as a miss.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

from curator.models import Diagnostic, Edit, Fix, Rule, RuleTest, Severity


class CacheError(ValueError):
    """A cache file that cannot be read back as what curator wrote."""


# The dataclasses a cache may hold; reading a file builds these and nothing else.
CLASSES: dict[str, type[Any]] = {
    cls.__name__: cls for cls in (Rule, RuleTest, Diagnostic, Fix, Edit)
}
# Extra encoders for values of other modules (a rule's lazily compiled pattern), by type:
# (tag, to JSON, from JSON). Registered by the module that owns the type.
EXTRA: dict[type[Any], tuple[str, Callable[[Any], Any], Callable[[Any], Any]]] = {}


def dumps(value: Any) -> bytes:
    """The value as cache bytes; raises CacheError for a value the format cannot hold."""
    try:
        return json.dumps(_encode(value), ensure_ascii=False, separators=(",", ":")).encode()
    except (TypeError, ValueError) as exc:
        raise CacheError(str(exc)) from None


def loads(data: bytes) -> Any:
    """The value `dumps` wrote; CacheError for anything else."""
    try:
        return json.loads(data, object_hook=_decode)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise CacheError(str(exc)) from None


def read(path: Path) -> Any:
    """A cache file's value, or None when it is missing or unreadable (never an error)."""
    try:
        return loads(path.read_bytes())
    except (OSError, CacheError):
        return None


def write(path: Path, value: Any) -> None:
    """Write a cache file atomically; a value it cannot hold or an unwritable folder only
    costs speed."""
    try:
        data = dumps(value)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except (OSError, CacheError):
        pass


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int, float)):
        if isinstance(value, Severity):
            return {"$Severity": value.name}
        return value
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: _encode(v) for k, v in value.items()}
        return {"$dict": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if type(value) is tuple:  # a NamedTuple is not: read back, it would lose its class
        return {"$tuple": [_encode(v) for v in value]}
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    if isinstance(value, Path):
        return {"$path": str(value)}
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, (set, frozenset)):
        tag = "$set" if isinstance(value, set) else "$frozenset"
        return {tag: [_encode(v) for v in value]}
    extra = EXTRA.get(type(value))
    if extra is not None:
        return {extra[0]: extra[1](value)}
    name = type(value).__name__
    if CLASSES.get(name) is type(value):
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {f"${name}": fields}
    raise CacheError(f"a cache cannot hold a {name}")


_TAGS: dict[str, Callable[[Any], Any]] = {
    "$Severity": lambda v: Severity[v],
    "$dict": lambda v: {_hashable(k): item for k, item in v},
    "$tuple": tuple,
    "$datetime": datetime.fromisoformat,
    "$date": date.fromisoformat,
    "$path": Path,
    "$bytes": lambda v: base64.b64decode(v.encode("ascii"), validate=True),
    "$set": lambda v: {_hashable(x) for x in v},
    "$frozenset": lambda v: frozenset(_hashable(x) for x in v),
}


def _hashable(value: Any) -> Any:
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


def _decode(obj: dict[str, Any]) -> Any:
    if len(obj) != 1:
        return obj
    ((tag, value),) = obj.items()
    if not tag.startswith("$"):
        return obj
    known = _TAGS.get(tag)
    if known is not None:
        return known(value)
    for extra_tag, _, decode in EXTRA.values():
        if extra_tag == tag:
            return decode(value)
    cls = CLASSES.get(tag[1:])
    if cls is None or not isinstance(value, dict):
        raise CacheError(f"unknown cache tag {tag!r}")
    return cls(**value)
