"""keyword_index: a generated index page read as term → link entries, whatever generator wrote it."""

from __future__ import annotations

from docs_mcp.convert.keyword_index import KeywordEntry, keyword_entries
from docs_mcp.convert.parsing import parse_html

DOCBOOK = """<html><body><div class="index"><div class="indexdiv"><h3>D</h3><dl>
<dt id="ientry-1">deadlock, <a class="indexterm" href="explicit-locking.html#LOCKING-DEADLOCKS">Deadlocks</a></dt>
<dd><dl><dt>timeout during, <a class="indexterm" href="runtime-config-locks.html">Lock Management</a></dt></dl></dd>
<dt id="ientry-2">lock_timeout configuration parameter, <a class="indexterm"
  href="runtime-config-client.html#RUNTIME-CONFIG-CLIENT-STATEMENT">Statement Behavior</a></dt>
<dt id="ientry-3">LOCK, <a class="indexterm" href="explicit-locking.html#LOCKING-TABLES">Table-Level Locks</a>,
  <a class="indexterm" href="sql-lock.html">LOCK</a></dt>
<dt id="ientry-4">median, <a class="indexterm" href="sql-expressions.html#SYNTAX-AGGREGATES">Aggregates</a></dt>
<dd><dl><dt>(see also <a href="#ientry-5">percentile</a>)</dt></dl></dd>
<dt id="ientry-5">percentile, <a class="indexterm" href="functions-aggregate.html">Aggregate Functions</a></dt>
</dl></div></div></body></html>"""

SPHINX = """<html><body><div role="main"><h1>Index</h1><table class="indextable genindextable"><tr><td><ul>
<li>--add-location<ul><li><a href="ref/django-admin.html#cmdoption-makemessages-add-location">makemessages
  command line option</a></li></ul></li>
<li><a href="ref/models/querysets.html#QuerySet.select_for_update">select_for_update() (QuerySet method)</a></li>
<li>transactions<ul><li><a href="topics/db/transactions.html#index-1">atomic</a>,
  <a href="ref/databases.html#index-7">[1]</a></li></ul></li>
</ul></td></tr></table></div></body></html>"""

TEXINFO_AND_JAVADOC = """<html><body><table class="index-vr" border="0">
<tr><td></td><th align="left">Index Entry</th><td>&nbsp;</td><th align="left"> Section</th></tr>
<tr><td></td><td valign="top"><a href="Bash-Variables.html#index-HISTIGNORE"><code>HISTIGNORE</code></a>:</td>
<td>&nbsp;</td><td valign="top"><a href="Bash-Variables.html#Bash-Variables">Bash Variables</a></td></tr>
</table><dl class="index">
<dt><a href="../java/lang/String.html#charAt(int)" class="member-name-link">charAt(int)</a> - Method in class
  java.lang.<a href="../java/lang/String.html">String</a></dt>
<dd><div class="block">Returns the char value at the specified index.</div></dd></dl></body></html>"""


def entries(html: str) -> list[tuple[str, str]]:
    return [(e.term, e.href) for e in keyword_entries(parse_html(html))]


def test_docbook_terms_are_the_text_before_their_links_and_subentries_carry_their_parent():
    got = entries(DOCBOOK)
    assert ("deadlock", "explicit-locking.html#LOCKING-DEADLOCKS") in got
    assert ("deadlock timeout during", "runtime-config-locks.html") in got
    assert (
        "lock_timeout configuration parameter",
        "runtime-config-client.html#RUNTIME-CONFIG-CLIENT-STATEMENT",
    ) in got
    # Every link after a written term is a target; the section titles are not terms.
    assert ("LOCK", "explicit-locking.html#LOCKING-TABLES") in got and ("LOCK", "sql-lock.html") in got
    assert not [t for t, _ in got if "Statement Behavior" in t or "Deadlocks" in t]


def test_a_see_also_entry_points_where_the_entry_it_names_points():
    assert ("median", "functions-aggregate.html") in entries(DOCBOOK)


def test_sphinx_terms_are_link_texts_under_their_parent_without_the_kind_suffix():
    got = entries(SPHINX)
    assert ("add-location makemessages command line option", got[0][1]) in got
    assert got[0][1] == "ref/django-admin.html#cmdoption-makemessages-add-location"
    assert ("select_for_update()", "ref/models/querysets.html#QuerySet.select_for_update") in got
    # "[1]" repeats the term's further targets.
    assert ("transactions atomic", "topics/db/transactions.html#index-1") in got
    assert ("transactions atomic", "ref/databases.html#index-7") in got


def test_texinfo_and_javadoc_entries_name_their_first_link_only():
    assert keyword_entries(parse_html(TEXINFO_AND_JAVADOC)) == [
        KeywordEntry("HISTIGNORE", "Bash-Variables.html#index-HISTIGNORE"),
        KeywordEntry("charAt", "../java/lang/String.html#charAt(int)"),
    ]


def test_a_page_without_a_keyword_index_has_no_entries():
    html = '<html><body><main><h1>Guide</h1><ul><li><a href="a.html">Setup</a></li></ul></main></body></html>'
    assert keyword_entries(parse_html(html)) == []
