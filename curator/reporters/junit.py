"""JUnit XML: one test case per diagnostic, grouped by file; a passing case when clean."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from curator.models import Diagnostic
from curator.reporters import ReportContext, display_path


def render(diagnostics: list[Diagnostic], ctx: ReportContext) -> str:
    suites = ET.Element(
        "testsuites",
        name="curator",
        tests=str(max(1, len(diagnostics))),
        failures=str(len(diagnostics)),
    )
    suite = ET.SubElement(
        suites,
        "testsuite",
        name="curator",
        tests=str(max(1, len(diagnostics))),
        failures=str(len(diagnostics)),
        errors="0",
        skipped="0",
    )
    for d in diagnostics:
        path = display_path(d.path, ctx.cwd)
        case = ET.SubElement(
            suite,
            "testcase",
            classname=path,
            name=f"{d.code} {d.name} at {path}:{d.line}:{d.column}",
        )
        failure = ET.SubElement(case, "failure", message=d.message, type=d.code)
        failure.text = f"{path}:{d.line}:{d.column}: {d.code} [{d.severity}] {d.message}"
    if not diagnostics:
        ET.SubElement(suite, "testcase", classname="curator", name="no findings")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, "unicode") + "\n"
