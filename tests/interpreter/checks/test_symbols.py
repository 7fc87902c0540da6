"""CUR202 symbol_missing: one search pass over tracked files, words that are not code."""

from __future__ import annotations

import os
import stat
import subprocess
from datetime import date
from pathlib import Path

from curator.config import Config
from curator.interpreter.rulebook import load_rules
from curator.linting import lint, target_for
from tests.conftest import found, git, lint_json, locate, memory, write_files

LIVE = ["AppServer", "start_server", "MAX_RETRIES", "app.server.AppServer", "HTTPClient"]
DEAD = ["FlushQueue", "legacy_handler", "OLD_LIMIT", "billing.drain_all", "URLParser"]


def symbol_repo(git_repo):
    return git_repo(
        {
            "src/app/server.py": (
                "MAX_RETRIES = 3\n\nclass AppServer:\n    def start_server(self): ...\n"
            ),
            "src/app/http.py": "class HTTPClient: ...\n",
            "notes/ignored.txt": "FlushQueue lives only in an ignored file\n",
            ".gitignore": "build/\n",
        }
    )


def test_every_missing_symbol_is_found_and_no_live_one(git_repo, make_store, run_curator):
    repo = symbol_repo(git_repo)
    # Untracked and ignored files do not count: only what git tracks.
    write_files(repo, {"build/gen.py": "def legacy_handler(): ...\nOLD_LIMIT = 1\n"})
    git(repo, "rm", "-q", "--cached", "notes/ignored.txt")
    body = "".join(f"- `{s}` is here\n" for s in LIVE) + "".join(
        f"- `{s}()` was here\n" for s in DEAD
    )
    store = make_store({"project_code.md": memory(body)})
    run = lint_json(run_curator, store, "CUR202", "--repo-root", str(repo))
    text = (store / "project_code.md").read_text()
    assert found(run, "CUR202") == sorted(("project_code.md", *locate(text, s), s) for s in DEAD)
    message = next(d["message"] for d in run.json() if d["detail"]["symbol"] == "FlushQueue")
    assert message == "'FlushQueue' is not found in the repository"


def test_plain_folder_is_walked(tmp_path, make_store, run_curator):
    repo = write_files(
        tmp_path / "project",
        {
            "src/queue.py": "class RetryQueue: ...\n",
            "node_modules/dep/index.js": "class FlushQueue {}\n",  # dependencies do not count
        },
    )
    store = make_store({"project_q.md": memory("`FlushQueue` and `RetryQueue`.\n")})
    run = lint_json(run_curator, store, "CUR202", "--repo-root", str(repo))
    text = (store / "project_q.md").read_text()
    assert found(run, "CUR202") == [("project_q.md", *locate(text, "FlushQueue"), "FlushQueue")]


def test_words_that_are_not_code_are_not_reported(tmp_path, make_store, run_curator):
    repo = write_files(tmp_path / "project", {"README.md": "x\n"})
    body = (
        "Run `npm install`, `true`, `TODO`, `make test`, `git status`, `ls -la`, `pip`.\n"
        "Files `package.json`, `config.yaml`; products `Node.js`, `GitHub`, `JavaScript`.\n"
        "Hosts `api.example.com`; conventions `snake_case`, `camelCase`; short `ab`.\n"
        "```python\nclass FencedAway: ...\n```\n"
    )
    store = make_store({"project_w.md": memory(body)})
    run = lint_json(run_curator, store, "CUR202", "--repo-root", str(repo))
    assert found(run, "CUR202") == []


def test_submodule_symbols_are_searched_from_the_superproject(git_repo, make_store, run_curator):
    lib = git_repo({"core.py": "class CoreThing: ...\n"}, name="lib-origin")
    sup = git_repo({"app.py": "class SuperThing: ...\n"}, name="super")
    git(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    git(sup, "commit", "-q", "-m", "add lib")
    store = make_store({"project_s.md": memory("`CoreThing`, `SuperThing`, `GoneThing`.\n")})
    run = run_curator(
        "lint", str(store), "--output-format", "json", "--select", "CUR202", "--repo-root", str(sup)
    )
    assert [f[3] for f in found(run, "CUR202")] == ["GoneThing"]


def git_shim(folder: Path, log: Path) -> Path:
    """A `git` first on PATH that logs each invocation and runs the real git."""
    real = subprocess.run(["which", "git"], capture_output=True, text=True, check=True).stdout
    shim = folder / "git"
    shim.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec {real.strip()} "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    return folder


def big_repo(git_repo, files: int, symbols: int) -> tuple[Path, list[str], list[str]]:
    """`files` tracked files; half of `symbols` defined somewhere in them, half nowhere."""
    defined = [f"DefinedThing{i}" for i in range(symbols // 2)]
    missing = [f"MissingThing{i}" for i in range(symbols - symbols // 2)]
    contents = {}
    for i in range(files):
        lines = [f"value_{i} = {i}"]
        if i < len(defined):
            lines.append(f"class {defined[i]}: ...")
        contents[f"pkg{i % 50}/mod_{i}.py"] = "\n".join(lines) + "\n"
    return git_repo(contents), defined, missing


def test_five_thousand_files_and_500_symbols_take_one_pass(
    git_repo, make_store, tmp_path, run_curator, monkeypatch
):
    repo, defined, missing = big_repo(git_repo, 5000, 500)
    memories = {}
    names = defined + missing
    for m in range(50):
        chunk = names[m * 10 : (m + 1) * 10]
        memories[f"project_{m}.md"] = memory("".join(f"Uses `{s}`.\n" for s in chunk))
    store = make_store(memories)
    log = tmp_path / "git.log"
    (tmp_path / "shim").mkdir()
    shim = git_shim(tmp_path / "shim", log)
    env = {"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}"}
    run = lint_json(run_curator, store, "CUR202", "--repo-root", str(repo), env=env)
    assert sorted(f[3] for f in found(run, "CUR202")) == sorted(missing)
    calls = log.read_text().splitlines()
    # One listing of the tracked files, no process per symbol.
    assert len(calls) == 1 and "ls-files" in calls[0], calls

    # In process: each tracked file is read at most once for all 500 symbols.
    reads: list[Path] = []
    real = Path.read_bytes

    def counting(self):
        reads.append(self)
        return real(self)

    rules = load_rules()
    selected = [r for r in rules if r.code == "CUR202"]
    monkeypatch.setattr(Path, "read_bytes", counting)
    target = target_for(store.resolve(), Config(), Path.cwd(), repo)
    result = lint([target], rules, selected, Config(), date(2026, 6, 1))
    monkeypatch.undo()
    assert sorted(d.detail["symbol"] for d in result.diagnostics) == sorted(missing)
    repo_reads = [p for p in reads if p.is_relative_to(repo)]
    assert len(repo_reads) == len(set(repo_reads)) <= 5000


def test_plain_folder_reads_each_file_at_most_once(tmp_path, make_store, monkeypatch):
    root = tmp_path / "plain"
    for i in range(300):
        write_files(root, {f"d{i % 10}/f{i}.py": f"class Thing{i}: ...\n"})
    store = make_store(
        {
            f"project_{k}.md": memory(
                "".join(f"`Thing{i}`, `Gone{i}Thing`.\n" for i in range(k, 300, 10))
            )
            for k in range(10)
        }
    )
    reads: list[Path] = []
    real = Path.read_bytes

    def counting(self):
        reads.append(self)
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    rules = load_rules()
    selected = [r for r in rules if r.code == "CUR202"]
    target = target_for(store.resolve(), Config(), Path.cwd(), root)
    result = lint([target], rules, selected, Config(), date(2026, 6, 1))
    monkeypatch.undo()
    assert len(result.diagnostics) == 300
    repo_reads = [p for p in reads if p.is_relative_to(root)]
    assert len(repo_reads) == len(set(repo_reads)) <= 300


def test_a_search_past_its_time_limit_reports_nothing_and_says_so(
    git_repo, make_store, tmp_path, run_curator
):
    repo = git_repo({f"src/m{i}.py": f"class Thing{i}: ...\n" for i in range(300)})
    store = make_store({"project_a.md": memory("`Thing1` and `GoneThing`.\n")})
    text = "rules:\n  symbol_missing:\n    params: {max_search_seconds: 0.000001}\n"
    config = write_files(tmp_path, {".curator.yaml": text})
    run = lint_json(
        run_curator,
        store,
        "CUR202",
        "--repo-root",
        str(repo),
        "--config",
        str(config / ".curator.yaml"),
    )
    assert found(run, "CUR202") == []
    assert (
        "curator: symbol_missing (CUR202) skipped: searching the repository took over 1e-06 s "
        "(params.max_search_seconds)"
    ) in run.stderr.splitlines()
