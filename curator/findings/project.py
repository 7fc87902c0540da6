"""Where curator keeps its state: `<storage root>/curator/<project key>/`.

The storage root is config `storage`, else `$ONLOOKER_DIR`, else `~/.onlooker` (shared with
the onlooker plugins). The project key is the first 12 hex of sha256 of
`remote:<origin url>`, else of `root:<main checkout path>`; a store outside any repository
is keyed by `root:<store path>`.
"""

from __future__ import annotations

import contextlib
from functools import lru_cache
from pathlib import Path

from curator.config import Config
from curator.findings import atomic
from curator.findings.onlooker import storage_root
from curator.git import git_output
from curator.hashing import sha256_text


@lru_cache(maxsize=16)
def origin_url(repo: Path) -> str | None:
    """`remote.origin.url` of the repository, or None."""
    out = git_output(repo, "config", "--get", "remote.origin.url", timeout=10)
    url = out.decode("utf-8", "surrogateescape").strip() if out is not None else ""
    return url or None


def project_key(repo: Path | None, store: Path) -> str:
    if repo is not None:
        url = origin_url(repo)
        seed = f"remote:{url}" if url else f"root:{repo}"
    else:
        seed = f"root:{store}"
    return sha256_text(seed)[:12]


class ProjectDir:
    """The files of one project's state folder. Read-only; a plain class (see `Config`)."""

    __slots__ = ("root",)
    root: Path

    def __init__(self, root: Path) -> None:
        object.__setattr__(self, "root", root)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ProjectDir is read-only (tried to set {name!r})")

    def __eq__(self, other: object) -> bool:
        return self.root == other.root if isinstance(other, ProjectDir) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.root)

    def __repr__(self) -> str:
        return f"ProjectDir(root={self.root!r})"

    @property
    def findings(self) -> Path:
        return self.root / "findings"

    @property
    def manifest(self) -> Path:
        return self.root / "manifest.json"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"

    @property
    def last_cheap_scan(self) -> Path:
        return self.root / "last_cheap_scan.json"

    @property
    def last_llm_sweep(self) -> Path:
        return self.root / "last_llm_sweep.json"

    @property
    def backups(self) -> Path:
        return self.root / "backups"

    @property
    def fix_plan(self) -> Path:
        """The plan `curator fix` last showed, which `curator fix --apply` applies."""
        return self.root / "fix_plan.json"

    @property
    def journal(self) -> Path:
        """The applied fixes, newest last, that `curator fix --undo` puts back."""
        return self.root / "journal"


STORES_FILE = "stores.json"


def project_dir(config: Config, repo: Path | None, store: Path) -> ProjectDir:
    """The state folder of a store. Keyed by its repository when known; a store seen
    before with its repository keeps that key when named from outside the repository
    (`curator findings --store …` from another folder)."""
    base = storage_root(config) / "curator"
    known = atomic.read_json(base / STORES_FILE)
    known = known if isinstance(known, dict) else {}
    if repo is None:
        remembered = known.get(str(store))
        key = remembered if isinstance(remembered, str) else project_key(None, store)
        return ProjectDir(base / key)
    key = project_key(repo, store)
    if known.get(str(store)) != key:
        with contextlib.suppress(OSError):  # only a convenience for later look-ups
            atomic.write_json(base / STORES_FILE, {**known, str(store): key})
    return ProjectDir(base / key)
