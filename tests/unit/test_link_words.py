"""The words a page's links give the pages they point at: content words of each link's text, per target page of
the same source; texts naming a place in the site, whole sentences, self-links and links elsewhere give none."""

from __future__ import annotations

from docs_mcp.convert.parsing import parse_html
from docs_mcp.crawl.link_words import LINK_WORDS_PER_PAGE, LINK_WORDS_PER_TARGET, link_words
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


def test_links_the_page_hides_give_their_target_no_words():
    hidden = (
        '<div hidden><a href="evil.html">sextant</a></div>',
        '<div aria-hidden="true"><a href="evil.html">sextant</a></div>',
        '<div aria-hidden=" TRUE "><a href="evil.html">sextant</a></div>',
        '<template><a href="evil.html">sextant</a></template>',
        '<noscript><a href="evil.html">sextant</a></noscript>',
        '<dialog><a href="evil.html">sextant</a></dialog>',
        '<span class="sr-only"><a href="evil.html">sextant</a></span>',
        '<div style="display: none"><p><a href="evil.html">sextant</a></p></div>',
        '<div style="color:red;VISIBILITY:hidden !important"><a href="evil.html">sextant</a></div>',
        '<div style="font-size:0px"><a href="evil.html">sextant</a></div>',
        '<div style="position:absolute;left:-9999px"><a href="evil.html">sextant</a></div>',
    )
    for html in hidden:
        assert words("log.html", f"<p>{html}<a href='care.html'>mirrors</a></p>") == {
            "care.html": {"mirror"}
        }, html
    # Shown: an open dialog, a small font, a slight shift, a Doxygen tree row its script unfolds.
    shown = (
        '<dialog open><a href="evil.html">sextant</a></dialog>',
        '<div style="font-size:0.8em;left:-4px"><a href="evil.html">sextant</a></div>',
        '<table><tr style="display:none"><td><a href="evil.html">sextant</a></td></tr></table>',
    )
    for html in shown:
        assert words("log.html", f"<p>{html}</p>") == {"evil.html": {"sextant"}}, html


def test_a_local_page_linking_to_an_absolute_path_or_above_its_root_gives_no_words(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    loc = SourceSet.from_specs([str(docs)]).resolve(str(docs / "guide" / "page.md"))
    html = (
        '<p><a href="/etc/passwd.md">sextant</a> <a href="/other/source/tune.md">mirror</a> '
        '<a href="../../outside.md">horizon</a> <a href="%2Fetc%2Fshadow.md">noon</a> '
        '<a href="../care.md">care</a></p>'
    )
    pairs = link_words(parse_html(html), loc, loc.uid)
    assert pairs == ((str(docs / "care.md"), "care"),)


def test_a_page_gives_at_most_its_caps_of_link_words():
    many = " ".join(f'<a href="p{i}.html">word{i:05d} other{i:05d}</a>' for i in range(12_000))
    pairs = words("log.html", f"<p>{many}</p>")
    assert sum(len(v) for v in pairs.values()) == LINK_WORDS_PER_PAGE
    one = " ".join(f'<a href="care.html#m{i}">method{i:04d}</a>' for i in range(2_000))
    assert len(words("log.html", f"<p>{one}</p>")["care.html"]) == LINK_WORDS_PER_TARGET


def test_a_link_whose_text_is_its_target_address_gives_no_words():
    html = (
        '<p><a href="releaselog/3_5_4.html">releaselog/3_5_4.html</a> <a href="../log.html#noon">log.html</a>'
        ' <a href="care.html">care.html mirrors</a> <a href="log.html">3.5.4</a></p>'
    )
    assert words("sub/crossref.html", html) == {
        "sub/care.html": set(tokenize("care.html mirrors")),  # the address and more: a name of its own
        "sub/log.html": set(tokenize("3.5.4")),
    }


def test_without_the_address_rule_an_address_text_gives_its_pieces(monkeypatch):
    from docs_mcp import settings

    monkeypatch.setattr(settings, "ABLATED", frozenset({"address-links"}))
    assert words("crossref.html", '<p><a href="log.html">log.html</a></p>') == {
        "log.html": set(tokenize("log.html"))
    }
