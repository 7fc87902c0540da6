"""The one line the session-start hook puts in front of the agent."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from curator.findings.store import Finding

REVIEW_HINT = "Review with `/curator review`."


def pointer(findings: Iterable[Finding], max_chars: int, skip_when_zero: bool) -> str | None:
    """``Curator: 3 open findings (2 path-broken, 1 contradiction). Review with …``

    Kinds are listed most frequent first, spelled with hyphens as the ecosystem's
    pointer spells them; the ones that do not fit in `max_chars` are summarised as
    `+N more`. None when there is nothing to say.
    """
    counts = Counter(f.kind.replace("_", "-") for f in findings if f.status == "open")
    total = sum(counts.values())
    if total == 0:
        return None if skip_when_zero else "Curator: 0 open findings."
    noun = "finding" if total == 1 else "findings"
    parts = [f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    for shown in range(len(parts), -1, -1):
        listed = parts[:shown]
        if shown < len(parts):
            listed.append(f"+{len(parts) - shown} more")
        detail = f" ({', '.join(listed)})" if shown else ""
        line = f"Curator: {total} open {noun}{detail}. {REVIEW_HINT}"
        if len(line) <= max_chars:
            return line
    short = f"Curator: {total} open {noun}."
    return short if len(short) <= max_chars else short[: max(max_chars - 1, 0)] + "…"
