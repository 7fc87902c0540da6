"""Where secrets sit in memory text: token shapes, credentials in URLs, assignments, keys.

What a secret looks like is data: the CUR5xx rule files (`check: secrets`) give each
family its shapes (a regex with a `secret` group, the keywords that must appear before
the regex runs at all) and the thresholds a value must pass (length, character classes,
entropy, placeholders, vendor examples). This module only matches them, so the check that
reports secrets and the masking that hides them everywhere else agree on what one is.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, NamedTuple

# When two candidates overlap, the more specific family wins: a GitHub token inside a
# URL is a token, `GITHUB_TOKEN=ghp_…` is a token, not an assignment.
FAMILIES = ("private_key", "token", "url", "assignment")
TIMEOUT_SECONDS = 0.25
_STRIP_TRAILING = ".,;:!?)]}>*_"


class ScanTimeout(Exception):
    """A secret shape ran past its timeout on some text."""


class Shape(NamedTuple):
    kind: str  # what the message calls it: "GitHub token"
    source: str  # the regex; its `secret` group (else the whole match) is the secret
    keywords: tuple[str, ...]  # the regex runs only when one of these is in the text
    min_entropy: float | None = None  # overrides the family's
    min_words: int = 0  # a passphrase: at least this many words, tested as words (below)

    @property
    def pattern(self) -> Any:
        # Compiled on first use: most runs never meet most shapes' keywords.
        return _compile(self.source)

    @property
    def line_bound(self) -> bool:
        """A match never holds or looks past a line break: tried at a keyword, it can stop
        at that line's end (see line_bound)."""
        from curator.store.line_bound import line_bound

        return line_bound(self.source)


class Family(NamedTuple):
    """One rule's shapes and the tests a matched value must pass."""

    name: str  # one of FAMILIES
    code: str  # the rule that reports it
    shapes: tuple[Shape, ...]
    ignore_case: bool = False  # keywords are matched against the lowercased text
    at_keywords: bool = False  # match only where a keyword sits, not over the whole text
    min_length: int = 0
    min_entropy: float = 0.0
    min_char_classes: int = 1
    placeholders: tuple[str, ...] = ()  # regexes; a value one of them fullmatches is a name
    stopwords: tuple[str, ...] = ()  # lowercase; a value containing one is an example
    examples: frozenset[str] = frozenset()  # vendor documentation values
    placeholder_hosts: tuple[str, ...] = ()  # a URL or a user at these hosts is a sample
    base64_text_is_plain: bool = False  # base64 of readable text is not a secret
    common_words: frozenset[str] = frozenset()  # lowercase; a passphrase holds none of these


class Secret(NamedTuple):
    start: int  # the span of `text` to hide
    end: int
    value: str  # the secret itself: hashed for identity, never shown
    kind: str
    family: str
    code: str
    key: str  # the name it was assigned to, or the URL's host ("" when neither)
    extra: dict[str, str]


def compile_shape(source: str) -> Any:
    """Compile a shape's regex; raises regex.error on a bad one."""
    return _compile(source)


@lru_cache(maxsize=512)
def _compile(source: str) -> Any:
    import regex  # only once a shape is about to run: the hook's fast path never does

    return regex.compile(source, regex.VERSION1 | regex.MULTILINE)


# Characters from rare to common in memory text: a keyword is looked for only where its
# rarest character occurs, and one scan for a character (memchr) is far cheaper than one
# for a word. Characters not listed are rarer than all of these.
_COMMON = (
    "JQZXVWYUKGFBHOLDMRPNCIETSA"
    "qjzxkvwy_"
    "0123456789"
    "=@$%&*#~^|"
    "bgfpm"
    "`'\"()[]{}<>+"
    "uhlcdr"
    "/.,:;!?-"
    "snitoae \n"
)
_RANK = {c: i for i, c in enumerate(_COMMON)}


def _rarest(word: str) -> str:
    return min(word, key=lambda c: _RANK.get(c, -1))


class Needles(NamedTuple):
    """Keywords as substring tests, fewest scans first: a keyword is looked for only in
    text holding its rarest character; one that contains another keyword (`passwort`
    contains `pass`) only where the shorter one was found."""

    first: tuple[tuple[str, tuple[str, ...]], ...]  # (rarest character, keywords)
    longer: dict[str, tuple[str, ...]]  # keyword -> the keywords that contain it

    @classmethod
    def of(cls, keywords: Iterable[str]) -> Needles:
        words = sorted(set(keywords), key=lambda k: (len(k), k))
        first: list[str] = []
        longer: dict[str, list[str]] = {}
        for word in words:
            inside = next((w for w in first if w in word), None)
            if inside is None:
                first.append(word)
            else:
                longer.setdefault(inside, []).append(word)
        by_char: dict[str, list[str]] = {}
        for word in first:
            by_char.setdefault(_rarest(word), []).append(word)
        return cls(
            tuple(
                (c, tuple(ws))
                for c, ws in sorted(by_char.items(), key=lambda i: _RANK.get(i[0], -1))
            ),
            {k: tuple(v) for k, v in longer.items()},
        )

    def present(self, text: str) -> set[str]:
        # Plain loops: called for every memory and every distinct string masked (some
        # 50,000 a lint of 10,000 memories), where a generator a group cost a third more.
        found: set[str] = set()
        add = found.add
        for char, words in self.first:
            if char in text:  # one memchr: a keyword's rarest character is often absent
                for word in words:
                    if len(word) == 1 or word in text:
                        add(word)
        if found and self.longer:
            for word in list(found):
                for other in self.longer.get(word, ()):
                    if other in text:
                        add(other)
        return found


@dataclass(frozen=True)
class Detector:
    """Families plus the literal pre-filter over all their keywords: a shape runs only on
    text that holds one of its keywords (matched against the lowercased text for the
    case-insensitive families), so most memories cost a few substring scans."""

    families: tuple[Family, ...]

    @cached_property
    def exact(self) -> Needles:
        return Needles.of(k for f in self.families if not f.ignore_case for s in f.shapes
                          for k in s.keywords)  # fmt: skip

    @cached_property
    def folded(self) -> Needles:
        return Needles.of(k for f in self.families if f.ignore_case for s in f.shapes
                          for k in s.keywords)  # fmt: skip

    @cached_property
    def unfiltered(self) -> tuple[tuple[Family, Shape], ...]:
        """Shapes without keywords: they search every text."""
        return tuple((f, s) for f in self.families for s in f.shapes if not s.keywords)

    @cached_property
    def shapes(self) -> dict[tuple[bool, str], tuple[tuple[Family, Shape], ...]]:
        """(folded, keyword) -> the shapes it lets run, in family order."""
        index: dict[tuple[bool, str], list[tuple[Family, Shape]]] = {}
        for family in self.families:
            for shape in family.shapes:
                for keyword in shape.keywords:
                    index.setdefault((family.ignore_case, keyword), []).append((family, shape))
        return {k: tuple(v) for k, v in index.items()}


def find_secrets(text: str, detector: Detector) -> list[Secret]:
    """Every secret in `text`, in order; overlapping candidates resolved by FAMILIES order."""
    exact = detector.exact.present(text)
    lowered = ""
    folded: set[str] = set()
    if detector.folded.first:
        lowered = _lower(text)
        folded = detector.folded.present(lowered)
    if not exact and not folded and not detector.unfiltered:
        return []  # the cheap literal pre-filter: most memories stop here
    keywords: dict[tuple[int, int], tuple[Family, Shape, list[str]]] = {}
    for folded_case, words in ((False, exact), (True, folded)):
        for word in words:
            for family, shape in detector.shapes.get((folded_case, word), ()):
                keywords.setdefault((id(family), id(shape)), (family, shape, []))[2].append(word)
    for family, shape in detector.unfiltered:
        keywords.setdefault((id(family), id(shape)), (family, shape, []))
    candidates: list[tuple[int, int, Secret]] = []
    for family, shape, present in keywords.values():
        haystack = lowered if family.ignore_case else text
        # Lowercasing can change the length (a rare "İ"): then offsets in `lowered`
        # are not offsets in `text`, and the whole text is searched instead.
        if family.at_keywords and present and len(haystack) == len(text):
            starts = _anchors(text, _positions(haystack, present))
            bounded = shape.line_bound
            matches = [
                m
                for at in starts
                if (m := _match(shape.pattern, text, at, _line_end(text, at) if bounded else None))
            ]
        else:
            matches = _matches(shape.pattern, text)
        rank = FAMILIES.index(family.name) if family.name in FAMILIES else len(FAMILIES)
        for match in matches:
            secret = _candidate(match, shape, family)
            if secret is not None:
                candidates.append((rank, -(secret.end - secret.start), secret))
    chosen: list[Secret] = []
    for _, _, secret in sorted(candidates, key=lambda c: (c[0], c[1], c[2].start)):
        if not any(secret.start < s.end and s.start < secret.end for s in chosen):
            chosen.append(secret)
    return sorted(chosen, key=lambda s: s.start)


def _lower(text: str) -> str:
    """Lowercase with the same length, so offsets carry over; "İ" is the one character
    whose lowercase is longer (a Turkish memory has it)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.replace("\u0130", "i").lower()


def _positions(haystack: str, keywords: list[str]) -> list[int]:
    found = []
    for keyword in keywords:
        at = haystack.find(keyword)
        while at != -1:
            found.append(at)
            at = haystack.find(keyword, at + 1)
    return found


_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-+")


_JOINERS = frozenset("_.")


def _anchors(text: str, positions: list[int]) -> list[int]:
    """Where an `at_keywords` shape is tried: at the start of the word that holds a
    keyword (`DB_PASSWORD` from `D`, `githubToken` from `g`, `https://` from `h`), and
    after each `_` or `.` inside it, so a token in a file name or a link target
    (`reference_ghp_….md`) is found too."""
    starts: set[int] = set()
    for at in positions:
        begin = at
        while begin > 0 and text[begin - 1] in _WORD and at - begin < 64:
            if text[begin - 1] in _JOINERS:
                starts.add(begin)
            begin -= 1
        starts.add(begin)
    return sorted(starts)


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end == -1 else end


def _match(pattern: Any, text: str, at: int, end: int | None) -> Any:
    try:
        return pattern.match(text, at, end, timeout=TIMEOUT_SECONDS)
    except TimeoutError:
        raise ScanTimeout(pattern.pattern) from None


def _matches(pattern: Any, text: str) -> list[Any]:
    try:
        return list(pattern.finditer(text, timeout=TIMEOUT_SECONDS))
    except TimeoutError:
        raise ScanTimeout(pattern.pattern) from None


def _candidate(match: Any, shape: Shape, family: Family) -> Secret | None:
    group = "secret" if "secret" in match.re.groupindex else 0
    start, end = match.span(group)
    if start < 0:
        return None
    raw = match.group(group)
    if family.name == "assignment":
        stripped = raw.rstrip(_STRIP_TRAILING)
        end -= len(raw) - len(stripped)
        raw = stripped
    if family.name == "private_key":  # the key material alone: no line breaks, no `\n`
        raw = "".join(raw.replace("\\n", " ").replace("\\r", " ").split())
    value = raw
    groups = {k: v for k, v in match.groupdict().items() if v is not None and k != "secret"}
    if not looks_secret(value, family, shape, groups):
        return None
    key = groups.get("key") or groups.get("host") or ""
    return Secret(start, end, value, shape.kind, family.name, family.code, key, groups)


def looks_secret(value: str, family: Family, shape: Shape, groups: dict[str, str]) -> bool:
    """The value passes the family's tests: not an example, a placeholder or a name."""
    if not value or value in family.examples:
        return False
    lowered = value.lower()
    if any(word in lowered for word in family.stopwords):
        return False
    if shape.min_words:
        return _passphrase(lowered, shape.min_words, family.common_words)
    if len(value) < family.min_length:
        return False
    if any(_compile(p).fullmatch(value) for p in family.placeholders):
        return False
    if char_classes(value) < family.min_char_classes:
        return False
    threshold = shape.min_entropy if shape.min_entropy is not None else family.min_entropy
    if entropy(value) < threshold:
        return False
    user = groups.get("user", "")
    # A URL's host, or the domain of a user's e-mail address (`admin@example.com / x`).
    host = groups.get("host", "") or (user if "@" in user else "")
    host = host.lower().rsplit("@", 1)[-1].split(":", 1)[0]
    if host and any(host == h or host.endswith("." + h) for h in family.placeholder_hosts):
        return False
    if groups.get("user") and groups["user"] == value:
        return False  # postgres://postgres:postgres@… is a default, not a secret
    return not (family.base64_text_is_plain and _base64_of_text(value))


def _passphrase(lowered: str, min_words: int, common: frozenset[str]) -> bool:
    """Diceware: each word alone is a name (the placeholder tests would pass it), so the
    words are tested together: enough of them, not all alike, and none of prose's
    common words (`stored in the team vault` is a sentence, not a passphrase)."""
    words = lowered.replace("-", " ").split()
    return (
        len(words) >= min_words
        and len(set(words)) == len(words)
        and all(len(w) >= 3 and w.isalpha() and w not in common for w in words)
    )


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def char_classes(value: str) -> int:
    """How many of lowercase, uppercase, digits and other characters the value uses."""
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


def _base64_of_text(value: str) -> bool:
    """`SGVsbG8gd29ybGQ=` is "Hello world": readable words, not key material."""
    if len(value) % 4 or not value.rstrip("=").replace("+", "").replace("/", "").isalnum():
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    return " " in decoded and decoded.isprintable()


# The params a `check: secrets` rule takes, with their defaults (the check's PARAMS).
PARAMS: dict[str, Any] = {
    "family": "token",
    "shapes": [],  # [{kind, pattern, keywords, min_entropy}]
    "ignore_case": False,
    "at_keywords": False,
    "min_length": 0,
    "min_entropy": 0.0,
    "min_char_classes": 1,
    "placeholders": [],
    "stopwords": [],
    "examples": [],
    "placeholder_hosts": [],
    "base64_text_is_plain": False,
    "common_words": [],
    "redaction": "<redacted: rotate this credential>",
    "fix_description": "redact the {{ kind }} ({{ masked }})",
}


SHAPE_KEYS = {"kind", "pattern", "keywords", "min_entropy", "min_words"}


def params_problem(params: dict[str, Any]) -> str | None:
    """What is wrong with a secrets rule's params, in one line, or None."""
    import regex

    if params["family"] not in FAMILIES:
        return f"family must be one of {', '.join(FAMILIES)}"
    if not params["shapes"]:
        return "shapes: at least one {kind, pattern, keywords}"
    for i, shape in enumerate(params["shapes"]):
        if not isinstance(shape, dict) or set(shape) - SHAPE_KEYS:
            return f"shapes[{i}] takes kind, pattern, keywords, min_entropy and min_words"
        if not isinstance(shape.get("kind"), str) or not isinstance(shape.get("pattern"), str):
            return f"shapes[{i}] needs a kind and a pattern"
        keywords = shape.get("keywords", [])
        if not isinstance(keywords, list) or not all(isinstance(k, str) and k for k in keywords):
            return f"shapes[{i}].keywords must be a list of words"
        if not isinstance(shape.get("min_words", 0), int) or shape.get("min_words", 0) < 0:
            return f"shapes[{i}].min_words must be a whole number"
        try:
            compile_shape(shape["pattern"])
        except regex.error as exc:
            return f"shapes[{i}]: bad pattern: {exc}"
    for i, source in enumerate(params["placeholders"]):
        try:
            compile_shape(str(source))
        except regex.error as exc:
            return f"placeholders[{i}]: bad pattern: {exc}"
    return None


def family_of(code: str, params: dict[str, Any]) -> Family:
    """A Family from a secrets rule's (validated, defaulted) params."""
    ignore_case = bool(params["ignore_case"])
    shapes = tuple(
        Shape(
            kind=str(s["kind"]),
            source=str(s["pattern"]),
            keywords=tuple(k.lower() if ignore_case else k for k in s.get("keywords", [])),
            min_entropy=float(s["min_entropy"]) if "min_entropy" in s else None,
            min_words=int(s.get("min_words", 0)),
        )
        for s in params["shapes"]
    )
    return Family(
        name=str(params["family"]),
        code=code,
        shapes=shapes,
        ignore_case=ignore_case,
        at_keywords=bool(params["at_keywords"]),
        min_length=int(params["min_length"]),
        min_entropy=float(params["min_entropy"]),
        min_char_classes=int(params["min_char_classes"]),
        placeholders=tuple(str(p) for p in params["placeholders"]),
        stopwords=tuple(str(w).lower() for w in params["stopwords"]),
        examples=frozenset(str(e) for e in params["examples"]),
        placeholder_hosts=tuple(str(h).lower() for h in params["placeholder_hosts"]),
        base64_text_is_plain=bool(params["base64_text_is_plain"]),
        common_words=frozenset(str(w).lower() for w in params["common_words"]),
    )
