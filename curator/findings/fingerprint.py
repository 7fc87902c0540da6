"""The identity of a diagnostic across runs: rule code, memory files, the rule's `identity`
detail keys. Never a line number or a value that changes by itself (days past)."""

from __future__ import annotations

import json

from curator.hashing import sha256_text
from curator.models import Diagnostic, Rule


def identity(diagnostic: Diagnostic, rule: Rule | None) -> dict[str, object]:
    keys = rule.identity if rule is not None else ()
    return {
        "code": diagnostic.code,
        "kind": diagnostic.name,
        "files": sorted(diagnostic.memory_files) or [diagnostic.path.name],
        "identity": {k: diagnostic.detail.get(k) for k in keys},
    }


def fingerprint(diagnostic: Diagnostic, rule: Rule | None) -> str:
    blob = json.dumps(identity(diagnostic, rule), sort_keys=True, default=str)
    return sha256_text(blob)
