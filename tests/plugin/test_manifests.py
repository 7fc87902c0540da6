"""The plugin's files as Claude Code and its plugin directory read them: one version
everywhere, a hook that goes through the launcher, a skill, an icon, and the real CLI's
validator passing with `--strict --profile directory`."""

from __future__ import annotations

import importlib.util
import json
import re
import struct
import subprocess
import zlib
from pathlib import Path
from types import ModuleType

import curator
from tests.conftest import CHECKOUT, snapshot_checkout
from tests.helpers.claude_cli import claude_binary, claude_env
from tests.helpers.plugin_env import LAUNCHER, MARKETPLACE_JSON, PLUGIN_JSON, plugin_version

ICON = CHECKOUT / ".claude-plugin" / "icon.png"


def test_package_plugin_and_marketplace_have_one_version() -> None:
    marketplace = json.loads(MARKETPLACE_JSON.read_text(encoding="utf-8"))
    [listed] = marketplace["plugins"]
    assert listed["name"] == "curator" and listed["source"] == "./"
    versions = {
        "curator/__init__.py": curator.__version__,
        "plugin.json": plugin_version(),
        "marketplace.json metadata": marketplace["metadata"]["version"],
        "marketplace.json plugin": listed["version"],
    }
    assert len(set(versions.values())) == 1, versions


def test_the_launcher_needs_no_newer_curator_than_the_plugin_ships() -> None:
    [minimum] = re.findall(r"^MIN_VERSION=(\S+)$", LAUNCHER.read_text(), re.MULTILINE)

    def key(version: str) -> tuple[int, ...]:
        return tuple(int(part) for part in version.split("."))

    assert key(minimum) <= key(plugin_version())


def test_the_hook_runs_the_launcher_from_the_plugin_folder() -> None:
    hooks = json.loads((CHECKOUT / "hooks" / "hooks.json").read_text(encoding="utf-8"))
    assert hooks["hooks"]["SessionStart"] == [
        {
            "matcher": "startup|resume|clear|compact",
            "hooks": [
                {
                    "type": "command",
                    "command": 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh"',
                    "timeout": 10,
                }
            ],
        }
    ]


def test_the_skill_covers_its_commands_and_a_missing_curator() -> None:
    skill = (CHECKOUT / "skills" / "curator" / "SKILL.md").read_text(encoding="utf-8")
    assert skill.startswith("---\nname: curator\ndescription: ")
    for command in ("/curator review", "/curator scan", "/curator calibrate"):
        assert f"## `{command}`" in skill
    assert "pipx install memory-curator" in skill and "uv tool install memory-curator" in skill


def png_pixels(data: bytes) -> tuple[int, int, bytes]:
    """Width, height and raw scanlines of an 8-bit RGBA PNG, every chunk's CRC checked."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks = 8, []
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert zlib.crc32(kind + body) == crc, kind
        chunks.append((kind, body))
        at += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    width, height, depth, color = struct.unpack(">IIBB", chunks[0][1][:10])
    assert (depth, color) == (8, 6)
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    assert len(raw) == height * (width * 4 + 1)
    return width, height, raw


def load_icon_drawer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("draw_icon", ICON.with_name("draw_icon.py"))
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_icon_is_a_square_png_the_drawing_script_makes() -> None:
    width, height, raw = png_pixels(ICON.read_bytes())
    assert width == height >= 512
    assert ICON.stat().st_size < 2 * 1024 * 1024
    plugin = json.loads(PLUGIN_JSON.read_text(encoding="utf-8"))
    assert plugin["icon"] == ".claude-plugin/icon.png"
    assert load_icon_drawer().pixels() == raw


def validate(target: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = claude_env("http://127.0.0.1:9", target.parent / "claude-config", target.parent / "home")
    return subprocess.run(
        [str(claude_binary()), "plugin", "validate", *args, str(target)],
        cwd=target,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_plugin_directory_validator_passes(tmp_path: Path) -> None:
    """What `.ci/run` runs, on a clean copy of the checkout."""
    snapshot_checkout(tmp_path / "curator")
    run = validate(tmp_path / "curator", "--strict", "--profile", "directory")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "✔ Validation passed" in run.stdout

    report = json.loads(validate(tmp_path / "curator", "--json", "--strict").stdout)
    assert report["success"] is True
    assert report["hosts"]["declared"]["plugin"] is True
    # No advice left: the README has the marketplace install line.
    assert report.get("advice", []) == []
    hooks = report["provides"]["hooks"]
    assert [h["command"] for h in hooks] == ['sh "${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh"']
    assert report["provides"]["skills"] == ["curator:curator"]


def test_the_validator_would_catch_a_missing_icon(tmp_path: Path) -> None:
    """The check above can fail: without the icon the directory profile refuses."""
    snapshot_checkout(tmp_path / "curator")
    plugin = tmp_path / "curator" / ".claude-plugin"
    (plugin / "icon.png").unlink()
    manifest = json.loads((plugin / "plugin.json").read_text())
    del manifest["icon"]
    (plugin / "plugin.json").write_text(json.dumps(manifest))
    run = validate(tmp_path / "curator", "--strict", "--profile", "directory")
    assert run.returncode == 1
    assert "ICON_MISSING" in run.stdout
