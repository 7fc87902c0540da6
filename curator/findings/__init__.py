"""Diagnostics that persist: findings, their identity, events and where they live.

Owns the findings store (lock, atomic writes, ULIDs), the identity recipe
(`fingerprint`), reconciling a run's diagnostics with what is stored, the onlooker event
log and storage paths. Takes diagnostics; never runs checks or reads memory files.
"""
