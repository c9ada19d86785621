"""The package's shape: packages by layer, each importing only those below it, no circles, short units."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "docs_mcp"
#: Lowest first: a module may import its own package and those before it, never one after it. The root
#: modules (errors, settings, themes) sit below everything.
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 50
LAYERS = ("", "text", "model", "fetch", "convert", "store", "search", "crawl")
LAYERS += ("audit", "tools", "transport", "cli")  # audit: a site's findability, over both searches


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = (
            ".".join(("docs_mcp", *parts[:-1])) if parts[-1] == "__init__" else ".".join(("docs_mcp", *parts))
        )
        out[name] = path
    return out


def _package_of(module: str) -> str:
    if module == "docs_mcp.__main__":  # `python -m docs_mcp`: the command line's entry point
        return "cli"
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else ""


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """Every docs_mcp module this one imports, anywhere in it (inside functions and TYPE_CHECKING too)."""
    found = set()
    is_init = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("docs_mcp")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")[: len(module.split(".")) - node.level + (1 if is_init else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            if not base.startswith("docs_mcp"):
                continue
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return found


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {m: {i for i in _imports(m, p, known) if i in known and i != m} for m, p in mods.items()}


def test_every_package_is_a_known_layer():
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(LAYERS) - {""}


def test_no_module_imports_a_package_above_its_own():
    upward = []
    for module, targets in _graph().items():
        here = LAYERS.index(_package_of(module))
        upward += [f"{module} -> {t}" for t in sorted(targets) if LAYERS.index(_package_of(t)) > here]
    assert upward == []


#: Inside search/: the semantic signal is below both searches, and neither search imports the other.
SEARCH_PARTS = {"semantic": set(), "in_page": {"semantic"}, "site": {"semantic"}}


def test_search_is_split_into_in_page_site_and_semantic_parts_that_do_not_cross():
    parts = {p.name for p in (PACKAGE / "search").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert parts == set(SEARCH_PARTS)
    assert {p.name for p in (PACKAGE / "search").glob("*.py")} == {"__init__.py"}  # every module in a part
    crossing = []
    for module, targets in _graph().items():
        if not module.startswith("docs_mcp.search."):
            continue
        part = module.split(".")[2]
        for t in sorted(targets):
            other = t.split(".")[2] if t.startswith("docs_mcp.search.") else None
            if other and other != part and other not in SEARCH_PARTS[part]:
                crossing.append(f"{module} -> {t}")
    assert crossing == []


def test_the_two_store_engines_are_twins_that_do_not_import_each_other():
    engines = {"sqlite", "postgres"}
    assert engines <= {p.name for p in (PACKAGE / "store").iterdir() if (p / "__init__.py").exists()}
    shared = {"reads", "writes", "schema", "store", "keywords", "locks"}  # each engine has its own of these
    for engine in engines:
        assert shared <= {p.stem for p in (PACKAGE / "store" / engine).glob("*.py")}, engine

    def engine(module: str) -> str | None:
        parts = module.split(".")
        return parts[2] if len(parts) > 2 and parts[1] == "store" and parts[2] in engines else None

    crossing = [
        f"{module} -> {t}"
        for module, targets in _graph().items()
        for t in sorted(targets)
        if engine(module) and engine(t) and engine(module) != engine(t)
    ]
    assert crossing == []


def test_the_import_graph_has_no_circle():
    graph = _graph()
    # Package __init__ modules only re-export; an edge into one is an edge into its package, not a circle.
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*stack[stack.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert cycles == []


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_and_functions_stay_short(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.name}: {lines} lines"
    long = [
        f"{n.name}: {n.end_lineno - n.lineno + 1} lines"
        for n in ast.walk(ast.parse(path.read_text()))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and n.end_lineno - n.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def test_domain_code_never_imports_mcp():
    """Only the transport (and the CLI's measure, which runs a real client) may know the MCP SDK."""
    offenders = []
    for module, path in _modules().items():
        if _package_of(module) in ("transport", "cli"):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            offenders += [f"{module}: {n}" for n in names if n == "mcp" or n.startswith("mcp.")]
    assert offenders == []
