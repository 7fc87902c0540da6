"""The hook's quick path: the last answer again, when nothing it depends on has changed.

Most session starts see an unchanged project. When the full hook (`session.start`) finds
that (its fast path: the store's signature equals the last run's), it also writes a
record of everything that answer depended on: the configuration files that could be
found from the session's folder and what they held, the environment, the rule files,
curator's own code, the git answers that locate the repository and the project, and the
answer itself. The next start checks that record with stat calls and a few git calls,
then makes the full path's own fast-path test (the store signature against the
watermark), claims the scan, logs `curator.scan.started` / `curator.scan.complete`
(`reused: true`) and answers, all without loading the CLI, PyYAML, the rules or the
findings. Anything that differs, or cannot be read, means the full path runs as before.

The record lives in `<onlooker dir>/curator/cache/quick/`, one file per session folder
and environment, and is written only when the storage root is that folder (a
configured `storage` is never written around). It holds no secret: the environment is a
digest, and the configuration is the parsed file the user wrote.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from curator import __version__, clock
from curator.config import Config, config_candidates
from curator.findings import atomic
from curator.findings.onlooker import onlooker_dir
from curator.git import git_output
from curator.hashing import sha256_text

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from typing import Any

    from curator.findings.project import ProjectDir

FORMAT = 1
# The environment a session start's answer can depend on: what curator reads (where
# things are, which day it is, which provider could run a sweep) and git's own
# variables. Not a prefix like CLAUDE_: Claude Code gives each session its own
# CLAUDE_ENV_FILE, and the record must outlive the session. Only a digest is kept, and
# of the API key only whether it is set.
_ENV_NAMES = (
    "HOME",
    "PATH",
    "XDG_CONFIG_HOME",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
    "CLAUDE_CODE_SANDBOXED",
    "ONLOOKER_DIR",
    "ONLOOKER_EVENTS_LOG",
    "CURATOR_TODAY",
    "CURATOR_NESTED",
    "CURATOR_KILL_AT",
)
_ENV_SET = ("ANTHROPIC_API_KEY",)
_ORIGIN = ("config", "--get", "remote.origin.url")
_TOPLEVEL = ("rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel")

Stamp = list[int] | None


def env_digest() -> str:
    values: list[list[str | bool | None]] = [[k, os.environ.get(k)] for k in _ENV_NAMES]
    values += [[k, v] for k, v in sorted(os.environ.items()) if k.startswith("GIT_")]
    values += [[k, bool(os.environ.get(k))] for k in _ENV_SET]
    return sha256_text(json.dumps(values))


def record_path(cwd: Path) -> Path:
    key = sha256_text(json.dumps([str(cwd), env_digest()]))[:16]
    return onlooker_dir() / "curator" / "cache" / "quick" / f"{key}.json"


def _stamp(path: str) -> Stamp:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def _tree(root: Path, suffix: str = "") -> list[str]:
    """Every folder and file under `root` (a folder's stamp changes when an entry is
    added or removed), or `root` alone when it is a file or missing."""
    found = [str(root)]
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")  # bytecode is not code
        found += [os.path.join(folder, d) for d in dirs]
        found += [os.path.join(folder, n) for n in sorted(names) if n.endswith(suffix)]
    return found


def _watched(cwd: Path, config: Config, repo: Path | None) -> tuple[list[str], list[str]]:
    """(paths whose stat the answer depends on, paths whose mere existence it does)."""
    from curator.interpreter.rule_files import builtin_rules_dir
    from curator.store import claude_settings

    here = cwd.resolve()
    stats = [str(p) for p in config_candidates(here)]
    # Claude Code's settings: autoMemoryDirectory, autoMemoryEnabled (store.claude_settings);
    # the trust record only matters when the project has settings of its own.
    project = repo or here
    settings = [s.path for s in claude_settings.sources(project)]
    stats += [str(p) for p in settings]
    if any(p.is_file() for p in settings[1:3]):
        stats.append(str(claude_settings.global_config_path()))
    if repo is None:
        stats.append(str(onlooker_dir() / "curator" / "stores.json"))  # project_dir's key
    for root in (builtin_rules_dir(), *config.rule_paths()):
        stats += _tree(root)
    stats += _tree(Path(__file__).resolve().parents[1], ".py")  # curator's own code
    ancestors = {p for base in (Path(os.path.abspath(cwd)), here) for p in (base, *base.parents)}
    exists = sorted(str(p / ".git") for p in ancestors)  # a repository made or removed
    git_dir = _plain_git_dir(cwd)
    if git_dir is not None:
        stats += _git_config_files(git_dir)
    return stats, exists


def _plain_git_dir(cwd: Path) -> Path | None:
    """The `.git` folder git finds from `cwd`, when it is a plain one (not a worktree's or
    submodule's `.git` file, not set by the environment)."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return None
    here = cwd.resolve()
    for folder in (here, *here.parents):
        entry = folder / ".git"
        if os.path.lexists(entry):
            return entry if entry.is_dir() and not entry.is_symlink() else None
    return None


def _git_config_files(git_dir: Path) -> list[str]:
    """Every file `git config` reads for the repository's location and its origin: the
    repository's, the user's and the system's."""
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return [str(git_dir / "config"), str(Path.home() / ".gitconfig"),
            os.path.join(xdg, "git", "config"), "/etc/gitconfig"]  # fmt: skip


def _provider_inputs(config: Config) -> list[str]:
    """What `llm.providers.available` looks at besides the config and the environment:
    the folders on PATH (a `claude` installed or removed) and the command it found."""
    import shutil

    command = str(config.get("llm.claude_command"))
    found = shutil.which(command)
    return [
        *os.get_exec_path(),
        *([found] if found else []),
        *([command] if os.sep in command else []),
    ]


def _probes(cwd: Path, repo: Path | None, timeout: float) -> list[str | None] | None:
    """The git answers that locate the repository and name the project; None when the
    stats of a plain `.git` folder's config files stand for them (no git process)."""
    if repo is None:
        return []
    if _plain_git_dir(cwd) is not None:
        return None
    answers = [
        git_output(cwd, *_TOPLEVEL, timeout=timeout),
        git_output(repo, *_ORIGIN, timeout=timeout),
    ]
    return [None if a is None else a.decode("utf-8", "surrogateescape") for a in answers]


def remember(
    *,
    config: Config,
    cwd: Path,
    store: Path,
    repo: Path | None,
    project: ProjectDir,
    ruleset: str,
    signature: str,
    today: str,
    llm_rules: bool,
    answer: dict[str, Any],
    complete: dict[str, Any],
) -> None:
    """Write the record of a fast-path answer (the full path calls this; never raises)."""
    from curator.store.discovery import repo_root

    try:
        if config.path("storage") is not None or repo != repo_root(cwd):
            return  # elsewhere kept, or a repository chosen by more than the session's folder
        if json.loads(json.dumps(config.data)) != config.data:
            return  # a value JSON cannot carry (a YAML date): the record could not rebuild it
        from curator.llm.providers import available

        stats, exists = _watched(cwd, config, repo)
        stats += _provider_inputs(config)
        record = {
            "format": FORMAT,
            "version": __version__,
            "cwd": str(cwd),
            "env": env_digest(),
            "stats": {p: _stamp(p) for p in stats},
            "exists": {p: os.path.lexists(p) for p in exists},
            "probes": _probes(cwd, repo, 10.0),
            "config": config.data,
            "config_source": None if config.source is None else str(config.source),
            "store": str(store),
            "repo": None if repo is None else str(repo),
            "project": str(project.root),
            "ruleset": ruleset,
            "signature": signature,
            "today": today,
            "llm_rules": llm_rules,
            "provider": available(config),
            "answer": answer,
            "complete": complete,
        }
        # Not write_json: its sorted keys would reorder the answer Claude Code is given.
        atomic.write_text(record_path(cwd), json.dumps(record))
    except Exception:  # only ever a shortcut: the answer already made must not be lost
        return


def quick_answer(raw: str, started: float) -> dict[str, Any] | None:
    """The hook's answer from the record, or None when the full path must run."""
    from curator.session.payload import parse_payload

    payload = parse_payload(raw)
    record = atomic.read_json(record_path(payload.cwd))
    if not _still_true(record, payload.cwd):
        return None
    config = Config(data=record["config"], source=_path(record["config_source"]))
    deadline = started + int(config.get("cheap.hook_timeout_ms")) / 1000
    repo = _path(record["repo"])
    if _probes(payload.cwd, repo, _half_left(deadline)) != record["probes"]:
        return None
    return _answer_again(record, config, payload.session_id, repo, started, deadline)


def _half_left(deadline: float) -> float:
    """Seconds the quick path may wait on git or the lock: half of what is left before the
    answer is due, so that the full path still has time to answer when it gives up."""
    return max(0.05, (deadline - time.monotonic()) / 2)


def _path(value: Any) -> Path | None:
    return Path(value) if isinstance(value, str) else None


def _still_true(record: Any, cwd: Path) -> bool:
    """The record is whole, of this curator, and nothing it watched has changed."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return False
    if record.get("version") != __version__ or record.get("cwd") != str(cwd):
        return False
    if record.get("env") != env_digest() or record.get("today") != clock.today().isoformat():
        return False
    stats, exists = record.get("stats"), record.get("exists")
    if not isinstance(stats, dict) or not isinstance(exists, dict):
        return False
    if any(_stamp(p) != stamp for p, stamp in stats.items()):
        return False
    return all(os.path.lexists(p) == there for p, there in exists.items())


def _answer_again(
    record: dict[str, Any],
    config: Config,
    session_id: str | None,
    repo: Path | None,
    started: float,
    deadline: float,
) -> dict[str, Any] | None:
    """The full path's fast-path test and bookkeeping, with the record's answer."""
    from curator.findings.events import event_log
    from curator.findings.project import ProjectDir
    from curator.interpreter.signature import repo_state, store_signature
    from curator.session.watermark import claim_scan, sweep_interval_passed, write_watermark_of

    project = ProjectDir(Path(record["project"]))
    store = Path(record["store"])
    # At most half the time left: a slower git (a huge work tree) makes the state
    # unknown, and the full path, under the same deadline, still has time to answer.
    state = repo_state(repo, _half_left(deadline))
    today = clock.today()
    signature = store_signature(record["ruleset"], today, store, repo, state, project.manifest)
    if signature != record["signature"]:
        return None  # the store, the findings or the repository moved on since this answer
    last = atomic.read_json(project.last_cheap_scan)
    if not isinstance(last, dict) or last.get("signature") != signature:
        return None
    if last.get("outcome") != "ok":
        return None
    if record["llm_rules"] and record["provider"] and sweep_interval_passed(config, project):
        return None  # starting the sweep needs the rules: the full path does it
    gap = int(config.get("cheap.skip_if_session_age_under_seconds"))
    try:
        claimed, previous = claim_scan(project, gap, _half_left(deadline))
    except TimeoutError:
        return None
    if not claimed or previous.get("signature") != signature:
        return None  # another start got here first: the full path says what it says
    events = event_log(config, session_id)
    events.emit("curator.scan.started", {"mode": "session_start", "store": str(store)})
    complete = {**record["complete"], "duration_ms": round((time.monotonic() - started) * 1000)}
    write_watermark_of(project, complete, signature, bool(record["llm_rules"]))
    events.emit("curator.scan.complete", complete)
    answer: dict[str, Any] = record["answer"]
    return answer
