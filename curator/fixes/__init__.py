"""Exact, reversible edits: fix deltas and the review's memory edits.

Owns planning a diagnostic's `Fix` into line edits with the sha256 they expect, diffs,
fail-closed application, the undo journal, and `curator review`'s prune/reclassify.
The only place curator writes into a memory store, and only when a user asks.
"""
