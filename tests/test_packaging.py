"""The wheel `pip install` / `pipx install` / `uv tool install` get: the built-in rule pack
inside (an installed curator finds it), the `curator` command, nothing of the tests."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
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
    assert f"memory_curator-{__version__}.dist-info/licenses/LICENSE" in names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "docs/", "examples/"))]
    assert not [n for n in names if "conftest" in n or "/test_" in n]
    metadata = (
        ZipFile(wheel).read(f"memory_curator-{__version__}.dist-info/entry_points.txt").decode()
    )
    assert "curator = curator.cli:main" in metadata


def _artifacts(dist: Path, wheel_license: bytes | None) -> None:
    dist.mkdir()
    with ZipFile(dist / "memory_curator-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("curator/__init__.py", "")
        if wheel_license is not None:
            wheel.writestr("memory_curator-1.0.dist-info/licenses/LICENSE", wheel_license)
    with tarfile.open(dist / "memory_curator-1.0.tar.gz", "w:gz") as sdist:
        text = (ROOT / "LICENSE").read_bytes()
        member = tarfile.TarInfo("memory_curator-1.0/LICENSE")
        member.size = len(text)
        sdist.addfile(member, io.BytesIO(text))


def test_the_release_check_fails_on_an_artifact_without_the_license(tmp_path: Path) -> None:
    check = [sys.executable, str(ROOT / ".ci" / "check_artifacts.py")]
    _artifacts(tmp_path / "good", (ROOT / "LICENSE").read_bytes())
    _artifacts(tmp_path / "bad", None)
    good = subprocess.run([*check, str(tmp_path / "good")], capture_output=True, text=True)
    bad = subprocess.run([*check, str(tmp_path / "bad")], capture_output=True, text=True)
    assert (good.returncode, good.stderr) == (0, "")
    assert bad.returncode == 1
    assert bad.stderr == (
        "check_artifacts: memory_curator-1.0-py3-none-any.whl: does not carry the LICENSE text\n"
    )
