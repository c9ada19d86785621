"""The words a page's links give the pages they point at: content words of each link's text, per target page of
the same source; texts naming a place in the site, whole sentences, self-links and links elsewhere give none."""

from __future__ import annotations

from docs_mcp.convert.parsing import parse_html
from docs_mcp.crawl.link_words import link_words
from docs_mcp.fetch.sources import SourceSet
from docs_mcp.text.terms import tokenize

ROOT = "https://docs.example.org/manual/"
PAGE = f"""<html><body><nav><a href="index.html">Contents</a> <a href="care.html">Next</a></nav>
<p>Before a sight, see <a href="care.html#mirrors">the sextant's mirrors</a> and
<a href="{ROOT}log.html">the noon log</a>; the <a href="sights.html">sights</a> chapter is this one, and the
<a href="../other/care.html">other manual's care</a> and <a href="https://elsewhere.example/x.html">a vendor</a>
are elsewhere. <a href="care.html">{"a very long link text that is a whole sentence " * 3}</a>
<a href="#top">back up</a> <a href="mailto:author@example.org">the author</a></p></body></html>"""


def words(page: str, html: str) -> dict[str, set[str]]:
    loc = SourceSet.from_specs([ROOT]).resolve(ROOT + page)
    out: dict[str, set[str]] = {}
    for target, term in link_words(parse_html(html), loc, loc.uid):
        out.setdefault(target.removeprefix(ROOT), set()).add(term)
    return out


def test_each_target_page_gets_the_content_words_of_the_links_to_it():
    assert words("sights.html", PAGE) == {
        "care.html": set(tokenize("sextant mirrors")),  # the fragment names a place in the page, not another
        "log.html": set(tokenize("noon log")),
    }


def test_a_page_linking_to_itself_gives_itself_no_words():
    assert "care.html" not in words("care.html", PAGE)
    assert "sights.html" in words("care.html", PAGE)


def test_a_link_text_in_markup_or_odd_spacing_gives_the_words_of_its_plain_text():
    plain = words("sights.html", '<p><a href="care.html">sextant mirrors</a></p>')
    assert plain == {"care.html": set(tokenize("sextant mirrors"))}
    for text in ("<code>sextant</code> mirrors", " sextant\n\u200b mirrors ", "<b>sextant</b>\tmirrors"):
        assert words("log.html", f'<p><a href="care.html">{text}</a></p>') == plain
