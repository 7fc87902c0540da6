"""The project is not trusted (test_git_safety.py): no program the repository's git
configuration names runs when curator runs git there. Here: an external diff, a pager,
hooks, aliases and gpg, which git starts around a command."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.test_git_safety import COMMANDS, PROGRAM_KNOBS, no_program_runs

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX")


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("knob", PROGRAM_KNOBS)
def test_no_program_the_repository_configures_runs(
    knob: str, command: str, tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    no_program_runs(knob, command, tmp_path, run_curator)
