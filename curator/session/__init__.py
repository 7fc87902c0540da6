"""Claude Code's session start: the hook, the scan behind it and the pointer it prints.

Owns `start` (payload in, one JSON object out, always), `scan` (lint, then
persist findings and events), the scan watermark, the one-line pointer and merging the
hook into Claude Code's settings. Starts the LLM sweep detached; never waits for it.
"""
