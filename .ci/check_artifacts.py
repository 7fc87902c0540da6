"""Release check: every sdist and wheel in a folder carries the project's LICENSE text.

Usage: python .ci/check_artifacts.py DIST_DIR. Exits 1, naming the artifact, when one
lacks it (or when the folder holds no sdist or no wheel); 0 otherwise.
"""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path
from zipfile import ZipFile

ROOT = Path(__file__).resolve().parent.parent


def _wheel_texts(path: Path) -> list[bytes]:
    with ZipFile(path) as wheel:
        return [
            wheel.read(name)
            for name in wheel.namelist()
            if ".dist-info/licenses/" in name or name.endswith(".dist-info/LICENSE")
        ]


def _sdist_texts(path: Path) -> list[bytes]:
    with tarfile.open(path) as sdist:
        texts = []
        for member in sdist.getmembers():
            # `name-version/LICENSE` at the top of the sdist.
            if member.isfile() and member.name.count("/") == 1 and "LICEN" in member.name:
                extracted = sdist.extractfile(member)
                if extracted is not None:
                    texts.append(extracted.read())
        return texts


def problems(dist: Path, license_text: bytes) -> list[str]:
    """What is wrong with the artifacts in `dist`, one line each."""
    found: list[str] = []
    wheels = sorted(dist.glob("*.whl"))
    sdists = sorted(dist.glob("*.tar.gz"))
    if not wheels:
        found.append(f"{dist}: no wheel")
    if not sdists:
        found.append(f"{dist}: no sdist")
    for path, texts in [(w, _wheel_texts(w)) for w in wheels] + [
        (s, _sdist_texts(s)) for s in sdists
    ]:
        if license_text.strip() not in [t.strip() for t in texts]:
            found.append(f"{path.name}: does not carry the LICENSE text")
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: check_artifacts.py DIST_DIR", file=sys.stderr)
        return 2
    license_path = ROOT / "LICENSE"
    if not license_path.is_file():
        print("check_artifacts: no LICENSE in the repository", file=sys.stderr)
        return 1
    found = problems(Path(argv[0]), license_path.read_bytes())
    for line in found:
        print(f"check_artifacts: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
