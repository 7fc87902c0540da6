"""Where a name still occurs in a repository: in code, or only in comments and docs.

A name the code lost can live on in a doc comment (`{@link buildRegion}`), a `# TODO`
or a plan in markdown; a plain word search then finds it and calls it present. This
module reads the tracked files that hold the name and tells the two apart: an
occurrence outside comments in a code file means the code still uses it (alive:
called, imported, defined); occurrences only inside comments, or in doc files
(markdown, text), mean nothing in the code has it any more.

Comments are found by a small lexer per file type (`Syntax`: line markers, block
pairs, string quotes). Strings are code: a name in a string may be looked up by it.
The lexer errs towards code: a line marker counts only at the start of a line or after
white space (`$#`, `a;b`, `x--` are not comments), an unclosed quote ends at the end of
its line, and a file of a type no syntax names is all code.
"""

from __future__ import annotations

import fnmatch
import re
import stat
import time
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from curator.repo import tree

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_BYTES = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")  # as `tree.find_words` splits files


@dataclass(frozen=True)
class Syntax:
    """How one family of file types writes comments and strings."""

    files: tuple[str, ...]  # globs on the file name: `*.ts`, `Makefile`
    line: tuple[str, ...] = ()  # line-comment markers: `//`, `#`
    block: tuple[tuple[str, str], ...] = ()  # block comments: (`/*`, `*/`)
    strings: tuple[str, ...] = ('"', "'")  # quotes closed on the same line
    multiline: tuple[str, ...] = ()  # string delimiters that may span lines: `"""`, `` ` ``

    def opener(self) -> re.Pattern[str]:
        tokens = [*self.line, *(b[0] for b in self.block), *self.strings, *self.multiline]
        tokens.sort(key=len, reverse=True)  # `"""` before `"`, `/*` before `/`
        return re.compile("|".join(re.escape(t) for t in tokens if t) or r"(?!)")


def syntax_from(raw: Iterable[dict[str, object]]) -> list[Syntax]:
    """Syntaxes from the rule's params (a list of mappings with the fields of Syntax);
    raises ValueError on a malformed entry."""
    out = []
    for entry in raw:
        if not isinstance(entry, dict) or not entry.get("files"):
            raise ValueError("each comment syntax needs files: [globs]")
        unknown = set(entry) - {"files", "line", "block", "strings", "multiline"}
        if unknown:
            raise ValueError(f"unknown comment syntax key '{sorted(unknown)[0]}'")
        block = entry.get("block", [])
        if not isinstance(block, list) or not all(
            isinstance(b, list) and len(b) == 2 and all(isinstance(x, str) and x for x in b)
            for b in block
        ):
            raise ValueError("block comments are pairs: [[open, close], ...]")
        lists = {}
        for key in ("files", "line", "strings", "multiline"):
            value = entry.get(key, Syntax.strings if key == "strings" else [])
            if not isinstance(value, (list, tuple)) or not all(
                isinstance(x, str) and x for x in value
            ):
                raise ValueError(f"comment syntax {key} must be a list of strings")
            lists[key] = tuple(value)
        out.append(Syntax(block=tuple((b[0], b[1]) for b in block), **lists))
    return out


@dataclass
class Mentions:
    """Where a name occurs when no code has it: comment occurrences and doc files."""

    comments: int = 0
    docs: int = 0
    files: list[str] = field(default_factory=list)


def comment_spans(text: str, syntax: Syntax) -> list[tuple[int, int]]:
    """The [start, end) spans of `text` that are comments, in order."""
    spans: list[tuple[int, int]] = []
    opener = syntax.opener()
    blocks = dict(syntax.block)
    pos, size = 0, len(text)
    while pos < size:
        match = opener.search(text, pos)
        if match is None:
            break
        token, start, after = match.group(), match.start(), match.end()
        if token in syntax.line:
            if start > 0 and not text[start - 1].isspace():
                pos = after  # `$#`, `a;b`, `x--`: not a comment
                continue
            end = text.find("\n", after)
            end = size if end < 0 else end
            spans.append((start, end))
        elif token in blocks:
            close = text.find(blocks[token], after)
            end = size if close < 0 else close + len(blocks[token])
            spans.append((start, end))
        elif token in syntax.multiline:
            end = _string_end(text, after, token, multiline=True)
        else:
            end = _string_end(text, after, token, multiline=False)
        pos = max(end, after)
    return spans


def _string_end(text: str, pos: int, quote: str, multiline: bool) -> int:
    """Where a string opened before `pos` ends (past its closing quote); a one-line string
    left open ends at its line's end."""
    size = len(text)
    while pos < size:
        char = text[pos]
        if char == "\\":
            pos += 2
            continue
        if char == "\n" and not multiline:
            return pos
        if text.startswith(quote, pos):
            return pos + len(quote)
        pos += 1
    return size


def _matches(name: str, globs: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, g) for g in globs)


def find_words(
    root: Path,
    words: Iterable[str],
    candidates: Iterable[str],
    syntaxes: Sequence[Syntax],
    docs: Sequence[str],
    exclude: str | None = None,
    deadline: float | None = None,
) -> tuple[set[str], dict[str, Mentions]] | None:
    """One pass over the repository's tracked files: the subset of `words` that occur as
    whole words (as `tree.find_words`: binary files, symlinks and files over its size
    limit skipped), and the `candidates` that occur only inside comments of code files or
    in doc files (`docs`: globs on the file name), with where. A candidate some file uses
    outside a comment, or that a file of no known syntax holds, is alive and left out; so
    is one no file holds. `exclude` is a folder left out (the store); past `deadline`
    (time.monotonic()) None: an unfinished search cannot say a name is gone."""
    pending = {w.encode() for w in words if w}
    unresolved = {w.encode() for w in candidates if w}  # not yet seen in code
    present: set[bytes] = set()
    mentioned: dict[bytes, Mentions] = {}
    files = tree.tracked_files(root)
    if exclude:
        prefix = exclude.rstrip("/") + "/"
        files = tuple(f for f in files if not f.startswith(prefix))
    for number, rel in enumerate(files):
        if not pending and not unresolved:
            break
        if deadline is not None and number % 256 == 0 and time.monotonic() > deadline:
            return None
        data = _read(root / rel)
        if data is None:
            continue
        tokens = set(_WORD_BYTES.findall(data))
        hits = pending & tokens
        if hits:
            present |= hits
            pending -= hits
        held = unresolved & tokens
        if held:
            alive = _classify(rel, data, held, syntaxes, docs, mentioned)
            unresolved -= alive
    commented = {w.decode(): mentioned[w] for w in unresolved if w in mentioned}
    return {w.decode() for w in present}, commented


def _classify(
    rel: str,
    data: bytes,
    held: set[bytes],
    syntaxes: Sequence[Syntax],
    docs: Sequence[str],
    mentioned: dict[bytes, Mentions],
) -> set[bytes]:
    """The words of `held` file `rel` uses as code; the others' mentions are counted."""
    name = rel.rsplit("/", 1)[-1]
    syntax = next((s for s in syntaxes if _matches(name, s.files)), None)
    if syntax is None and not _matches(name, docs):
        return held  # a file of no known syntax: all code
    if syntax is None:
        for raw in held:
            mention = mentioned.setdefault(raw, Mentions())
            mention.docs += 1
            mention.files.append(rel)
        return set()
    text = data.decode("utf-8", "replace")
    words = {w.decode() for w in held}
    counts = dict.fromkeys(words, 0)
    for match in _WORD.finditer(text):
        if match.group() in counts:
            counts[match.group()] += 1
    in_comments = _comment_counts(text, syntax, words)
    alive = set()
    for word in words:
        if not counts[word]:
            continue
        if in_comments.get(word, 0) < counts[word]:
            alive.add(word.encode())  # used outside a comment
        else:
            mention = mentioned.setdefault(word.encode(), Mentions())
            mention.comments += counts[word]
            mention.files.append(rel)
    return alive


def _comment_counts(text: str, syntax: Syntax, words: set[str]) -> dict[str, int]:
    spans = comment_spans(text, syntax)
    starts = [s for s, _ in spans]
    counts: dict[str, int] = {}
    for match in _WORD.finditer(text):
        word = match.group()
        if word not in words:
            continue
        at = bisect_right(starts, match.start()) - 1
        if at >= 0 and match.end() <= spans[at][1]:
            counts[word] = counts.get(word, 0) + 1
    return counts


def _read(path: Path) -> bytes | None:
    try:
        info = path.lstat()  # a symlink may point out of the repository: not followed
        if not stat.S_ISREG(info.st_mode) or info.st_size > tree.MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return None if b"\0" in data[:8192] else data
