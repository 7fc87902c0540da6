"""docs/ci.md's CI jobs, run for real: every step of the GitHub Actions workflow and every
line of the GitLab job, in order, on a throwaway dotfiles repository, with curator
installed by the workflow's own install step into a fresh virtualenv."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from junitparser import JUnitXml

from tests.conftest import CHECKOUT, snapshot_checkout
from tests.helpers.dotfiles_repo import BROKEN, STORE, dotfiles

EXAMPLES = CHECKOUT / "docs/examples"
SCHEMA = json.loads((CHECKOUT / "tests/fixtures/sarif-schema-2.1.0.json").read_text("utf-8"))


def load(name: str) -> dict[str, Any]:
    return yaml.safe_load((EXAMPLES / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def ci(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A fresh virtualenv (what setup-python and a python image give) and the package
    to install: a snapshot of this checkout, standing in for the published package."""
    root = tmp_path_factory.mktemp("ci")
    source = root / "curator-src"
    snapshot_checkout(source)
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env.update(
        PATH=f"{root / 'venv/bin'}{os.pathsep}{env.get('PATH', '')}",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        CLAUDE_CONFIG_DIR=str(root / "claude"),
        XDG_CONFIG_HOME=str(root / "xdg"),
        CI="true",
    )
    return {"env": env, "package": str(source)}


def run_github_workflow(repo: Path, ci: dict[str, Any]) -> dict[str, subprocess.CompletedProcess]:
    """Run the workflow's job as a runner would: `run:` steps in bash -e, a step without
    `if: always()` skipped once one has failed; each `uses:` step emulated or checked."""
    workflow = load("github-actions.yml")
    [job] = workflow["jobs"].values()
    env = {**ci["env"], **workflow.get("env", {}), "CURATOR": ci["package"]}
    env.update(GITHUB_ACTIONS="true", GITHUB_WORKSPACE=str(repo))
    results: dict[str, subprocess.CompletedProcess] = {}
    failed = False
    for step in job["steps"]:
        if failed and step.get("if") != "always()":
            continue
        uses = step.get("uses", "")
        if uses.startswith(("actions/checkout@", "actions/setup-python@")):
            continue  # the repository is the working directory; the venv is on PATH
        if uses.startswith("github/codeql-action/upload-sarif@"):
            sarif = json.loads((repo / step["with"]["sarif_file"]).read_text("utf-8"))
            jsonschema.Draft4Validator(SCHEMA).validate(sarif)
            continue
        assert not uses, f"the test does not know how to run {uses}"
        assert "${{" not in step["run"]
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-e", "-c", step["run"]],
            cwd=repo,
            env={**env, **step.get("env", {})},
            capture_output=True,
            text=True,
            timeout=600,
        )
        results[step["name"]] = done
        failed = failed or done.returncode != 0
    return results


def test_the_github_workflow_annotates_uploads_and_fails(ci, tmp_path: Path) -> None:
    repo = dotfiles(tmp_path / "broken", BROKEN)
    steps = run_github_workflow(repo, ci)

    assert list(steps) == ["Install curator", "Lint memory for code scanning", "Lint memory"]
    install = steps["Install curator"]
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-2000:]
    sarif = steps["Lint memory for code scanning"]
    assert sarif.returncode == 0, sarif.stderr
    results = json.loads((repo / "curator.sarif").read_text("utf-8"))["runs"][0]["results"]
    located = [(r["ruleId"], r["locations"][0]["physicalLocation"]) for r in results]
    assert {(code, where["artifactLocation"]["uri"]) for code, where in located} == {
        ("CUR010", f"{STORE}/MEMORY.md"),
        ("CUR011", f"{STORE}/feedback_tests.md"),
    }
    lint = steps["Lint memory"]
    assert lint.returncode == 1  # the job fails
    assert lint.stdout.splitlines() == [
        f"::error file={STORE}/MEMORY.md,line=2,col=3,endLine=2,endColumn=28,"
        "title=CUR010 (broken_index)::CUR010 MEMORY.md links 'feedback_test.md', "
        "which does not exist",
        f"::warning file={STORE}/feedback_tests.md,line=1,col=1,endLine=1,endColumn=1,"
        "title=CUR011 (orphaned_memory)::CUR011 'feedback_tests.md' is neither linked nor "
        "named in MEMORY.md, nor in any memory it reaches, so the agent is never pointed to it",
    ]


def test_the_github_workflow_passes_on_clean_memory(ci, tmp_path: Path) -> None:
    repo = dotfiles(tmp_path / "clean", BROKEN.replace("feedback_test.md", "feedback_tests.md"))
    steps = run_github_workflow(repo, ci)
    assert [s.returncode for s in steps.values()] == [0, 0, 0]
    assert steps["Lint memory"].stdout == ""
    assert json.loads((repo / "curator.sarif").read_text("utf-8"))["runs"][0]["results"] == []


def test_the_gitlab_job_writes_a_junit_report_and_fails(ci, tmp_path: Path) -> None:
    repo = dotfiles(tmp_path / "gitlab", BROKEN)
    job = load("gitlab-ci.yml")["curator"]
    env = {**ci["env"], **job["variables"], "CURATOR": ci["package"], "GITLAB_CI": "true"}
    codes = []
    for line in job["script"]:
        done = subprocess.run(
            ["sh", "-e", "-c", line], cwd=repo, env=env, capture_output=True, text=True
        )
        codes.append(done.returncode)
        if done.returncode:
            break  # GitLab stops the job at the first failing line
    assert codes == [0, 0, 1]
    assert done.stdout.splitlines()[0] == (
        f"{STORE}/MEMORY.md:2:3: CUR010 MEMORY.md links 'feedback_test.md', which does not exist"
    )
    report = JUnitXml.fromfile(str(repo / job["artifacts"]["reports"]["junit"]))
    [suite] = list(report)
    assert (suite.name, suite.tests, suite.failures) == (f"curator: {STORE}", 2, 2)


def test_docs_ci_md_shows_the_files_the_tests_run() -> None:
    doc = (CHECKOUT / "docs/ci.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", doc, flags=re.S)
    for name in ("github-actions.yml", "gitlab-ci.yml"):
        assert (EXAMPLES / name).read_text(encoding="utf-8") in blocks, name
    hooks = (CHECKOUT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    for hook in yaml.safe_load(hooks):
        assert f"id: {hook['id']}" in doc


def test_docs_ci_md_repositories_example_is_valid_config(tmp_path: Path) -> None:
    from curator.config import load_config

    doc = (CHECKOUT / "docs/ci.md").read_text(encoding="utf-8")
    [example] = [
        b for b in re.findall(r"```yaml\n(.*?)```", doc, flags=re.S) if "repositories:" in b
    ]
    (tmp_path / ".curator.yaml").write_text(example, encoding="utf-8")
    config = load_config(tmp_path / ".curator.yaml")
    home = Path.home()
    assert config.repositories() == [
        ("-home-me-work-api", home / "work/api"),
        ("-home-me-work-*", home / "work/monorepo"),
        ("-home-me-scratch", None),
    ]
