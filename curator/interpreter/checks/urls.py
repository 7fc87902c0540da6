"""URLs: recorded as unchecked unless their host is allowlisted; allowlisted ones probed.

`mode: unchecked` reports every URL whose host is not in `references.url_allowlist`
(info: nobody vouches for it; CUR203 is opt-in). `mode: dead` probes allowlisted URLs,
only when `references.check_urls` is on, and reports those that answer with a dead status
or do not answer at all, within `budget_seconds` for the whole run. A URL without a host
(`https:///x`) is neither.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from curator.models import Hit, Memory
from curator.repo import references

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "mode": "unchecked",
    "budget_seconds": 5.0,
    "timeout_seconds": 3.0,
    "workers": 4,
    "dead_statuses": [404, 410],
    "dead_on_error": True,
    "skip_fenced": True,
    "max_per_file": 50,
}
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "unchecked": {"url": "the URL", "host": "its host"},
    "dead": {"url": "the URL", "host": "its host", "answer": "what the probe got"},
}


def validate(params: dict[str, Any]) -> str | None:
    """A problem with the params, said in one line, or None (called by the rule loader)."""
    if params["mode"] not in ("unchecked", "dead"):
        return "mode must be unchecked or dead"
    return None


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def allowlisted(host: str, allowlist: list[str]) -> bool:
    """`example.com` allows example.com and its subdomains."""
    for entry in allowlist:
        entry = entry.lower().strip().lstrip(".")
        if entry and (host == entry or host.endswith("." + entry)):
            return True
    return False


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    allowlist = list(ctx.config.get("references.url_allowlist"))
    mode = rule.params["mode"]
    found: list[tuple[Memory, references.Ref]] = []
    for memory in ctx.memories(rule):
        if "://" not in memory.text:
            continue  # most memories: no URL, no need to scan them
        refs = references.scan(memory, rule.params["skip_fenced"]).urls
        for ref in refs[: rule.params["max_per_file"]]:
            host = host_of(ref.text)
            # `https:///x`, `http://:80`: no host, nothing anyone could vouch for or fetch
            if host and allowlisted(host, allowlist) == (mode == "dead"):
                found.append((memory, ref))
    if mode == "unchecked":
        for memory, ref in found:
            yield _hit(memory, ref, {"url": ref.text, "host": host_of(ref.text)})
        return
    if not ctx.config.get("references.check_urls") or not found:
        return
    from curator.repo.url_probe import probe_all

    probes = probe_all(
        [ref.text for _, ref in found],
        float(rule.params["budget_seconds"]),
        float(rule.params["timeout_seconds"]),
        int(rule.params["workers"]),
    )
    dead_statuses = set(rule.params["dead_statuses"])
    for memory, ref in found:
        result = probes.get(ref.text)
        if result is None:
            continue  # the budget ran out first: unknown, not dead
        if result.status is not None and result.status not in dead_statuses:
            continue
        if result.status is None and not rule.params["dead_on_error"]:
            continue
        answer = f"HTTP {result.status}" if result.status is not None else str(result.error)
        yield _hit(memory, ref, {"url": ref.text, "host": host_of(ref.text), "answer": answer})


def _hit(memory: Memory, ref: references.Ref, detail: dict[str, Any]) -> Hit:
    line, column = memory.locate(ref.start)
    end_line, end_column = memory.locate(ref.end)
    return Hit(memory.path, line, column, end_line, end_column, detail=detail)
