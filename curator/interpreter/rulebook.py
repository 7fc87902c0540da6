"""Load rule files: validate every key against schema version 1 and check patterns.

One rule per file, `rules/<group>/<name>.yaml`; the file name is the rule's name. Any
problem is a UserError naming the file and the line. The validated rules are cached
(`rulebook_cache`); their patterns are compiled on first use (`patterns.Pattern`).
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

from curator import templates
from curator.config import Config, rule_override
from curator.errors import UserError
from curator.interpreter import patterns
from curator.interpreter.checks import CHECKS, get_check
from curator.interpreter.rule_files import builtin_rules_dir, rule_files
from curator.models import LAYOUTS, MEMORY_TYPES, Rule, RuleTest, Severity
from curator.yamlio import load_file

KEYS = {
    "code": str,
    "name": str,
    "check": str,
    "tier": str,
    "severity": str,
    "summary": str,
    "applies_to": dict,
    "params": dict,
    "patterns": list,
    "identity": list,
    "message": str,
    "prompt": str,
    "docs": str,
    "tests": list,
    "fixable": bool,
    "persist": bool,
    "event": dict,
    "opt_in": bool,
}
REQUIRED = ("code", "name", "check", "severity", "summary", "message", "docs")
CODE = re.compile(r"^[A-Z][A-Z0-9]*[0-9]{3}$")
TEST_KEYS = {
    "name", "files", "expect", "today", "params", "repo", "history", "config", "llm_answers",
    "written",
}  # fmt: skip
COMMIT_KEYS = {"date", "message", "files", "delete", "rename"}
EXPECT_KEYS = {"code", "file", "line", "column", "message", "severity"}


def load_rules(config: Config | None = None) -> list[Rule]:
    """Every rule: the built-in pack, then `rule_paths`; config overrides applied. From the
    compiled-rulebook cache when no rule file, config or curator module changed."""
    from curator.interpreter.rulebook_cache import cached_rules

    config = config or Config()
    rules = cached_rules(config, lambda: compile_rules(config))
    install_masking(rules)
    return rules


def compile_rules(config: Config) -> list[Rule]:
    """Read and validate every rule file (what the cache saves a warm run)."""
    rules: list[Rule] = []
    seen: dict[str, Path] = {}
    for path in rule_files([builtin_rules_dir(), *config.rule_paths()]):
        rule = load_rule(path, config)
        for key in (rule.code, rule.name):
            if key in seen:
                raise UserError(f"'{key}' is already defined in {seen[key]}", path, 1)
            seen[key] = path
        rules.append(rule)
    for key in config.data["rules"]:
        if key not in seen:
            raise UserError(f"rules: no rule has code or name '{key}'", config.source)
    return rules


def install_masking(rules: list[Rule]) -> None:
    """From now on, curator masks secrets as this rule set's secrets rules find them."""
    from curator.interpreter.checks.secrets import install

    install(rules)


def load_rule(path: Path, config: Config | None = None) -> Rule:
    data, lines = load_file(path)
    if not isinstance(data, dict):
        raise UserError("a rule file must be a mapping", path, 1)

    def fail(message: str, key: str | None = None) -> UserError:
        return UserError(message, path, lines.get(key, 1) if key else 1)

    for key, value in data.items():
        if key not in KEYS:
            raise fail(f"unknown key '{key}' (known: {', '.join(sorted(KEYS))})", key)
        if not isinstance(value, KEYS[key]):
            raise fail(f"'{key}' must be a {KEYS[key].__name__}", key)
    for key in REQUIRED:
        if key not in data:
            raise fail(f"missing required key '{key}'")
    if data["name"] != path.stem:
        raise fail(f"name '{data['name']}' must match the file name '{path.stem}'", "name")
    if not CODE.match(data["code"]):
        raise fail(f"code '{data['code']}' must look like CUR101", "code")
    if data["check"] not in CHECKS:
        raise fail(f"unknown check '{data['check']}' (known: {', '.join(sorted(CHECKS))})", "check")
    tier = data.get("tier", "cheap")
    if tier not in ("cheap", "llm"):
        raise fail("tier must be cheap or llm", "tier")
    if "prompt" in data and tier != "llm":
        raise fail("'prompt' is only for llm-tier rules", "prompt")

    override = rule_override(config, data["code"], data["name"]) if config else {}
    severity_text = override.get("severity", data["severity"])
    if severity_text not in ("error", "warning", "info"):
        raise fail("severity must be error, warning or info", "severity")

    check = get_check(data["check"])
    ranges = {**{k: PARAM_RANGE for k in check.PARAMS}, **getattr(check, "RANGES", {})}
    params = _params(check.PARAMS, ranges, data.get("params", {}), fail, "params")
    params = _params(check.PARAMS, ranges, override.get("params", {}), _config_fail(config),
                     "params", base=params)  # fmt: skip
    # A check may vet its own params (regexes in a list, an enum) when it has `validate`.
    validate = getattr(check, "validate", None)
    problem = validate(params) if validate is not None else None
    if problem:
        raise fail(problem, "params")

    compiled = []
    for i, source in enumerate(data.get("patterns", [])):
        if not isinstance(source, str):
            raise fail("patterns must be strings", f"patterns.{i}")
        try:
            patterns.compile_pattern(source)  # checked now, kept for the run's first use
        except Exception as exc:  # regex.error and friends
            raise fail(f"bad pattern: {exc}", f"patterns.{i}") from None
        compiled.append(patterns.Pattern(source))

    # Prompts are Jinja2 and checked by `check_prompts` when llm-tier rules are about to
    # run: compiling them here would import Jinja2 on every session start.
    if "message" in data:
        try:
            templates.check_template(data["message"])
        except templates.TemplateError as exc:
            raise fail(f"bad message: {exc}", "message") from None

    event = data.get("event", {})
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in event.items()):
        raise fail("event maps event field names to detail keys, both strings", "event")

    types, layouts = _applies_to(data.get("applies_to"), fail)

    return Rule(
        code=data["code"],
        name=data["name"],
        check=data["check"],
        tier=tier,
        severity=Severity.parse(severity_text),
        summary=data["summary"].strip(),
        message=data["message"],
        source=path,
        applies_to_types=types,
        applies_to_layouts=layouts,
        params=params,
        patterns=tuple(compiled),
        identity=tuple(str(k) for k in data.get("identity", [])),
        prompt=data.get("prompt"),
        docs=data["docs"].strip(),
        fixable=bool(data.get("fixable", False)),
        persist=bool(data.get("persist", True)),
        event=dict(event),
        opt_in=bool(data.get("opt_in", False)),
        tests=tuple(_tests(data.get("tests", []), lines, fail)),
    )


def _applies_to(
    applies: dict[str, Any] | None, fail: Any
) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """`applies_to: {types: [...], layouts: [...]}`, each optional: (types, layouts)."""
    if applies is None:
        return None, None
    known = {"types": MEMORY_TYPES, "layouts": LAYOUTS}
    if not applies or set(applies) - set(known):
        raise fail("applies_to takes {types: [...], layouts: [...]}", "applies_to")
    found: dict[str, tuple[str, ...]] = {}
    for key, values in applies.items():
        if not isinstance(values, list):
            raise fail(f"applies_to.{key} must be a list", "applies_to")
        unknown = [v for v in values if v not in known[key]]
        if unknown:
            what = "memory type" if key == "types" else "store layout"
            raise fail(f"unknown {what} {unknown[0]!r}", "applies_to")
        found[key] = tuple(values)
    return found.get("types"), found.get("layouts")


def check_prompts(rules: list[Rule]) -> None:
    """Compile the prompt templates of these rules; a UserError with file and line if one
    does not parse. Called before llm-tier rules run (`lint --llm`, `calibrate`)."""
    for rule in rules:
        if rule.prompt is None:
            continue
        try:
            templates.check_template(rule.prompt)
        except templates.TemplateError as exc:
            _, lines = load_file(rule.source)
            raise UserError(f"bad prompt: {exc}", rule.source, lines.get("prompt", 1)) from None


def _params(
    schema: dict[str, Any],
    ranges: dict[str, tuple[float, float]],
    given: dict[str, Any],
    fail: Any,
    key: str,
    base: dict[str, Any] | None = None,
) -> dict[str, Any]:
    params = dict(base if base is not None else schema)
    for name, value in given.items():
        if name not in schema:
            known = ", ".join(sorted(schema)) or "none"
            raise fail(f"unknown param '{name}' (known: {known})", f"{key}.{name}")
        default = schema[name]
        if default is not None and not _same_kind(value, default):
            raise fail(f"param '{name}' must be like {default!r}", f"{key}.{name}")
        if _is_number(default) and not ranges[name][0] <= value <= ranges[name][1]:
            low, high = ranges[name]
            raise fail(f"param '{name}' must be from {low:,} to {high:,}", f"{key}.{name}")
        params[name] = value
    return params


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _config_fail(config: Config | None) -> Any:
    """Errors in a rule's override name `.curator.yaml` and the override's line."""

    def fail(message: str, key: str | None = None) -> UserError:
        source = config.source if config is not None else None
        lines = load_file(source)[1] if source is not None else {}
        overrides = config.data["rules"] if config is not None else {}
        for rule in overrides:
            if key and f"rules.{rule}.{key}" in lines:
                return UserError(message, source, lines[f"rules.{rule}.{key}"])
        return UserError(message, source, lines.get("rules"))

    return fail


# A numeric param's range unless its check narrows it (`RANGES`): never negative, and
# finite (NaN fails every comparison, so it is refused too).
PARAM_RANGE = (0, 1_000_000_000)


def _same_kind(value: Any, default: Any) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, (int, float)):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, list):
        return isinstance(value, list)
    return isinstance(value, type(default))


def _tests(raw: list[Any], lines: dict[str, int], fail: Any) -> list[RuleTest]:
    tests = []
    for i, case in enumerate(raw):
        where = f"tests.{i}"
        if not isinstance(case, dict):
            raise fail("each test must be a mapping", where)
        unknown = set(case) - TEST_KEYS
        if unknown:
            raise fail(f"unknown test key '{sorted(unknown)[0]}'", where)
        files = case.get("files")
        if not isinstance(files, dict) or not all(
            isinstance(v, (str, bytes)) for v in files.values()
        ):
            raise fail("a test needs files: {name: text or !!binary}", where)
        expect = case.get("expect", [])
        if not isinstance(expect, list) or not all(
            isinstance(e, dict) and set(e) <= EXPECT_KEYS for e in expect
        ):
            raise fail(f"expect must be a list of {{{', '.join(sorted(EXPECT_KEYS))}}}", where)
        config = case.get("config") or {}
        if not isinstance(config, dict):
            raise fail("config must be a mapping of .curator.yaml keys", where)
        answers = case.get("llm_answers", [])
        if not isinstance(answers, list):
            raise fail("llm_answers must be a list of canned model answers", where)
        today = case.get("today")
        if today is not None and not isinstance(today, date):
            raise fail("today must be a date like 2026-06-01", where)
        written = case.get("written")
        if written is not None and not isinstance(written, date):
            raise fail("written must be a date like 2026-04-20 (the store files' mtime)", where)
        history = case.get("history", [])
        if not isinstance(history, list) or not all(
            isinstance(c, dict) and set(c) <= COMMIT_KEYS and isinstance(c.get("date"), date)
            for c in history
        ):
            raise fail(
                "history must be a list of commits {date, message, files, delete, rename}", where
            )
        tests.append(
            RuleTest(
                name=str(case.get("name", f"case {i + 1}")),
                files={str(k): v for k, v in files.items()},
                expect=tuple(expect),
                today=today,
                params=dict(case.get("params") or {}),
                repo=case.get("repo"),
                history=tuple(history),
                config=config,
                line=lines.get(where, 1),
                llm_answers=tuple(answers),
                written=written,
            )
        )
    return tests
