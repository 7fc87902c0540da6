"""Measure the pair sweep against labelled pairs: candidate recall within the call budget,
and the verdicts' precision and recall per label.

Every memory of the labelled set goes into one store, as the sweep would see it; a
labelled pair is *covered* when one of the first `budget` planned requests holds both
of its memories. Verdicts are asked pair by pair (one request each, cached).
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from curator.config import Config
from curator.errors import UserError
from curator.interpreter.context import Context
from curator.llm.answers import VERDICTS
from curator.llm.grouping import Group
from curator.llm.pair_sweep import plan
from curator.llm.similarity import candidates
from curator.models import Rule
from curator.store.reading import read_store

TARGETS = ("contradict", "redundant")  # the labels that become findings
BUDGETS = (10, 25, 50, 100, 200)
GROUP_SIZES = (2, 5, 10, 15)


@dataclass(frozen=True)
class LabelledPair:
    id: str
    label: str
    file_a: str
    file_b: str


@dataclass
class Calibration:
    pairs: int = 0
    memories: int = 0
    budget: int = 0
    group_size: int = 0
    requests_planned: int = 0
    pairs_examined: int = 0
    covered: dict[str, int] = field(default_factory=dict)  # label -> covered pairs
    totals: dict[str, int] = field(default_factory=dict)  # label -> pairs
    table: list[dict[str, Any]] = field(default_factory=list)
    verdicts: dict[str, dict[str, float]] | None = None  # label -> precision/recall/...
    not_answered: int = 0

    @property
    def candidate_recall(self) -> float:
        total = sum(self.totals.get(t, 0) for t in TARGETS)
        return sum(self.covered.get(t, 0) for t in TARGETS) / total if total else 0.0


def load_labels(path: Path) -> tuple[list[LabelledPair], dict[str, str]]:
    """The pairs and the text of every memory file named in them."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"cannot read labels: {exc.strerror or exc}", path) from None
    except (ValueError, RecursionError) as exc:
        raise UserError(f"labels are not JSON: {exc}", path) from None
    raw = data.get("pairs") if isinstance(data, dict) else None
    if not isinstance(raw, list) or not raw:
        raise UserError('labels need {"pairs": [{"id", "label", "memory_a", "memory_b"}]}', path)
    pairs: list[LabelledPair] = []
    texts: dict[str, str] = {}
    for n, item in enumerate(raw, start=1):
        where = f"pair {n}"
        if not isinstance(item, dict) or item.get("label") not in VERDICTS:
            raise UserError(f"{where}: label must be one of {', '.join(VERDICTS)}", path)
        files = []
        for side in ("memory_a", "memory_b"):
            memory = item.get(side)
            if not (
                isinstance(memory, dict)
                and isinstance(memory.get("file"), str)
                and isinstance(memory.get("text"), str)
                and memory["file"]
                and "/" not in memory["file"]
                and memory["file"].endswith(".md")
                and memory["file"] != "MEMORY.md"
            ):
                raise UserError(f"{where}: {side} needs a file name like x.md and text", path)
            if texts.setdefault(memory["file"], memory["text"]) != memory["text"]:
                raise UserError(f"{where}: {memory['file']} appears with two texts", path)
            files.append(memory["file"])
        pairs.append(LabelledPair(str(item.get("id", n)), item["label"], files[0], files[1]))
    return pairs, texts


def _coverage(groups: list[Group], budget: int) -> set[frozenset[str]]:
    covered: set[frozenset[str]] = set()
    for group in groups[:budget]:
        rels = [m.rel for m in group.members]
        covered.update(frozenset((a, b)) for i, a in enumerate(rels) for b in rels[i + 1 :])
    return covered


def calibrate(
    labels: Path, rule: Rule, config: Config, ask: bool, llm: Any = None
) -> tuple[Calibration, list[str]]:
    """Candidate recall (and, with `ask`, verdict quality) of `rule`'s pair sweep."""
    pairs, texts = load_labels(labels)
    budget = int(config.get("llm.max_pairs"))
    result = Calibration(pairs=len(pairs), memories=len(texts), budget=budget)
    result.group_size = int(rule.params["group_size"])
    result.totals = dict(Counter(p.label for p in pairs))
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="curator-calibrate-") as tmp:
        root = Path(tmp)
        for name, text in texts.items():
            (root / name).write_text(text, encoding="utf-8")
        store = read_store(root)
        found = candidates(store.memories, rule.params)
        result.pairs_examined = found.stats.pairs_examined
        plans = {size: plan(found, rule.params, size) for size in GROUP_SIZES}
        plans[result.group_size] = plan(found, rule.params, result.group_size)
        groups = plans[result.group_size]
        result.requests_planned = len(groups)
        covered = _coverage(groups, budget)
        for p in pairs:
            if frozenset((p.file_a, p.file_b)) in covered:
                result.covered[p.label] = result.covered.get(p.label, 0) + 1
        result.table = _table(pairs, plans)
        if ask:
            result.verdicts, result.not_answered = _verdicts(pairs, store, rule, config, llm, notes)
    return result, notes


def _table(pairs: list[LabelledPair], plans: dict[int, list[Group]]) -> list[dict[str, Any]]:
    targets = [p for p in pairs if p.label in TARGETS]
    rows: list[dict[str, Any]] = []
    for size in sorted(plans):
        for budget in BUDGETS:
            if rows and rows[-1]["group_size"] == size and rows[-1]["requests"] == len(plans[size]):
                break  # the budget already covers every planned request
            covered = _coverage(plans[size], budget)
            hits = sum(1 for p in targets if frozenset((p.file_a, p.file_b)) in covered)
            rows.append(
                {
                    "group_size": size,
                    "requests": min(budget, len(plans[size])),
                    "pairs_covered": len(covered),
                    "recall": round(hits / len(targets), 3) if targets else 0.0,
                }
            )
    return rows


def _verdicts(
    pairs: list[LabelledPair],
    store: Any,
    rule: Rule,
    config: Config,
    llm: Any,
    notes: list[str],
) -> tuple[dict[str, dict[str, float]], int]:
    from curator.llm.asking import get_asker
    from curator.llm.pair_sweep import ask_group

    ctx = Context(store=store, config=config, llm=llm)
    asker = get_asker(ctx)
    if not asker.available:
        notes.extend(ctx.notes)
        notes.append("no LLM provider: verdicts not measured")
        return {}, len(pairs)
    by_file = {m.rel: m for m in store.memories}
    predicted: dict[str, str] = {}
    missing = 0
    for p in pairs:
        group = Group(tuple(sorted((by_file[p.file_a], by_file[p.file_b]), key=lambda m: m.rel)), 1)
        answer = ask_group(rule, group, asker, len(pairs), exhaustive=True)
        if answer is None:
            missing += 1
            continue
        verdicts = [v for _, _, v, _ in answer]
        predicted[p.id] = verdicts[0] if verdicts else "unrelated"
    notes.extend(ctx.notes)
    notes.extend(asker.notes("pair sweep"))
    notes.append(
        f"verdicts: {asker.stats.calls} request(s), {asker.stats.cache_hits} from the cache"
    )
    scores = {}
    answered = [p for p in pairs if p.id in predicted]
    for label in VERDICTS:
        tp = sum(1 for p in answered if p.label == label and predicted[p.id] == label)
        said = sum(1 for p in answered if predicted[p.id] == label)
        truth = sum(1 for p in answered if p.label == label)
        scores[label] = {
            "precision": round(tp / said, 3) if said else 0.0,
            "recall": round(tp / truth, 3) if truth else 0.0,
            "predicted": said,
            "labelled": truth,
        }
    return scores, missing


def with_group_size(rule: Rule, size: int | None) -> Rule:
    return rule if size is None else replace(rule, params={**rule.params, "group_size": size})
