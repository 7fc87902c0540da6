"""JUnit XML: a test suite per store, a failing test case per diagnostic, a passing case
for a clean store (CI test views show an empty suite as "no tests", not as a pass)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from curator.models import Diagnostic
from curator.reporters import ReportContext, by_store, display_path

# Characters XML 1.0 cannot carry at all, even escaped; a memory may hold them.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _suite(
    parent: ET.Element, name: str, diagnostics: list[Diagnostic], ctx: ReportContext
) -> None:
    suite = ET.SubElement(
        parent,
        "testsuite",
        name=name,
        tests=str(max(1, len(diagnostics))),
        failures=str(len(diagnostics)),
        errors="0",
        skipped="0",
    )
    for d in diagnostics:
        path = _xml(display_path(d.path, ctx.cwd))
        message = _xml(d.message)
        case = ET.SubElement(
            suite,
            "testcase",
            classname=path,
            name=f"{d.code} {d.name} at {path}:{d.line}:{d.column}",
        )
        failure = ET.SubElement(case, "failure", message=message, type=d.code)
        failure.text = f"{path}:{d.line}:{d.column}: {d.code} [{d.severity}] {message}"
    if not diagnostics:
        ET.SubElement(suite, "testcase", classname=name, name="no findings")


def _name(store: Path | None, ctx: ReportContext) -> str:
    return "curator" if store is None else f"curator: {display_path(store, ctx.cwd)}"


def render(diagnostics: list[Diagnostic], ctx: ReportContext) -> str:
    groups = by_store(diagnostics, ctx.stores) if ctx.stores else [(None, diagnostics)]
    suites = ET.Element(
        "testsuites",
        name="curator",
        tests=str(sum(max(1, len(group)) for _, group in groups)),
        failures=str(len(diagnostics)),
    )
    for store, group in groups:
        _suite(suites, _xml(_name(store, ctx)), group, ctx)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, "unicode") + "\n"
