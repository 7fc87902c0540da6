"""One question to a model, and the two ways asking it can fail.

The contract between the LLM checks and the providers (`curator.llm.providers`,
`curator.llm.claude_cli`): a `Request` goes in, a JSON value comes out, or
`ProviderError` (transport: timeouts, 429, 5xx, a crashed CLI) or `MalformedAnswer`
(the model answered, but not with the JSON asked for).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_FENCE_OPEN = ("```json", "```JSON", "```")


class ProviderError(Exception):
    """The request did not get an answer (network, timeout, rate limit, server error)."""


class MalformedAnswer(Exception):
    """The model answered with something that is not the JSON object asked for."""


@dataclass(frozen=True)
class Request:
    """One question: the judge's instructions (`system`, from the rule), the prompt, and
    the JSON schema the answer must fit."""

    model: str
    prompt: str
    tool: str  # the tool name the answer is "called" with
    schema: dict[str, Any]
    max_tokens: int = 1024
    system: str = ""


def parse_json_text(text: str) -> Any:
    """One JSON object from a model's text answer, a ``` fence around it allowed."""
    body = text.strip()
    for opener in _FENCE_OPEN:
        if body.startswith(opener) and body.endswith("```") and len(body) > len(opener) + 3:
            body = body[len(opener) : -3].strip()
            break
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise MalformedAnswer("the answer is not JSON") from None
