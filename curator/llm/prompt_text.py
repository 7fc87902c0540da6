"""Memory text as it enters a prompt, for the pair sweep, the index sweep and the
single-memory questions alike: masked, escaped so that it cannot close its block, cut."""

from __future__ import annotations

from typing import Any

from curator.hashing import sha256_text
from curator.models import Memory
from curator.store.masking import mask

_CLOSERS = ("</memory", "</index")  # the tags memory text sits in (pair and index sweeps)


def body_hash(memory: Memory) -> str:
    return sha256_text(memory.body())


def block(text: str) -> str:
    """Text as it may enter a prompt: a memory must not be able to close its own block
    and speak as the prompt, and no provider ever sees a secret it holds
    (`store.masking`)."""
    text = mask(text)
    for closer in _CLOSERS:
        text = text.replace(closer, "<\\/" + closer[2:])
    return text


def _body(memory: Memory, limit: int) -> str:
    body = block(memory.body()).strip()  # masked before it is cut, never a half secret
    if limit > 0 and len(body) > limit:
        return body[:limit].rstrip() + " […truncated]"
    return body


def prompt_values(
    members: tuple[Memory, ...], max_body_chars: int = 0, exhaustive: bool = False
) -> dict[str, Any]:
    """What a prompt template sees: `memories` (number, file, name, description, type,
    body; memory text escaped so it cannot close its block), `count`, and `exhaustive`
    (true when every pair's verdict is wanted: calibration).

    The one place memory text enters a prompt, for the pair sweep and for the
    single-memory questions (`checks/llm.py`) alike: anything that must change memory
    text before it leaves the machine belongs here."""
    return {
        "memories": [
            {
                "number": i,
                "file": block(m.rel),
                "name": block(m.name or ""),
                "description": block(m.description or ""),
                "type": m.type or "",
                "body": block(_body(m, max_body_chars)),
            }
            for i, m in enumerate(members, start=1)
        ],
        "count": len(members),
        "exhaustive": exhaustive,
    }
