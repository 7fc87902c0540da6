"""`full` (with the source line and a caret, as ruff prints) and `concise`
(`path:line:col: CODE message`)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from curator.models import Diagnostic, Severity
from curator.reporters import ReportContext, by_store, display_path
from curator.reporters.printable import visible
from curator.store.files import NotReadable, read_regular
from curator.store.masking import Shown, shown
from curator.store.reading import MAX_BYTES

_COLORS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}


def _paint(text: str, code: str, on: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if on else text


@lru_cache(maxsize=512)
def _source(path: Path) -> Shown:
    """The file as the snippet shows it: secrets masked, the whole file at once so a key
    block spanning lines is found; masking keeps the line count."""
    try:  # never a FIFO or a device a diagnostic names (CUR004), never a huge file
        data, _ = read_regular(path, MAX_BYTES)
    except (OSError, NotReadable):
        data = b""
    return shown(data.decode("utf-8", errors="replace"))


def _header(d: Diagnostic, ctx: ReportContext) -> str:
    where = f"{display_path(d.path, ctx.cwd)}:{d.line}:{d.column}:"
    code = _paint(d.code, "1;" + _COLORS[d.severity], ctx.color)
    return f"{_paint(where, '1', ctx.color)} {code} {visible(d.message)}"


def _snippet(d: Diagnostic, ctx: ReportContext) -> list[str]:
    source = _source(d.path)
    if not 1 <= d.line <= len(source.lines):
        return []
    raw = source.lines[d.line - 1].replace("\t", " ")
    text = visible(raw)
    gutter = len(str(d.line))
    pad = " " * gutter
    # Columns are the file's; a masked secret before them moves them on the shown line,
    # and so does an escaped control character (`\x1b` is four columns).
    column = _escaped(raw, source.column(d.line, d.column))
    end = column + 1
    if d.end_line == d.line and d.end_column > d.column:
        end = max(_escaped(raw, source.column(d.line, d.end_column)), end)
    width = max(1, min(end, len(text) + 1) - column)
    caret = " " * (column - 1) + _paint("^" * width, _COLORS[d.severity], ctx.color)
    bar = _paint("|", "34", ctx.color)
    return [
        f"{pad} {bar}",
        f"{_paint(str(d.line), '34', ctx.color)} {bar} {text}",
        f"{pad} {bar} {caret} {_paint(str(d.severity), _COLORS[d.severity], ctx.color)}",
        f"{pad} {bar}",
    ]


def _escaped(line: str, column: int) -> int:
    """Where column `column` of `line` is once its control characters are escaped."""
    return len(visible(line[: column - 1])) + 1


def _noun(n: int) -> str:
    return f"{n} finding" if n == 1 else f"{n} findings"


def summary(diagnostics: list[Diagnostic], ctx: ReportContext) -> str:
    stores = len(ctx.stores)
    where = f" in {stores} stores" if stores > 1 else ""
    if not diagnostics and ctx.not_run:
        codes = ", ".join(ctx.not_run)
        ran = f"not every selected rule ran: {codes} (the notes on stderr say why)"
        return f"No findings{where}, but {ran}."
    if not diagnostics:
        return f"All checks passed{where}!"
    by = {s: sum(1 for d in diagnostics if d.severity == s) for s in Severity}
    parts = ", ".join(f"{n} {s}" for s, n in sorted(by.items(), reverse=True) if n)
    return f"Found {_noun(len(diagnostics))} ({parts}){where}."


def _lines(diagnostics: list[Diagnostic], ctx: ReportContext) -> list[str]:
    out: list[str] = []
    for d in diagnostics:
        out.append(_header(d, ctx))
        if ctx.format == "full":
            out.extend(_snippet(d, ctx))
            out.append("")
    return out


def render(diagnostics: list[Diagnostic], ctx: ReportContext) -> str:
    """Diagnostics, then a summary; with several stores, a header line before each one's."""
    out: list[str] = []
    if len(ctx.stores) > 1:
        for store, group in by_store(diagnostics, ctx.stores):
            if store is not None:
                status = _noun(len(group)) if group else "clean"
                out.append(
                    _paint(f"== {display_path(store, ctx.cwd)}: {status} ==", "1", ctx.color)
                )
            out.extend(_lines(group, ctx))
            if ctx.format == "concise" or not group:
                out.append("")
    else:
        out.extend(_lines(diagnostics, ctx))
    out.append(summary(diagnostics, ctx))
    return "\n".join(out) + "\n"
