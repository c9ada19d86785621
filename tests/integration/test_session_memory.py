"""A session that never sends the same passage twice (issue 46 item 2), through the in-process MCP client: one
client is one session; what it was sent is a pointer the next time, and the room goes to the next best unit."""

from __future__ import annotations

import re

import pytest
from conftest import FIXTURES, make_tools, model_view

from docs_mcp.model.seen import SESSION_BUDGET_FLOOR
from docs_mcp.transport.server import build_server

pytestmark = pytest.mark.anyio
PYTHON = FIXTURES / "real" / "python"
RE = "library/re.html"
#: A pointer: `#id: shown in your 2nd call`, `[… 677 chars shown in your 1st call …]`.
POINTER = re.compile(r"shown in your (\d+)(st|nd|rd|th) call")


def session(*sources: str, **settings):
    """One MCP session on a fresh server: a client whose calls return what the model sees."""
    from mcp import Client

    class Session:
        def __init__(self) -> None:
            self.client = Client(build_server(make_tools(*sources, **settings)), mode="legacy")

        async def __aenter__(self) -> Session:
            await self.client.__aenter__()
            return self

        async def __aexit__(self, *exc: object) -> None:
            await self.client.__aexit__(*exc)

        async def __call__(self, name: str, **args: object) -> str:
            result = await self.client.call_tool(name, args)
            assert not result.is_error, model_view(result)
            return model_view(result)

    return Session()


def paragraphs(answer: str) -> set[str]:
    """The answer's runs of prose long enough to tell a repeat (headers, pointers and labels left out)."""
    out = set()
    for block in answer.split("\n\n")[1:]:
        for line in block.splitlines():
            line = line.strip()
            if len(line) >= 60 and not line.startswith(("#", "[", "(", "- #")) and not POINTER.search(line):
                out.add(line)
    return out


async def test_a_second_identical_search_in_doc_answers_with_a_pointer_and_other_sections():
    async with session(str(PYTHON)) as call:
        first = await call("search_in_doc", url=RE, query="match object groups")
        second = await call("search_in_doc", url=RE, query="match object groups")
    shown = re.findall(r"^## .* #(\S+)$", first, re.M)
    assert shown
    assert f"#{shown[0]}: shown in your 1st call" in second
    assert shown[0] not in re.findall(r"^## .* #(\S+)$", second, re.M)
    assert paragraphs(second) and not paragraphs(first) & paragraphs(second)  # other passages took the room
    assert "(repeat=true, or get_doc_section with the id, shows them again)" in second


async def test_no_passage_is_sent_twice_in_a_six_call_session():
    async with session(str(PYTHON)) as call:
        answers = [
            await call("search_in_doc", url=RE, query="match object groups"),
            await call("get_doc_section", url=RE, section_id="re.Match.group", max_length=3000),
            await call("search_in_doc", url=RE, query="named groups in a match"),
            await call("get_doc_section", url=RE, section_id="module-contents", max_length=0),
            await call("get_doc_section", url=RE, section_id="regular-expression-examples", max_length=3000),
            await call("search_in_doc", url=RE, query="match object groups"),
        ]
    _, doc = await make_tools(str(PYTHON)).document(RE)
    lines = [line.strip() for line in doc.markdown().splitlines()]
    twice = {line for line in lines if lines.count(line) > 1}  # the page says these twice itself
    seen: dict[str, int] = {}
    for n, answer in enumerate(answers, 1):
        for line in paragraphs(answer) - twice:
            assert line not in seen, f"call {n} repeats call {seen[line]}: {line[:80]}"
            seen[line] = n
    assert all(paragraphs(a) or POINTER.search(a) for a in answers)
    assert POINTER.search(answers[3]) and POINTER.search(answers[-1])


async def test_repeat_true_sends_what_was_sent_before():
    async with session(str(PYTHON)) as call:
        first = await call("search_in_doc", url=RE, query="match object groups")
        again = await call("search_in_doc", url=RE, query="match object groups", repeat=True)
    assert again.split("\n", 2)[2] == first.split("\n", 2)[2]


async def test_get_doc_section_points_at_what_search_in_doc_sent_and_keeps_its_offsets():
    async with session(str(PYTHON)) as call:
        await call("search_in_doc", url=RE, query="match object groups")
        whole = await call("get_doc_section", url=RE, section_id="module-contents", max_length=0, repeat=True)
        fresh = await call("get_doc_section", url=RE, section_id="module-contents", max_length=0)
    assert not POINTER.search(whole)
    assert POINTER.search(fresh) and "repeat=true sends them" in fresh
    assert len(fresh) < len(whole) // 2
    # The offsets are those of the section's own text, with or without the pointers.
    assert (
        re.search(r"chars 0-(\d+) of content_length=(\d+)", fresh).groups()
        == re.search(r"chars 0-(\d+) of content_length=(\d+)", whole).groups()
    )


async def test_a_section_sent_whole_is_sent_again_when_asked_for_by_its_id_with_its_subsections_as_pointers(
    site,
):
    async with session(site.url) as call:
        await call("search_in_doc", url="sphinx.html", query="resampling intervals")
        asked = await call("get_doc_section", url="sphinx.html", section_id="resampling")
    body = asked.split("\n\n", 1)[1]
    assert body.startswith("## Resampling\n\nGauges rarely share a sampling interval.")
    assert "[#fixed-intervals: shown in your 1st call]" in body and "Fixed intervals divide" not in body


async def test_each_client_has_a_memory_of_its_own():
    tools = make_tools(str(PYTHON))
    server = build_server(tools)
    from mcp import Client

    answers = []
    for _ in range(2):
        async with Client(server, mode="legacy") as client:
            answers.append(
                model_view(await client.call_tool("search_in_doc", {"url": RE, "query": "groups"}))
            )
    assert answers[0] == answers[1] and not POINTER.search(answers[1])


async def test_a_session_budget_says_what_is_left_and_then_sends_outlines_only():
    async with session(str(PYTHON), session_budget=6_000) as call:
        first = await call("search_in_doc", url=RE, query="match object groups")
        left = int(
            re.search(r"session budget: ([\d,]+) of 6,000 chars left", first).group(1).replace(",", "")
        )
        assert left == 6_000 - len(first.rsplit("\n\n", 1)[0])
        second = await call("get_doc_section", url=RE, section_id="re.sub", max_length=0)
        assert len(second) < left + 100  # asked for the cap, given what the budget had left
        third = await call("get_doc_section", url=RE, section_id="re.compile")
    rest = int(re.search(r"session budget: ([\d,]+) of", second).group(1).replace(",", ""))
    assert rest < SESSION_BUDGET_FLOOR  # too little for a passage: what follows is outlines
    assert third.startswith("(session budget spent: the page's outline only)")
    assert len(third) < 2_200


async def test_tools_list_names_repeat_and_stays_within_its_budget():
    from mcp import Client

    from docs_mcp.tools.specs import REPEAT

    async with Client(build_server(make_tools(str(PYTHON))), mode="legacy") as client:
        listing = await client.list_tools()
    by_name = {t.name: t for t in listing.tools}
    assert REPEAT.name in by_name["search_in_doc"].input_schema["properties"]
    assert REPEAT.name in by_name["get_doc_section"].input_schema["properties"]
    assert REPEAT.name not in by_name["search_docs"].input_schema["properties"]
    assert len(listing.model_dump_json(exclude_none=True)) <= 6_000


async def test_a_spent_budget_outlines_the_page_of_the_version_asked_for():
    versions = FIXTURES / "versions"
    local = [f"quill@{v}={versions / v}" for v in ("3.2", "4.2", "5.0")]
    async with session(*local, session_budget=SESSION_BUDGET_FLOOR - 1) as call:
        outline = await call("search_in_doc", url="quill:settings.html", query="cache", version="3.2")
    assert outline.startswith("(session budget spent: the page's outline only)")
    assert "quill@3.2:settings.html" in outline and "quill@5.0" not in outline
