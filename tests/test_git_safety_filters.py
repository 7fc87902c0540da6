"""The project is not trusted (test_git_safety.py): no program the repository's git
configuration names runs when curator runs git there. Here: filters, the fsmonitor hook
and textconv, which git runs on the files it reads."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.test_git_safety import COMMANDS, FILTER_KNOBS, no_program_runs

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX")


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("knob", FILTER_KNOBS)
def test_no_program_the_repository_configures_runs(
    knob: str, command: str, tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    no_program_runs(knob, command, tmp_path, run_curator)
