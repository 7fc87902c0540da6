"""What a repository once had: every path it tracked and every identifier its code lost.

Stale means "was here, is gone", and history is the evidence. One index per repository,
built from two streamed `git log` passes and kept in SQLite (a format loading cannot
execute) under curator's cache folder, keyed by HEAD:

- paths: `git log --name-status -M` over all commits, plus the first-parent pass with
  merge diffs (a path that left in a merge has no delete event otherwise); for each path
  the newest event (added, deleted, renamed to) and its commit;
- versions: from that first-parent pass, every commit of the mainline that changed a
  file (a rename is the old path gone and the new one written), in order: the manifests'
  history (`repo.manifests`) is read from it, not from a `git log` of its own;
- identifiers: `git log -p --unified=0`, tokenizing only removed lines; for each token
  the newest commit that removed it and the file it was in, and for a name a removed
  line defined, the newest commit and file of such a definition. Never one `git log -S` per
  name: slower by orders of magnitude, and it matches substrings.

A new HEAD that descends from the indexed one is brought up to date from `old..HEAD`;
anything else is rebuilt. Where history cannot answer — a shallow clone, a partial
clone, renames past git's limit, an object git cannot read — the index says so
(`Index.limits`) and never turns missing evidence into "never existed".
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from curator.git import bound, git_ok, git_output, stream
from curator.hashing import sha256_text

VERSION = "5"
_TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{2,}")
# A removed line that defines a name (def, class, function, const, an assignment, a
# method, a key): evidence that the repository's own code had it, not only called it.
_DEFINITION = re.compile(
    rb"\b(?:def|class|function|func|fn|struct|enum|interface|type|trait|impl|module|object"
    rb"|record|macro|sub|proc|let|const|var|val|typedef|namespace|protocol|extension)"
    rb"\s+[*&]?\s*([A-Za-z_]\w*)"
    rb"|^-\s*(?:(?:export|public|private|protected|static|final|readonly|async|override)\s+)*"
    rb"(?:[A-Za-z_][\w<>\[\],?*&:]*\s+)?(?:[\w$]+\.)*([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?![=>])"
    rb"|^-\s*(?:(?:async|static|get|set|public|private|protected)\s+)*([A-Za-z_]\w*)\s*"
    rb"\([^)\n]*\)\s*(?::[^{\n]*)?\{"
    rb"|^-\s*([A-Za-z_]\w*)\s*:\s"
    rb"|^-\s*(?!(?:return|await|yield|new|throw|case|else)\b)"
    rb"(?:[A-Za-z_][\w<>\[\]*&:,?]*\s+)+([A-Za-z_]\w*)\s*\([^)\n]*\)\s*(?:async\s*)?=>"
    rb"|^-\s*(?!(?:return|if|while|for|else|await|yield|new|throw|case|delete|typeof|sizeof"
    rb"|echo|print|not|and|or|in|is)\b)(?:[A-Za-z_][\w<>\[\]*&:,]*\s+)+\**([A-Za-z_]\w*)"
    rb"\s*\([^;\n]*$",
    re.MULTILINE,
)
# A removed line that is a comment defines nothing ("// function fooBar in the SDK").
_COMMENT_LINE = re.compile(rb"^-\s*(?://|/\*|\*|#|--|;)[^\n]*", re.MULTILINE)
MAX_LINE = 1000  # longer removed lines are minified or generated: not evidence
_HEADER = "%x01%H%x1f%ct%x1f%s"
_UNREADABLE = (b"unable to read", b"missing blob", b"could not read", b"bad object")
MAX_RESUMES = 200  # passes restarted past an object git cannot read
# Messages that mean the pass did not see all of history (some git versions exit 0).
_INCOMPLETE = (b"fatal:", b"error:", b"unable to read", b"missing blob", b"could not read")
_RENAMES_SKIPPED = (b"rename detection was skipped", b"too many files")
_RENAME_LIMIT = "32767"
BUILD_SECONDS = 600  # all the passes of one build or update (5,000 commits take 1.4 s)


_KILLED = b"\nerror: git did not end within its bound and was killed"


class Unanswered(OSError):
    """A pass of git did not end within the build's bound: history unavailable."""


@dataclass(frozen=True)
class Commit:
    sha: str  # full
    time: int  # committer time, seconds since the epoch
    subject: str

    @property
    def short(self) -> str:
        return self.sha[:7]


@dataclass(frozen=True)
class PathFate:
    """What happened to a path the repository no longer has."""

    path: str  # as it was
    event: str  # deleted | moved
    commit: Commit  # the commit that deleted it, or that made the last move
    target: str | None = None  # for `moved`: where it lives now
    last_path: str | None = None  # for `deleted` after moves: the name it was deleted under


@dataclass(frozen=True)
class Removal:
    """The newest commit that removed an identifier, and the file it was removed from."""

    token: str
    commit: Commit
    file: str
    defined: bool  # some removed line defined it (the repository's own name)
    # The newest commit whose removed lines defined it, and the file: where the
    # definition went (the newest removal may be a call or a comment elsewhere).
    defined_commit: Commit | None = None
    defined_file: str | None = None


@dataclass
class BuildStats:
    commits: int = 0
    seconds: float = 0.0
    mode: str = "cached"  # cached | updated | built


@dataclass
class Index:
    """A repository's history index, open for lookups."""

    db: sqlite3.Connection
    head: str
    limits: tuple[str, ...] = ()  # why the history may be incomplete, said in words
    stats: BuildStats = field(default_factory=BuildStats)
    _commits: dict[int, Commit] = field(default_factory=dict)

    def _commit(self, cid: int) -> Commit:
        found = self._commits.get(cid)
        if found is None:
            row = self.db.execute(
                "SELECT sha, time, subject FROM commits WHERE id=?", (cid,)
            ).fetchone()
            found = self._commits[cid] = Commit(row[0], int(row[1]), row[2])
        return found

    def path_events(self, paths: Iterable[str]) -> dict[str, tuple[str, int, str | None]]:
        """Newest (event, commit id, target) for each path the history has."""
        out: dict[str, tuple[str, int, str | None]] = {}
        wanted = list(dict.fromkeys(paths))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT path, event, commit_id, target FROM paths WHERE path IN ({marks})", chunk
            )
            for path, event, cid, target in rows:
                out[path] = (event, cid, target)
        return out

    def paths_named(self, name: str) -> list[str]:
        """Every path the history has whose last segment is `name`."""
        rows = self.db.execute("SELECT path FROM paths WHERE name=?", (name,))
        return [r[0] for r in rows]

    def paths_under(self, folder: str) -> list[str]:
        """Every path the history has inside `folder` (no trailing slash)."""
        prefix = folder.rstrip("/") + "/"
        rows = self.db.execute(
            "SELECT path FROM paths WHERE path >= ? AND path < ?", (prefix, prefix + "\U0010ffff")
        )
        return [r[0] for r in rows]

    def fate(self, path: str, present: Callable[[str], bool]) -> PathFate | None:
        """What became of `path`, following renames to the end; None when it is present
        now (`present` says what the tree has today) or history cannot say."""
        if present(path):
            return None
        newest = self.path_events([path]).get(path)
        current, seen = path, {path}
        while newest is not None and newest[0] == "R" and newest[2] not in seen:
            _, cid, target = newest
            assert target is not None
            if present(target):
                return PathFate(path, "moved", self._commit(cid), target)
            seen.add(target)
            current, newest = target, self.path_events([target]).get(target)
        if newest is None or newest[0] != "D":
            return None  # no event that says how it went: not evidence
        last = current if current != path else None
        return PathFate(path, "deleted", self._commit(newest[1]), last_path=last)

    def removals(self, tokens: Iterable[str]) -> dict[str, Removal]:
        """The newest removal of each token that some commit removed from the code."""
        out: dict[str, Removal] = {}
        wanted = list(dict.fromkeys(tokens))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                "SELECT t.token, t.commit_id, f.path, d.commit_id, df.path FROM tokens t"
                " JOIN files f ON f.id = t.file_id LEFT JOIN defined d ON d.token = t.token"
                f" LEFT JOIN files df ON df.id = d.file_id WHERE t.token IN ({marks})",
                chunk,
            )
            for token, cid, path, def_cid, def_path in rows:
                where = self._commit(def_cid) if def_cid is not None else None
                out[token] = Removal(token, self._commit(cid), path, where is not None, where,
                                     def_path)  # fmt: skip
        return out

    def versions(self, wanted: Callable[[str], bool]) -> dict[str, list[tuple[Commit, bool]]]:
        """Every mainline version of each path `wanted` accepts, oldest first: (commit,
        deleted). Merges count as one change against the first parent, as
        `git log --first-parent --diff-merges=first-parent` shows them."""
        paths = [p for (p,) in self.db.execute("SELECT DISTINCT path FROM versions") if wanted(p)]
        found: dict[str, list[tuple[Commit, bool]]] = {}
        newest: dict[str, int] = {}
        for start in range(0, len(paths), 500):
            chunk = paths[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT path, commit_id, gone, seq FROM versions WHERE path IN ({marks})"
                " ORDER BY seq",
                chunk,
            )
            for path, cid, gone, seq in rows:
                found.setdefault(path, []).append((self._commit(cid), bool(gone)))
                newest[path] = seq
        # In the order `git log` first shows them: the most recently changed path first.
        return {p: found[p] for p in sorted(found, key=lambda p: -newest[p])}

    def counts(self) -> tuple[int, int, int]:
        """(commits, paths, removed identifiers) the index holds."""
        tables = ("commits", "paths", "tokens")
        return tuple(  # type: ignore[return-value]
            int(self.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in tables
        )

    def close(self) -> None:
        for key, index in list(_OPEN.items()):
            if index is self:
                del _OPEN[key]
        with contextlib.suppress(sqlite3.Error):
            self.db.close()

    def _added(self, sha: str) -> dict[str, set[str]] | None:
        """What `added_tokens` read for `sha` in an earlier run, if it did."""
        try:
            if self.db.execute("SELECT 1 FROM added_read WHERE sha=?", (sha,)).fetchone() is None:
                return None
            found: dict[str, set[str]] = {}
            for file, token in self.db.execute("SELECT file, token FROM added WHERE sha=?", (sha,)):
                found.setdefault(file, set()).add(token)
            return found
        except sqlite3.Error:
            return None

    def _keep_added(self, sha: str, found: dict[str, set[str]]) -> None:
        """Remember what a commit added (a commit's diff never changes): a warm run asks
        git nothing. Best effort: a locked or replaced file only loses the shortcut."""
        rows = [(sha, file, token) for file, tokens in found.items() for token in tokens]
        with contextlib.suppress(sqlite3.Error):
            self.db.executemany("INSERT INTO added VALUES (?, ?, ?)", rows)
            self.db.execute("INSERT OR IGNORE INTO added_read VALUES (?)", (sha,))
            self.db.commit()


# The index each repository has open in this process: `added_tokens` keeps its answers
# there.
_OPEN: dict[str, Index] = {}


def head_of(repo: Path) -> str | None:
    out = git_output(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}", timeout=10)
    return out.decode().strip() if out else None


def index_file(folder: Path, repo: Path, settings: str) -> Path:
    """Where a repository's index lives: one SQLite file per repository and settings."""
    return folder / f"{sha256_text(f'{repo}|{settings}|{VERSION}')[:16]}.sqlite"


def open_index(
    repo: Path,
    folder: Path,
    exclude: tuple[str, ...] = (),
    *,
    allow_build: bool = True,
    max_update_commits: int | None = None,
    on_build: Callable[[int], None] | None = None,
) -> Index | None:
    """The repository's index, current with HEAD; None when it cannot be had.

    A current index costs one `rev-parse` and an open. A HEAD that descends from the
    indexed one is caught up from `old..HEAD` when that is at most `max_update_commits`
    commits (no limit when None). Otherwise the index is rebuilt when `allow_build` or
    when the whole history is at most `max_update_commits` commits, else None (the
    session-start hook passes False and builds in the background). `exclude`
    are pathspec globs left out of the identifier pass (prose, lock files). `on_build`
    hears the commit count before a full build (for progress on a terminal).
    """
    repo = repo.resolve()
    head = head_of(repo)
    if head is None:
        return None
    settings = "\0".join(exclude)
    path = index_file(folder, repo, settings)
    started = time.monotonic()
    index = _open_current(path, repo, head, max_update_commits, exclude)
    if index is not None:
        index.stats.seconds = time.monotonic() - started
        _OPEN[str(repo)] = index
        return index
    if not allow_build and (
        max_update_commits is None or _count_commits(repo, head) > max_update_commits
    ):
        return None  # a small history costs no more to build than a short update
    if on_build is not None:
        on_build(_count_commits(repo, head))
    built = build(repo, path, head, exclude)
    _discard(path.with_suffix(".building"))  # a background build's claim, when it was one
    if built is not None:
        built.stats.seconds = time.monotonic() - started
        _OPEN[str(repo)] = built
    return built


CLAIM_STALE_SECONDS = 1800  # a background build that died without releasing its claim


def claim_build(repo: Path, folder: Path, exclude: tuple[str, ...] = ()) -> bool:
    """Take the right to build `repo`'s index in the background (O_EXCL), so sessions
    starting together start one build. The build releases it; a claim older than half
    an hour is stale."""
    claim = index_file(folder, repo.resolve(), "\0".join(exclude)).with_suffix(".building")
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        if time.time() - claim.stat().st_mtime > CLAIM_STALE_SECONDS:
            claim.unlink()
    try:
        fd = os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except OSError:
        return False
    os.close(fd)
    return True


def _open_current(
    path: Path, repo: Path, head: str, max_update: int | None, exclude: tuple[str, ...]
) -> Index | None:
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5)
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.Error:
        _discard(path)
        return None
    if meta.get("version") != VERSION or meta.get("repo") != str(repo):
        db.close()
        return None
    indexed = meta.get("head", "")
    limits = tuple(x for x in meta.get("limits", "").split("\n") if x)
    if indexed == head:
        return Index(db, head, limits)
    if not _descends(repo, indexed, head):
        db.close()
        return None
    count = _count_commits(repo, f"{indexed}..{head}")
    if max_update is not None and count > max_update:
        db.close()
        return None
    db.close()
    # Catch up in a copy and swap it in: a reader never sees half an update.
    return _update(path, repo, indexed, head, exclude, count)


def _descends(repo: Path, old: str, new: str) -> bool:
    return bool(old) and git_ok(repo, "merge-base", "--is-ancestor", old, new, timeout=30)


def _count_commits(repo: Path, spec: str) -> int:
    out = git_output(repo, "rev-list", "--count", spec, timeout=30)
    try:
        return int(out.decode().strip()) if out else 0
    except ValueError:
        return 0


def _discard(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE commits(id INTEGER PRIMARY KEY, sha TEXT, time INTEGER, subject TEXT);
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT UNIQUE);
CREATE TABLE paths(path TEXT PRIMARY KEY, name TEXT, event TEXT, commit_id INTEGER,
                   target TEXT, time INTEGER) WITHOUT ROWID;
CREATE INDEX paths_name ON paths(name);
CREATE TABLE tokens(token TEXT PRIMARY KEY, commit_id INTEGER, file_id INTEGER) WITHOUT ROWID;
CREATE TABLE defined(token TEXT PRIMARY KEY, commit_id INTEGER, file_id INTEGER) WITHOUT ROWID;
CREATE TABLE versions(seq INTEGER PRIMARY KEY, path TEXT, commit_id INTEGER, gone INTEGER);
CREATE INDEX versions_path ON versions(path);
CREATE TABLE added(sha TEXT, file TEXT, token TEXT);
CREATE INDEX added_sha ON added(sha);
CREATE TABLE added_read(sha TEXT PRIMARY KEY) WITHOUT ROWID;
"""


def build(repo: Path, path: Path, head: str, exclude: tuple[str, ...]) -> Index | None:
    """A full index of `repo` at `head`, written to a temporary file and renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    _discard(tmp)
    try:
        db = _scratch(tmp)
        db.executescript(SCHEMA)
        limits = _fill(db, repo, head, None, exclude)
        _set_meta(db, repo, head, limits)
        db.commit()
        db.close()
        os.replace(tmp, path)
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5)
    except (OSError, sqlite3.Error):
        _discard(tmp)
        return None
    count = db.execute("SELECT count(*) FROM commits").fetchone()[0]
    return Index(db, head, tuple(limits), BuildStats(commits=int(count), mode="built"))


def _scratch(tmp: Path) -> sqlite3.Connection:
    """A connection to a file being built: no journal, no fsync. It only becomes the
    index by `os.replace` once complete; one cut short is discarded."""
    db = sqlite3.connect(tmp)
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    return db


def _update(
    path: Path, repo: Path, old: str, head: str, exclude: tuple[str, ...], count: int
) -> Index | None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(path.read_bytes())
        db = _scratch(tmp)
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        old_limits = [x for x in meta.get("limits", "").split("\n") if x]
        limits = _fill(db, repo, head, old, exclude)
        _set_meta(db, repo, head, list(dict.fromkeys(old_limits + limits)))
        db.commit()
        db.close()
        os.replace(tmp, path)
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5)
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    except (OSError, sqlite3.Error):
        _discard(tmp)
        return None
    limits_now = tuple(x for x in meta.get("limits", "").split("\n") if x)
    return Index(db, head, limits_now, BuildStats(commits=count, mode="updated"))


def _set_meta(db: sqlite3.Connection, repo: Path, head: str, limits: list[str]) -> None:
    rows = {"version": VERSION, "repo": str(repo), "head": head, "limits": "\n".join(limits)}
    db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", rows.items())


def _fill(
    db: sqlite3.Connection, repo: Path, head: str, since: str | None, exclude: tuple[str, ...]
) -> list[str]:
    """Add the commits of `since..head` (all of history when `since` is None), newest
    events winning over what the index already holds. Returns the limits met; raises
    Unanswered when a pass was killed at the bound (a part of history was never read)."""
    deadline = time.monotonic() + bound(BUILD_SECONDS)
    limits: list[str] = []
    if _git_text(repo, "rev-parse", "--is-shallow-repository") == "true":
        limits.append(
            "shallow clone: only the fetched history is known (fetch-depth: 0 in "
            "actions/checkout, or `git fetch --unshallow`)"
        )
    partial = _is_partial_clone(repo)
    spec = f"{since}..{head}" if since else head
    commits = _Commits(db)
    renames = ["-M100%"] if partial else ["-M"]
    name_status = ["log", "--format=" + _HEADER, "-z", "--name-status", *renames]
    # git does the work; run the three passes at once and read the small ones in threads.
    # The first-parent pass keeps every change (no --diff-filter): it is also the versions.
    first_parent = ["--first-parent", "--diff-merges=first-parent"]
    collected = [
        _Collected(repo, [*name_status, "--diff-filter=ADR"], [spec], deadline),
        _Collected(repo, [*name_status, *first_parent], [spec], deadline),
    ]
    tokens: dict[bytes, tuple[int, str]] = {}
    defined: dict[bytes, tuple[int, str]] = {}
    if partial:
        limits.append(
            "partial clone: identifiers are not indexed (reading old code would download it); "
            "renames are only exact ones"
        )
    else:
        # Excluded files are skipped while parsing: a pathspec glob makes git 2-3x slower.
        skip = _excluded(exclude)
        args = ["log", "-p", "--unified=0", "--no-color", "-M", "--format=" + _HEADER]
        parser = _RemovedTokens(commits.id, tokens, defined, skip)
        stderr = _resumable(repo, args, [spec], parser.feed, parser.last, deadline)
        if _KILLED in stderr:
            raise Unanswered(stderr.decode("utf-8", "replace"))
        limits.extend(_limits_from(stderr))
    events: dict[str, tuple[int, str, int, str | None]] = {}  # path -> (time, event, cid, target)
    versions: list[tuple[str, int, bool]] = []  # (path, cid, deleted), newest first
    for run, kept in zip(collected, (None, versions), strict=True):
        out, stderr = run.result()
        if _KILLED in stderr:
            raise Unanswered(stderr.decode("utf-8", "replace"))
        _path_events(out, commits.id, events, kept)
        limits.extend(_limits_from(stderr))
    commits.save()
    _store_paths(db, events)
    _store_versions(db, versions)
    _store_tokens(db, tokens)
    _store_defined(db, defined)
    return list(dict.fromkeys(limits))


def _resumable(
    repo: Path,
    args: list[str],
    revs: list[str],
    consume: Callable[[Iterator[bytes]], None],
    last: Callable[[], str | None],
    deadline: float,
) -> bytes:
    """Run a `git log` pass; when git stops at an object it cannot read (a damaged or
    partly fetched clone), go on from the commit after the last one it showed, over the
    same list of commits (`--no-walk=unsorted --stdin`). Returns all stderr. Raises
    Unanswered when a pass ran into `deadline`."""
    stderr = _run_pass(repo, [*args, *revs], consume, deadline)
    order: list[str] | None = None
    position, shown = 0, None
    for _ in range(MAX_RESUMES):
        if _KILLED in stderr or not any(m in stderr.lower() for m in _UNREADABLE):
            break
        if order is None:
            walk = ["--first-parent"] if "--first-parent" in args else []
            order = (git_output(repo, "rev-list", *walk, *revs, timeout=60) or b"").decode().split()
        seen = last()
        if seen is not None and seen != shown and seen in order:
            position = order.index(seen) + 1  # past the commit git was showing
        else:
            position += 1  # git failed before showing the next commit: skip that one
        shown = seen
        if position >= len(order):
            break
        stdin = "\n".join(order[position:]).encode()
        more = [*args, "--no-walk=unsorted", "--stdin"]
        stderr += _run_pass(repo, more, consume, deadline, stdin)
    return stderr


class _Commits:
    """Commit ids: the index's known commits plus the ones a pass meets, saved at the end."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.ids = {sha: int(cid) for sha, cid in db.execute("SELECT sha, id FROM commits")}
        self.next = max(self.ids.values(), default=0) + 1
        self.new: list[tuple[int, str, int, str]] = []

    def id(self, sha: str, ctime: int, subject: str) -> int:
        found = self.ids.get(sha)
        if found is None:
            found = self.ids[sha] = self.next
            self.next += 1
            self.new.append((found, sha, ctime, subject))
        return found

    def save(self) -> None:
        self.db.executemany("INSERT INTO commits VALUES (?, ?, ?, ?)", self.new)


class _Collected:
    """A git pass whose whole output is read by a thread while other work goes on."""

    def __init__(self, repo: Path, args: list[str], revs: list[str], deadline: float) -> None:
        self.out: list[bytes] = []
        self.err = b""
        # A daemon: Ctrl-C ends the run at once (`git.kill_all` at exit stops its git).
        self.thread = threading.Thread(
            target=self._run, args=(repo, args, revs, deadline), daemon=True
        )
        self.thread.start()

    def _run(self, repo: Path, args: list[str], revs: list[str], deadline: float) -> None:
        self.err = _resumable(repo, args, revs, self.out.extend, self._last, deadline)

    def _last(self) -> str | None:
        for block in reversed(self.out):
            mark = block.rfind(b"\x01")
            if mark >= 0:
                return _header(block[mark + 1 :].split(b"\0", 1)[0])[0]
        return None

    def result(self) -> tuple[bytes, bytes]:
        self.thread.join()
        return b"".join(self.out), self.err


def _git_text(repo: Path, *args: str) -> str:
    out = git_output(repo, *args, timeout=30)
    return out.decode("utf-8", "replace").strip() if out else ""


def _is_partial_clone(repo: Path) -> bool:
    out = git_output(repo, "config", "--get-regexp", r"^remote\..*\.promisor$", timeout=10)
    if out and b"true" in out:
        return True
    return bool(_git_text(repo, "config", "--get", "extensions.partialclone"))


def _limits_from(stderr: bytes) -> list[str]:
    found = []
    lowered = stderr.lower()
    if any(m in lowered for m in _RENAMES_SKIPPED):
        found.append("git skipped rename detection on some commits: renames there may be missed")
    if any(m in lowered for m in _INCOMPLETE):
        first = next(
            (ln for ln in stderr.splitlines() if any(m in ln.lower() for m in _INCOMPLETE)), b""
        )
        found.append(
            "git could not read all of history ("
            + first.decode("utf-8", "replace").strip()[:120]
            + "): what it did not read is not known"
        )
    return found


def _run_pass(
    repo: Path,
    args: list[str],
    consume: Callable[[Iterator[bytes]], None],
    deadline: float,
    stdin: bytes | None = None,
) -> bytes:
    """Stream `git ARGS` stdout into `consume` (`stdin` fed to git); return stderr, which
    holds _KILLED when git was killed at `deadline`."""
    env = {"LC_ALL": "C"}
    config = [("diff.renameLimit", _RENAME_LIMIT), ("core.quotePath", "off")]
    left = max(0.001, deadline - time.monotonic())
    with stream(repo, args, left, config=config, env=env, stdin=stdin is not None,
                stderr=True) as running:  # fmt: skip
        if running is None:
            return b"error: git could not be run"
        proc = running.proc
        assert proc.stdout is not None and proc.stderr is not None
        if stdin is not None and proc.stdin is not None:
            feeder = threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True)
            feeder.start()
        errors: list[bytes] = []
        stderr_stream = proc.stderr
        reader = threading.Thread(target=lambda: errors.append(stderr_stream.read()), daemon=True)
        reader.start()
        try:
            consume(_chunks(proc.stdout))
        finally:
            proc.stdout.close()  # a consumer that stopped early lets git end
        code = proc.wait()  # an error above (Ctrl-C) kills git instead, leaving `stream`
        reader.join()
    stderr = b"".join(errors)
    if running.expired:
        stderr += _KILLED
    elif code != 0:
        stderr += f"\nerror: git exited with status {code}".encode()
    return stderr


def _feed(pipe: IO[bytes], data: bytes) -> None:
    with contextlib.suppress(OSError):
        pipe.write(data)
    with contextlib.suppress(OSError):
        pipe.close()


def _chunks(stream: IO[bytes]) -> Iterator[bytes]:
    read = stream.read
    while True:
        block = read(1 << 20)
        if not block:
            return
        yield block


def _path_events(
    data: bytes,
    commit_id: Callable[[str, int, str], int],
    events: dict[str, tuple[int, str, int, str | None]],
    versions: list[tuple[str, int, bool]] | None = None,
) -> None:
    """Parse `--name-status -z` output: \\x01header\\0\\n then STATUS\\0path[\\0path]\\0...
    The events of additions, deletions and renames; with `versions`, every change too
    (path, commit id, deleted), in output order."""
    for block in data.split(b"\x01")[1:]:
        header, _, rest = block.partition(b"\0")
        sha, ctime, subject = _header(header)
        cid = commit_id(sha, ctime, subject)
        fields = rest.lstrip(b"\n").split(b"\0")
        i = 0
        while i < len(fields):
            status = fields[i].strip()
            if not status:
                i += 1
                continue
            kind = chr(status[0])
            if kind in "RC" and i + 2 < len(fields):
                old, new = _decode(fields[i + 1]), _decode(fields[i + 2])
                if kind == "R":
                    _note(events, old, (ctime, "R", cid, new))
                    if versions is not None:
                        versions.append((old, cid, True))
                _note(events, new, (ctime, "A", cid, None))
                if versions is not None:
                    versions.append((new, cid, False))
                i += 3
            elif kind in "ADMT" and i + 1 < len(fields):
                path = _decode(fields[i + 1])
                if kind in "AD":
                    _note(events, path, (ctime, kind, cid, None))
                if versions is not None:
                    versions.append((path, cid, kind == "D"))
                i += 2
            else:
                i += 1


def _note(
    events: dict[str, tuple[int, str, int, str | None]],
    path: str,
    event: tuple[int, str, int, str | None],
) -> None:
    """Keep the newest event of a path (log order is newest first; merges of two passes
    compare commit times)."""
    known = events.get(path)
    if known is None or event[0] > known[0]:
        events[path] = event


def _header(raw: bytes) -> tuple[str, int, str]:
    parts = raw.decode("utf-8", "replace").split("\x1f", 2)
    sha = parts[0].strip()
    try:
        ctime = int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        ctime = 0
    subject = parts[2] if len(parts) > 2 else ""
    return sha, ctime, subject


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _store_paths(
    db: sqlite3.Connection, events: dict[str, tuple[int, str, int, str | None]]
) -> None:
    existing = {}
    if events:
        for row in db.execute("SELECT path, time FROM paths"):
            existing[row[0]] = row[1]
    rows = [
        (path, path.rsplit("/", 1)[-1], event, cid, target, ctime)
        for path, (ctime, event, cid, target) in events.items()
        if existing.get(path) is None or ctime >= existing[path]
    ]
    db.executemany("INSERT OR REPLACE INTO paths VALUES (?, ?, ?, ?, ?, ?)", rows)


def _store_versions(db: sqlite3.Connection, versions: list[tuple[str, int, bool]]) -> None:
    """Append a pass's versions (newest first) after what the index holds: a larger `seq`
    is a newer version."""
    base = int(db.execute("SELECT coalesce(max(seq), 0) FROM versions").fetchone()[0]) + 1
    top = base + len(versions) - 1
    db.executemany(
        "INSERT INTO versions VALUES (?, ?, ?, ?)",
        ((top - i, path, cid, int(gone)) for i, (path, cid, gone) in enumerate(versions)),
    )


def _excluded(globs: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a repository path matches one of `globs` (matched against its file name, or
    the whole path when the glob has a slash)."""
    if not globs:
        return lambda path: False
    names = [fnmatch.translate(g) for g in globs if "/" not in g]
    paths = [fnmatch.translate(g) for g in globs if "/" in g]
    by_name = re.compile("|".join(names)) if names else None
    by_path = re.compile("|".join(paths)) if paths else None

    def matches(path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        return bool((by_name and by_name.match(name)) or (by_path and by_path.match(path)))

    return matches


class _RemovedTokens:
    """Tokens of removed lines, newest removal first (log order), with their file; files
    `skip` matches are left out. Fed one pass after another (resumed passes)."""

    def __init__(
        self,
        commit_id: Callable[[str, int, str], int],
        tokens: dict[bytes, tuple[int, str]],
        defined: dict[bytes, tuple[int, str]],
        skip: Callable[[str], bool],
    ) -> None:
        self.commit_id, self.tokens, self.skip = commit_id, tokens, skip
        self.defined = defined
        self.sha: str | None = None

    def last(self) -> str | None:
        return self.sha

    def feed(self, chunks: Iterator[bytes]) -> None:
        tokens, findall, defined = self.tokens, _TOKEN.findall, self.defined
        definitions = _DEFINITION.findall
        cid, file, skipping, in_header = 0, "", False, False
        removed: list[bytes] = []
        old_path = new_path = b""

        def flush() -> None:
            if removed:
                text = b"\n".join(removed)
                for token in set(findall(text)).difference(tokens):
                    tokens[token] = (cid, file)
                for groups in definitions(_COMMENT_LINE.sub(b"-", text)):
                    for name in groups:
                        if name and name not in defined:
                            defined[name] = (cid, file)
                removed.clear()

        pending = b""
        for chunk in chunks:
            data = pending + chunk
            cut = data.rfind(b"\n")
            if cut < 0:
                pending = data
                continue
            pending = data[cut + 1 :]
            for line in data[:cut].split(b"\n"):
                first = line[:1]
                if first == b"-":
                    if in_header:
                        if line.startswith(b"--- "):
                            old_path = line[4:]
                    elif not skipping and len(line) <= MAX_LINE:
                        removed.append(line)
                elif first == b"+":
                    if in_header and line.startswith(b"+++ "):
                        new_path = line[4:]
                elif first == b"@":
                    if in_header:
                        in_header = False
                        target = new_path if new_path != b"/dev/null" else old_path
                        file = _decode(target[2:] if target[:2] in (b"a/", b"b/") else target)
                        skipping = self.skip(file)
                elif line.startswith(b"diff --git "):
                    flush()
                    in_header = True
                    old_path = new_path = b""
                elif first == b"\x01":
                    flush()
                    sha, ctime, subject = _header(line[1:])
                    cid = self.commit_id(sha, ctime, subject)
                    self.sha = sha
        flush()


def _store_tokens(db: sqlite3.Connection, tokens: dict[bytes, tuple[int, str]]) -> None:
    files: dict[str, int] = {}
    for path, fid in db.execute("SELECT path, id FROM files"):
        files[path] = fid
    new_files = sorted({f for _, f in tokens.values()} - files.keys())
    for path in new_files:
        cur = db.execute("INSERT INTO files(path) VALUES (?)", (path,))
        files[path] = int(cur.lastrowid or 0)
    db.executemany(
        "INSERT OR REPLACE INTO tokens VALUES (?, ?, ?)",
        ((t.decode("ascii"), cid, files[f]) for t, (cid, f) in tokens.items()),
    )


def _store_defined(db: sqlite3.Connection, defined: dict[bytes, tuple[int, str]]) -> None:
    """The newest defining removal of each name (a pass's own are newer than the index's)."""
    db.executemany(
        "INSERT OR IGNORE INTO files(path) VALUES (?)",
        ((f,) for f in {f for _, f in defined.values()}),
    )
    files = dict(db.execute("SELECT path, id FROM files").fetchall())
    db.executemany(
        "INSERT OR REPLACE INTO defined VALUES (?, ?, ?)",
        ((t.decode("ascii"), cid, files[f]) for t, (cid, f) in defined.items()),
    )


def added_tokens(repo: Path, sha: str) -> dict[str, set[str]]:
    """Names commit `sha` defined on the lines it added, by file (where a removed name may
    have gone: a rename). Only definitions (def, class, function, an assignment, ...), so
    a dictionary key or a word in a string is never offered as the new name. One `git
    show`, kept in the repository's open index for the next run; empty when git cannot
    say."""
    index = _OPEN.get(str(Path(repo).resolve()))
    known = index._added(sha) if index is not None else None
    if known is not None:
        return known
    out = git_output(
        repo, "show", "--format=", "--unified=0", "--no-color", "--no-ext-diff", "-M", sha,
        timeout=30,
    )  # fmt: skip
    found: dict[str, set[str]] = {}
    added: list[bytes] = []
    file = ""
    for line in [*(out or b"").split(b"\n"), b"diff --git "]:
        if line.startswith(b"diff --git "):
            if added and file:
                names = found.setdefault(file, set())
                for groups in _DEFINITION.findall(b"\n".join(added)):
                    names.update(g.decode("ascii") for g in groups if g)
            added, file = [], ""
        elif line.startswith(b"+++ "):
            target = line[4:]
            file = _decode(target[2:] if target[:2] == b"b/" else target)
        elif line.startswith(b"+") and len(line) <= MAX_LINE:
            added.append(b"-" + line[1:])  # the definition pattern reads removed lines
    if index is not None and out is not None:
        index._keep_added(sha, found)
    return found
