"""The README's option tables, generated from the declarations: `python -m docs_mcp.cli.reference README.md`."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from docs_mcp.cli.grammar import SHARED
from docs_mcp.cli.options import tool_option
from docs_mcp.tools.specs import THE_CAP, TOOLS, Param

#: A generated block: its opening marker names it, so a README can hold several.
_BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) [^>]*-->\n)(.*?)(<!-- end of generated -->)", re.S)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _usage(param: Param) -> str:
    """How the command line takes a parameter: QUERY, --max-results N, --code."""
    option = tool_option(param)
    if option.positional:
        return (param.metavar or param.name).upper()
    return option.flag + (f" {param.metavar}" if param.metavar else "")


def _default(param: Param) -> str:
    if param.required:
        return "required"
    shown = "null" if param.default is None else str(param.default).lower()
    if param.low is None:
        return f"`{shown}`"
    top = "the cap" if param.high is THE_CAP else param.high
    span = f"≥ {param.low}" if top is None else f"{param.low}–{top}"
    return f"`{shown}` ({span})"


def parameters_table() -> str:
    """Every tool parameter, as the model sees it and as its command takes it."""
    lines = [
        "| tool → command | parameter | command line | default | meaning (the model's description) |",
        "|---|---|---|---|---|",
    ]
    first: dict[Param, str] = {}  # a parameter shared by several tools is described once
    for spec in TOOLS:
        for n, p in enumerate((*spec.params, *spec.session)):
            where = f"`{spec.name}` → `docslice {spec.command}`" if n == 0 else ""
            meaning = f"as for `{first[p]}`" if p in first else _cell(p.description)
            first.setdefault(p, spec.name)
            usage = "(MCP only)" if p in spec.session else f"`{_usage(p)}`"  # a command has no session
            lines.append(f"| {where} | `{p.name}` | {usage} | {_default(p)} | {meaning} |")
    return "\n".join(lines) + "\n"


def shared_table() -> str:
    """The options every command takes, before or after its name."""
    lines = ["| option | default | meaning |", "|---|---|---|"]
    for o in SHARED:
        flag = f"{o.flag} {o.metavar}" if o.metavar else o.flag
        lines.append(f"| `{_cell(flag)}` | {_cell(o.default_text())} | {_cell(o.help)} |")
    return "\n".join(lines) + "\n"


TABLES = {"tool-parameters": parameters_table, "shared-options": shared_table}


def regenerate(text: str) -> str:
    """`text` with every generated block rewritten from the declarations."""

    def fill(m: re.Match[str]) -> str:
        return m.group(1) + TABLES[m.group("name")]() + m.group(4)

    return _BLOCK.sub(fill, text)


def main(paths: list[str]) -> int:
    """Rewrite the generated blocks of each file; exit 1 when one was out of date (for CI)."""
    stale = 0
    for path in map(Path, paths):
        text = path.read_text(encoding="utf-8")
        new = regenerate(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"{path}: generated tables updated", file=sys.stderr)
            stale = 1
    return stale


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["README.md"]))
