"""The five tools and their parameters, declared once: the MCP schema, the CLI commands and the docs derive them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docs_mcp import settings as C
from docs_mcp.errors import ECHO_CHARS, InvalidArgument, echo

#: The default of a parameter the caller must give (a positional argument on the command line).
REQUIRED: Any = object()
#: The upper end of a range that is the server's hard cap per response (--max-chars), known at run time.
THE_CAP: Any = object()


@dataclass(frozen=True)
class Param:
    """One tool parameter: the MCP schema field, the CLI argument and the docs' row are built from it."""

    name: str
    type: Any  # int, str, bool, or str | None
    #: What the model reads in tools/list; `--help` shows it too, unless `help` words it for people.
    description: str
    default: Any = REQUIRED
    #: The command line's option; None: a positional argument.
    flag: str | None = None
    #: An integer's range, ends included (high None: no upper end); a value outside is refused, never clamped.
    low: int | None = None
    high: Any = None
    #: A string that must hold more than blanks.
    nonempty: bool = False
    #: What a value within the range means specially, said beside the range (max_length's 0).
    note: str | None = None
    metavar: str | None = None
    #: `--help`'s wording when the description speaks to the model (of tools, not commands).
    help: str | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def cli_help(self) -> str:
        return self.help or self.description

    def top(self, cap: int) -> int | None:
        """The upper end of an integer's range on a server whose hard cap is `cap`."""
        return cap if self.high is THE_CAP else self.high

    def domain(self, cap: int, top: int | None = None) -> str:
        """What the parameter takes, in words: the range every refusal names (`top`: a narrower upper end)."""
        if self.type is bool:
            return "true or false"
        if self.type is int:
            top = self.top(cap) if top is None else top
            span = f"an integer ≥ {self.low}" if top is None else f"an integer from {self.low} to {top}"
            return span + (f" ({self.note})" if self.note else "")
        kind = "a non-empty string" if self.nonempty else "a string"
        return kind + (" or null" if isinstance(None, self.type) else "")

    def accepts(self, value: object, cap: int) -> bool:
        if not isinstance(value, self.type) or (self.type is int and isinstance(value, bool)):
            return False
        if self.type is int:
            top = self.top(cap)
            # The default is always valid: under a hard cap below it, it means the cap.
            return value == self.default or (self.low <= value and (top is None or value <= top))
        return not (self.nonempty and isinstance(value, str) and not value.strip())

    def refusal(self, value: object, cap: int, top: int | None = None) -> str:
        """Why `value` is refused: the parameter, its range and the value as the caller sent it."""
        return f"{self.name} must be {self.domain(cap, top)}, got {shown(value)}"


@dataclass(frozen=True)
class ToolSpec:
    """A tool: its MCP name and description, its CLI command, and its parameters in call order."""

    name: str
    command: str
    #: One line for `--help` and the README's command table.
    summary: str
    description: str
    params: tuple[Param, ...]
    #: Parameters of the MCP tool alone: they act on the MCP session (a command has none).
    session: tuple[Param, ...] = ()

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def check(self, values: Mapping[str, object], cap: int) -> None:
        """Refuse, in one InvalidArgument naming each, the values outside their parameter's range or type."""
        problems = []
        for p in self.params:
            if p.name not in values:
                if p.required:
                    problems.append(f"{p.name} is required: {p.domain(cap)}")
            elif not p.accepts(values[p.name], cap):
                problems.append(p.refusal(values[p.name], cap))
        if problems:
            raise InvalidArgument("; ".join(problems))


def shown(value: object) -> str:
    """A value as the caller sent it, for a message: a string quoted, anything else as JSON (null, true, 5)."""
    if isinstance(value, str):
        return echo(value)
    text = json.dumps(value, default=repr)
    return text if len(text) <= ECHO_CHARS else f"{text[:ECHO_CHARS]}… ({len(text):,} chars)"


URL = Param(
    "url",
    str,
    "Page URL under a configured root (a search result's url), or a path relative to a local root. "
    "A #fragment names a section or definition (get_doc_content starts there).",
    nonempty=True,
    help="page URL or path under a source; a #fragment names a section (`read` starts there)",
)
QUERY = Param("query", str, "What you are looking for, in words.", nonempty=True)
MAX_LENGTH = Param(
    "max_length",
    int,
    f"Max content chars, up to the server's cap (default {C.DEFAULT_MAX_LENGTH}; 0 = the cap).",
    C.DEFAULT_MAX_LENGTH,
    "--max-length",
    low=0,
    high=THE_CAP,
    note="0 = the cap",
    metavar="N",
)
START = Param(
    "start_index",
    int,
    "Offset to start from: a previous next_start_index or a passage offset.",
    0,
    "--start",
    low=0,
    metavar="N",
)
CODE = Param(
    "include_code_blocks",
    bool,
    "Include code blocks (off: prose and plain-text output only, much shorter).",
    False,
    "--code",
)
MAX_RESULTS = Param(
    "max_results",
    int,
    f"Hits, 1-{C.MAX_RESULTS}.",
    C.DEFAULT_MAX_RESULTS,
    "--max-results",
    low=1,
    high=C.MAX_RESULTS,
    metavar="N",
)
HEADINGS = Param(
    "include_headings", bool, f"Add each page's headings (≤{C.HEADINGS_CAP}).", False, "--headings"
)
SOURCE = Param("source", str | None, "Only this named source.", None, "--source-name", metavar="NAME")
VERSION = Param(
    "version",
    str | None,
    "A source's version (default: its newest or configured one).",
    None,
    "--doc-version",
    metavar="V",
)
MAX_SECTIONS = Param(
    "max_sections",
    int,
    f"Sections, 1-{C.MAX_SECTIONS}.",
    C.DEFAULT_MAX_SECTIONS,
    "--max-sections",
    low=1,
    high=C.MAX_SECTIONS,
    metavar="N",
)
SECTION_ID = Param(
    "section_id",
    str,
    "Any id on the page (from get_doc_toc, a url's #fragment, a definition like re.sub) or a heading's text.",
    metavar="ID",
    help="any id on the page (from `toc`, a url's #fragment, a definition like re.sub) or a heading's text",
)
REPEAT = Param(
    "repeat",
    bool,
    "Send again what this session was already sent (else it is a one-line pointer).",
    False,
)

SEARCH_DOCS = ToolSpec(
    "search_docs",
    "search",
    "search the documentation site(s), as search_docs",
    "Search the documentation site(s). Returns pages with the url#section of their best section, its heading "
    "path and a short snippet. Name APIs as written (time.sleep, round(), -O): the page defining them ranks "
    "first. Next: get_doc_section or search_in_doc on a hit.",
    (QUERY, MAX_RESULTS, HEADINGS, SOURCE, VERSION),
)
SEARCH_IN_DOC = ToolSpec(
    "search_in_doc",
    "find",
    "the sections of one page that best match a query, as search_in_doc",
    "The sections of one page that best match a query (long sections: only the matching passages, with "
    "offsets for get_doc_section's start_index), then the best unit not shown as a get_doc_section id. "
    "Cheapest way to answer a question from a known page.",
    (URL, QUERY, MAX_SECTIONS, MAX_LENGTH, CODE, VERSION),
    (REPEAT,),
)
GET_DOC_TOC = ToolSpec(
    "get_doc_toc",
    "toc",
    "a page's outline with section ids and sizes, as get_doc_toc",
    "A page's outline: title, size, and every heading with its section id and size in chars.",
    (URL,),
)
GET_DOC_SECTION = ToolSpec(
    "get_doc_section",
    "section",
    "one section of a page, as get_doc_section",
    "One section with its subsections as markdown. When cut, the header gives next_start_index.",
    (URL, SECTION_ID, MAX_LENGTH, START, CODE),
    (REPEAT,),
)
GET_DOC_CONTENT = ToolSpec(
    "get_doc_content",
    "read",
    "a whole page as markdown, one window at a time, as get_doc_content",
    "A whole page as markdown, one window at a time: follow next_start_index until 'end of content'. "
    "Prefer search_in_doc or get_doc_section.",
    (URL, MAX_LENGTH, START, CODE),
)

#: In the order tools/list gives them.
TOOLS = (SEARCH_DOCS, SEARCH_IN_DOC, GET_DOC_TOC, GET_DOC_SECTION, GET_DOC_CONTENT)


def tool_for(command: str) -> ToolSpec:
    """The tool behind a CLI command (`search` → search_docs)."""
    return next(t for t in TOOLS if t.command == command)
