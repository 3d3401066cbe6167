"""The layer rules of ARCHITECTURE.md, checked against every import in the package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "topics"


def layers() -> dict[str, int]:
    """``{package or module: layer}`` from the table in ARCHITECTURE.md."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    out = {}
    for layer, names in re.findall(r"^\|\s*(\d+)\s*\|\s*(`[^|]+)\|\s*$", text, flags=re.M):
        for name in re.findall(r"`([\w.]+)`", names):
            out[name] = int(layer)
    return out


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def unit(module: str) -> str:
    """The layer unit of a module: its subpackage, or the top-level module itself."""
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def imports(path: Path) -> list[tuple[str, list[str], int]]:
    """``(module, names, line)`` of every import of the package in ``path``, in functions too."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "topics":
            out.append((node.module, [a.name for a in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            out.extend((a.name, [], node.lineno) for a in node.names if a.name.split(".")[0] == "topics")
    return out


def imported_modules(module: str, names: list[str], known: dict[str, Path]) -> list[str]:
    """The modules an import statement loads: ``from topics.x import y`` loads topics.x.y if that is a module."""
    found = [f"{module}.{n}" for n in names if f"{module}.{n}" in known]
    return found or [module]


def test_the_table_names_every_package():
    table = layers()
    units = {unit(m) for m in modules()}
    assert units <= set(table), f"ARCHITECTURE.md has no layer for {sorted(units - set(table))}"


def test_imports_run_down_the_layers():
    table, known = layers(), modules()
    wrong = []
    for module, path in known.items():
        here = unit(module)
        for target, names, line in imports(path):
            for loaded in imported_modules(target, names, known):
                there = unit(loaded)
                if there != here and table[there] >= table[here]:
                    wrong.append(f"{path.relative_to(ROOT)}:{line} ({here}, layer {table[here]}) imports {loaded} ({there}, layer {table[there]})")
    assert not wrong, "\n".join(wrong)


def test_no_private_names_cross_modules():
    known = modules()
    wrong = [
        f"{path.relative_to(ROOT)}:{line} takes {name} from {target}"
        for module, path in known.items()
        for target, names, line in imports(path)
        for name in names
        if name.startswith("_") and target != module
    ]
    assert not wrong, "\n".join(wrong)


def _defined(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_only_init_files_re_export():
    wrong = []
    for module, path in modules().items():
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                exported = {e.value for e in node.value.elts}
                wrong += [f"{module} exports {n}, defined elsewhere" for n in sorted(exported - _defined(tree))]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles():
    known = modules()
    graph = {
        m: {t for target, names, _ in imports(p) for t in imported_modules(target, names, known) if t in known and t != m}
        for m, p in known.items()
    }
    # package __init__ files gather names from their own modules; an edge into one's own package is not a cycle of code
    graph = {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in graph.items()}
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]) if nxt in stack else f"{node} -> {nxt}")
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, "\n".join(cycles)
#: The most lines of code a function of the package may have, its docstring not counted
#: (as /work/shared/hooks/longfuncs.py counts them).
MAX_FUNCTION_LINES = 60

#: The functions that may still be longer, each with the reason; at most five.
LONG_FUNCTIONS = {
    "pipeline.py:analyze": "the whole flow in one call; it becomes a list of stages next (issue 41, the lead's part)",
    "cli.py:build_parser": "the argparse declaration of every command and option: a flat list, one call per option",
    "cli.py:_run_report": "the report command's steps and messages; splits with analyze's stages, whose settings it reads",
    "report/explorer.py:explorer_data": "one dict literal of the explorer page's fields, a line each",
}


def function_lines() -> dict[str, int]:
    """``{"path:Class.function": lines of code}`` of every function of the package, the
    docstring not counted."""
    out = {}

    def visit(node: ast.AST, path: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = child.body
                doc = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
                start = body[1].lineno if doc and len(body) > 1 else body[0].lineno
                out[f"{path}:{prefix}{child.name}"] = child.end_lineno - start + 1
                visit(child, path, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, path, f"{prefix}{child.name}.")

    for file in PACKAGE.rglob("*.py"):
        visit(ast.parse(file.read_text(encoding="utf-8")), file.relative_to(PACKAGE).as_posix(), "")
    return out


def test_no_function_is_longer_than_sixty_lines_of_code():
    assert len(LONG_FUNCTIONS) <= 5
    long = {name: n for name, n in function_lines().items() if n > MAX_FUNCTION_LINES and name not in LONG_FUNCTIONS}
    assert not long, f"split these into named steps of at most about 40 lines: {long}"


def test_every_long_function_named_as_an_exception_is_still_long():
    lines = function_lines()
    stale = [name for name in LONG_FUNCTIONS if lines.get(name, 0) <= MAX_FUNCTION_LINES]
    assert not stale, f"no longer over {MAX_FUNCTION_LINES} lines (or gone): take them out of LONG_FUNCTIONS: {stale}"


@pytest.mark.parametrize("module", sorted(m for m in modules() if m != "topics" and not m.endswith("__init__")))
def test_every_module_has_a_test_module(module):
    path = modules()[module]
    if path.name == "__init__.py":
        pytest.skip("a package's __init__ gathers names")
    parts = module.split(".")[1:]
    expected = ROOT / "tests" / Path(*parts[:-1]) / f"test_{parts[-1]}.py"
    assert expected.exists(), f"{module} has no test module {expected.relative_to(ROOT)}"


def test_the_lazy_public_names_and_their_static_imports_agree():
    """``topics/__init__.py`` imports each public name when it is first used (``_HOMES``)
    and names the same imports under ``TYPE_CHECKING`` for readers that do not run it (the
    API reference, type checkers): both must say the same."""
    import ast

    import topics

    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    static = {}
    for node in block.body:
        for alias in node.names:
            static[alias.asname or alias.name] = node.module if alias.name not in ("figures", "datasets") else f"{node.module}.{alias.name}"
    assert static == topics._HOMES
    assert set(static) == set(topics.__all__) - {"__version__"}
