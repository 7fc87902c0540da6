"""`.curator.yaml`: discovery, overrides, and errors that name the file and line."""

from __future__ import annotations

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
        "rules:\n  orphaned_memory: {severity: info}\n  CUR014: {params: {max_line_chars: 5}}\n"
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
