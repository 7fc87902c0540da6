"""The LLM tier: providers, strict answers, the verdict cache and the sweep gate.

Nothing here is imported by the cheap path; `anthropic` and `jinja2` are imported inside
the functions that need them.
"""
