"""Who answers: the Anthropic API, the `claude -p` CLI (`curator.llm.claude_cli`), or
nobody.

A provider takes one `Request` and returns the model's answer as a JSON value, or raises
`ProviderError` or `MalformedAnswer` (`curator.llm.question`). Neither ever escapes a
sweep.
"""

from __future__ import annotations

import os
import shutil
from typing import Any, Protocol, cast

from curator.config import Config
from curator.llm.question import MalformedAnswer, ProviderError, Request

PROVIDERS = ("auto", "anthropic", "claude-cli", "none")


class Provider(Protocol):
    name: str

    def ask(self, request: Request) -> Any: ...


class AnthropicProvider:
    """The Messages API with one forced tool whose strict input schema is the answer."""

    name = "anthropic"

    def __init__(self, config: Config, api_key: str | None = None) -> None:
        import anthropic

        self._anthropic = anthropic
        api_key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not api_key:
            raise ProviderError("ANTHROPIC_API_KEY is not set")
        try:
            self.client = anthropic.Anthropic(
                api_key=api_key,
                base_url=config.get("llm.base_url") or None,
                timeout=float(config.get("llm.timeout_seconds")),
                max_retries=int(config.get("llm.max_retries")),
            )
        except anthropic.AnthropicError as exc:  # no API key
            raise ProviderError(str(exc).splitlines()[0]) from None

    def ask(self, request: Request) -> Any:
        anthropic = self._anthropic
        try:
            message = self.client.messages.create(**_params(request))
        except anthropic.APIStatusError as exc:
            raise ProviderError(f"API error {exc.status_code}") from None
        except anthropic.APITimeoutError:
            raise ProviderError("request timed out") from None
        except anthropic.APIConnectionError:
            raise ProviderError("could not connect to the API") from None
        except (anthropic.APIError, ValueError, TypeError, KeyError) as exc:
            # a 200 whose body the SDK could not read as a message
            raise MalformedAnswer(f"unreadable response: {type(exc).__name__}") from None
        return _tool_input(message, request)

    def ask_batch(self, requests: dict[str, Request], poll: float, wait: float) -> dict[str, Any]:
        """Send the requests as one Message Batch and wait for it; per id, the answer or
        the exception (ProviderError, MalformedAnswer) that stands for it."""
        import time

        anthropic = self._anthropic
        if not requests:
            return {}
        batches = self.client.messages.batches
        try:
            batch = batches.create(
                requests=[
                    {"custom_id": key, "params": cast(Any, _params(r))}
                    for key, r in requests.items()
                ]
            )
            deadline = time.monotonic() + wait
            while batch.processing_status != "ended":
                if time.monotonic() >= deadline:
                    error = ProviderError(f"batch {batch.id} did not end within {wait:g}s")
                    return dict.fromkeys(requests, error)
                time.sleep(poll)
                batch = batches.retrieve(batch.id)
            lines = list(batches.results(batch.id))
        except (anthropic.APIError, ValueError, TypeError, KeyError) as exc:
            error = ProviderError(f"batch failed: {type(exc).__name__}")
            return dict.fromkeys(requests, error)
        out: dict[str, Any] = {}
        for line in lines:
            if line.custom_id not in requests:
                continue
            if line.result.type != "succeeded":
                out[line.custom_id] = ProviderError(f"batch request {line.result.type}")
                continue
            try:
                out[line.custom_id] = _tool_input(line.result.message, requests[line.custom_id])
            except MalformedAnswer as exc:
                out[line.custom_id] = exc
        for key in requests:
            out.setdefault(key, ProviderError("no result in the batch"))
        return out


def _params(request: Request) -> dict[str, Any]:
    """Messages API parameters: one forced tool whose strict input schema is the answer."""
    system = {"system": request.system} if request.system else {}
    return {
        **system,
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": [{"role": "user", "content": request.prompt}],
        "tools": [
            {
                "name": request.tool,
                "description": "Record the answer.",
                "input_schema": request.schema,
                "strict": True,
            }
        ],
        "tool_choice": {"type": "tool", "name": request.tool},
    }


def _tool_input(message: Any, request: Request) -> Any:
    for block in message.content:
        if block.type == "tool_use" and block.name == request.tool:
            return block.input
    raise MalformedAnswer("the answer has no tool_use block")


class NoProvider:
    name = "none"

    def ask(self, request: Request) -> Any:
        raise ProviderError("no LLM provider is configured")


class CannedProvider:
    """Answers from a list, in order, the last one repeated: rule self-tests."""

    name = "canned"

    def __init__(self, answers: tuple[Any, ...] | list[Any]) -> None:
        self.answers = list(answers)
        self.requests: list[Request] = []

    def ask(self, request: Request) -> Any:
        self.requests.append(request)
        if not self.answers:
            raise ProviderError("no canned answer")
        return self.answers[min(len(self.requests), len(self.answers)) - 1]


def available(config: Config) -> str | None:
    """The provider a sweep would use, found without starting one; None when nobody can
    answer (the hook asks this before it starts a background sweep)."""
    wanted = str(config.get("llm.provider"))
    if wanted in ("anthropic", "claude-cli"):
        return wanted
    if wanted != "auto":
        return None
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    return "claude-cli" if shutil.which(str(config.get("llm.claude_command"))) else None


def choose(config: Config) -> tuple[Provider, str | None]:
    """The configured provider; `auto` picks one and returns a note saying which."""
    wanted = str(config.get("llm.provider"))
    if wanted not in PROVIDERS:
        return NoProvider(), f"unknown llm.provider {wanted!r}; LLM rules skipped"
    try:
        return _choose(config, wanted)
    except ProviderError as exc:
        return NoProvider(), f"llm.provider {wanted}: {exc}; LLM rules skipped"


def _choose(config: Config, wanted: str) -> tuple[Provider, str | None]:
    if wanted == "anthropic":
        return AnthropicProvider(config), None
    if wanted == "claude-cli":
        from curator.llm.claude_cli import ClaudeCliProvider

        return ClaudeCliProvider(config), None
    if wanted == "none":
        return NoProvider(), None
    if os.environ.get("ANTHROPIC_API_KEY"):
        return AnthropicProvider(config), "llm.provider auto: using the Anthropic API"
    command = str(config.get("llm.claude_command"))
    if shutil.which(command):
        from curator.llm.claude_cli import ClaudeCliProvider

        return ClaudeCliProvider(config), f"llm.provider auto: using `{command} -p`"
    return NoProvider(), (
        "LLM rules skipped: no provider (llm.provider auto found no ANTHROPIC_API_KEY and "
        "no `claude` on PATH); set llm.provider or ANTHROPIC_API_KEY"
    )
