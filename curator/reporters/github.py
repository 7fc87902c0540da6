"""GitHub Actions workflow commands: an annotation per diagnostic."""

from __future__ import annotations

from curator.models import Diagnostic, Severity
from curator.reporters import ReportContext, display_path

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(diagnostics: list[Diagnostic], ctx: ReportContext) -> str:
    lines = []
    for d in diagnostics:
        props = ",".join(
            [
                f"file={_escape_property(display_path(d.path, ctx.cwd))}",
                f"line={d.line}",
                f"col={d.column}",
                f"endLine={d.end_line}",
                f"endColumn={d.end_column}",
                f"title={_escape_property(f'{d.code} ({d.name})')}",
            ]
        )
        lines.append(f"::{_LEVEL[d.severity]} {props}::{_escape_data(f'{d.code} {d.message}')}")
    return "".join(line + "\n" for line in lines)
