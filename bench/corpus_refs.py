"""Run the reference rules over real stores to review their findings by hand.

    python bench/corpus_refs.py CORPUS_DIR [--out FILE]

CORPUS_DIR holds one folder per store, each with `repo-files.txt` (every file path of
the store's repository) and a `SOURCE.txt` naming `memory_path`. The repository is
materialized as empty files in a temporary folder named like the repository, the store
is copied to its place inside it, and CUR201/CUR202 run against that tree. Files are
empty, so CUR202 reports every symbol candidate: read its list as "what the rule takes
for code", not as missing symbols. Prints one line per store and writes every finding
to --out (JSON lines) for review.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from datetime import date
from pathlib import Path

from curator.config import Config, load_config
from curator.interpreter.rulebook import load_rules
from curator.linting import lint, target_for


def source_field(source: Path, key: str) -> str | None:
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{key}:"):
            return line.split(":", 1)[1].strip()
    return None


def materialize(store: Path, into: Path) -> tuple[Path, Path] | None:
    listing = store / "repo-files.txt"
    source = store / "SOURCE.txt"
    if not listing.is_file() or not source.is_file():
        return None
    repo_name = (source_field(source, "repo") or store.name).rsplit("/", 1)[-1]
    repo = into / repo_name
    for rel in listing.read_text(encoding="utf-8").splitlines():
        if not rel or rel.startswith("/") or ".." in rel.split("/"):
            continue
        path = repo / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        except OSError:
            continue  # a file where the listing also has a folder of that name
    memory_path = source_field(source, "memory_path") or "memory"
    target = repo / memory_path
    if target.is_file():
        target.unlink()
    target.mkdir(parents=True, exist_ok=True)
    for item in store.iterdir():
        if item.name in ("repo-files.txt", "SOURCE.txt"):
            continue
        dest = target / item.name
        if item.is_dir():
            shutil.copytree(item, dest, dirs_exist_ok=True)
        else:
            shutil.copyfile(item, dest)
    return repo, target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--out", type=Path, default=Path("bench/out/corpus_refs.jsonl"))
    parser.add_argument("--config", type=Path, help="a .curator.yaml to tune the rules with")
    args = parser.parse_args()
    config = load_config(args.config) if args.config else Config()
    rules = load_rules(config)
    selected = [r for r in rules if r.code in ("CUR201", "CUR202")]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    totals: Counter[str] = Counter()
    with args.out.open("w", encoding="utf-8") as out:
        for store in sorted(p for p in args.corpus.iterdir() if p.is_dir()):
            with tempfile.TemporaryDirectory(prefix="curator-corpus-") as tmp:
                placed = materialize(store, Path(tmp))
                if placed is None:
                    continue
                repo, memory = placed
                started = time.perf_counter()
                target = target_for(memory.resolve(), config, Path.cwd(), repo)
                result = lint([target], rules, selected, config, date.today())
                elapsed = (time.perf_counter() - started) * 1000
                counts = Counter(d.code for d in result.diagnostics)
                totals.update(counts)
                totals["memories"] += result.memories
                print(
                    f"{store.name:50} {result.memories:4} memories "
                    f"CUR201={counts['CUR201']:4} CUR202={counts['CUR202']:4} {elapsed:7.0f} ms"
                )
                for d in result.diagnostics:
                    line = d.path.read_text(encoding="utf-8").splitlines()[d.line - 1]
                    record = {
                        "store": store.name,
                        "code": d.code,
                        "file": d.memory_files[0] if d.memory_files else d.path.name,
                        "line": d.line,
                        "column": d.column,
                        "detail": d.detail,
                        "text": line.strip()[:200],
                    }
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"total: {dict(totals)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
