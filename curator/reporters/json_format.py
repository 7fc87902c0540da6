"""`json` (one array) and `json-lines` (one object a line): the stable machine contract."""

from __future__ import annotations

import json
from typing import Any

from curator.models import Diagnostic
from curator.reporters import ReportContext, display_path
from curator.store.masking import mask


def as_dict(d: Diagnostic, ctx: ReportContext) -> dict[str, Any]:
    return {
        "code": d.code,
        "name": d.name,
        "severity": str(d.severity),
        "message": d.message,
        "filename": mask(str(d.path)),
        "path": display_path(d.path, ctx.cwd),
        "store": mask(str(d.store)) if d.store else None,
        "location": {"row": d.line, "column": d.column},
        "end_location": {"row": d.end_line, "column": d.end_column},
        "memory_files": [mask(f) for f in d.memory_files],
        "detail": d.detail,
        "fix": None
        if d.fix is None
        else {
            "kind": d.fix.kind,
            "safe": d.fix.safe,
            "description": d.fix.description,
        },
    }


def render(diagnostics: list[Diagnostic], ctx: ReportContext) -> str:
    items = [as_dict(d, ctx) for d in diagnostics]
    if ctx.format == "json-lines":
        return "".join(json.dumps(i, ensure_ascii=False, default=str) + "\n" for i in items)
    return json.dumps(items, indent=2, ensure_ascii=False, default=str) + "\n"
