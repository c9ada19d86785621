"""Site themes: what documentation generators' pages look like (content containers, noise, entries), as data;
shape-based code needs these only where shape alone cannot tell. The words of sites are site_words.py's."""

#: Definition lists with these classes are labels, not definitions (Sphinx field lists: "Parameters:").
DEFINITION_LIST_SKIP_CLASSES = frozenset({"field-list"})
#: Words a signature may start with before the name (Sphinx: "class", "exception", "async", ...).
SIGNATURE_PREFIXES = frozenset(
    [
        "abstract",
        "abstractmethod",
        "async",
        "attribute",
        "await",
        "awaitable",
        "class",
        "classmethod",
        "coroutine",
        "data",
        "decorator",
        "exception",
        "final",
        "method",
        "property",
        "static",
        "staticmethod",
    ]
)
# --- HTML: where the content is, and what is noise --------------------------------------------
#: Literal blocks declared as plain text (Sphinx highlight-none/-text, ```text fences): program output,
#: CLI help, exception trees, license texts. They are prose to a reader, so they stay when code is off.
PLAIN_TEXT_LANGUAGES = frozenset({"none", "text", "plaintext", "plain", "txt", "output"})
#: The fence language such blocks are written with, whatever they declared.
PLAIN_TEXT_TAG = "text"
#: Tried in order; a selector wins when it matches one container with text (nested ones count as one) and
#: that container has enough text (MIN_MAIN_TEXT) or holds an h1.
MAIN_CONTENT_SELECTORS: tuple[str, ...] = (
    "article.md-content__inner",  # MkDocs Material
    "div.theme-doc-markdown",  # Docusaurus
    "div.body[role=main]",  # Sphinx classic/alabaster
    "div[role=main]",
    "article[role=main]",
    "main article",
    "div.body",  # Sphinx without role
    "main",
    "[role=main]",
    "article",
    "div#yui-main",  # Django's Sphinx theme: inside div.document, without its header and nav
    "div.document",  # Sphinx outer container
    # DocBook; BoostBook's section pages hold one div.section between its header and footer tables.
    "div.book, div.chapter, div.sect1, div.article, div.refentry, div.appendix, div.part, div.section",
    "div#apicontent",  # Node.js API docs: div#content also holds the module list and the header
    "div#main-content",  # MkDocs' old Bootstrap theme (Django REST framework)
    "div#content",
    "div.content",
)
#: Content shorter than this, without an h1, is treated as a miss and the next selector is tried.
MIN_MAIN_TEXT = 200

#: Removed before sectioning; kept as data so themes can be added without code.
NOISE_SELECTORS: tuple[str, ...] = (
    "script",
    "style",
    "iframe",
    "nav",
    "header",
    "footer",
    # Not bare "aside": inside the content it is footnotes, notes and sidebars (Sphinx aside.footnote).
    "aside.theme-doc-sidebar-container",
    "aside.md-sidebar",
    "aside.toc",
    "form",
    "button",
    "input",
    "select",
    "textarea",
    "img",
    "svg",
    "picture",
    "video",
    "audio",
    "canvas",
    "a.headerlink",
    "a.hash-link",
    "a.anchor",
    "a.anchorjs-link",
    "a.permalink",
    "span.permalink",  # Doxygen: the ◆ before each member's title
    "a.copiable-anchor",  # Texinfo 7: the ¶ after each entry's term
    "a.copiable-link",  # Texinfo 7: the ¶ after each heading
    ".viewcode-link",  # Sphinx viewcode: "[source]" glued to every signature
    ".prev-next-area",  # pydata-sphinx-theme: previous / next page links
    "span.notable-traits",  # rustdoc: the ⓘ tooltip text glued to signatures
    "a.srclink",  # rustdoc: "source" links
    "#toggle-all-docs",  # rustdoc: "[−]" expand/collapse control
    "summary.hideme",  # rustdoc: "Expand description"
    "a.test-arrow",  # rustdoc: "Run" link after examples
    "div#mbrsel",  # Scaladoc: the members' filter box ("Ordering Alphabetic By Inheritance … Visibility Public All")
    "a.md-content__button",
    "[aria-label=breadcrumb]",
    "[aria-label=breadcrumbs]",
    ".breadcrumb",
    ".breadcrumbs",
    ".theme-doc-breadcrumbs",
    ".theme-doc-toc-desktop",
    ".theme-doc-toc-mobile",
    ".theme-doc-footer",
    ".theme-doc-footer-edit-meta-row",
    ".pagination-nav",
    ".md-feedback",
    ".md-source-file",
    ".feedback",
    ".rating",
    ".survey",
    ".was-this-helpful",
    ".edit-this-page",
    ".edit-page",
    ".copy-label",
    ".copybtn",
    ".clipboard",
    ".sphinxsidebar",
    "div.related",
    "div.navheader",
    "div.navfooter",
    "div.toc",
    "div.footer",
    "#searchbox",
    ".prev-next",
    ".pager",
    ".skip-link",
    # MediaWiki (cppreference, wiki exports): the "From …" tagline, the breadcrumb, jump and [edit] links, the
    # "Retrieved from" footer and the category links.
    "#siteSub",
    "#contentSub",
    "#jump-to-nav",
    ".mw-jump-link",
    ".mw-editsection",
    ".printfooter",
    "#catlinks",
    "#mw-js-message",
    ".t-navbar",  # cppreference: the library's navigation bar atop every page
    ".t-example-live-link",  # cppreference: "Run this code"
    "div.spirit-nav",  # BoostBook: the prev / up / home arrows
    "div.copyright-footer",  # BoostBook: the copyright and licence lines of every page
)

#: What a reader never sees (convert/hidden.py): its text is neither served nor indexed, its links give their
#: target no words. Elements by selector (sphinx-tabs marks its other tabs `hidden`: one tab is served).
HIDDEN_SELECTORS: tuple[str, ...] = ("template", "noscript", "[hidden]", ".sr-only", ".visually-hidden")
#: Attributes whose value hides an element, compared without case or surrounding space (`aria-hidden="TRUE"`).
HIDDEN_ATTRIBUTES: dict[str, frozenset[str]] = {"aria-hidden": frozenset({"true"})}
#: Elements shown only with an `open` attribute: a <dialog> no script opened.
SHOWN_WHEN_OPEN = frozenset({"dialog"})
#: Inline style declarations that hide an element: property → values (lower case, spaces removed).
HIDDEN_STYLES: dict[str, frozenset[str]] = {
    "display": frozenset({"none"}),
    "visibility": frozenset({"hidden", "collapse"}),
}
#: Properties at a zero length (any unit) hide text.
ZERO_SIZE_HIDES = frozenset({"font-size"})
#: Properties that put an element off-screen at a negative length of at least OFFSCREEN_PX (em, rem: 16 px).
OFFSCREEN_PROPERTIES = frozenset({"left", "right", "top", "text-indent", "margin-left", "margin-top"})
OFFSCREEN_PX = 999
#: Elements whose hiding style is kept (their text is the page's): Doxygen's class and file trees fold their
#: rows (`tr style="display:none"`) for a script to unfold; SQLite's pages name each pragma in a hidden `<h _id>`
#: term line the units read (convert/definitions); Javadoc hides the caption naming a table from the eye only.
HIDDEN_STYLE_KEPT_TAGS = frozenset({"tr", "h", "caption"})

#: Emphasis and code that are markup, not stress: unwrapped so signatures read as code,
#: `copy2(src, dst, *, follow=True)`, not `copy2(*src*, *dst*, ***, *follow=True*)`. Sphinx emphasizes each
#: parameter of a signature; older Sphinx (Django 3.2's docs) with plain <em>s and a <code> name.
PLAIN_EMPHASIS_SELECTORS: tuple[str, ...] = ("em.sig-param", "dt.sig em", "dt.sig code")
#: Literal blocks that are the API itself, not an example: kept (as plain text) when code is left out.
#: PostgreSQL's SQL grammar and C synopses, Sphinx grammar productions.
KEPT_CODE_CLASSES = frozenset({"synopsis", "funcsynopsisinfo", "productionlist"})
#: A block holding an element whose id starts so is a grammar production (Sphinx `productionlist`).
GRAMMAR_ID_PREFIX = "grammar-token"

#: Text a theme's CSS puts before an element (`::before`, or `::after` of an empty one), written out:
#: numpydoc's parameter types read `levels : sequence`, not `levelssequence`; gi-docgen's titles (GTK, GLib)
#: `Gtk.Label.set_wrap_mode` (its CSS draws a ▸), not `GtkLabelset_wrap_mode`, whose words match nothing.
CSS_PREFIXES: dict[str, str] = {"span.classifier": " : ", "span.sep": "."}

#: Title elements of admonition boxes; the title becomes the box's bold label (`> **Note:** …`).
#: A box's first child is its title when it has one of these classes (or one starting with a prefix below:
#: Docusaurus hashes its class names, `admonitionHeading_Gvgb`).
ADMONITION_TITLE_CLASSES = frozenset({"admonition-title", "title"})
ADMONITION_TITLE_CLASS_PREFIXES: tuple[str, ...] = ("admonitionHeading",)
#: Headings inside these (admonition titles like DocBook's "Note" h3) label a box, not a section.
ADMONITION_SELECTORS: tuple[str, ...] = (
    "div.note",
    "div.tip",
    "div.warning",
    "div.caution",
    "div.important",
    "div.admonition",
    "div.attention",
    "div.hint",
    "div.danger",
    "div.seealso",
    "div.callout",
    "div.theme-admonition",
)
#: Generated keyword indexes (DocBook's bookindex, Sphinx genindex and modindex): crawled for their links, never
#: ranked. Their entries are every term of the book followed by a link, so they "match" nearly any query,
#: and DocBook's keep the link share (about 56%) under the table-of-contents threshold.
INDEX_PAGE_SELECTORS: tuple[str, ...] = (
    "div.indexdiv",
    "table.indextable",
    "table.genindextable",
    "div.genindex-jumpbox",  # Sphinx genindex.html when the index is split by letter
)
#: Keyword indexes read as term → link entries (convert/keyword_index.py): DocBook, Sphinx, Javadoc's
#: index-files, Texinfo's `@printindex` tables (index-cp, index-fn, …).
KEYWORD_INDEX_SELECTORS: tuple[str, ...] = (
    "div.indexdiv",
    "table.indextable",
    "table.genindextable",
    "dl.index",
    "table[class^=index-]",
)
#: Classes marking a container that wraps exactly one section (its id names the section).
SECTION_CONTAINER_CLASSES = frozenset(
    {
        "section",
        "sect1",
        "sect2",
        "sect3",
        "sect4",
        "sect5",
        "refsynopsisdiv",
        "refsect1",
        "refsect2",
        "refsect3",
        "simplesect",
    }
)
