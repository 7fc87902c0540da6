"""Whether memories are used: Claude Code transcripts and the event log, measured.

Owns finding a project's transcripts, reading their file-tool uses (with a cache by
path, size and mtime) and the memory events in the onlooker log. Hands the usage
checks a count per memory; reads only, apart from its own cache.
"""
