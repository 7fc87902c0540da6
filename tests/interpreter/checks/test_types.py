"""CUR003 unknown_type: once per store for a type used on purpose, `types.extra` in config."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Run, memory, write_files


def store_with_types(tmp_path: Path) -> Path:
    files = {f"decision_{n}.md": memory(type="decision", name=f"d{n}") for n in range(8)}
    files["odd.md"] = memory(type="procedur")
    files["MEMORY.md"] = "".join(f"- [{name}]({name})\n" for name in sorted(files))
    return write_files(tmp_path / "memory", files)


def types_found(run: Run) -> list[tuple[str, int, str, list[str]]]:
    assert run.code in (0, 1), run.stderr
    return [
        (Path(d["filename"]).name, d["location"]["row"], d["message"], d["memory_files"])
        for d in run.json()
        if d["code"] == "CUR003"
    ]


def test_a_shared_type_is_reported_once_for_the_store(
    tmp_path: Path, run_curator: Callable[..., Run]
) -> None:
    store = store_with_types(tmp_path)
    run = run_curator("lint", str(store), "--output-format", "json", "--select", "CUR003")
    known = "(user, feedback, project, reference)"
    assert types_found(run) == [
        ("decision_0.md", 4,
         f"8 memories use type 'decision', which is not a known memory type {known}; "
         "add it to types.extra in .curator.yaml or change it",
         [f"decision_{n}.md" for n in range(8)]),
        ("odd.md", 4,
         f"This memory uses type 'procedur', which is not a known memory type {known}; "
         "add it to types.extra in .curator.yaml or change it",
         ["odd.md"]),
    ]  # fmt: skip


def test_types_extra_makes_a_type_known(tmp_path: Path, run_curator: Callable[..., Run]) -> None:
    store = store_with_types(tmp_path)
    config = write_files(tmp_path, {".curator.yaml": "types:\n  extra: [decision, insight]\n"})
    run = run_curator(
        "lint", str(store), "--output-format", "json", "--select", "CUR003", cwd=config
    )
    [(name, _, message, _)] = types_found(run)
    assert name == "odd.md"
    assert "(user, feedback, project, reference, decision, insight)" in message


def test_types_extra_must_be_a_list(tmp_path: Path, run_curator: Callable[..., Run]) -> None:
    store = store_with_types(tmp_path)
    write_files(tmp_path, {".curator.yaml": "types:\n  extra: decision\n"})
    run = run_curator("lint", str(store), cwd=tmp_path)
    assert run.code == 2
    assert (
        run.stderr
        == f"curator: error: {tmp_path / '.curator.yaml'}:2: 'types.extra' must be a list\n"
    )
