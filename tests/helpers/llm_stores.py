"""Memories the LLM-tier tests judge: a contradicting pair and a redundant pair, and the
verdicts the fake model gives them."""

from __future__ import annotations

from tests.conftest import memory

# Two memories that contradict each other (Redux, then Zustand).
PAIR = {
    "project_redux.md": memory(
        "New shared client state gets a Redux Toolkit slice under `src/store/slices/`.\n",
        name="Redux for global state",
        description="Global client state lives in Redux Toolkit slices",
    ),
    "project_zustand.md": memory(
        "Redux is being phased out; new shared client state goes into small Zustand stores.\n",
        name="Moving to Zustand",
        description="New shared client state goes into Zustand stores, not Redux",
    ),
}
# The pair, a redundant pair, and an empty index.
STORE = {
    "MEMORY.md": "# Memory\n",
    **PAIR,
    "feedback_no_db_mocks.md": memory(
        "Don't mock the database in tests; run them against a real Postgres container.\n",
        name="No database mocks in tests",
        description="Tests use a real Postgres database, never a mocked database",
        type="feedback",
    ),
    "feedback_real_db.md": memory(
        "Point the test suite at an actual Postgres database instead of mocking it.\n",
        name="Tests need a real database",
        description="Test suites talk to a real Postgres database",
        type="feedback",
    ),
}
VERDICTS = {
    frozenset({"project_redux.md", "project_zustand.md"}): ("contradict", "Redux vs Zustand"),
    frozenset({"feedback_no_db_mocks.md", "feedback_real_db.md"}): ("redundant", "same rule"),
}
