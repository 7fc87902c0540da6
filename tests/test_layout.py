"""The package shows the pipeline: stages as subpackages, dependencies pointing down.

Imports under `if TYPE_CHECKING:` do not count between packages: they never run. Inside
a package they do: two modules that name each other, even for types only, are one module
in two files.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "curator"

# Top to bottom: a package may import only packages below it (and the spine).
ORDER = [
    "commands",
    "session",
    "reporters",
    "fixes",
    "interpreter",
    "llm",
    "usage",
    "findings",
    "repo",
    "store",
]
# Spine modules that everything may import; they import no stage.
LEAVES = {"config", "models", "errors", "clock", "yamlio", "hashing", "git", "templates"}


def _runtime_imports(path: Path, *, type_only: bool = False) -> set[str]:
    """The curator names `path` imports; with `type_only`, those under TYPE_CHECKING too."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if not type_only and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("curator"):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("curator"))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _stage(module: str) -> str | None:
    """The subpackage a dotted name belongs to, None for the spine."""
    parts = module.split(".")
    if len(parts) > 1 and (PACKAGE / parts[1]).is_dir():
        return parts[1]
    return None


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "_rules" not in p.parts)


def test_the_top_holds_the_spine_only() -> None:
    top = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert len(top) <= 12, top
    assert sorted(
        p.name
        for p in PACKAGE.iterdir()
        if p.is_dir() and p.name != "__pycache__" and p.name != "_rules"
    ) == sorted(ORDER)


def test_every_stage_says_what_it_owns() -> None:
    for stage in ORDER:
        init = PACKAGE / stage / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and 2 <= len(doc.splitlines()) <= 6, stage


def test_dependencies_point_down_the_pipeline() -> None:
    upward = []
    for stage in ORDER:
        allowed = set(ORDER[ORDER.index(stage) :])
        for path in _modules(PACKAGE / stage):
            for name in _runtime_imports(path):
                target = _stage(name)
                if target is not None and target not in allowed:
                    upward.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert upward == []


def test_the_spine_leaves_import_no_stage() -> None:
    for leaf in LEAVES:
        stages = {_stage(n) for n in _runtime_imports(PACKAGE / f"{leaf}.py")} - {None}
        assert stages == set(), leaf


def _graph(*, type_only: bool) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in _modules(PACKAGE):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        graph[".".join(parts)] = _runtime_imports(path, type_only=type_only)
    for name in graph:
        graph[name] = {d for d in graph[name] if d in graph and d != name}
    return graph


def _first_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def cycle_from(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return [*path, node, dep]
            if dep not in state and (found := cycle_from(dep, [*path, node])):
                return found
        state[node] = 2
        return None

    for name in sorted(graph):
        if name not in state and (found := cycle_from(name, [])):
            return found
    return None


def test_no_module_imports_itself_in_a_cycle() -> None:
    assert _first_cycle(_graph(type_only=False)) is None


def test_no_two_modules_of_a_package_name_each_other_even_for_types() -> None:
    graph = _graph(type_only=True)
    within = {
        name: {dep for dep in deps if _stage(dep) == _stage(name)} for name, deps in graph.items()
    }
    assert _first_cycle(within) is None
