"""What a site's addresses, titles and links say, as data: generated listings by their path, titles and link
texts that name no page, release notes, words addressed to an assistant; the pages' HTML is themes.py's."""

#: Generated listings and source views, by their path below the source's root: crawled for their links,
#: never returned by search. `search.html` and `404.html` only at the root (Django has a page on search).
GENERATED_PAGES = (
    r"(?:^|/)_modules/",  # Sphinx: highlighted module source
    r"(?:^|/)_sources/",  # Sphinx: the reST sources
    r"(?:^|/)genindex(?:-[^/]*)?\.html?$",  # Sphinx: the general index, whole or by letter
    r"(?:^|/)[a-z]*-?modindex\.html?$",  # Sphinx: py-modindex, np-modindex
    r"^search\.html?$",  # Sphinx, MkDocs: the search page
    r"^404\.html?$",  # MkDocs, Docusaurus: the not-found page
    r"(?:^|/)bookindex\.html?$",  # DocBook (PostgreSQL): the keyword index
    r"(?:^|/)(?:index-all|allclasses(?:-[a-z]+)?|allpackages-index|overview-tree|deprecated-list)\.html$",  # Javadoc
    r"(?:^|/)index-files/index-\d+\.html$",  # Javadoc: the index by letter (`-splitindex`), as index-all.html
    r"(?:^|/)class-use/",  # Javadoc: "uses of" listings
    r"(?:^|/)src-html/",  # Javadoc: source views (`-linksource`)
    r"\.rs\.html$",  # rustdoc: source views
    r"(?:^|/)src/[A-Z][\w']*(?:\.[A-Z][\w']*)*\.html$",  # Haddock: hyperlinked module source (`src/Data.Map.html`)
    r"(?:^|/)globals(?:_[a-z]+)?\.html$|_source\.html$",  # Doxygen: globals listings, source views
    r"(?:^|/)[^/]+-members\.html$",  # qdoc, Doxygen: a class's "list of all members"
)
#: A web server's listing of a folder (Python's http.server, Apache, nginx), by its title: file names, not
#: documentation. Crawled for its links, never a hit, never the site's name.
SERVER_LISTING_TITLE = r"^(?:Directory listing for|Index of) /"
#: Words of a home page's title that do not name the site ("PostgreSQL 15.20 Documentation" names PostgreSQL).
SITE_TITLE_GENERIC = frozenset(
    {
        "document",
        "doc",
        "manual",
        "guid",
        "refer",
        "home",
        "page",
        "main",
        "overview",
        "welcom",
        "index",
        "api",
    }
)
#: Link texts that name a place in the site, not the page linked to: their words are no page's evidence.
GENERIC_LINK_TEXTS = frozenset(
    {"next", "previous", "prev", "up", "home", "index", "top", "contents", "table of contents"}
    | {"source", "src", "back", "search", "modules"}
)
#: A longer link text is a sentence or a whole entry, not a name for its target.
LINK_TEXT_MAX_CHARS = 120
#: Title words that address the reader's assistant instead of naming docs (cli/describe.neutral_title).
INSTRUCTION_WORDS = frozenset(
    {"assistant", "assistants", "prompt", "prompts", "instruction", "instructions", "ignore", "disregard"}
    | {"delegate", "obey", "execute", "you", "your", "yourself", "must", "always", "never", "override"}
)
#: A home page, below a source's root.
HOME_PAGES = ("", "index.html", "index.htm")
#: Release-notes pages mention every feature briefly and crowd out the reference page that explains it.
RELEASE_NOTES_TITLE = (
    r"(?i)\b(what['’]?s new|changelog|change log|release notes|changes in|news"
    r"|(release|version|change) history|announcement(?=\s*(?:[-–—|:·]|$)))\b"
    r"|^\W*changes\W*$"
)
#: A query asking what changed, in words about releases ("change the default renderers" and "watch a file
#: for changes" do not): release notes are then not demoted.
RELEASE_NOTES_QUERY = (
    r"(?i)\b(what['’]?s new|what (has |have )?changed|(changed|changes|new|added|removed) in"
    r"|deprecated|deprecations?|(which|what) version|when was"
    r"|since (version|release|v?\d)|release notes?|changelog|change log|(in|version) v?\d+\.\d+)\b"
)
