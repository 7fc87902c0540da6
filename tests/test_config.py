"""`.curator.yaml`: discovery, overrides, and errors that name the file and line."""

from __future__ import annotations

import pytest

from curator.config import RANGES, Config
from tests.conftest import memory

STORE = {"MEMORY.md": "- [A](a.md)\n", "a.md": memory(), "orphan.md": memory()}


def test_config_is_found_by_walking_up(make_store, run_curator, tmp_path):
    make_store(STORE)
    (tmp_path / ".curator.yaml").write_text("ignore: [CUR011]\n")
    sub = tmp_path / "deep" / "er"
    sub.mkdir(parents=True)
    assert run_curator("lint", str(tmp_path / "memory"), cwd=sub).code == 0


def test_per_rule_override_changes_severity_and_params(make_store, run_curator, tmp_path):
    make_store(STORE)
    (tmp_path / ".curator.yaml").write_text(
        "rules:\n  orphaned_memory: {severity: info}\n  CUR014: {params: {content_chars: 5}}\n"
    )
    out = run_curator("lint", "memory", "--output-format", "json")
    assert out.code == 0  # both are info now, under the default fail_on: warning
    severities = {d["code"]: d["severity"] for d in out.json()}
    assert severities == {"CUR011": "info", "CUR014": "info"}


def test_unknown_key_is_exit_2_with_file_and_line(make_store, run_curator, tmp_path):
    make_store(STORE)
    (tmp_path / ".curator.yaml").write_text("select: [CUR0]\nllm:\n  modle: x\n")
    out = run_curator("lint", "memory")
    assert out.code == 2
    assert out.stderr.startswith(
        f"curator: error: {tmp_path / '.curator.yaml'}:3: unknown key 'llm.modle'"
    )
    assert "Traceback" not in out.stderr


def test_wrong_type_and_broken_yaml(make_store, run_curator, tmp_path):
    make_store(STORE)
    cfg = tmp_path / "c.yaml"
    cfg.write_text("fail_on: warning\ncheap:\n  budget_ms: fast\n")
    out = run_curator("lint", "memory", "--config", str(cfg))
    assert (out.code, out.stderr.strip()) == (
        2,
        f"curator: error: {cfg}:3: 'cheap.budget_ms' must be an integer",
    )
    cfg.write_text("select: [CUR0\n")
    out = run_curator("lint", "memory", "--config", str(cfg))
    assert out.code == 2
    assert f"{cfg}:2: invalid YAML" in out.stderr
    out = run_curator("lint", "memory", "--config", str(tmp_path / "missing.yaml"))
    assert out.code == 2


def test_override_of_unknown_rule_is_an_error(make_store, run_curator, tmp_path):
    make_store(STORE)
    (tmp_path / ".curator.yaml").write_text("rules:\n  CUR999: {severity: error}\n")
    out = run_curator("lint", "memory")
    assert out.code == 2
    assert "no rule has code or name 'CUR999'" in out.stderr


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("cheap:\n  hook_timeout_ms: 0\n", 2, "'cheap.hook_timeout_ms' must be from 1 to 600,000"),
        ("cheap:\n  hook_timeout_ms: -5\n", 2, "'cheap.hook_timeout_ms' must be from 1 to 600,000"),
        # Past what a timer can hold: an OverflowError in the hook before the range.
        ("cheap:\n  hook_timeout_ms: 99999999999999999999\n", 2, "'cheap.hook_timeout_ms' must"),
        ("cheap:\n  background_limit_seconds: 10000000000\n", 2,
         "'cheap.background_limit_seconds' must be from 1 to 86,400"),
        ("fail_on: error\nsurfacer: {max_pointer_chars: -1}\n", 2,
         "'surfacer.max_pointer_chars' must be from 20 to 100,000"),
        ("llm:\n  model: m\n  max_retries: -1\n", 3, "'llm.max_retries' must be from 0 to 20"),
        ("rules:\n  CUR101:\n    params: {max_dates_per_memory: -1}\n", 3,
         "param 'max_dates_per_memory' must be from 1 to 100,000"),
        ("rules:\n  date_decayed:\n    params:\n      grace_days: -3\n", 4,
         "param 'grace_days' must be from 0 to 1,000,000,000"),
        ("rules:\n  CUR014:\n    params: {max_line_chars: .nan}\n", 3,
         "param 'max_line_chars' must be from 0 to 1,000,000,000"),
    ],
)  # fmt: skip
def test_a_number_outside_its_range_is_a_config_error_with_file_and_line(
    make_store, run_curator, tmp_path, text, line, message
):
    make_store(STORE)
    cfg = tmp_path / ".curator.yaml"
    cfg.write_text(text)
    out = run_curator("lint", "memory")
    assert out.code == 2, out.stdout
    assert out.stderr.startswith(f"curator: error: {cfg}:{line}: {message}"), out.stderr
    assert "Traceback" not in out.stderr


def test_a_rule_file_param_outside_its_range_names_the_rule_file(make_store, run_curator, tmp_path):
    make_store(STORE)
    rules = tmp_path / "myrules"
    rules.mkdir()
    (rules / "tiny_index.yaml").write_text(
        "code: CUR990\nname: tiny_index\ncheck: metric\nseverity: warning\n"
        "summary: s\nmessage: m\ndocs: d\nparams:\n  metric: body_lines\n  max: -2\n"
    )
    (tmp_path / ".curator.yaml").write_text("rule_paths: [myrules]\n")
    out = run_curator("lint", "memory")
    assert out.code == 2
    assert out.stderr.startswith(
        f"curator: error: {rules / 'tiny_index.yaml'}:10: param 'max' must be from 0 to"
    ), out.stderr


def test_the_shipped_settings_sit_inside_their_ranges():
    for dotted, (low, high) in RANGES.items():
        assert low <= Config().get(dotted) <= high, dotted
