"""`claude -p` as a provider, for subscription users: a judge that leaves no trace.

Each question runs the user's Claude Code CLI once, in print mode, with the memories on
stdin and these switches (docs/llm.md says why each is there):

    claude -p --model M --output-format json --json-schema S
           --system-prompt J --tools "" --strict-mcp-config --disable-slash-commands
           --no-session-persistence --setting-sources "" --settings <auth.json>

from a new empty working folder, with `CURATOR_NESTED=1`. So no transcript is written,
no tool, MCP server, hook, plugin, skill, CLAUDE.md or output style is loaded, and the
model sees curator's short judge instructions instead of Claude Code's agent prompt.
`<auth.json>` holds only the keys of the user's settings that sign in (`apiKeyHelper`,
`env`, ...); a subscription login lives in the credential store, which none of these
switches skips (`--bare` would, so it is not used).

The CLI is asked once per run for its version and switches (`--version`, `--help`). One
that lacks a switch above is refused, with its version and what it needs; one without
`--json-schema` is asked for the JSON in text, which is parsed as a fallback.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.config import Config
from curator.llm.question import MalformedAnswer, ProviderError, Request, parse_json_text
from curator.store.discovery import claude_config_dir

# Without any one of these the CLI would write a transcript, offer tools or load the
# user's hooks, plugins and instructions: curator refuses to use it.
REQUIRED_SWITCHES = (
    "--no-session-persistence",
    "--tools",
    "--strict-mcp-config",
    "--setting-sources",
    "--settings",
    "--disable-slash-commands",
    "--system-prompt",
    "--output-format",
)
STRUCTURED_SWITCH = "--json-schema"
TESTED_VERSION = "2.1.328"  # the version the tests pin (tests/helpers/claude_cli.py)
# The keys of settings.json that sign in; everything else in the user's settings (hooks,
# plugins, CLAUDE.md exclusions, output style, language) stays out of the judge's way.
AUTH_KEYS = (
    "apiKeyHelper",
    "env",
    "forceLoginMethod",
    "forceLoginOrgUUID",
    "awsAuthRefresh",
    "awsCredentialExport",
    "gcpAuthRefresh",
)
VERSION = re.compile(r"\d+\.\d+\.\d+")
DEFAULT_SYSTEM = "Answer the question you are given, in the form it asks for."
PROBE_SECONDS = 30.0


@dataclass(frozen=True)
class CliInfo:
    """What `claude --version` and `claude --help` said."""

    version: str
    missing: tuple[str, ...]  # required switches its help does not list
    structured: bool  # it has --json-schema


def probe(command: str, timeout: float = PROBE_SECONDS) -> CliInfo:
    """Ask the CLI for its version and switches; ProviderError if it cannot run."""
    said = VERSION.search(_run_quietly([command, "--version"], timeout))
    version = said.group(0) if said else "(version unknown)"
    help_text = _run_quietly([command, "--help"], timeout)
    missing = tuple(s for s in REQUIRED_SWITCHES if s not in help_text)
    return CliInfo(version, missing, STRUCTURED_SWITCH in help_text)


def _run_quietly(argv: list[str], timeout: float) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise ProviderError(f"`{' '.join(argv)}` timed out after {timeout:g}s") from None
    except OSError as exc:
        raise ProviderError(f"cannot run `{argv[0]}`: {exc.strerror or exc}") from None
    if done.returncode != 0:
        raise ProviderError(f"`{' '.join(argv)}` exited {done.returncode}")
    return done.stdout


class ClaudeCliProvider:
    """`claude -p` as a judge: no transcript, no tools, none of the user's setup."""

    name = "claude-cli"

    def __init__(self, config: Config, command: str | None = None) -> None:
        self.command = command or str(config.get("llm.claude_command"))
        self.timeout = float(config.get("llm.timeout_seconds"))
        self.info = probe(self.command)
        if self.info.missing:
            raise ProviderError(
                f"`{self.command}` {self.info.version} has no {', '.join(self.info.missing)}; "
                f"curator needs a Claude Code that has them ({TESTED_VERSION} does: "
                "run `claude update`)"
            )

    def ask(self, request: Request) -> Any:
        with tempfile.TemporaryDirectory(prefix="curator-judge-") as folder:
            # an empty folder: no project CLAUDE.md, no git status of the user's repository
            argv = self.argv(request, Path(folder))
            out = self._run(argv, Path(folder), self.prompt(request))
        return self.answer(out)

    def prompt(self, request: Request) -> str:
        """What goes on stdin: the rendered prompt, plus the schema for an old CLI."""
        if self.info.structured:
            return request.prompt
        return (
            f"{request.prompt}\n\nAnswer with one JSON object and nothing else. It must "
            f"match this JSON schema:\n{json.dumps(request.schema)}\n"
        )

    def argv(self, request: Request, folder: Path) -> list[str]:
        """The command line for one question; writes the sign-in settings into `folder`."""
        auth = folder / "auth-settings.json"
        auth.write_text(json.dumps(auth_settings(claude_config_dir())), encoding="utf-8")
        auth.chmod(0o600)  # it may hold the sign-in env; the folder itself is 0700 (mkdtemp)
        argv = [self.command, "-p", "--model", request.model, "--output-format", "json"]
        if self.info.structured:
            argv += [STRUCTURED_SWITCH, json.dumps(request.schema)]
        return [
            *argv,
            "--system-prompt",
            request.system or DEFAULT_SYSTEM,
            "--tools",
            "",
            "--strict-mcp-config",
            "--disable-slash-commands",
            "--no-session-persistence",
            "--setting-sources",
            "",
            "--settings",
            str(auth),
        ]

    def _run(self, argv: list[str], folder: Path, prompt: str) -> str:
        env = {**os.environ, "CURATOR_NESTED": "1"}
        try:
            # its own process group: a timeout ends the CLI and whatever it started
            proc = subprocess.Popen(
                argv,
                cwd=folder,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        except OSError as exc:
            raise ProviderError(f"cannot run `{self.command}`: {exc.strerror or exc}") from None
        try:
            out, err = proc.communicate(prompt, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            if sys.platform == "win32":
                proc.kill()  # no process groups to end with it
            else:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise ProviderError(f"`{self.command} -p` timed out after {self.timeout:g}s") from None
        if proc.returncode != 0 and not out.strip():
            last = (err.strip().splitlines() or ["no output"])[-1][:200]
            raise ProviderError(f"`{self.command} -p` exited {proc.returncode}: {last}")
        return out

    def answer(self, out: str) -> Any:
        """The verdict from the CLI's JSON result: `structured_output`, else (an old CLI)
        the JSON in the `result` text."""
        result = _result(out)
        if result.get("is_error") or result.get("subtype") != "success":
            subtype = str(result.get("subtype") or "error")
            if subtype == "error_max_structured_output_retries":
                reason = "no answer matched the schema within the CLI's own retries"
            else:
                reason = " ".join(str(result.get("result") or subtype).split())[:200]
            raise ProviderError(f"`{self.command} -p` failed: {reason}")
        if self.info.structured and "structured_output" in result:
            return result["structured_output"]
        text = result.get("result")
        if not isinstance(text, str):
            raise MalformedAnswer("the CLI's result has no text")
        return parse_json_text(text)


def _result(out: str) -> dict[str, Any]:
    """The `result` object of `--output-format json` (a list of events under --verbose)."""
    try:
        data = json.loads(out)
    except (ValueError, RecursionError):
        raise MalformedAnswer("the CLI's output is not JSON") from None
    if isinstance(data, list):
        results = [e for e in data if isinstance(e, dict) and e.get("type") == "result"]
        data = results[-1] if results else None
    if not isinstance(data, dict) or data.get("type") != "result":
        raise MalformedAnswer("the CLI's output has no result")
    return data


def auth_settings(config_dir: Path) -> dict[str, Any]:
    """The sign-in keys of the user's `settings.json` in Claude Code's config folder."""
    try:
        data = json.loads((config_dir / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: data[key] for key in AUTH_KEYS if key in data}
