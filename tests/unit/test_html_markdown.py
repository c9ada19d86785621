"""html_markdown: the lxml converter gives markdownify's markdown (as docslice configured it before 0.6), exactly."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest
from bs4 import BeautifulSoup
from hypothesis import given, settings
from hypothesis import strategies as st
from markdownify import ATX, MarkdownConverter

from docs_mcp.convert.anchors import linked_fragments
from docs_mcp.convert.cleanup import code_note, short_literal
from docs_mcp.convert.html_markdown import to_markdown
from docs_mcp.convert.parsing import find_main, parse_html, strip_noise
from docs_mcp.convert.sections import split_html
from docs_mcp.themes import PLAIN_TEXT_TAG

FIXTURES = Path(__file__).parents[2] / "fixtures"


class Reference(MarkdownConverter):
    """markdown.py's converter until the lxml one replaced it: markdownify with docslice's options."""

    def __init__(self, include_code: bool) -> None:
        super().__init__(
            heading_style=ATX,
            bullets="-",
            code_language_callback=lambda el: el.get("data-lang") or "",
            strip=["a", "img"],
            escape_underscores=False,
            escape_asterisks=False,
            escape_misc=False,
        )
        self.include_code = include_code

    def convert_td(self, el, text, parent_tags):  # type: ignore[override]
        return super().convert_td(el, text.replace("|", "\\|"), parent_tags)

    def convert_th(self, el, text, parent_tags):  # type: ignore[override]
        return super().convert_th(el, text.replace("|", "\\|"), parent_tags)

    def convert_pre(self, el, text, parent_tags):  # type: ignore[override]
        lang = el.get("data-lang") or ""
        if self.include_code or lang == PLAIN_TEXT_TAG or short_literal(el.get_text()):
            return super().convert_pre(el, text, parent_tags)
        lines = el.get_text().strip("\n").count("\n") + 1
        return f"\n\n{code_note(lang, lines)}\n\n" if el.get_text().strip() else ""


def reference(fragment: str, include_code: bool) -> str:
    return Reference(include_code).convert_soup(BeautifulSoup(fragment, "lxml"))


def fixture_sections() -> list[tuple[str, str]]:
    """(page, section HTML as the pipeline stores it) for every HTML fixture page."""
    found = []
    for path in sorted(FIXTURES.rglob("*.htm*")):
        root = parse_html(path.read_text(encoding="utf-8", errors="replace"))
        linked = linked_fragments(root, path.as_uri())
        main = find_main(root)
        strip_noise(main, None)
        found.extend((path.name, s.body_html) for s in split_html(main, linked) if s.body_html)
    return found


def test_every_fixture_section_converts_as_markdownify_converts_it():
    sections = fixture_sections()
    assert len(sections) > 200  # the fixtures are read, not skipped
    for code in (True, False):
        differing = [page for page, html in sections if to_markdown(html, code) != reference(html, code)]
        assert differing == []


@pytest.mark.parametrize(
    "fragment",
    [
        "<table><tr><th>a|b</th><th colspan='2'>c</th></tr><tr><td>1</td><td>2\n3</td></tr></table>",
        "<table><tbody><tr><td>x</td></tr></tbody><thead><tr><th>h</th></tr></thead></table>",
        "<table> <!-- c --> <tr><td>a</td></tr><tr><td>b</td></tr></table>",
        "<ol start='3'><li>one</li><!-- x --><li><p>two</p><ul><li>deep</li></ul></li></ol><p>after</p>",
        "<dl><dt> term \n words</dt><dd><p>first</p><p>second</p></dd></dl>",
        "<h2>Title <code>x</code></h2><h9>nine</h9><blockquote><p>q</p>\n<p></p></blockquote>",
        "<p>a<br>b<code>``tick``</code> <em> spaced </em><b></b>\x0c<kbd>k</kbd></p>",
        "<pre data-lang='python'>\n\n  def f():\n      return 1\n\n</pre><pre>  <b>x</b>\n</pre>",
        "<pre data-lang='text'>plain\ntext\nhere\nand\nmore</pre><textarea>  kept  </textarea>",
        "lead text <div> in <section>sec</section></div> tail <q>quoted</q><video src='v.mp4'>v</video>",
        "<td>cell</td><h1>in <td>x</td></h1><sub> 2 </sub><sup>3</sup><del>gone</del><hr>",
        "<!-- only a comment -->",
        "<p>&amp; &lt;tag&gt; &foo; \u00a0 nbsp</p><script>skip()</script><style>p{}</style>",
    ],
)
def test_edge_shapes_convert_as_markdownify_converts_them(fragment):
    for code in (True, False):
        assert to_markdown(fragment, code) == reference(fragment, code)


_TAGS = [
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "pre",
    "code",
    "em",
    "b",
    "td",
    "tr",
    "table",
    "dt",
    "dd",
    "h3",
    "br",
    "span",
]
_PIECES = st.one_of(
    st.sampled_from([f"<{t}>" for t in _TAGS] + [f"</{t}>" for t in _TAGS]),
    st.text(alphabet="ab| \t\n`*", max_size=6),
    st.just("<!--c-->"),
)


def stored(soup: str) -> str:
    """Tag soup as a section's HTML is stored: elements serialized by lxml (no stray end tags)."""
    body = lxml.html.fragment_fromstring(soup, create_parent="div")
    return lxml.html.tostring(body, encoding=str, with_tail=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=25))
def test_arbitrary_tag_soup_converts_as_markdownify_converts_it(pieces):
    fragment = stored("".join(pieces))
    for code in (True, False):
        assert to_markdown(fragment, code) == reference(fragment, code)
