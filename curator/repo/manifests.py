"""The targets a repository's manifests define today, and the ones its history removed.

A command in a memory (`make setup`, `npm run build:prod`, `just lint`) is a reference
to a target of a manifest: a Makefile's rule, a package.json script, a justfile recipe,
a pyproject script, a tox environment, a nox session, a Taskfile task. Which file names
are which manifest is data (the rule's `manifests`); how each format names its targets
is here.

Stale means "was here, is gone", as for paths: the history index's first-parent pass
(`Index.versions`; without an index, one `git log --name-status` of its own) lists every
version of each manifest file along the first-parent line (a branch's change arrives
with its merge), one `git cat-file --batch` reads them all, and consecutive versions of
a file say which targets each commit removed and added. A removed target whose recipe
the same commit gave to an added target was renamed.
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from curator.git import git_output
from curator.repo.history import Commit

if TYPE_CHECKING:
    from curator.repo.history import Index

TIMEOUT_SECONDS = 60.0
_HEADER = "\x01"

# A make rule: `build test: deps` at column 0 (not `X := y`, not a recipe line).
_MAKE_RULE = re.compile(r"^([^\t#\s:=.][^:#=\n]*?)[ \t]*::?(?!=)([^\n]*)$", re.MULTILINE)
_MAKE_NAME = re.compile(r"[A-Za-z0-9][\w.+/-]*")
# A just recipe: `name arg='x':` or `@name:` at column 0 (not `x := y`).
_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][\w-]*)(?:[ \t]+[^\n:]*)?[ \t]*:(?!=)", re.MULTILINE)
_JUST_ALIAS = re.compile(r"^alias[ \t]+([A-Za-z_][\w-]*)[ \t]*:=", re.MULTILINE)
_JUST_KEYWORDS = frozenset({"set", "alias", "export", "import", "mod", "if", "else"})
_TOX_ENV = re.compile(r"^\[testenv:([^\]\s]+)\]", re.MULTILINE)
_TOX_ENVLIST = re.compile(r"^envlist[ \t]*=([^\n]*(?:\n[ \t]+[^\n]*)*)", re.MULTILINE)
_NOX_SESSION = re.compile(r"^@nox\.session\b[^\n]*\n(?:@[^\n]*\n)*def[ \t]+(\w+)", re.MULTILINE)
_TASK_KEY = re.compile(r"^  ([\w:.-]+):", re.MULTILINE)


@dataclass(frozen=True)
class Removal:
    """The newest commit that took a target out of a manifest of its kind."""

    target: str
    kind: str
    file: str  # the manifest it was in
    commit: Commit
    renamed_to: str | None  # a target the same commit added with the same recipe


@dataclass
class Manifests:
    """What one repository's manifests define, by kind (make, npm, just, ...)."""

    present: dict[str, set[str]] = field(default_factory=dict)  # at HEAD
    removed: dict[tuple[str, str], Removal] = field(default_factory=dict)  # (kind, target)
    limits: list[str] = field(default_factory=list)  # where history could not answer

    def defines(self, kind: str, target: str) -> bool:
        return target in self.present.get(kind, set())


def targets(kind: str, text: str, recipes: bool = True) -> dict[str, str] | None:
    """The targets a manifest of `kind` defines, each with its recipe (normalized, "" when
    the format has none or `recipes` is off: most versions need names only); None when
    the text cannot be read as that format."""
    if kind == "make":
        return _make(text, recipes)
    if kind == "npm":
        return _npm(text)
    if kind == "just":
        found = _indented(text, _JUST_RECIPE, _JUST_KEYWORDS, recipes)
        found.update({m.group(1): "" for m in _JUST_ALIAS.finditer(text)})
        return found
    if kind == "python":
        return _pyproject(text)
    if kind == "tox":
        return _tox(text)
    if kind == "nox":
        return {m.group(1): "" for m in _NOX_SESSION.finditer(text)}
    if kind == "task":
        return _taskfile(text)
    return None


def read(
    repo: Path,
    manifests: dict[str, list[str]],
    max_versions: int,
    wanted: Iterable[tuple[str, str]] = (),
    timeout: float = TIMEOUT_SECONDS,
    index: Callable[[], Index | None] | None = None,
) -> Manifests | None:
    """The repository's manifests today and through history; None when git cannot say.
    History is read only when one of the `wanted` (kind, target) pairs is missing today:
    from the repository's history index (`index()`, current with HEAD) when there is one
    without limits, else with a `git log` of its own."""
    kind_of = _classifier(manifests)
    head_files = git_output(repo, "ls-tree", "-r", "-z", "--name-only", "HEAD", timeout=timeout)
    if head_files is None:
        return None
    tree = set(_text(head_files).split("\0"))
    at_head = [p for p in tree if p and kind_of(p)]
    out = Manifests()
    blobs = _cat(repo, [f"HEAD:{p}" for p in at_head], timeout)
    if blobs is None:
        return None
    # A makefile's `include`s are makefiles whatever their names (`include tools/rules`).
    kinds = {p: kind_of(p) for p in at_head}
    included = {i for p in at_head if kinds[p] == "make" for i in _includes(p, blobs[f"HEAD:{p}"])}
    extra = sorted(i for i in included & tree if i not in kinds)
    blobs.update(_cat(repo, [f"HEAD:{p}" for p in extra], timeout) or {})
    kinds.update({p: "make" for p in extra})
    for path, kind in kinds.items():
        found = targets(kind, blobs.get(f"HEAD:{path}", "")) if kind else None
        if kind and found:
            out.present.setdefault(kind, set()).update(found)
        if kind == "make":  # `TARGETS = setup lint` and `$(TARGETS):` define them too
            out.present.setdefault(kind, set()).update(_make_words(blobs.get(f"HEAD:{path}", "")))
    if all(out.defines(kind, target) for kind, target in wanted):
        return out  # nothing is missing: history has nothing to say
    indexed = index() if index is not None else None
    if indexed is not None and not indexed.limits:
        found_in = indexed.versions(lambda path: kind_of(path) is not None)
        versions = {_readable(p): v for p, v in found_in.items()}
    else:
        logged = _logged_versions(repo, kind_of, timeout)
        if logged is None:
            return None
        versions = logged
    total = sum(len(v) for v in versions.values())
    if total > max_versions:
        out.limits.append(f"{total} manifest versions, over max_manifest_versions ({max_versions})")
        return out
    names = [f"{c.sha}:{p}" for p, vs in versions.items() for c, gone in vs if not gone]
    read_back = _cat(repo, names, timeout)
    if read_back is None:
        return None
    blobs.update(read_back)
    events: dict[str, list[tuple[str, str, str, dict[str, str], dict[str, str]]]] = {}
    commits: dict[str, Commit] = {}
    for path, history in versions.items():
        kind = kind_of(path)
        if kind is None:
            continue
        before: dict[str, str] = {}
        before_text = ""
        for commit, gone in history:
            text = "" if gone else blobs.get(f"{commit.sha}:{path}", "")
            after = targets(kind, text, recipes=False)
            if after is None:
                continue  # an unreadable version: compare around it
            if before.keys() != after.keys():  # recipes only where targets come and go
                old, new = targets(kind, before_text) or {}, targets(kind, text) or {}
                lost = {t: old.get(t, "") for t in before if t not in after}
                gained = {t: new.get(t, "") for t in after if t not in before}
                commits[commit.sha] = commit
                events.setdefault(commit.sha, []).append((kind, path, commit.sha, lost, gained))
            before, before_text = after, text
    for sha, changes in events.items():
        commit = commits[sha]
        for kind, path, _, lost, _ in changes:
            added = {t: r for k, _, _, _, g in changes if k == kind for t, r in g.items()}
            for target, recipe in lost.items():
                if target in added:
                    continue  # moved between files of the same kind
                key = (kind, target)
                known = out.removed.get(key)
                if known is not None and known.commit.time >= commit.time:
                    continue
                same = [t for t, r in added.items() if recipe and r == recipe]
                renamed = same[0] if len(same) == 1 else None
                out.removed[key] = Removal(target, kind, path, commit, renamed)
    return out


def _logged_versions(
    repo: Path, kind_of: _Kind, timeout: float
) -> dict[str, list[tuple[Commit, bool]]] | None:
    """path -> [(commit, deleted)], oldest first, from a `git log` of its own."""
    # No pathspec: git's glob pathspecs cost 20x the plain log; names are filtered here.
    log = git_output(
        repo,
        "-c",
        "core.quotePath=false",
        "log",
        f"--format={_HEADER}%H%x1f%ct%x1f%s",
        "--name-status",
        "--no-renames",
        # The mainline's states, merges diffed against it: consecutive versions of a file
        # are then true neighbours, not two branches' interleaved commits.
        "--first-parent",
        "--diff-merges=first-parent",
        timeout=timeout,
    )
    return None if log is None else _versions(_text(log), kind_of)


def _classifier(manifests: dict[str, list[str]]) -> _Kind:
    return _Kind(tuple((k, tuple(globs)) for k, globs in manifests.items()))


@dataclass(frozen=True)
class _Kind:
    globs: tuple[tuple[str, tuple[str, ...]], ...]

    def __call__(self, path: str) -> str | None:
        if "node_modules/" in path or path.startswith("node_modules"):
            return None
        return _kind_of_name(self.globs, path.rsplit("/", 1)[-1])


@lru_cache(maxsize=65536)
def _kind_of_name(globs: tuple[tuple[str, tuple[str, ...]], ...], name: str) -> str | None:
    """The first kind one of whose globs matches the file name (`fnmatchcase`): names
    repeat over a tree and its history, so each is matched once."""
    for kind, pattern in _compiled(globs):
        if pattern.match(name):
            return kind
    return None


@lru_cache(maxsize=16)
def _compiled(
    globs: tuple[tuple[str, tuple[str, ...]], ...],
) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each kind's globs as one regex, as `fnmatch.fnmatchcase` compiles each."""
    return tuple(
        (kind, re.compile("|".join(fnmatch.translate(g) for g in patterns)))
        for kind, patterns in globs
        if patterns
    )


def _readable(path: str) -> str:
    """A path as the `git log` read here decodes it (bytes that are not UTF-8 replaced)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _versions(log: str, kind_of: _Kind) -> dict[str, list[tuple[Commit, bool]]]:
    versions: dict[str, list[tuple[Commit, bool]]] = {}
    commit: Commit | None = None
    for line in log.splitlines():
        if line.startswith(_HEADER):
            sha, ctime, subject = [*line[1:].split("\x1f", 2), "", ""][:3]
            commit = Commit(sha, int(ctime or 0), subject)
        elif commit is not None and "\t" in line:
            status, path = line.split("\t", 1)
            if kind_of(path):
                versions.setdefault(path, []).append((commit, status.startswith("D")))
    return {p: list(reversed(v)) for p, v in versions.items()}


def _cat(repo: Path, names: Iterable[str], timeout: float) -> dict[str, str] | None:
    """The text of each `rev:path`, read by one `git cat-file --batch`."""
    names = list(dict.fromkeys(names))
    if not names:
        return {}
    request = "".join(f"{n}\n" for n in names).encode("utf-8")
    data = git_output(repo, "cat-file", "--batch", stdin=request, timeout=timeout)
    if data is None:
        return None
    out: dict[str, str] = {}
    at = 0
    for name in names:
        end = data.find(b"\n", at)
        if end < 0:
            break
        header = data[at:end].split()
        at = end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue  # "missing", or a tree
        size = int(header[2])
        out[name] = data[at : at + size].decode("utf-8", "replace")
        at += size + 1
    return out


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _recipe(lines: list[str]) -> str:
    return "\n".join(" ".join(line.split()) for line in lines if line.strip())


# The indented (or empty) lines after a rule's line: its recipe.
_BODY = {
    "\t": re.compile(r"[^\n]*((?:\n(?:\t[^\n]*)?)*)"),
    " \t": re.compile(r"[^\n]*((?:\n(?:[ \t][^\n]*)?)*)"),
}


def _body(text: str, start: int, indented: str = " \t") -> str:
    """The recipe of the rule whose line starts at `start` (one pass over the recipe)."""
    match = _BODY[indented].match(text, start)
    return _recipe(match.group(1).split("\n")) if match else ""


_MAKE_INCLUDE = re.compile(r"^[ \t]*-?s?include[ \t]+([^\n#]+)", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z0-9][\w.+/-]*")


def _includes(path: str, text: str) -> list[str]:
    """The files a makefile includes, relative to the repository (`$(...)` names skipped)."""
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    found = []
    for match in _MAKE_INCLUDE.finditer(text):
        for name in match.group(1).split():
            if "$" not in name and "*" not in name:
                found.append(posixpath.normpath(folder + name))
    return found


def _make_words(text: str) -> set[str]:
    """Words a makefile assigns to variables (recipes and comments aside): a target named
    in one (`TARGETS = setup lint`, `$(TARGETS):`) is defined there. (`.PHONY: x` is no
    assignment: a leftover `.PHONY` line does not keep a removed target alive.)"""
    words: set[str] = set()
    for line in text.split("\n"):
        if not line or line[0] == "\t" or line.lstrip().startswith("#"):
            continue
        if "=" in line:
            words.update(_WORD.findall(line.split("=", 1)[1].split("#", 1)[0]))
    return words


def _make(text: str, recipes: bool = True) -> dict[str, str]:
    text = text.replace("\\\n", " ")
    found: dict[str, str] = {}
    for match in _MAKE_RULE.finditer(text):
        if "=" in match.group(2).split(";", 1)[0]:
            continue  # a target-specific variable, not the rule
        recipe = _body(text, match.start(), "\t") if recipes else ""
        for name in match.group(1).split():
            if _MAKE_NAME.fullmatch(name) and "%" not in name:
                found.setdefault(name, recipe)
    return found


def _npm(text: str) -> dict[str, str] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {str(k): " ".join(str(v).split()) for k, v in scripts.items()}


def _indented(
    text: str, pattern: re.Pattern[str], keywords: frozenset[str], recipes: bool
) -> dict[str, str]:
    return {
        m.group(1): _body(text, m.start()) if recipes else ""
        for m in pattern.finditer(text)
        if m.group(1) not in keywords
    }


def _pyproject(text: str) -> dict[str, str] | None:
    import tomllib

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    found: dict[str, str] = {}
    tables = [
        data.get("project", {}).get("scripts"),
        data.get("tool", {}).get("poetry", {}).get("scripts"),
        data.get("tool", {}).get("pdm", {}).get("scripts"),
    ]
    for table in tables:
        if isinstance(table, dict):
            found.update({str(k): str(v) for k, v in table.items()})
    return found


def _tox(text: str) -> dict[str, str]:
    found = {m.group(1): "" for m in _TOX_ENV.finditer(text)}
    for match in _TOX_ENVLIST.finditer(text):
        for item in re.split(r"[,\s]+", match.group(1)):
            if item and "{" not in item and "}" not in item:
                found.setdefault(item, "")
    return found


def _taskfile(text: str) -> dict[str, str]:
    at = re.search(r"^tasks:[ \t]*$", text, re.MULTILINE)
    if at is None:
        return {}
    block = text[at.end() :]
    stop = re.search(r"^\S", block[1:], re.MULTILINE)
    block = block[: stop.start() + 1] if stop else block
    keys = list(_TASK_KEY.finditer(block))
    ends = [m.start() for m in keys[1:]] + [len(block)]
    return {
        m.group(1): _recipe(block[m.end() : end].split("\n")[1:])
        for m, end in zip(keys, ends, strict=True)
    }
