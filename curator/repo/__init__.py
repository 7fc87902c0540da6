"""The repository a store talks about: which one, its files, references into it.

Owns mapping a store to a repository (`mapping`), the repository's tracked files
and state (`tree`), finding path, symbol and URL references in memory text, and
probing URLs. Reads git and the work tree; never writes into the repository.
"""
