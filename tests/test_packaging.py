"""The wheel `pip install` / `pipx install` / `uv tool install` get: the built-in rule pack
inside (an installed curator finds it), the `curator` command, nothing of the tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from zipfile import ZipFile

from curator import __version__

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_carries_the_rules_and_nothing_of_the_tests(tmp_path: Path) -> None:
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
    names = set(ZipFile(wheel).namelist())
    shipped = {n.removeprefix("curator/_rules/") for n in names if n.startswith("curator/_rules/")}
    in_repo = {p.relative_to(ROOT / "rules").as_posix() for p in (ROOT / "rules").rglob("*.yaml")}
    assert shipped == in_repo
    assert "curator/cli.py" in names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "docs/", "examples/"))]
    assert not [n for n in names if "conftest" in n or "/test_" in n]
    metadata = (
        ZipFile(wheel).read(f"memory_curator-{__version__}.dist-info/entry_points.txt").decode()
    )
    assert "curator = curator.cli:main" in metadata
