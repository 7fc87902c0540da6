"""The repository a store talks about: which one, its files, references into it.

Owns mapping a store to a repository (`repositories`), the repository's tracked files
and state (`repo_files`), finding path, symbol and URL references in memory text, and
probing URLs. Reads git and the work tree; never writes into the repository.
"""
