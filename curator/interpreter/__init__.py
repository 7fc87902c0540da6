"""Stage 3–4: rule files in, diagnostics out.

Owns loading and validating rule YAML (`rulebook`, `rule_files`), patterns with a
timeout, rule selection, the engine that runs `checks/` over a `Store`, rule self-tests
and the per-memory run cache. Hands on `models.Diagnostic` values. Writes nothing but its
own cache; the cheap path imports no LLM code until a selected rule needs it.
"""
