"""Stale paths: files and folders a memory names that the repository had and lost.

Candidates come from inline code spans, markdown link targets and prose (the rule's
patterns find paths in prose). A candidate is cleaned (`file.py:12` → `file.py`,
punctuation and anchors dropped), filtered through the rule's skip lists (URLs, globs,
templates, versions, fractions, dates, build folders), then resolved lexically against
the repository and the memory store (and `~/.claude/...` against the repository's copy
of that folder, in a dotfiles repository). Only a path that lands inside those roots is
ever stat'ed.

A path that is not here is reported only when the repository's history shows it was:
deleted in which commit, or moved where (then with a fix that rewrites the reference).
A path the history never had is not a finding; many of them in one store are counted
for CUR205 (store_repo_mismatch). A history-backed path is held back when the sentence
narrates its removal, the memory is a journal, or the path is ignored on purpose now.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.git import git_output
from curator.interpreter import narration, patterns, stale
from curator.interpreter.checks import dates
from curator.models import Hit, Memory
from curator.repo import references, tree
from curator.store import discovery

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule
    from curator.repo.history import Index, PathFate

PARAMS: dict[str, Any] = {
    "in_code": True,
    "in_links": True,
    "in_prose": True,
    "skip_fenced": True,
    "extensions": [],
    "skip_patterns": [],
    "skip_dirs": [],
    "home_mirrors": [],
    "home_markers": [],
    "convention_paths": [],
    "home_names": {},
    "home_name_patterns": [],
    "max_per_file": 50,
    "read_index": True,  # MEMORY.md's own lines too
    "fenced_shells": [],  # fenced blocks whose script invocations are read (```bash)
    **stale.PARAMS,
}
MESSAGES = ("deleted", "moved", "ambiguous", "written_before", "written_after")
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "path": "the path as the memory writes it",
        "gone_path": "the path in the repository that went",
        "target": "where it moved (moved only)",
        "replacement": "the path the fix writes (moved only)",
        "last_path": "the last path it had, when it moved before it went",
        "count": "how many paths it could be (ambiguous only)",
        "candidates": "those paths (ambiguous only)",
        "commit": "the commit that deleted, moved or removed it (short sha)",
        "evidence_kind": "what the history shows",
        **stale.EVIDENCE_DETAIL,
        "same_in": dates.SAME_IN,
    }
}

_ROOTED = ("./", "../", "~/", "/")
_LEAD = "\"'([*"
_TRAIL = "\"'),;:!?*]."
# `file.py:12`, `file.py:12-30`, `file.py:func()`, `doc.md#anchor`, `page.html?x=1`
_LINE_SUFFIX = re.compile(r"(?::[^/]*|[#?].*)$")


@dataclass(frozen=True)
class Candidate:
    text: str  # the cleaned path
    start: int  # offset in memory.text
    explicit: bool  # surely meant as a path: a link, an extension, ./, ../, ~/, /, trailing /
    home_name: str | None = None  # an agent, skill or command named, not a path


@dataclass
class Examined:
    """One store's paths, sorted by what history says of them."""

    hits: list[Hit] = field(default_factory=list)  # stale, or held back (detail held_back)
    resolved: int = 0  # explicit paths that are here
    unknown: list[str] = field(default_factory=list)  # explicit paths history never had


def validate(params: dict[str, Any]) -> str | None:
    """A problem with the params, said in one line, or None (called by the rule loader)."""
    try:
        _skip_pattern(tuple(params["skip_patterns"]))
    except Exception as exc:  # regex.error and friends
        return f"bad skip_patterns regex: {exc}"
    for source in params["home_name_patterns"]:
        try:
            compiled = patterns.compile_pattern(str(source))
        except Exception as exc:
            return f"bad home_name_patterns regex {source!r}: {exc}"
        if "name" not in compiled.groupindex:
            return f"home_name_patterns regex {source!r} has no (?P<name>...) group"
    return stale.validate_params(params, MESSAGES)


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    examined = examine(rule, ctx)
    if examined is not None:
        yield from examined.hits


def examine(rule: Rule, ctx: Context) -> Examined | None:
    """The store's paths against the repository and its history (once per run and rule);
    None when the rule cannot run in full here (no repository, no history yet)."""
    return stale.once(ctx, ("paths", rule.code), lambda: _examine(rule, ctx))


def _examine(rule: Rule, ctx: Context) -> Examined | None:
    root = ctx.repo_root
    if root is None or not root.is_dir():
        return None  # linting.lint drops this rule for such stores and says why, once
    index = stale.history_index(ctx, rule)
    if index is None:
        return None
    resolver = resolver_for(ctx, rule, root)
    mirror = resolver.mirror
    rules = narration.compile_narration(rule.params)
    found: list[tuple[Memory, Candidate, PathFate | list[PathFate]]] = []
    out = Examined()
    for memory in ctx.memories(rule):
        found.extend(_stale_paths(rule, index, resolver, memory, out))
        if mirror is not None:
            found.extend(_stale_home_names(rule, index, resolver, memory))
    listing = dates.index_memory(ctx)
    if listing is not None and rule.params["read_index"]:
        # MEMORY.md's own lines (the agent reads them every session); its links are
        # entries, whose broken targets are CUR010's.
        found.extend(_stale_paths(rule, index, resolver, listing, None))
    if listing is not None and mirror is not None:  # it names agents, skills, commands too
        found.extend(_stale_home_names(rule, index, resolver, listing))
    ignored = _ignored(resolver.repo_path, [f for _, _, f in found])
    counts: dict[Path, int] = {}
    for memory, candidate, fate in found:
        hit = _hit(ctx, rule, resolver, memory, candidate, fate)
        hit.detail["same_in"] = ""
        if memory is listing:
            hit = dates.note_linked_memory(ctx, hit, candidate.text)
        reason = _held_back(rule, rules, resolver, memory, candidate, fate, ignored)
        if reason is not None:
            out.hits.append(stale.hold(hit, reason))
            continue
        counts[memory.path] = counts.get(memory.path, 0) + 1
        if counts[memory.path] <= rule.params["max_per_file"]:
            out.hits.append(hit)
    return out


def resolver_for(ctx: Context, rule: Rule, root: Path) -> Resolver:
    """How `rule` (CUR201, or a rule reading paths as it does) resolves a store's paths
    in the repository at `root`: its copy of `~/.claude`, the checkout the store names.
    Built once a run: CUR201 and CUR207 share it, with what it has already looked up."""
    key = ("paths.resolver", rule.code, str(root))
    found = ctx.shared.get(key)
    if not isinstance(found, Resolver):
        mirror = home_mirror(root, rule.params, ctx.config.get("references.home_in_repo"))
        found = ctx.shared[key] = Resolver(
            root, ctx.store.root, rule.params, mirror, _checkout(ctx, root)
        )
    return found


def _checkout(ctx: Context, root: Path) -> str | None:
    """Where the owner keeps this dotfiles repository, home-relative and slugged
    (`-code-dotfiles`), when the store's slug or a sibling store's says so (a session run
    in `~/code/dotfiles/claude` names it; `repo.mapping`)."""
    from curator.repo import mapping

    store = ctx.store.root.resolve()
    slug = mapping.store_slug(store)
    if slug is None:
        return _named_checkout(ctx, store, root.resolve())
    try:
        siblings = sorted(p.name for p in store.parent.parent.iterdir() if p.name != slug)
    except OSError:
        siblings = []
    repo = root.resolve()
    if not store.is_relative_to(repo):
        return None  # a store outside the repository says nothing of its checkout
    for name in (slug, *siblings):
        sibling = store.parent.parent / name / "memory"
        found = mapping.dotfiles_checkout(sibling, name, ctx.config, holder=repo)
        if found is not None and found[1] is not None:
            return found[1]
    return None


def _named_checkout(ctx: Context, store: Path, repo: Path) -> str | None:
    """The checkout a memory names by naming the store's own folder in it: a store at
    `claude/memory` of the repository, and a memory that says "`~/dotfiles/claude/memory/`
    is the single source of truth", put the checkout at `~/dotfiles`."""
    if not store.is_relative_to(repo) or store == repo:
        return None
    # Bounded: a folder name of at most 100 characters, at most 12 deep (a line of "~/a/"
    # repeated must not cost its square).
    folder = store.relative_to(repo).as_posix()
    own = re.compile(r"~/((?:[^\s/`'\"()<>]{1,100}/){1,12}?)" + re.escape(folder))
    texts = [m.text for m in ctx.store.memories]
    if ctx.store.index is not None:
        texts.append(ctx.store.index.text)
    for text in texts:
        for match in own.finditer(text):
            end = match.end()
            if end == len(text) or not (text[end].isalnum() or text[end] in "_.-"):
                return discovery.project_slug("/" + match.group(1).rstrip("/"))
    return None


def home_mirror(repo: Path, params: dict[str, Any], configured: str | None) -> str | None:
    """The repository folder that stands for `~/.claude` in a dotfiles repository: config
    `references.home_in_repo`, else the first of `home_mirrors` holding at least two of
    `home_markers` (settings.json, hooks/, CLAUDE.md, ...); None when there is none."""
    if configured:
        return str(configured).strip("/")
    markers = [str(m) for m in params["home_markers"]]
    for folder in params["home_mirrors"]:
        base = repo / str(folder)
        if base.is_dir() and sum((base / m).exists() for m in markers) >= 2:
            return str(folder).strip("/")
    return None


def _stale_paths(
    rule: Rule, index: Index, resolver: Resolver, memory: Memory, out: Examined | None
) -> list[tuple[Memory, Candidate, PathFate | list[PathFate]]]:
    """A memory's paths that history shows gone (tallying live and unknown ones in `out`).

    A list item headed by a folder this repository never had ("- `themes/` — has its
    own `scripts/browse.py`") describes another checkout: its paths are that one's.
    On one line, a gone path inside a gone folder the line names, or a bare name one of
    whose places is inside it, adds nothing to the line's evidence and is dropped.
    """
    foreign = _foreign_lines(index, resolver, memory)
    stale_lines: dict[int, list[tuple[Candidate, PathFate | list[PathFate]]]] = {}
    for candidate in candidates(rule, memory, links=out is not None):
        line = memory.locate(candidate.start)[0]
        if line in foreign:
            continue
        status = resolver.status(candidate, memory)
        if status == "live":
            if out is not None:
                out.resolved += candidate.explicit
        elif status == "missing":
            fate = _fate(index, resolver, candidate, memory)
            if fate:
                stale_lines.setdefault(line, []).append((candidate, fate))
                continue
            if out is not None and candidate.explicit and candidate.text not in out.unknown:
                out.unknown.append(candidate.text)
    return [
        (memory, candidate, fate)
        for hits in stale_lines.values()
        for candidate, fate in hits
        if len(hits) == 1 or not _adds_nothing(fate, [f for c, f in hits if c is not candidate])
    ]


# A list item headed by a folder in code: "- `themes/` — ...", "* **`api/`**: ..."
_FOLDER_HEAD = re.compile(r"(?m)^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\**`([\w.-]+)/`")


def _foreign_lines(index: Index, resolver: Resolver, memory: Memory) -> set[int]:
    """Lines headed by a folder neither the tree nor its history ever had: they describe
    another checkout (a sibling repository of a workspace), and so do their paths."""
    lines: set[int] = set()
    if "`" not in memory.text:
        return lines
    for match in _FOLDER_HEAD.finditer(memory.text):
        folder = match.group(1) + "/"
        if tree.has_suffix(resolver.repo_path, folder) or index.paths_under(folder):
            continue
        lines.add(memory.locate(match.start(1))[0])
    return lines


def _adds_nothing(fate: PathFate | list[PathFate], others: list[PathFate | list[PathFate]]) -> bool:
    """A gone path inside a gone folder the same line names, or a bare name one of whose
    places is inside it (`src/app/` — exports `X` from `__init__.py`)."""
    folders = [o.path for o in others if not isinstance(o, list) and o.path.endswith("/")]
    fates = fate if isinstance(fate, list) else [fate]
    return any(f.path != d and f.path.startswith(d) for f in fates for d in folders)


def _stale_home_names(
    rule: Rule, index: Index, resolver: Resolver, memory: Memory
) -> Iterator[tuple[Memory, Candidate, PathFate]]:
    for candidate in _home_names(rule, memory):
        fate = _home_name_fate(index, resolver, candidate, rule.params["home_names"])
        if fate is not None:
            yield memory, candidate, fate


def _home_names(rule: Rule, memory: Memory) -> Iterator[Candidate]:
    """Agents, skills and commands a memory names (`/deploy`, the `reviewer` agent)."""
    seen: set[int] = set()
    for source in rule.params["home_name_patterns"]:
        for match in patterns.finditer(patterns.compile_pattern(str(source)), memory.text):
            start = match.start("name")
            if start not in seen:
                seen.add(start)
                name = match.group("name")
                yield Candidate(name, start, explicit=False, home_name=name)


def _home_name_fate(
    index: Index, resolver: Resolver, candidate: Candidate, shapes: dict[str, Any]
) -> PathFate | None:
    """What history says of a named agent, skill or command in the repository's copy of
    `~/.claude`: None when one of that name is there today, or none ever was."""
    name = str(candidate.home_name).replace(":", "/")  # `plugin:cmd` lives in plugin/cmd
    rels = [
        f"{resolver.mirror}/{kind}/{shape.format(name=name)}".lstrip("/")
        for kind, kinds_shapes in shapes.items()
        for shape in kinds_shapes
    ]
    if any(resolver.present(rel) for rel in rels):
        return None
    for rel in rels:
        if rel.endswith("/"):
            fate = _folder_fate(index, rel, resolver.present)
        else:
            fate = index.fate(rel, resolver.present)
        if fate is not None:
            return fate
    return None


def _fate(
    index: Index, resolver: Resolver, candidate: Candidate, memory: Memory
) -> PathFate | list[PathFate] | None:
    """What history says of a missing path: one fate, several (a short name that matches
    more than one gone path), or None."""
    present = resolver.present
    tries = resolver.repo_relative(candidate, memory)
    for rel in tries:
        fate = index.fate(rel, present)
        if fate is not None:
            return fate
    folder_like = candidate.text.endswith("/") or "." not in candidate.text.rsplit("/", 1)[-1]
    if folder_like:
        for rel in tries:
            fate = _folder_fate(index, rel, present)
            if fate is not None:
                return fate
    if candidate.text.startswith(_ROOTED):
        return None
    # Written relative to some subfolder: match the trailing components of gone paths.
    text = candidate.text.rstrip("/")
    fates = []
    for path in index.paths_named(text.rsplit("/", 1)[-1]):
        if path.endswith("/" + text) and path not in tries:
            fate = index.fate(path, present)
            if fate is not None:
                fates.append(fate)
    if len(fates) == 1:
        return fates[0]
    return sorted(fates, key=lambda f: f.path) or None


def _folder_fate(index: Index, folder: str, present: Any) -> PathFate | None:
    """A folder is gone when every file history had under it is gone; the evidence is
    the newest of their fates (a move when they all moved into one folder)."""
    from curator.repo.history import PathFate

    fates = []
    for path in index.paths_under(folder):
        if present(path):
            return None
        fate = index.fate(path, present)
        if fate is not None:
            fates.append(fate)
    if not fates:
        return None
    newest = max(fates, key=lambda f: f.commit.time)
    targets = {f.target.rsplit("/", 1)[0] for f in fates if f.event == "moved" and f.target}
    if all(f.event == "moved" for f in fates) and len(targets) == 1:
        return PathFate(folder.rstrip("/") + "/", "moved", newest.commit, targets.pop() + "/")
    return PathFate(folder.rstrip("/") + "/", "deleted", newest.commit)


def _hit(
    ctx: Context,
    rule: Rule,
    resolver: Resolver,
    memory: Memory,
    candidate: Candidate,
    fate: PathFate | list[PathFate],
) -> Hit:
    line, column = memory.locate(candidate.start)
    end_line, end_column = memory.locate(candidate.start + len(candidate.text))
    values: dict[str, Any] = {"path": candidate.text}
    fix = None
    if isinstance(fate, list):
        newest = max(fate, key=lambda f: f.commit.time)
        listing = ", ".join(f"{f.path} ({_what(f)})" for f in fate[: rule.params["examples"]])
        values.update(count=len(fate), candidates=listing, commit_obj=newest.commit)
        kind = "ambiguous"
    else:
        values.update(gone_path=fate.path, commit_obj=fate.commit)
        kind = fate.event
        if fate.event == "moved" and fate.target is not None and candidate.home_name:
            values.update(target=fate.target)
        elif fate.event == "moved" and fate.target is not None:
            replacement = resolver.rewrite(candidate, memory, fate.path, fate.target)
            values.update(target=fate.target, replacement=replacement)
            fix = stale.rewrite_fix(
                memory, candidate.start, candidate.text, replacement, candidate.text
            )
        if fate.last_path is not None:
            values["last_path"] = fate.last_path
    detail = stale.evidence(ctx, rule, kind, values, memory)
    return Hit(memory.path, line, column, end_line, end_column, detail=detail, fix=fix)


def _what(fate: PathFate) -> str:
    if fate.event == "moved":
        return f"moved to {fate.target} in {fate.commit.short}"
    return f"deleted in {fate.commit.short}"


def _held_back(
    rule: Rule,
    rules: narration.Narration,
    resolver: Resolver,
    memory: Memory,
    candidate: Candidate,
    fate: PathFate | list[PathFate],
    ignored: set[str],
) -> str | None:
    fates = fate if isinstance(fate, list) else [fate]
    if any(f.path in ignored for f in fates):
        return "ignored now (taken out of git on purpose)"
    if resolver.is_convention(candidate.text):
        return "names a Claude Code convention path"
    commits = [f.commit for f in fates]
    end = candidate.start + len(candidate.text)
    return stale.held_back(rules, memory, candidate.start, end, commits)


def _ignored(repo: Path, found: list[PathFate | list[PathFate]]) -> set[str]:
    """Which of the gone paths .gitignore now ignores (one `git check-ignore`)."""
    # A folder keeps its slash: `dir/` patterns match folders only.
    paths = sorted({f.path for x in found for f in (x if isinstance(x, list) else [x])})
    if not paths:
        return set()
    listing = "\0".join(paths).encode("utf-8", "surrogateescape")
    out = git_output(repo, "check-ignore", "--no-index", "--stdin", "-z", stdin=listing)
    return {p.decode("utf-8", "surrogateescape") for p in (out or b"").split(b"\0") if p}


def candidates(rule: Rule, memory: Memory, links: bool = True) -> Iterator[Candidate]:
    params = rule.params
    scan = references.scan(memory, params["skip_fenced"])
    found: list[Candidate] = []
    if params["in_code"]:
        for ref in scan.code:
            words = references.tokens(ref)
            for token in words:
                cleaned = _clean(token.text, token.start, link=False, params=params)
                # In a command (`adb pull x > file.png`) only a slash path is a claim.
                found.extend(c for c in cleaned if len(words) == 1 or "/" in c.text)
    if params["in_links"] and links:
        for ref in scan.links:
            found.extend(_clean(ref.text, ref.start, link=True, params=params))
    if params["in_prose"]:
        for ref in scan.prose:
            for pattern in rule.patterns:
                for match in patterns.finditer(pattern, ref.text):
                    group = "path" if "path" in match.groupdict() else 0
                    start = ref.start + match.start(group)
                    found.extend(_clean(match.group(group), start, link=False, params=params))
    if params["skip_fenced"] and params["fenced_shells"]:
        found.extend(_fenced_scripts(memory, params))
    seen: set[int] = set()
    for candidate in sorted(found, key=lambda c: c.start):
        if candidate.start not in seen:
            seen.add(candidate.start)
            yield candidate


# A command line that runs a script: `bash scripts/x.sh`, `python tools/y.py --flag`,
# `./run.sh`, `source env/setup.sh` (after an optional `$ ` prompt and `sudo`).
_RUNS = re.compile(
    r"^[ \t]*(?:\$[ \t]+)?(?:sudo[ \t]+)?(?:(?:bash|sh|zsh|source|python3?|node|ruby|perl)"
    r"[ \t]+(?:-[\w-]+[ \t]+)*(?P<path>(?:\./|[\w.-]+/)[^\s;|&<>()'\"`]*)"
    r"|(?P<own>\./[^\s;|&<>()'\"`]+))"
)


def _fenced_scripts(memory: Memory, params: dict[str, Any]) -> Iterator[Candidate]:
    """Scripts a fenced shell block runs (```bash, ```sh, ...): the agent runs those lines
    as written, so a script they name is a claim like any inline path. The rest of a
    fenced block (output, examples, other code) stays unread."""
    if "```" not in memory.text and "~~~" not in memory.text:
        return
    shells = {str(s).lower() for s in params["fenced_shells"]}
    language: str | None = None
    for number, line in enumerate(memory.lines, start=1):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            language = None if language is not None else stripped[3:].strip().lower() or "-"
            continue
        if language not in shells:
            continue
        match = _RUNS.match(line)
        if match is not None:
            group = "path" if match.group("path") else "own"
            start = memory.line_starts[number - 1] + match.start(group)
            yield from _clean(match.group(group), start, link=False, params=params)


def _clean(raw: str, start: int, link: bool, params: dict[str, Any]) -> list[Candidate]:
    """Zero or one candidate: the path inside `raw`, or nothing when it is not a path."""
    text = raw
    stripped = len(text) - len(text.lstrip(_LEAD))
    text, start = text[stripped:], start + stripped
    if not link and (text.startswith("-") or "=" in text.split("/", 1)[0]):
        if "=" not in text:
            return []  # a command-line flag
        cut = text.index("=") + 1
        text, start = text[cut:], start + cut
        stripped = len(text) - len(text.lstrip(_LEAD))
        text, start = text[stripped:], start + stripped
    text = text.rstrip(_TRAIL) if not text.endswith(("./", "../")) else text
    text = _LINE_SUFFIX.sub("", text).rstrip(_TRAIL)
    if not text or not any(ch.isalnum() for ch in text):
        return []
    skip = _skip_pattern(tuple(params["skip_patterns"]))
    if skip is not None and patterns.search(skip, text):
        return []
    segments = [s for s in text.split("/") if s]
    skip_dirs = set(params["skip_dirs"])
    if any(s in skip_dirs for s in segments):
        return []
    has_extension = _has_extension(segments[-1], params["extensions"])
    if "/" not in text and not has_extension:
        return []
    if not link and text.endswith("/") and len(segments) == 1 and not text.startswith(_ROOTED):
        return []  # a lone `logs/` says too little about where it is
    # An extensionless `a/b` is checked only when its folder exists (see Resolver).
    explicit = link or has_extension or text.startswith(_ROOTED) or text.endswith("/")
    return [Candidate(text, start, explicit)]


def _has_extension(name: str, extensions: list[str]) -> bool:
    if "." not in name.strip("."):
        return False
    return name.rsplit(".", 1)[1].lower() in _lowered(tuple(extensions))


@lru_cache(maxsize=32)
def _lowered(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w.lower() for w in words)


@lru_cache(maxsize=32)
def _skip_pattern(sources: tuple[str, ...]) -> Any:
    """The rule's skip patterns as one alternation: one search per candidate."""
    if not sources:
        return None
    return patterns.compile_pattern("|".join(f"(?:{s})" for s in sources))


class Resolver:
    """Resolves candidates lexically and stats only what lands inside an allowed root.

    Works on strings (os.path), not Path objects: a store has thousands of candidates.
    `~/` is never the home folder of whoever runs curator (in CI, a runner): only
    `~/.claude/...` is checked, against the repository's copy of that folder when the
    repository is a dotfiles repository that has one (`home_mirrors`, or config
    `references.home_in_repo`).
    """

    def __init__(
        self,
        repo: Path,
        store: Path,
        params: dict[str, Any],
        mirror: str | None,
        checkout: str | None = None,
    ):
        self.repo_path = repo.resolve()
        self.repo = str(self.repo_path)
        self.store = str(store.resolve())
        self.repo_name = self.repo_path.name
        self.mirror = mirror  # repository-relative folder standing for ~/.claude
        self.checkout = checkout  # the checkout's home-relative path, slugged: `-code-dotfiles`
        self.conventions = tuple(str(p) for p in params["convention_paths"])
        self.tracked = frozenset(tree.tracked_files(self.repo_path))
        self._seen: dict[tuple[str, str], str | None] = {}

    def _inside(self, path: str) -> bool:
        """Inside the repository or the store."""
        return _within(path, self.repo) or _within(path, self.store)

    def present(self, rel: str) -> bool:
        """Whether the repository has `rel` today: tracked, or on disk (untracked, ignored)."""
        rel = rel.rstrip("/")
        return rel in self.tracked or os.path.lexists(os.path.join(self.repo, rel))

    def is_convention(self, text: str) -> bool:
        """`~/.claude/settings.json`, `.claude/agents/`: Claude Code's own places, named as
        the convention on every machine, whatever this repository's copy of them did."""
        name = text[2:] if text.startswith(("~/", "./")) else text
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.conventions)

    def home_target(self, text: str) -> str | None:
        """The absolute path a `~/.claude/...` reference, or one into the checkout the
        store's slug names (`~/code/dotfiles/...`), stands for in the repository."""
        if self.mirror is not None and text.startswith("~/.claude/"):
            rest = text[len("~/.claude/") :]
            return os.path.normpath(os.path.join(self.repo, self.mirror, rest))
        prefix = self.checkout_prefix(text)
        if prefix is None:
            return None
        return os.path.normpath(os.path.join(self.repo, text[len(prefix) :]))

    def checkout_prefix(self, text: str) -> str | None:
        """`~/code/dotfiles/` when `text` starts with the checkout's home-relative path."""
        if self.checkout is None or not text.startswith("~/"):
            return None
        parts = text[2:].split("/")
        for end in range(1, len(parts)):
            if discovery.project_slug("/" + "/".join(parts[:end])) == self.checkout:
                return "~/" + "/".join(parts[:end]) + "/"
        return None

    def status(self, candidate: Candidate, memory: Memory) -> str | None:
        """'live', 'missing', or None when the path is not ours to check."""
        key = (
            candidate.text if candidate.explicit else "\0" + candidate.text,
            str(memory.path.parent),
        )
        if key not in self._seen:
            self._seen[key] = self._status(candidate, key[1])
        return self._seen[key]

    def _status(self, candidate: Candidate, folder: str) -> str | None:
        text = candidate.text
        lexists = os.path.lexists
        if text.startswith("~"):
            target = self.home_target(text)
            if target is None or not _within(target, self.repo):
                return None  # someone's home folder: not ours to check
            return "live" if lexists(target) else "missing"
        if text.startswith("/"):
            target = os.path.normpath(text)
            if not self._inside(target):
                return None  # another machine's or the system's file: not ours to check
            return "live" if lexists(target) else "missing"
        rest = text.partition("/")[2]
        inside = self._tries(text, folder)
        if not inside:
            return None  # climbs out of the repository and the store: never probed
        if any(lexists(t) for t in inside):
            return "live"
        if "/" not in text.rstrip("/"):
            return "live" if text.rstrip("/") in tree.basenames(self.repo_path) else "missing"
        if tree.has_suffix(self.repo_path, _without_parents(text)):
            return "live"  # written relative to a subfolder: `core/overlay.ts` for app/core/...
        shorter = os.path.normpath(os.path.join(self.repo, rest))
        if "/" in rest and _within(shorter, self.repo) and lexists(shorter):
            return "live"  # written from a parent checkout: `mobile-app/lib/x.dart`
        parent = os.path.dirname(os.path.normpath(os.path.join(self.repo, text.rstrip("/"))))
        if not candidate.explicit and not (self._inside(parent) and os.path.isdir(parent)):
            return None  # `application/json`, `feature/login`: not a path in this repo
        if self._slash_list(text):
            return None
        return "missing"

    def _tries(self, text: str, folder: str) -> list[str]:
        """Absolute paths a relative reference may mean, inside the repository or store."""
        join, normal = os.path.join, os.path.normpath
        first, _, rest = text.partition("/")
        tries = [normal(join(base, text)) for base in (self.repo, folder, self.store)]
        if first == self.repo_name and rest:
            tries.append(normal(join(self.repo, rest)))  # `<repo>/...` is relative to its parent
        return [t for t in dict.fromkeys(tries) if self._inside(t)]

    def repo_relative(self, candidate: Candidate, memory: Memory) -> list[str]:
        """The repository-relative paths to look up in history for a missing reference."""
        text = candidate.text
        if text.startswith("~"):
            target = self.home_target(text)
            absolute = [target] if target is not None else []
        elif text.startswith("/"):
            absolute = [os.path.normpath(text)]
        else:
            absolute = self._tries(text, str(memory.path.parent))
        prefix = self.repo.rstrip(os.sep) + os.sep
        rels = [a[len(prefix) :].replace(os.sep, "/") for a in absolute if a.startswith(prefix)]
        suffix = "/" if text.endswith("/") else ""
        return [r + suffix if suffix and not r.endswith("/") else r for r in dict.fromkeys(rels)]

    def rewrite(self, candidate: Candidate, memory: Memory, old: str, new: str) -> str:
        """The reference as it should read now that `old` (repository-relative) is `new`,
        written the same way (relative, `~/.claude/`, absolute) as the memory wrote it."""
        text = candidate.text
        if text.startswith("~/.claude/") and self.mirror is not None:
            mirror = self.mirror.rstrip("/") + "/"
            if new.startswith(mirror):
                return "~/.claude/" + new[len(mirror) :]
            return os.path.join(self.repo, new)
        prefix = self.checkout_prefix(text)
        if prefix is not None:
            return prefix + new
        if text.startswith("/"):
            return os.path.join(self.repo, new)
        target = os.path.join(self.repo, old.rstrip("/"))
        slash = "/" if text.endswith("/") else ""
        for base in (self.repo, str(memory.path.parent), self.store):
            if os.path.normpath(os.path.join(base, text.rstrip("/"))) == target:
                relative = os.path.relpath(os.path.join(self.repo, new.rstrip("/")), base)
                lead = "./" if text.startswith("./") and not relative.startswith(".") else ""
                return lead + relative + slash
        return _same_tail(text, old, new)

    def _slash_list(self, text: str) -> bool:
        """`README/ARCHITECTURE/CLAUDE.md` names several files, not one path."""
        parts = text.split("/")
        if len(parts) < 2 or not all(p not in ("", ".", "..") for p in parts):
            return False
        if os.path.isdir(os.path.join(self.repo, parts[0])):
            return False
        if tree.has_suffix(self.repo_path, parts[0] + "/"):
            return False  # `innovation/card.py` when some `.../innovation/` folder is here
        if all("." in p.strip(".") for p in parts):
            return True  # `vehicles.ide/carcols.dat/handling.cfg`: every part is a file
        names = tree.basenames(self.repo_path)
        stems = tree.stems(self.repo_path)
        # The last member alone existing elsewhere means a moved file, not a list.
        return any(p in names or p in stems for p in parts[:-1])


def _same_tail(text: str, old: str, new: str) -> str:
    """`text` named `old` by its trailing components; name `new` the same way: drop the
    leading folders `text` left out when `new` shares them, else give `new` whole."""
    prefix = old[: len(old) - len(text)]
    if old.endswith(text) and new.startswith(prefix):
        return new[len(prefix) :]
    return new


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _without_parents(text: str) -> str:
    while text.startswith(("../", "./")):
        text = text.split("/", 1)[1]
    return text
