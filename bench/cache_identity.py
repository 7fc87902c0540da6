"""Check that curator's caches change nothing a user sees: every store of a corpus, linted
in its repository in every output format, cold (no cache folder) and then warm (the
caches that run left), must give the same stdout, stderr and exit code.

    python bench/cache_identity.py STORES_TSV [--today 2026-12-01]

STORES_TSV has one `name<TAB>repository<TAB>store folder` line per store. The
repositories are only read. Prints one line per store and a summary; exit 1 on a
difference.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FORMATS = ("full", "concise", "json", "json-lines", "github", "sarif", "junit")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", type=Path)
    parser.add_argument("--today", default="2026-12-01")
    args = parser.parse_args()
    rows = [line.rstrip("\n").split("\t") for line in args.stores.read_text().splitlines()]
    differences = 0
    with tempfile.TemporaryDirectory(prefix="curator-identity-") as tmp:
        onlooker = Path(tmp) / "onlooker"
        env = {**os.environ, "ONLOOKER_DIR": str(onlooker), "NO_COLOR": "1"}
        env.pop("ONLOOKER_EVENTS_LOG", None)
        for name, repo, store in rows:
            bad = []
            for fmt in FORMATS:
                command = [sys.executable, "-m", "curator", "lint", store, "--output-format",
                           fmt, "--today", args.today]  # fmt: skip
                shutil.rmtree(onlooker / "curator" / "cache", ignore_errors=True)
                runs = [
                    subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
                    for _ in ("cold", "warm")
                ]
                cold, warm = ((r.returncode, r.stdout, r.stderr) for r in runs)
                if cold != warm:
                    bad.append(fmt)
            differences += bool(bad)
            print(f"{name}: {'differs in ' + ', '.join(bad) if bad else 'same'}")
    print(f"{len(rows)} stores x {len(FORMATS)} formats: {differences} stores differ")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
