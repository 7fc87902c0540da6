"""Is a URL alive? HEAD, then GET when HEAD is refused, under one total time budget.

Uses urllib only. Probes run a few at a time; whatever the budget does not reach is
left unknown (neither dead nor alive), so a slow network never makes a finding.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

USER_AGENT = "curator-link-check/1"


@dataclass(frozen=True)
class Probe:
    url: str
    status: int | None  # the HTTP status, None when no answer came
    error: str | None  # why there was no usable answer


def probe(url: str, timeout: float) -> Probe:
    """HEAD the URL; when HEAD is refused or fails with a 4xx/5xx, try GET once."""
    head = _request(url, "HEAD", timeout)
    if head.status is not None and head.status < 400:
        return head
    get = _request(url, "GET", timeout)
    return get if get.status is not None or head.status is None else head


def _request(url: str, method: str, timeout: float) -> Probe:
    request = urllib.request.Request(url, method=method, headers={"User-Agent": USER_AGENT})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Probe(url, response.status, None)
    except urllib.error.HTTPError as exc:
        return Probe(url, exc.code, None)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return Probe(url, None, str(reason))


def probe_all(
    urls: list[str], budget_seconds: float, timeout: float, workers: int = 4
) -> dict[str, Probe]:
    """Probe each URL once; those not answered within the budget are left out."""
    results: dict[str, Probe] = {}
    if not urls:
        return results
    deadline = time.monotonic() + budget_seconds
    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="curator-url")
    try:
        pending: dict[Future[Probe], str] = {}
        queue = list(dict.fromkeys(urls))
        while queue or pending:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            while queue and len(pending) < workers:
                url = queue.pop(0)
                pending[pool.submit(probe, url, min(timeout, left))] = url
            done, _ = wait(pending, timeout=left, return_when=FIRST_COMPLETED)
            for future in done:
                url = pending.pop(future)
                results[url] = future.result()
    finally:
        # Do not wait for probes past the budget: their threads end with their timeout.
        pool.shutdown(wait=False, cancel_futures=True)
    return results
