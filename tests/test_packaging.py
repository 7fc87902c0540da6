"""The built-in rule pack ships inside the wheel, so an installed curator finds it."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_carries_the_rules(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("memory_curator-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {n.removeprefix("curator/_rules/") for n in names if n.startswith("curator/_rules/")}
    in_repo = {p.relative_to(ROOT / "rules").as_posix() for p in (ROOT / "rules").rglob("*.yaml")}
    assert shipped == in_repo
    assert "curator/cli.py" in names
