"""SARIF 2.1.0 for code scanning: rule metadata, cwd-relative URIs, stable fingerprints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from curator import __version__
from curator.findings.fingerprint import fingerprint
from curator.hashing import sha256_text
from curator.models import Diagnostic, Rule, Severity
from curator.reporters import ReportContext
from curator.store.masking import mask

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/curator-dev/curator"


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.summary},
        "help": {"text": rule.docs, "markdown": rule.docs},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"tags": [rule.check, rule.tier]},
    }


def _uri(path: Path, cwd: Path) -> tuple[str, str | None]:
    # Masked: a file name is text like any other (`reference_ghp_….md`).
    try:
        return quote(mask(path.relative_to(cwd).as_posix())), "SRCROOT"
    except ValueError:
        return Path(mask(str(path))).as_uri(), None


def _result(
    d: Diagnostic, ctx: ReportContext, index: dict[str, int], seen: dict[str, int]
) -> dict[str, Any]:
    uri, base = _uri(d.path, ctx.cwd)
    # The identity hash leaves out line numbers, so a finding keeps its fingerprint when
    # lines shift; the occurrence count keeps two same-identity findings apart.
    identity = sha256_text(uri + fingerprint(d, ctx.rules.get(d.code)))
    seen[identity] = seen.get(identity, 0) + 1
    artifact: dict[str, Any] = {"uri": uri}
    if base:
        artifact["uriBaseId"] = base
    result: dict[str, Any] = {
        "ruleId": d.code,
        "level": _LEVEL[d.severity],
        "message": {"text": d.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact,
                    "region": {
                        "startLine": d.line,
                        "startColumn": d.column,
                        "endLine": d.end_line,
                        "endColumn": max(d.end_column, d.column),
                    },
                }
            }
        ],
        "partialFingerprints": {"curatorFinding/v1": f"{identity}:{seen[identity]}"},
    }
    if d.code in index:
        result["ruleIndex"] = index[d.code]
    return result


def render(diagnostics: list[Diagnostic], ctx: ReportContext) -> str:
    rules = sorted(ctx.rules.values(), key=lambda r: r.code)
    index = {rule.code: i for i, rule in enumerate(rules)}
    seen: dict[str, int] = {}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "curator",
                "version": __version__,
                "informationUri": INFO_URI,
                "rules": [_rule(r) for r in rules],
            }
        },
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {"SRCROOT": {"uri": ctx.cwd.as_uri() + "/"}},
        "results": [_result(d, ctx, index, seen) for d in diagnostics],
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
