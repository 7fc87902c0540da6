"""Text on its way to a terminal: control characters shown, never obeyed.

A memory's text and its file name come from anyone: an escape sequence in them could
retitle the terminal or write a hyperlink (OSC), ring it (BEL), move the cursor back over
what was printed (BS, CR), and a bidi control (U+202E) makes a line read otherwise than
it is. Every control character is written as an escape a reader can see (`\\x1b`,
`\\u202e`), as Python writes it in a string. `visible` escapes a piece of text (a file name,
a message) whole, its line breaks included; `for_terminal` is what every command writes
through (`commands.terminal.echo`): curator's own line breaks and tabs stay, and its own
colour codes stay when colour is on.
"""

from __future__ import annotations

import re

_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
# C0, DEL, C1; the bidi embeddings, overrides, isolates and marks; the line and paragraph
# separators some terminals and editors break lines at.
_CODES = [
    *range(0x00, 0x20),
    *range(0x7F, 0xA0),
    0x061C,
    0x200E,
    0x200F,
    0x2028,
    0x2029,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
]
# C0 as `\x1b`; the rest as `\u0085`, which is also how JSON writes them: a JSON document
# that passes through `for_terminal` still reads as the same values.
_ESCAPES: dict[int, str] = {
    code: _SHORT.get(chr(code)) or (f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}")
    for code in _CODES
}
# As character classes: a regex scan finds the rare control character at C speed, where
# `str.translate` would look every character up.
_ANY = re.compile("[" + "".join(re.escape(chr(code)) for code in _CODES) + "]")
_IN_OUTPUT = re.compile(
    "[" + "".join(re.escape(chr(c)) for c in _CODES if chr(c) not in "\n\t") + "]"
)
# A colour code (SGR) as curator paints one: ESC [ digits and semicolons m.
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def _escape(match: re.Match[str]) -> str:
    return _ESCAPES[ord(match.group())]


def visible(text: str) -> str:
    """`text` with every control character, line breaks included, written as an escape."""
    return _ANY.sub(_escape, text)


def for_terminal(text: str, colour: bool) -> str:
    """What may be written to a terminal, a file or a pipe: line breaks and tabs as they
    are, colour codes kept with `colour`, every other control escaped. curator paints
    only with colour on, so with it off an escape can only come from a memory."""
    if not colour or "\x1b" not in text:
        return _IN_OUTPUT.sub(_escape, text)
    parts = _COLOUR.split(text)
    out = [_IN_OUTPUT.sub(_escape, parts[0])]
    for code, part in zip(_COLOUR.findall(text), parts[1:], strict=True):
        out.extend((code, _IN_OUTPUT.sub(_escape, part)))
    return "".join(out)
