"""A shape tried at a keyword stops at the line's end only when its regex cannot reach
past it: what is found is the same either way."""

from __future__ import annotations

import pytest

from curator.store.line_bound import line_bound
from curator.store.secrets import Detector, Family, Shape, find_secrets


def _family(pattern: str, keyword: str) -> Detector:
    shape = Shape(kind="secret", source=pattern, keywords=(keyword,))
    return Detector((Family("assignment", "CUR503", (shape,), at_keywords=True),))


@pytest.mark.parametrize(
    ("pattern", "bound"),
    [
        (r"(?<![\w-])(?i:token)[ \t]*[:=][ \t]*(?P<secret>[^\s`'\"<>&]+)", True),
        (r"token(?P<secret>[\w.+-]+)(?![A-Za-z0-9])(?=[ \t]*$)", True),
        (r"token:\s*(?P<secret>\S+)", False),  # `\s` takes the line break
        (r"token:(?P<secret>[^`]+)", False),  # a negated class without it
        (r"token:(?P<secret>[^`'\"]+)", False),
        (r"token:(?P<secret>\w+)(?=\s)", False),  # a lookahead that sees it
        (r"token:(?P<secret>\w+)\Z", False),  # the end of the text, not of the line
        (r"(?s:token.+)", False),
        (r"token:(?P<secret>\p{L}+)", False),  # syntax of `regex` alone
        (r"token:(?P<secret>[[:alnum:]]+)", False),  # a nested set
        (r"token:(?P<secret>[a[^b]]+)", False),  # one `re` does not warn of
        (r"token:(?P<secret>[\w\[]+)", True),
        (r"(?:token){e<=1}", False),  # fuzzy matching
    ],
)
def test_which_shapes_stay_on_their_line(pattern: str, bound: bool) -> None:
    assert line_bound(pattern) is bound


def test_a_shape_that_crosses_lines_is_still_tried_over_the_whole_text() -> None:
    detector = _family(r"(?P<key>token):\s*(?P<secret>\S+)", "token")
    found = find_secrets("deploy token:\nZq8wX2mP9kL4vB7n\nrest\n", detector)
    assert [s.value for s in found] == ["Zq8wX2mP9kL4vB7n"]


def test_a_bounded_shape_finds_a_value_that_ends_its_line() -> None:
    detector = _family(r"(?P<key>token) is (?P<secret>\w+)$", "token")
    text = "the token is Zq8wX2mP9kL4vB7n\nand the token is\nAbc\n"
    found = find_secrets(text, detector)
    assert [(s.value, s.start) for s in found] == [("Zq8wX2mP9kL4vB7n", 13)]
