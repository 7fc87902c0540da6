"""Control characters from a memory's text or file name reach no terminal: every text
output shows them escaped (`\\x1b`, `\\u202e`), and a file name prints on one line."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from curator.reporters.printable import for_terminal, visible
from tests.conftest import Run, memory, write_files
from tests.helpers.hook_env import Env, make_env
from tests.helpers.secret_store import rand

# What a hostile memory may hold: OSC (retitles the terminal), BEL, BS, CR, VT, FF, DEL,
# a C1 control, a CSI that clears the screen, a colour code, bidi override and isolates.
HOSTILE = (
    "\x1b]0;pwned\x07 bell\x07 bs\x08 cr\r vt\x0b ff\x0c del\x7f c1\x85 "
    "csi\x1b[2J red\x1b[31m bidi\u202e iso\u2066\u2067\u2068\u2069"
)
NAME = "project_notes\nFAKE \u202eLINE.md"
# Raw, anything but a line break or a tab: none may be in any text output.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


@pytest.fixture
def env(tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]) -> Env:
    made = make_env(tmp_path, git_repo({"src/app.py": "print('hi')\n"}), run_curator)
    body = f"Merge freeze begins 2026-03-05 {HOSTILE} token ghp_{rand(36)}\n"
    # A description over two lines (YAML's `\n`): `findings show` prints it as a detail.
    notes = memory(body, name="notes", description='"one\\nFAKE description"')
    write_files(made.store, {NAME: notes})
    return made


def _clean(out: str) -> str:
    out = re.sub(r"\x1b\[[0-9;]*m", "", out)  # curator's own colours, with --color
    assert not RAW.findall(out), RAW.findall(out)
    assert not [line for line in out.splitlines() if line.startswith("FAKE")]
    return out


@pytest.mark.parametrize(
    "args",
    [
        ("lint", "--output-format", "full"),
        ("lint", "--output-format", "full", "--color"),
        ("lint", "--output-format", "concise"),
        ("lint", "--output-format", "github"),
        ("fix",),
    ],
    ids=" ".join,
)
def test_every_text_output_escapes_control_characters(env: Env, args: tuple[str, ...]) -> None:
    run = env.curator(*args, "--select", "CUR011,CUR101,CUR501")
    assert run.code == 1, run.stderr
    out = _clean(run.stdout)
    assert "project_notes\\nFAKE \\u202eLINE.md" in out  # the name, on its own line
    if args[-1] != "concise" and args[0] == "lint" and args[-1] != "github":
        assert "\\x1b]0;pwned\\x07 bell\\x07 bs\\x08 cr\\r vt\\x0b ff\\x0c del\\u007f" in out
        assert "csi\\x1b[2J red\\x1b[31m bidi\\u202e iso\\u2066" in out
    if args == ("lint", "--output-format", "full"):
        # The caret stays under the token, however wide the escapes before it are.
        lines = out.splitlines()
        at = next(i for i, line in enumerate(lines) if "CUR501" in line) + 2
        source, caret = lines[at], lines[at + 1]
        assert caret.index("^") == source.index("ghp_…(40)"), (source, caret)
    if args[0] == "fix":
        assert "-Merge freeze begins 2026-03-05 \\x1b]0;pwned" in out  # one line, as edited
    if "--color" in args:
        assert "\x1b[1m" in run.stdout  # curator's own colours stay


def test_findings_list_and_show_escape_them(env: Env) -> None:
    assert env.curator("lint", "--persist").code == 1
    listed = env.curator("findings", "list")
    assert "project_notes\\nFAKE \\u202eLINE.md" in _clean(listed.stdout)
    [orphan] = [line.split()[0] for line in listed.stdout.splitlines() if "CUR011" in line]
    shown = _clean(env.curator("findings", "show", orphan).stdout)
    assert "project_notes\\nFAKE \\u202eLINE.md:1" in shown
    assert "description: one\\nFAKE description" in shown


def test_json_stays_json_with_the_same_values(env: Env) -> None:
    run = env.curator("lint", "--output-format", "json", "--select", "CUR011")
    _clean(run.stdout)
    [orphan] = run.json()
    assert orphan["filename"].endswith("/" + NAME)  # the file's real name, decoded


@pytest.mark.parametrize(
    ("raw", "shown"),
    [("\x1b", "\\x1b"), ("\x07", "\\x07"), ("\x08", "\\x08"), ("\r", "\\r"), ("\x0b", "\\x0b"),
     ("\x0c", "\\x0c"), ("\x7f", "\\u007f"), ("\x9b", "\\u009b"), ("\u202e", "\\u202e"),
     ("\u2066", "\\u2066"), ("\u2069", "\\u2069"), ("\n", "\\n"), ("\t", "\\t")],
)  # fmt: skip
def test_visible_escapes_each_control(raw: str, shown: str) -> None:
    assert visible(f"a{raw}b") == f"a{shown}b"
    kept = raw if raw in "\n\t" else shown
    assert for_terminal(f"a{raw}b", colour=False) == f"a{kept}b"


def test_only_colour_codes_pass_and_only_with_colour() -> None:
    text = "\x1b[1;31mCUR101\x1b[0m \x1b[2J\x1b]8;;http://x\x07"
    assert (
        for_terminal(text, colour=True) == "\x1b[1;31mCUR101\x1b[0m \\x1b[2J\\x1b]8;;http://x\\x07"
    )
    assert "\x1b" not in for_terminal(text, colour=False)


def test_a_json_document_passes_unchanged_in_meaning() -> None:
    value = {"name": "a\u202eb\x85c\x7f\x1b"}
    assert json.loads(for_terminal(json.dumps(value, ensure_ascii=False), colour=False)) == value


def test_a_report_written_to_a_file_escapes_them_too(env: Env) -> None:
    env.curator("lint", "--output-format", "github", "-o", "report.txt")
    report = _clean((env.repo / "report.txt").read_text(encoding="utf-8"))
    assert "project_notes\\nFAKE \\u202eLINE.md" in report


def test_review_shows_the_excerpt_escaped_and_lines_as_counted(env: Env) -> None:
    assert env.curator("lint", "--persist").code == 1
    run = env._run("review", cwd=env.repo, env=env.env(), input="d\n" * 8)  # defer each
    out = _clean(run.stdout)
    # Line 6 whole: the CR and VT inside it neither cut it nor shift the numbering.
    assert (
        "> 6 | Merge freeze begins 2026-03-05 \\x1b]0;pwned\\x07 bell\\x07 bs\\x08 cr\\r vt" in out
    )
