"""Generators' chrome stripped by the theme data: MediaWiki exports (cppreference) and BoostBook pages."""

from __future__ import annotations

from docs_mcp.convert.pipeline import build_document
from docs_mcp.fetch.fetching import RawPage
from docs_mcp.fetch.sources import Location, Source

# The shape of a MediaWiki page (Vector-era skin, as cppreference exports it); the text is invented.
WIKI = """<!DOCTYPE html><html><head><title>tide::fit - Tidepool wiki</title></head><body>
<div id="content"><a id="top"></a><div id="mw-js-message" style="display:none;"></div>
<h1 id="firstHeading" class="firstHeading">tide::fit</h1>
<div id="bodyContent"><div id="siteSub">From Tidepool wiki</div><div id="contentSub">&lt; tide | fitting</div>
<div id="jump-to-nav" class="mw-jump">Jump to: <a href="#nav">navigation</a></div>
<div id="mw-content-text" lang="en" class="mw-content-ltr">
<div class="t-navbar"><div class="t-navbar-head"><a href="../tide.html">Tidepool</a>
<div class="t-navbar-menu"><a href="a.html">harmonic_series</a> <a href="b.html">datum_shift</a>
<a href="c.html">gauge_registry</a> <a href="d.html">surge_filter</a></div></div></div>
<p>Fits the harmonic constituents of a gauge record by least squares and returns their amplitudes.</p>
<h3><span class="mw-headline" id="Parameters">Parameters</span><span class="mw-editsection">[edit]</span></h3>
<p>record - the water levels of one gauge, evenly spaced in time.</p>
<h3><span class="mw-headline" id="Example">Example</span></h3>
<div class="t-example"><div class="t-example-live-link"><a href="#">Run this code</a></div>
<pre>auto amplitudes = tide::fit(record);</pre></div>
</div>
<div class="printfooter">Retrieved from "http://wiki.example/mwiki/index.php?title=tide/fit"</div>
<div id="catlinks" class="catlinks"><a href="cat.html">Category</a>: Fitting</div>
</div></div></body></html>"""

# The shape of a BoostBook section page: a header table, arrows, one div.section, a copyright footer table
# (a real section holds more than MIN_MAIN_TEXT chars, as this one does).
BOOST = """<!DOCTYPE html><html><head><title>Gauge records - 1.0</title></head><body>
<table cellpadding="2" width="100%"><tr><td valign="top"><img alt="Tidepool Libraries" src="tp.png"></td>
<td align="center"><a href="../index.html">Home</a></td><td align="center"><a href="../libs.html">Libraries</a></td>
<td align="center"><a href="../people.html">People</a></td><td align="center"><a href="../faq.html">FAQ</a></td>
</tr></table><hr><div class="spirit-nav"><a accesskey="p" href="prev.html"><img src="prev.png" alt="Prev"></a></div>
<div class="section"><div class="titlepage"><div><div><h2 class="title"><a name="tp.records"></a>Gauge records</h2>
</div></div></div><p>A gauge record holds the water levels one station logged, evenly spaced in time.</p>
<div class="section"><div class="titlepage"><div><div><h3 class="title"><a name="tp.records.gaps"></a>Gaps</h3>
</div></div></div><p>Missing readings are kept as gaps and never interpolated by the reader: a record that lost a
week of readings to a flooded logger says so, and the fit skips the week instead of inventing levels.</p></div></div>
<table width="100%"><tr><td align="left"></td><td align="right"><div class="copyright-footer">Copyright 2026
The Tidepool authors. Distributed under the Tidepool Licence.</div></td></tr></table>
<hr><div class="spirit-nav"><a accesskey="n" href="next.html"><img src="next.png" alt="Next"></a></div>
</body></html>"""


def markdown_of(html: str, name: str) -> tuple[list[str], str]:
    doc = build_document(RawPage(Location(Source("t", "/docs", True), name), html, "html"), name)
    return [s.id for s in doc.sections], "\n\n".join(
        doc.own_markdown(i, True) for i in range(len(doc.sections))
    )


def test_a_mediawiki_page_keeps_its_text_without_the_wikis_chrome():
    ids, md = markdown_of(WIKI, "fit.html")
    assert md.startswith("# tide::fit\n")
    assert "Fits the harmonic constituents of a gauge record by least squares" in md
    assert "auto amplitudes = tide::fit(record);" in md
    assert ids[-2:] == ["Parameters", "Example"]
    for chrome in ("From Tidepool wiki", "< tide", "Jump to", "surge_filter", "[edit]", "Run this code"):
        assert chrome not in md
    assert "Retrieved from" not in md and "Category" not in md


def test_a_boostbook_section_page_starts_at_its_heading_without_header_arrows_or_copyright():
    ids, md = markdown_of(BOOST, "records.html")
    assert md.startswith("## Gauge records\n")
    assert ids == ["tp.records", "tp.records.gaps"]
    assert "Missing readings are kept as gaps" in md
    for chrome in ("Home", "Libraries", "People", "FAQ", "Copyright", "Licence"):
        assert chrome not in md
