"""Run the `tests:` a rule file carries: write its files into a temporary store, lint with
the whole rule set, and compare the rule's own diagnostics with `expect`."""

from __future__ import annotations

import copy
import os
import tempfile
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

from curator.config import DEFAULTS, Config
from curator.interpreter.context import Context
from curator.interpreter.engine import run_checks
from curator.models import Diagnostic, Rule, RuleTest
from curator.store.reading import read_store

DEFAULT_TODAY = date(2026, 6, 1)


@dataclass(frozen=True)
class CaseResult:
    rule: Rule
    case: RuleTest
    failures: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.failures


class OutsideFolder(Exception):
    """A test case names a file outside the temporary folder it must stay in."""


def inside(root: Path, name: str) -> Path:
    """`root / name`, when that stays inside `root`: a relative path without `..`, that no
    symlink leads out of. Raises OutsideFolder otherwise; nothing is written."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if not name or "\0" in name or name.startswith(("/", "\\")) or ".." in parts:
        raise OutsideFolder(f"file {name!r} is not a relative path inside the test's store")
    path = root / name
    if Path(name).is_absolute() or not path.resolve().is_relative_to(root.resolve()):
        raise OutsideFolder(f"file {name!r} leads out of the test's store")
    return path


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for name in files:
        inside(root, name)  # every name checked before the first write
    for name, content in files.items():
        path = inside(root, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")


def _matches(diagnostic: Diagnostic, root: Path, expected: dict[str, Any]) -> bool:
    rel = (
        diagnostic.path.relative_to(root).as_posix()
        if diagnostic.path.is_relative_to(root)
        else str(diagnostic.path)
    )
    checks = {
        "code": diagnostic.code,
        "file": rel,
        "line": diagnostic.line,
        "column": diagnostic.column,
        "severity": str(diagnostic.severity),
    }
    for key, value in expected.items():
        if key == "message":
            if str(value) not in diagnostic.message:
                return False
        elif checks[key] != value:
            return False
    return True


def _describe(d: Diagnostic, root: Path) -> str:
    rel = d.path.relative_to(root).as_posix() if d.path.is_relative_to(root) else d.path
    return f"{rel}:{d.line}:{d.column}: {d.code} [{d.severity}] {d.message}"


def run_case(rule: Rule, case: RuleTest, rules: list[Rule]) -> CaseResult:
    tuned = [r if r.code != rule.code else _with_params(r, case.params) for r in rules]
    # An llm-tier rule runs against its case's canned answers, never a real model.
    run = [r for r in tuned if r.tier == "cheap" or r.code == rule.code]
    canned = None
    if rule.tier == "llm":
        from curator.llm.providers import CannedProvider

        canned = CannedProvider(case.llm_answers)
    with tempfile.TemporaryDirectory(prefix="curator-rule-test-") as tmp:
        root = Path(tmp).resolve()
        store_root = root / "store"
        store_root.mkdir()
        repo_root = root / "repo" if case.repo is not None or case.history else None
        try:
            _write(store_root, case.files)
            if case.written is not None:
                _age(store_root, case.written)
            if repo_root is not None:
                repo_root.mkdir()
                _write(repo_root, dict(case.repo or {}))
                if case.history:
                    _commit_history(repo_root, case.history)
        except OutsideFolder as exc:
            return CaseResult(rule, case, (f"{exc}; the case was not run",))
        store = read_store(store_root)
        # Caches (the history index) go to the case's own folder, never the user's.
        config = _config({**case.config, "storage": str(root / "storage")})
        ctx = Context(
            store=store,
            config=config,
            today=case.today or DEFAULT_TODAY,
            repo_root=repo_root,
            llm=canned,
            rules=tuple(tuned),
        )
        got = [d for d in run_checks(ctx, run, tuned) if d.code == rule.code]
        failures = []
        unmatched = list(got)
        for expected in case.expect:
            hit = next((d for d in unmatched if _matches(d, store_root, expected)), None)
            if hit is None:
                failures.append(f"expected {expected}, not reported")
            else:
                unmatched.remove(hit)
        failures.extend(f"unexpected: {_describe(d, store_root)}" for d in unmatched)
    return CaseResult(rule, case, tuple(failures))


def _age(root: Path, day: date) -> None:
    """Every file under `root` last written at noon UTC on `day` (its mtime)."""
    when = datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc).timestamp()
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (when, when))


def _commit_history(repo: Path, commits: tuple[dict[str, Any], ...]) -> None:
    """A real git history: each commit's files written, deletes and renames made, then
    committed at its date (author and committer)."""
    from curator.git import git_output

    for commit in commits:  # every name checked before the first write
        renames = dict(commit.get("rename") or {})
        names = [*renames, *renames.values(), *(commit.get("delete") or [])]
        for name in [*map(str, names), *map(str, commit.get("files") or {})]:
            inside(repo, name)
    git_output(repo, "init", "-q", "-b", "main")
    for commit in commits:
        for old, new in (commit.get("rename") or {}).items():
            (repo / str(new)).parent.mkdir(parents=True, exist_ok=True)
            git_output(repo, "mv", str(old), str(new))
        for gone in commit.get("delete") or []:
            git_output(repo, "rm", "-q", "-r", str(gone))
        _write(repo, {str(k): v for k, v in (commit.get("files") or {}).items()})
        git_output(repo, "add", "-A")
        when = f"{commit['date'].isoformat()}T12:00:00+00:00"
        env = {
            "GIT_AUTHOR_NAME": "curator", "GIT_AUTHOR_EMAIL": "rules@curator.invalid",
            "GIT_COMMITTER_NAME": "curator", "GIT_COMMITTER_EMAIL": "rules@curator.invalid",
            "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when,
        }  # fmt: skip
        message = str(commit.get("message") or "change")
        git_output(repo, "commit", "-q", "--allow-empty", "-m", message, env=env)


def _config(overrides: dict[str, Any]) -> Config:
    """Defaults with a case's `config:` keys laid over them (one level of mappings merged)."""
    data = copy.deepcopy(DEFAULTS)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return Config(data=data)


def _with_params(rule: Rule, params: dict[str, Any]) -> Rule:
    if not params:
        return rule
    from dataclasses import replace

    unknown = set(params) - set(rule.params)
    if unknown:
        raise ValueError(f"{rule.name}: test params {sorted(unknown)} are not params of the rule")
    return replace(rule, params={**rule.params, **params})


def rule_problems(rule: Rule) -> list[str]:
    """A rule proves itself: it needs a case that fires and a case that passes."""
    problems = []
    if rule.check != "engine" and not any(case.expect for case in rule.tests):
        # engine rules (CUR900) fire on broken rules, which a rule file cannot carry
        problems.append("no test case makes the rule fire")
    if not any(not case.expect for case in rule.tests):
        problems.append("no test case shows the rule passing")
    return problems


def run_rule_tests(rule: Rule, rules: list[Rule]) -> list[CaseResult]:
    return [run_case(rule, case, rules) for case in rule.tests]
