"""Stage 1–2: find a memory store and read it.

Owns discovery (config dir, slug, which store a project has), reading memory files
(frontmatter, body, line map), the MEMORY.md index and suppression comments. Takes paths,
hands on `models.Store`. Never runs rules, never writes a file, never imports `repo/`.
"""
