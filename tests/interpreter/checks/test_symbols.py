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
from tests.helpers.history_repo import commit

LIVE = ["AppServer", "start_server", "MAX_RETRIES", "app.server.AppServer", "HTTPClient"]
GONE = ["FlushQueue", "legacy_handler", "OLD_LIMIT", "billing.drain_all", "URLParser"]
NEVER = ["CheckoutController", "load_app_map", "web.routes.render_page"]


def symbol_repo(root: Path) -> Path:
    server = "MAX_RETRIES = 3\n\nclass AppServer:\n    def start_server(self): ...\n"
    commit(
        root,
        "init",
        "2026-01-10",
        files={
            "src/app/server.py": server,
            "src/app/http.py": "class HTTPClient: ...\nclass URLParser: ...\n",
            "src/billing.py": (
                "class FlushQueue: ...\n\ndef drain_all(): ...\n\n"
                "def legacy_handler(): ...\nOLD_LIMIT = 1\n"
            ),
            ".gitignore": "build/\n",
        },
    )
    commit(
        root,
        "queue rewrite",
        "2026-05-11",
        files={
            "src/billing.py": "class DrainQueue: ...\n\ndef drain_every(): ...\n",
            "src/app/http.py": "class HTTPClient: ...\n",
        },
    )
    return root.resolve()


def test_symbols_the_code_lost_are_reported_with_their_commit(tmp_path, make_store, run_curator):
    repo = symbol_repo(tmp_path / "repo")
    # Untracked and ignored files do not vouch for a symbol: only what git tracks.
    write_files(repo, {"build/gen.py": "def legacy_handler(): ...\nOLD_LIMIT = 1\n"})
    body = (
        "".join(f"- `{s}` is here\n" for s in LIVE)
        + "".join(f"- `{s}()` was here\n" for s in GONE)
        + "".join(f"- the web app has `{s}`\n" for s in NEVER)
    )
    store = make_store({"project_code.md": memory(body, extra="modified: 2026-04-02")})
    run = lint_json(run_curator, store, "CUR202", "--repo-root", str(repo))
    text = (store / "project_code.md").read_text()
    assert found(run, "CUR202") == sorted(("project_code.md", *locate(text, s), s) for s in GONE)
    message = next(d["message"] for d in run.json() if d["detail"]["symbol"] == "FlushQueue")
    assert message.startswith("'FlushQueue' was in src/billing.py until ")
    assert message.endswith(
        "(2026-05-11, \"queue rewrite\"), renamed to 'DrainQueue'?; "
        "the memory was written 2026-04-02 (frontmatter modified), before that"
    )
    url = next(d for d in run.json() if d["detail"]["symbol"] == "URLParser")
    assert url["detail"]["file_was"] == "src/app/http.py" and url["detail"]["new_name"] == ""


def test_a_plain_folder_has_no_history_and_says_so(tmp_path, make_store, run_curator):
    repo = write_files(tmp_path / "project", {"src/queue.py": "class RetryQueue: ...\n"})
    store = make_store({"project_q.md": memory("`FlushQueue` and `RetryQueue`.\n")})
    run = lint_json(run_curator, store, "CUR202", "--repo-root", str(repo))
    assert found(run, "CUR202") == []
    assert (
        f"curator: path and symbol rules skipped: {repo.resolve()} has no git history" in run.stderr
    )


def test_words_that_are_not_code_are_not_reported(tmp_path, make_store, run_curator):
    repo = tmp_path / "project"
    # Every word below was code here once: only the filters keep them out.
    words = ["npm", "install", "true", "TODO", "make", "status", "package", "config", "Node",
             "GitHub", "JavaScript", "snake_case", "camelCase", "FencedAway", "api"]  # fmt: skip
    code = "".join(f"{w} = 1\n" for w in words)
    commit(repo, "init", "2026-01-10", files={"old.py": code, "README.md": "x\n"})
    commit(repo, "drop", "2026-02-10", delete=("old.py",))
    body = (
        "Run `npm install`, `true`, `TODO`, `make test`, `git status`, `ls -la`, `pip`.\n"
        "Files `package.json`, `config.yaml`; products `Node.js`, `GitHub`, `JavaScript`.\n"
        "Hosts `api.example.com`; conventions `snake_case`, `camelCase`; short `ab`.\n"
        "```python\nclass FencedAway: ...\n```\n"
    )
    store = make_store({"project_w.md": memory(body)})
    run = lint_json(run_curator, store, "CUR202", "--repo-root", str(repo))
    assert found(run, "CUR202") == []


def test_a_name_the_code_only_called_is_the_platforms(tmp_path, make_store, run_curator):
    repo = tmp_path / "project"
    code = "import tty\n\ndef read_keys(fd):\n    tty.setcbreak(fd)\n    IOSurfaceLock(fd)\n"
    commit(repo, "init", "2026-01-10", files={"keys.py": code})
    commit(repo, "drop keys", "2026-02-10", delete=("keys.py",))
    body = "`read_keys` uses `tty.setcbreak()` and `IOSurfaceLock`.\n"
    store = make_store({"project_k.md": memory(body)})
    run = lint_json(run_curator, store, "CUR202", "--repo-root", str(repo))
    assert [f[3] for f in found(run, "CUR202")] == ["read_keys"]


def test_submodule_symbols_are_searched_from_the_superproject(tmp_path, make_store, run_curator):
    lib = tmp_path / "lib-origin"
    commit(lib, "init", "2026-01-10", files={"core.py": "class CoreThing: ...\n"})
    sup = tmp_path / "super"
    commit(
        sup, "init", "2026-01-10", files={"app.py": "class SuperThing: ...\nclass GoneThing: ...\n"}
    )
    commit(sup, "drop gone", "2026-02-10", files={"app.py": "class SuperThing: ...\n"})
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


def big_repo(root: Path, files: int, symbols: int) -> tuple[Path, list[str], list[str]]:
    """`files` tracked files; half of `symbols` defined in them, half defined once and
    removed by a later commit."""
    defined = [f"DefinedThing{i}" for i in range(symbols // 2)]
    missing = [f"MissingThing{i}" for i in range(symbols - symbols // 2)]
    contents = {}
    for i in range(files):
        lines = [f"value_{i} = {i}"]
        if i < len(defined):
            lines.append(f"class {defined[i]}: ...")
        contents[f"pkg{i % 50}/mod_{i}.py"] = "\n".join(lines) + "\n"
    gone = {f"old/gone_{i}.py": f"class {name}: ...\n" for i, name in enumerate(missing)}
    commit(root, "init", "2026-01-10", files={**contents, **gone})
    commit(root, "drop old", "2026-02-10", delete=("old",))
    return root.resolve(), defined, missing


def test_five_thousand_files_and_500_symbols_take_one_pass(
    make_store, tmp_path, run_curator, monkeypatch
):
    repo, defined, missing = big_repo(tmp_path / "repo", 5000, 500)
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
    # No process per symbol: one listing of the tracked files, the history passes, and
    # one look at the removing commit for a new name.
    assert sum("ls-files" in c for c in calls) == 1, calls
    assert len(calls) <= 12 and not any(" -S" in c or " -G" in c for c in calls), calls
    again = lint_json(run_curator, store, "CUR202", "--repo-root", str(repo), env=env)
    assert sorted(f[3] for f in found(again, "CUR202")) == sorted(missing)
    # Warm: the index is cached by HEAD; no history pass runs again.
    assert not any(" log " in c for c in log.read_text().splitlines()[len(calls) :])

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


def test_plain_folder_is_not_read_without_history(tmp_path, make_store, monkeypatch):
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
    assert result.diagnostics == []
    assert [p for p in reads if p.is_relative_to(root)] == []
    assert any("has no git history" in note for note in result.notes)


def test_a_search_past_its_time_limit_reports_nothing_and_says_so(
    git_repo, make_store, tmp_path, run_curator
):
    repo = git_repo({f"src/m{i}.py": f"class Thing{i}: ...\n" for i in range(300)})
    commit(repo, "drop one", "2026-02-01", files={"src/m0.py": "x = 1\n"})
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


def test_a_three_character_name_the_code_lost_is_reported(tmp_path, make_store, run_curator):
    """The rule's min_length is 3 (`jobs.Job` searches `Job`), and the history index
    keeps names that short."""
    repo = tmp_path / "repo"
    commit(repo, "init", "2026-01-10", files={"src/jobs.py": "class Job: ...\nclass Runner: ...\n"})
    commit(repo, "jobs go", "2026-05-11", files={"src/jobs.py": "class Runner: ...\n"})
    store = make_store({"project_jobs.md": memory("Queue work with `jobs.Job()`.\n")})
    run = lint_json(run_curator, store, "CUR202", "--repo-root", str(repo.resolve()))
    hits = [d for d in run.json() if d["code"] == "CUR202"]
    assert [(d["detail"]["symbol"], d["detail"]["searched"]) for d in hits] == [("jobs.Job", "Job")]
    assert hits[0]["detail"]["file_was"] == "src/jobs.py"


def test_a_lower_camel_name_in_prose_is_checked_like_a_code_span(tmp_path, make_store, run_curator):
    """Owners write constants in prose ("main alert (feedMainId 800001)"). Only the
    lowerCamelCase shape is read there: snake_case in prose is as often someone else's
    field ("user_id 919061490"), and a sentence that says the name went is held back."""
    repo = tmp_path / "repo"
    old = (
        "class Alerts {\n  static const feedMainId = 800001;\n  static const user_id = 7;\n"
        "  static const packageRefs = 1;\n}\n"
    )
    new = (
        "class Alerts {\n  static const _feedMainBase = 800000;\n"
        "  static int feedMainIdFor(int slot) => _feedMainBase + slot;\n}\n"
    )
    commit(repo, "init", "2026-01-10", files={"lib/alerts.dart": old})
    commit(repo, "alerts per slot", "2026-05-11", files={"lib/alerts.dart": new})
    body = (
        "Main alert (feedMainId 800001) fires first.\n"
        "The bot writes to user_id 919061490.\n"
        "Proje daha önce packageRefs ile derleniyordu.\n"
        "See lib/feedMainId/readme and https://example.com/feedMainId for more.\n"
    )
    store = make_store({"project_alerts.md": memory(body, extra="modified: 2026-06-02")})
    run = lint_json(run_curator, store, "CUR202", "--repo-root", str(repo.resolve()))
    text = (store / "project_alerts.md").read_text()
    assert found(run, "CUR202") == [
        ("project_alerts.md", *locate(text, "feedMainId"), "feedMainId")
    ]
    message = run.json()[0]["message"]
    assert "until " in message and "renamed to 'feedMainIdFor'?" in message
