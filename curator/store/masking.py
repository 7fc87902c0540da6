"""curator never repeats a secret: the masked form, and the one function that applies it.

Every path that shows or keeps text taken from a memory goes through `mask` (a string)
or `mask_value` (a detail dict, a payload): diagnostics as the engine makes them, the
source lines the `full` reporter prints, `curator review`'s excerpt, fix diffs and
backups, the event log and every LLM prompt. A secret becomes `ghp_…(40)`: its first
characters (at most 4, a quarter of it at most) and its length.

The families are those of the loaded rule set (`use`, called when rules are loaded), so
a rule tuned in `.curator.yaml` masks what it reports; before any rules are loaded, the
built-in `rules/secrets/` pack is read.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from curator.store.secrets import (
    PARAMS,
    Detector,
    Family,
    ScanTimeout,
    Secret,
    family_of,
    find_secrets,
)
from curator.yamlio import load_file

ELLIPSIS = "…"
WITHHELD = "[withheld: the secret scan timed out on this text]"

_installed: Detector | None = None


def masked_form(value: str) -> str:
    """`ghp_…(40)`: enough to recognise the credential, too little to use it."""
    shown = value[: min(4, len(value) // 4)]
    return f"{shown}{ELLIPSIS}({len(value)})"


def use(families: Iterable[Family]) -> None:
    """Mask with these families from now on (the loaded rule set's secrets rules)."""
    global _installed
    _installed = Detector(tuple(families))
    _mask_short.cache_clear()


def detector() -> Detector:
    """What masking finds secrets with: the loaded rule set's, else the built-in pack's."""
    return _installed if _installed is not None else _builtin()


def hide(text: str, secrets: list[Secret], replacement: str | None = None) -> str:
    """`text` with each secret's span replaced by its masked form (or `replacement`).

    A secret that spans lines keeps its line breaks, so line numbers stay true.
    """
    out: list[str] = []
    last = 0
    for secret in sorted(secrets, key=lambda s: s.start):
        if secret.start < last:
            continue
        shown = replacement if replacement is not None else masked_form(secret.value)
        breaks = "\n" * text.count("\n", secret.start, secret.end) if replacement is None else ""
        out.extend((text[last : secret.start], shown, breaks))
        last = secret.end
    out.append(text[last:])
    return "".join(out)


class Shown(NamedTuple):
    """A text as curator shows it, masked, with its original's columns mapped onto it."""

    text: str
    lines: tuple[str, ...]
    # Per original line: (first column, past-the-end column, masked length), 1-based.
    edits: dict[int, tuple[tuple[int, int, int], ...]]

    def column(self, line: int, column: int) -> int:
        """Where column `column` of line `line` of the original is in the shown line."""
        shift = 0
        for start, end, length in self.edits.get(line, ()):
            if column < start:
                break
            if column < end:
                return start + shift  # inside a secret: its masked form
            shift += length - (end - start)
        return column + shift


def shown(text: str) -> Shown:
    """`text` masked (as `mask`) with the column map a snippet's caret needs."""
    try:
        found = find_secrets(text, detector()) if len(text) >= 8 else []
    except ScanTimeout:
        return Shown(WITHHELD, (WITHHELD,), {})
    edits: dict[int, list[tuple[int, int, int]]] = {}
    for secret in found:
        line = text.count("\n", 0, secret.start) + 1
        start = secret.start - text.rfind("\n", 0, secret.start)
        end = start + (secret.end - secret.start)
        if "\n" in text[secret.start : secret.end]:
            end = start + text.find("\n", secret.start) - secret.start  # up to its line's end
        edits.setdefault(line, []).append((start, end, len(masked_form(secret.value))))
    masked = hide(text, found) if found else text
    return Shown(masked, _lines(masked), {k: tuple(v) for k, v in edits.items()})


def _lines(text: str) -> tuple[str, ...]:
    """Lines as diagnostics count them: at `\n` only (a CR, VT, FF or U+2028 inside a
    line is a character of it, shown escaped), a CRLF's CR dropped."""
    return tuple(line.removesuffix("\r") for line in text.split("\n"))


def mask(text: str) -> str:
    """`text` with every secret masked."""
    if len(text) < 8:
        return text  # shorter than any secret worth the name
    if len(text) <= _SHORT:
        return _mask_short(text)  # details repeat (a host, a path): remember them
    return _mask(text)


_SHORT = 512


def holds_secret(text: str) -> bool:
    """`text` holds a secret (or could not be scanned in time): it must not be kept."""
    return mask(text) != text


# A lint of 10,000 memories masks some 30,000 distinct short strings (file names, display
# paths, messages), each several times: 8,192 entries missed two calls in three.
@lru_cache(maxsize=65536)
def _mask_short(text: str) -> str:
    return _mask(text)


def _mask(text: str) -> str:
    try:
        found = find_secrets(text, detector())
    except ScanTimeout:
        return WITHHELD
    return hide(text, found) if found else text


def mask_value(value: Any) -> Any:
    """A copy of a JSON-like value (dicts, lists, strings) with every string masked."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {k: mask_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(mask_value(v) for v in value)
    return value


@lru_cache(maxsize=1)
def _builtin() -> Detector:
    # The same folder `interpreter.rule_files.builtin_rules_dir` names (the wheel's
    # `curator/_rules`, else the checkout's `rules/`); the store stage cannot import it.
    package = Path(__file__).resolve().parents[1]
    shipped = package / "_rules"
    folder = (shipped if shipped.is_dir() else package.parent / "rules") / "secrets"
    found = []
    for path in sorted(folder.glob("*.yaml")):
        data, _ = load_file(path)
        if isinstance(data, dict) and data.get("check") == "secrets":
            found.append(family_of(str(data["code"]), {**PARAMS, **(data.get("params") or {})}))
    return Detector(tuple(found))
