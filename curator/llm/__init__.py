"""The LLM tier: which memories to ask about, providers, strict answers, the verdict cache.

Takes memories and rules from the LLM checks; hands back verdicts. Nothing here is
imported by the cheap path; `anthropic` and `jinja2` are imported inside the functions
that need them.
"""
