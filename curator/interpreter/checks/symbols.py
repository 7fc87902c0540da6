"""Stale symbols: backticked identifiers the repository's code had and lost.

A code span is a symbol when its whole content (a trailing call `()` or `(args)` aside)
matches one of the rule's patterns (CamelCase, snake_case, CONSTANT_CASE, `_private`,
dotted `mod.func`) and is not in the rule's `exclude` or `platform_names` lists; a span
of such names joined by `/` is one symbol per name. Dotted names are searched by their
last part and by the class-like parts before it. Every symbol of the run is searched in
one pass over the repository's tracked files (see `mentions.find_words`).

A symbol that is not there is reported only when the repository's history shows code
that had it: the commit that last removed it and the file it was in, with the likely
new name when that commit added a similar one to the same file. A symbol the history
shows defined and removed is reported too when only comments and docs still hold it,
with the commit that removed the definition. A symbol history never had is not a
finding; many of them in one store are counted for CUR205. A history-backed symbol is
held back when its sentence narrates the change or the memory is a journal.
"""

from __future__ import annotations

import difflib
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator import templates
from curator.interpreter import narration, patterns, stale
from curator.models import Hit, Memory
from curator.repo import references

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule
    from curator.repo.history import Removal
    from curator.repo.mentions import Mentions

PARAMS: dict[str, Any] = {
    "min_length": 3,
    "exclude": [],
    "platform_names": [],
    "dotted_skip_suffixes": [],
    "skip_fenced": True,
    "max_per_file": 50,
    "max_search_seconds": 3.0,
    "rename_similarity": 0.5,
    "require_definition": True,
    "max_rename_lookups": 20,
    "comment_syntax": [],
    "doc_files": [],
    # Shapes of a name read in prose, outside code spans (`feedMainId 800001`): whole
    # words no path, host or address continues. Empty: code spans only.
    "prose_names": [],
    **stale.PARAMS,
}
# Ranges narrower than the rule loader's default (`rulebook.PARAM_RANGE`), both ends included.
RANGES: dict[str, tuple[float, float]] = {"rename_similarity": (0, 1)}
MESSAGES = ("removed", "commented", "renamed", "written_before", "written_after")
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "symbol": "the identifier as the memory writes it",
        "searched": "the name found stale (the last part of a dotted name, or a part before it)",
        "named": "how the message names it: 'name', or 'Class' of 'Class.method' by its class",
        "file_was": "the file that defined it",
        "new_name": "the likely new name, or empty",
        "renamed": "the sentence naming it, or empty",
        "commit": "the commit that deleted, moved or removed it (short sha)",
        "evidence_kind": "removed (no file has it), or commented (only comments and docs do)",
        "mentions": "for commented: what still names it (`2 comments and 1 doc`)",
        "mention_verb": "for commented: `mentions` after one comment or doc, else `mention`",
        "mentioned_in": "for commented: the files that still name it (the first few)",
        **stale.EVIDENCE_DETAIL,
    }
}

_CALL = re.compile(r"\((?:[^()]*)\)$")
_SEPARATOR = re.compile(r"\.|::|#")
_CLASS = re.compile(r"_*[A-Z]")


@dataclass(frozen=True)
class Symbol:
    text: str  # as written, call parentheses removed
    word: str  # what is searched for
    start: int
    qualifiers: tuple[str, ...] = ()  # `Game` of `Game.loadColliders`: searched too
    prose: bool = False  # read outside a code span: never counted as unknown

    @property
    def names(self) -> tuple[str, ...]:
        return (self.word, *self.qualifiers)


@dataclass
class Examined:
    """One store's symbols, sorted by what the code and its history say of them."""

    hits: list[Hit] = field(default_factory=list)  # stale, or held back (detail held_back)
    resolved: int = 0  # symbols the code has today
    unknown: list[str] = field(default_factory=list)  # symbols history never had


def validate(params: dict[str, Any]) -> str | None:
    """A problem with the params, said in one line, or None (called by the rule loader)."""
    from curator.repo.mentions import syntax_from

    try:
        syntax_from(params["comment_syntax"])
    except ValueError as exc:
        return f"comment_syntax: {exc}"
    return stale.validate_params(params, MESSAGES)


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    examined = examine(rule, ctx)
    if examined is not None:
        yield from examined.hits


def examine(rule: Rule, ctx: Context) -> Examined | None:
    """The store's symbols against the code and its history (once per run and rule);
    None when the rule cannot run in full here."""
    return stale.once(ctx, ("symbols", rule.code), lambda: _examine(rule, ctx))


def _examine(rule: Rule, ctx: Context) -> Examined | None:
    root = ctx.repo_root
    if root is None or not root.is_dir():
        return None  # linting.lint drops this rule for such stores and says why, once
    found_in: list[tuple[Memory, list[Symbol]]] = []
    words: set[str] = set()
    for memory in ctx.memories(rule):
        symbols = list(_symbols(rule, memory))
        if symbols:
            found_in.append((memory, symbols))
            words.update(n for s in symbols for n in s.names)
    out = Examined()
    if not words:
        return out
    index = stale.history_index(ctx, rule)  # first: without history nothing is read
    if index is None:
        return None
    repo, store = root.resolve(), ctx.store.root.resolve()
    inside = store.relative_to(repo).as_posix() if store.is_relative_to(repo) else None
    outside = inside if inside != "." else None
    limit = float(rule.params["max_search_seconds"])
    deadline = time.monotonic() + limit if limit > 0 else None
    removals = index.removals(words)
    if inside is not None and inside != ".":
        prefix = inside.rstrip("/") + "/"  # a memory never vouches for itself
        removals = {w: r for w, r in removals.items() if not r.file.startswith(prefix)}
    # A name the code defined and lost that a comment or a doc still mentions is present
    # to a word search, and gone from the code when no code line (a call, an import) has
    # it: the same pass tells them apart.
    defined = {w for w, r in removals.items() if r.defined}
    found = _find(rule, repo, words, defined, outside, deadline)
    if found is None:
        ctx.skipped.add(rule.code)
        ctx.notes.append(
            f"{rule.name} ({rule.code}) skipped: searching the repository took over "
            f"{limit:g} s (params.max_search_seconds)"
        )
        return None
    present, commented = found
    rules = narration.compile_narration(rule.params)
    renames = _Renames(repo, rule)
    require = bool(rule.params["require_definition"])
    for memory, symbols in found_in:
        count = 0
        for symbol in symbols:
            stale_name = next(
                (n for n in symbol.names if _is_stale(n, present, removals, commented, require)),
                None,
            )
            if stale_name is None:
                if symbol.word in present:
                    out.resolved += 1
                elif (
                    not symbol.prose
                    and symbol.word not in removals
                    and symbol.text not in out.unknown
                ):
                    out.unknown.append(symbol.text)
                continue
            removal = removals[stale_name]
            if stale_name in commented and removal.defined_commit is not None:
                # What a comment or a doc still names went with its definition: that
                # commit, not the newest edit of a line that mentioned it.
                removal = replace(
                    removal, commit=removal.defined_commit, file=removal.defined_file or ""
                )
            end = symbol.start + len(symbol.text)
            reason = stale.held_back(rules, memory, symbol.start, end, [removal.commit])
            # Right as written: no new name to look up (one `git show` a commit).
            looked_up = renames if reason is None else None
            hit = _hit(ctx, rule, memory, symbol, stale_name, removal, looked_up,
                       commented.get(stale_name))  # fmt: skip
            if reason is not None:
                out.hits.append(stale.hold(hit, reason))
                continue
            count += 1
            if count <= rule.params["max_per_file"]:
                out.hits.append(hit)
    return out


def _is_stale(
    name: str,
    present: set[str],
    removals: dict[str, Removal],
    commented: dict[str, Mentions],
    require_definition: bool,
) -> bool:
    """Whether history removed `name` from the code and the code does not have it today:
    no file holds it, or only comments and docs do (then it must have been defined)."""
    if name in present:
        return name in commented
    removal = removals.get(name)
    # A name the code only called, never defined, is a platform's name.
    return removal is not None and (removal.defined or not require_definition)


def _find(
    rule: Rule,
    repo: Path,
    words: set[str],
    defined: set[str],
    outside: str | None,
    deadline: float | None,
) -> tuple[set[str], dict[str, Mentions]] | None:
    from curator.repo import mentions

    params = rule.params
    syntaxes = mentions.syntax_from(params["comment_syntax"])
    return mentions.find_words(
        repo, words, defined, syntaxes, params["doc_files"], exclude=outside, deadline=deadline
    )


def _hit(
    ctx: Context,
    rule: Rule,
    memory: Memory,
    symbol: Symbol,
    name: str,
    removal: Removal,
    renames: _Renames | None,
    mentioned: Mentions | None,
) -> Hit:
    line, column = memory.locate(symbol.start)
    end_line, end_column = memory.locate(symbol.start + len(symbol.text))
    values: dict[str, Any] = {
        "symbol": symbol.text,
        "searched": name,
        # `_HomeState.build` is stale by its class: the message names the part it means.
        "named": f"'{symbol.text}'" if name == symbol.word else f"'{name}' of '{symbol.text}'",
        "file_was": removal.file,
        "commit_obj": removal.commit,
    }
    new_name = renames.likely(name, removal) if renames is not None else None
    values["new_name"] = new_name or ""
    values["renamed"] = (
        templates.render(rule.params["messages"]["renamed"], values) if new_name else ""
    )
    kind = "removed"
    if mentioned is not None:
        kind = "commented"
        values["mentions"] = _mentions_text(mentioned)
        single = mentioned.comments + mentioned.docs == 1
        values["mention_verb"] = "mentions" if single else "mention"
        values["mentioned_in"] = mentioned.files[: rule.params["examples"]]
    detail = stale.evidence(ctx, rule, kind, values, memory)
    return Hit(memory.path, line, column, end_line, end_column, detail=detail)


def _mentions_text(mentioned: Mentions) -> str:
    """`2 comments and 3 docs`: what still names a name the code lost."""
    parts = []
    for count, what in ((mentioned.comments, "comment"), (mentioned.docs, "doc")):
        if count:
            parts.append(f"{count} {what}{'s' if count > 1 else ''}")
    return " and ".join(parts)


_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _name_words(name: str) -> set[str]:
    """The words of an identifier: `_fetch_inst_net` → fetch, inst, net; `loadColliders` →
    load, colliders."""
    return {w.lower() for w in _NAME_WORD.findall(name)}


class _Renames:
    """The likely new name of a removed identifier: a similar one the same commit added
    to the same file (one `git show` per commit, at most `max_rename_lookups` a run)."""

    def __init__(self, repo: Any, rule: Rule) -> None:
        self.repo = repo
        self.threshold = float(rule.params["rename_similarity"])
        self.budget = int(rule.params["max_rename_lookups"])
        self.added: dict[str, dict[str, set[str]]] = {}

    def likely(self, word: str, removal: Removal) -> str | None:
        from curator.repo.history import added_tokens

        sha = removal.commit.sha
        if sha not in self.added:
            if len(self.added) >= self.budget:
                return None
            self.added[sha] = added_tokens(self.repo, sha)
        best, score = None, self.threshold
        words = _name_words(word)
        for token in self.added[sha].get(removal.file, ()):
            if token == word:
                continue
            others = _name_words(token)
            if not words & others or (len(words) > 1 and len(others) < 2):
                continue  # `_syncFeedReminder` -> `sinceMin`, `mergeCandidates` -> `candidates`
            ratio = difflib.SequenceMatcher(None, word.lower(), token.lower()).ratio()
            if ratio >= score:
                best, score = token, ratio
        return best


def _symbols(rule: Rule, memory: Memory) -> Iterator[Symbol]:
    params = rule.params
    exclude = set(params["exclude"]) | set(params["platform_names"])
    scanned = references.scan(memory, params["skip_fenced"])
    yield from _prose_symbols(rule, exclude, scanned.prose)
    for ref in scanned.code:
        text = _CALL.sub("", ref.text)
        symbol = _symbol(rule, exclude, text, ref.start)
        if symbol is not None:
            yield symbol
        elif "/" in text:
            # `_syncSleepTimer/_syncBreastTimer`: a list of names, when every part is one
            # (`src/api_client` is a path: `src` is no identifier's shape).
            parts, offset, listed = text.split("/"), 0, []
            for part in parts:
                listed.append(_symbol(rule, exclude, part, ref.start + offset))
                offset += len(part) + 1
            if len(parts) > 1 and all(listed):
                yield from (s for s in listed if s is not None)


# A word of prose: not inside a path, a host, an address or a longer token.
_PROSE_WORD = re.compile(r"(?<![\w./@:\\$%#<>=~-])[A-Za-z_]\w*(?![\w/@\\$%<>=~-]|[.:]\w)")


def _prose_symbols(
    rule: Rule, exclude: set[str], prose: tuple[references.Ref, ...]
) -> Iterator[Symbol]:
    """Names of the `prose_names` shapes written outside code spans: `feedMainId 800001`."""
    shapes = [patterns.compile_pattern(p) for p in rule.params["prose_names"]]
    if not shapes:
        return
    least = rule.params["min_length"]
    for ref in prose:
        for match in _PROSE_WORD.finditer(ref.text):
            word = match.group(0)
            if len(word) < least or word in exclude or word.lower() in exclude:
                continue
            if any(shape.fullmatch(word) for shape in shapes):
                yield Symbol(word, word, ref.start + match.start(), prose=True)


def _symbol(rule: Rule, exclude: set[str], text: str, start: int) -> Symbol | None:
    params = rule.params
    if len(text) < params["min_length"] or text in exclude or text.lower() in exclude:
        return None
    if not any(patterns.search(p, text) for p in rule.patterns):
        return None
    parts = _SEPARATOR.split(text)
    if len(parts) > 1 and parts[-1].lower() in {s.lower() for s in params["dotted_skip_suffixes"]}:
        return None  # `settings.json`, `Node.js`: a file or a product, not code
    word = parts[-1] if len(parts[-1]) >= params["min_length"] else text
    if not word.isidentifier() or word in exclude:
        return None
    # The parts before the last (`_HomeScreenState` of `_HomeScreenState.build`) name
    # code too: a class the code lost makes the name stale even when `build` is common.
    # Plain lower-case words (`self`, `game`, `os`) are variables and modules: left out.
    qualifiers = tuple(
        p
        for p in reversed(parts[:-1])
        if len(p) >= params["min_length"]
        and p.isidentifier()
        and p not in exclude
        and (_CLASS.match(p) or any(patterns.search(x, p) for x in rule.patterns))
    )
    return Symbol(text, word, start, qualifiers if word != text else ())
