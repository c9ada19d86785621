"""Every cap, default, deadline and environment variable in one place, so budgets are auditable and tunable."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from docs_mcp import __version__
from docs_mcp.environment import default_cache_dir, default_index_url, env  # noqa: F401  (re-exported)

# --- Response budgets (characters) -------------------------------------------------------------
DEFAULT_MAX_LENGTH = 5_000
HARD_CAP = 20_000
#: Headers, hints and footers a tool may add on top of its content budget.
METADATA_ALLOWANCE = 1_000
#: Truncation looks this far back from the limit for a natural boundary.
BOUNDARY_WINDOW = 200

#: A code block of at most this many lines and chars is shown as text when code is left out (issue 20: a
#: one-line format string behind `[code: 1 line]` cost a second call). Their words stay out of the text
#: sections are ranked by: indexed, code words ranked the wrong sections first (sdl2, mkdocs tuning halves).
SHORT_LITERAL_LINES = 3
SHORT_LITERAL_CHARS = 300

# --- search_docs ------------------------------------------------------------------------------
DEFAULT_MAX_RESULTS, MAX_RESULTS = 5, 20
#: A hit's snippet (pipeline, tuning half: 200 → 300 chars: +3 solved, chars per solved -2%; benchmarks.md).
SNIPPET_CHARS = 300
HEADINGS_CAP = 30
#: Levels kept when a page has more headings than HEADINGS_CAP.
HEADINGS_FALLBACK_MAX_LEVEL = 3

# --- search_in_doc ----------------------------------------------------------------------------
DEFAULT_MAX_SECTIONS = 3
MAX_SECTIONS = 10
#: A section whose own markdown is shorter than this is returned whole.
SMALL_SECTION_CHARS = 1_200
#: Size of one matching passage cut out of a long section.
PASSAGE_CHARS = 700
#: A passage that opens on a definition whose name holds this many query terms (and is at least half query
#: terms) counts those terms twice: "statement timeout" finds `statement_timeout (integer)` itself.
DEFINITION_NAME_MIN_TERMS = 2
#: A passage also scores its densest this-many chars (about a sentence): query words close together answer.
PROXIMITY_SPAN = 150
#: Weight of that densest span against the whole passage's coverage of the query.
PROXIMITY_WEIGHT = 0.6
#: A passage whose last line matches may run on this many chars to finish its sentence, not stop mid-way.
SENTENCE_REACH = 150
#: The best passage runs on by up to this many chars of whole lines: the answer often follows the lines that
#: matched (tuning halves, 8 sets: in-doc 225 -> 234 of 289; 250: 231, 800: 237).
PASSAGE_RUN_ON = 400
#: Passages of one section closer than this (chars) are joined with the text between them, not cut apart.
PASSAGE_GAP_BRIDGE = 200
#: A long entry's passage opens with its term line, at most this many chars of it.
PASSAGE_TERM_CHARS = 200
#: Passages returned per long section, best first.
PASSAGES_PER_SECTION = 2
#: Extra passages for the best section when fewer sections than `max_sections` pass the score floor.
SPARE_SLOT_PASSAGES = 1
#: search_in_doc's map: lines naming the next best units it did not show (sections, entries), within max_length.
MAP_LINES = 1
#: Words of a unit's own text on its map line, after its id, name and size.
MAP_WORDS = 8
#: Secondary sections must score at least this fraction of the best one to be included: a weak second section
#: costs room more often than it holds the answer. In-doc (benchmarks/quality/in_doc_loop.py), 17 sets, both
#: forms, solved / within 2,000 / within 4,000 chars, tuning half: 0.5 731 / 198 / 619, 0.55 729 / 213 / 630,
#: 0.6 726 / 227 / 638, 0.4 736 / 152 / 585; validation half: 0.5 735 / 218 / 596, 0.55 736 / 233 / 615.
SECONDARY_SCORE_RATIO = 0.55
#: Multiplier on BM25 for query terms found in a section's heading.
HEADING_BOOST = 1.5
#: Multiplier on BM25 for query terms among the names a section defines (definition-list terms).
NAMES_BOOST = 0.5

# --- Units: anchors and definition entries (issue 11) -------------------------------------------
#: Longest heading or definition title kept; longer ones are cut with "…" (not a hostile 200,000-char one).
MAX_TITLE_CHARS = 200
#: Elements nested deeper than this are flattened to text (real docs nest ≤ 30; the converter recurses).
MAX_DEPTH = 100
#: A section's HTML larger than this is shown as plain text with a note (a 4 MB table: 20 s, 612 MB).
MAX_CONVERT_CHARS = 1_000_000
#: Most sections per page (real pages: up to ~4,100); later headings are paragraphs of the last, with a note.
MAX_PAGE_SECTIONS = 5_000
#: A page whose sectioning takes longer than this (CPU seconds) is one section with a note (real pages: < 1 s).
PAGE_SPLIT_SECONDS = 10.0
#: An id longer than this is not something a link uses: the unit gets a slug of its title instead.
MAX_ID_CHARS = 120
#: Entries by shape (convert/shapes.py): a run of this many term lines of one kind, each at most these sizes.
SHAPE_MIN_RUN = 3
SHAPE_TERM_MAX_CHARS = 100
SHAPE_TERM_MAX_WORDS = 12
#: A table's rows are entries when at least this share of them open on a term cell (an option table).
SHAPE_TABLE_SHARE = 0.8
#: Definition names shown per section in get_doc_toc before the rest are folded into a count.
TOC_ENTRY_NAME_CHARS = 60
#: Most chars get_doc_toc spends on definition lists; past it the longest lists fold into their counts.
TOC_DEFINITIONS_CHARS = 4_000

# --- get_doc_toc / errors ---------------------------------------------------------------------
#: Ids listed when a section id is unknown.
UNKNOWN_ID_LIST_CAP = 40

# --- Fetching ---------------------------------------------------------------------------------
MAX_BODY_BYTES = 10 * 1024 * 1024
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 20.0
MAX_REDIRECTS = 5
#: The distribution is `docslice` (the PyPI name `docs-mcp` belongs to an unrelated project).
USER_AGENT = f"docslice/{__version__} (+https://pypi.org/project/docslice/)"
HTML_TYPES = ("text/html", "application/xhtml+xml")
MARKDOWN_TYPES = ("text/markdown", "text/x-markdown", "text/plain")
LOCAL_SUFFIXES = (".html", ".htm", ".md")

# --- Hardening: the fetch path and the MCP boundary (issue 13) -------------------------------------
#: Total seconds one request (every hop and the body) and one tool call may take; the work is cancelled
#: after it. The read timeout (--timeout) only bounds the wait for each next byte.
DEADLINE = 30.0
#: Longest page address accepted (a sitemap URL is at most 2,048 chars by its spec).
MAX_URL_CHARS = 2_048
#: Content codings decoded, as zlib window bits; one layer at most, anything else is refused.
CONTENT_CODINGS = {"gzip": 31, "x-gzip": 31, "deflate": 15}
ACCEPT_ENCODING = "gzip, deflate"
#: Decompressed bytes produced per step: a body is inflated this much at a time, never a whole chunk at once.
INFLATE_STEP = 64 * 1024
#: robots.txt is read up to this size (Google's limit too); the rest is ignored.
ROBOTS_MAX_BYTES = 512 * 1024
#: Threads that parse pages for tool calls: a pool of their own, so slow parses never take the threads
#: cheap calls need (the default pool has cores + 4).
PARSE_WORKERS = 2

# --- Cache ------------------------------------------------------------------------------------
CACHE_SIZE = 50
CACHE_TTL = 300.0
CACHE_MB = 48  # the cached pages' estimated memory (tools/cache.weight); docs/deploy.md, Sizing

# --- Index ------------------------------------------------------------------------------------
CRAWL_PAGE_LIMIT = 100_000
CRAWL_CONCURRENCY = 8
INDEX_TTL_DAYS = 7.0
MAX_RETRY_AFTER = 30.0

# --- Index and site search: bounds and safety (store) -------------------------------------------
#: A query is cut to this many characters before anything is computed from it (search_docs, search_in_doc).
MAX_QUERY_CHARS = 1_000
#: ... and to this many distinct terms: 5,000 distinct terms took 79 s to rank before there was a bound.
MAX_QUERY_TERMS = 64
#: A write transaction that finds the index locked by another process is retried this many times, with
#: exponential backoff from WRITE_RETRY_DELAY seconds (each attempt also waits SQLITE_BUSY_TIMEOUT).
WRITE_RETRIES = 8
WRITE_RETRY_DELAY = 0.05
#: Milliseconds SQLite itself waits for a lock before reporting "database is locked".
SQLITE_BUSY_TIMEOUT_MS = 5_000
#: `--index-url postgresql://…`: connections per process at most (readers and the build's writer share them),
#: and seconds a call waits for one (or for the server to come back) before answering "index unavailable".
PG_POOL_SIZE = int(env("PG_POOL_SIZE", "8"))
PG_POOL_TIMEOUT = 5.0
#: A server's background build runs this much nicer than the server (parsing processes, the thread writing
#: the index): on a busy machine a search gets a core first.
WORKER_NICENESS = 10
#: Seconds between two checks, in an indexing worker process, that the process it works for is alive.
PARENT_POLL_SECONDS = 0.5

# --- Site search ranking ----------------------------------------------------------------------
#: Release-notes pages (site_words.RELEASE_NOTES_TITLE) mention every feature briefly: their score is multiplied
#: by this, unless the query itself asks what changed (site_words.RELEASE_NOTES_QUERY).
RELEASE_NOTES_FACTOR = 0.7
#: Weight of "the page title names query terms" (IDF-weighted share of the query), on top of BM25.
TITLE_MATCH_BONUS = 0.5
#: Added for a page that defines a qualified name the query gives (`time.sleep`): its API reference.
NAME_MATCH_BONUS = 1.0
#: Weight of "the page holds the query's terms" (IDF share of its selective terms): a chapter covering the
#: question beats small pages sharing one rare word with it. Only beside the `semantic` cosine (ranker.py).
COVERAGE_BONUS = 0.5
#: Weight of "the site's keyword index (genindex, bookindex, index-files) files the page under the query's
#: words": best entry's share of its words in the query × query IDF share it covers (words a page lacks).
KEYWORD_BONUS = 0.5
#: Keyword-index entries read per query (best BM25 first).
KEYWORD_CANDIDATES = 200

#: Column weights: a term in a section's heading counts most, then the API names it defines
#: (definition-list terms), its heading path, and its body least.
SECTION_WEIGHTS = (8.0, 4.0, 1.0, 6.0)
#: Page-level BM25 (title, headings, whole text, defined names) complements section scores.
PAGE_WEIGHTS = (6.0, 3.0, 1.0, 3.0)
#: Share of the page-level score in a page's final score (the rest is its best section's).
PAGE_SHARE = 0.4
#: A page's own score adds its this-many best sections (of the SECTION_CANDIDATES) to its page-level BM25.
PAGE_EVIDENCE_SECTIONS = 3
#: Hits checked for all-in-one copies (all.html, print.html): this many times the results asked for.
AGGREGATE_LOOKAHEAD = 3
#: A page is an all-in-one copy of another when it has at least this many times its sections.
AGGREGATE_SIZE_RATIO = 2
SECTION_CANDIDATES = 100
PAGE_CANDIDATES = 40
#: Sections checked for an exact API-name match (a one-letter option like `-O` has many partial ones).
NAME_CANDIDATES = 500
#: Query terms in more than this share of sections add little to BM25 but most of its cost: dropped.
COMMON_TERM_SHARE = 0.20
MIN_QUERY_TERMS = 2
#: Most postings one query may score: the rarest terms are kept while their document counts fit. BM25's
#: cost grows with matching rows, so this keeps latency flat as an index grows (50,000 sections and more).
MAX_POSTINGS = 2_000
#: `docslice audit` (issue 42): pages sampled by default, hits read per query, sections asked per page, thieves shown.
AUDIT_PAGES, AUDIT_HITS, AUDIT_SECTIONS_PER_PAGE, AUDIT_SHOWN = 200, 10, 3, 10
#: The thieves' prior (issue 42 item 3), learned at the end of a build: audit/prior.py says what each bounds.
#: Off unless $DOCSLICE_PRIOR=on: on the tuning sites it did not gain (docs/benchmarks.md, "The thieves' prior").
PRIOR_ON = env("PRIOR", "off") == "on"
PRIOR_MIN_PAGES, PRIOR_PAGES, PRIOR_ITEMS, PRIOR_SECONDS, PRIOR_MIN_ITEMS = 30, 80, 240, 10.0, 40
PRIOR_MIN_ABOVE, PRIOR_MIN_SHARE, PRIOR_STRENGTH, PRIOR_REACH = 5, 0.02, 1.5, 5
#: The site's own terms for a weakly matched query (issue 42 item 4; search/site/vocabulary.py): entries of its
#: keyword index, named when the lexical and semantic top pages disagree, or when both are weak (no top page holds
#: more than SITE_TERMS_SHARE of the query's selective words, and none is nearer it than SITE_TERMS_COSINE). Off
#: unless $DOCSLICE_SITE_TERMS=on: on the tuning halves neither sections' headings nor the index's entries gained
#: (docs/benchmarks.md, "Site terms").
SITE_TERMS_ON = env("SITE_TERMS", "off") == "on"
SITE_TERMS, SITE_TERM_CHARS, SITE_TERMS_TOP, SITE_TERMS_SHARE, SITE_TERMS_COSINE = 5, 60, 3, 0.5, 0.35

# --- Ablation (issue 20: each mechanism off, one at a time, on the validation halves) -------------
#: Mechanisms named in $DOCSLICE_ABLATE (comma-separated) are switched off; for benchmarks, never needed in use.
ABLATED = frozenset(n.strip() for n in env("ABLATE", "").split(",") if n.strip())


def mechanism_on(name: str) -> bool:
    """False when $DOCSLICE_ABLATE names this mechanism (an ablation benchmark switched it off)."""
    return name not in ABLATED


def site_terms_on() -> bool:
    """Whether search_docs names the site's terms for a weakly matched query (SITE_TERMS_ON, not ablated)."""
    return SITE_TERMS_ON and mechanism_on("site-terms")


# --- Semantic signal (on by default since 0.4.0; issue 11 item 6, issue 20; owner: sem) -------
#: The model: "auto" (wordllama-128), "off", "wordllama" (256 dimensions), "wordllama-64", "minilm".
SEMANTIC_MODEL = env("SEMANTIC_MODEL", "auto").strip().lower() or "off"  # "": off
#: search_docs: weight of a page's cosine against its lexical score, both as z-scores over the SEMANTIC_TOP
#: best pages. Chosen on the tuning halves (even ids) of six question sets: 0.4 (0.3-0.5 all gain); with
#: the scan below 0.6 (0.7 ties on MRR, gains GTK 4 and loses Python's first ranks: MRR .957 -> .923).
SEMANTIC_WEIGHT = 0.6
#: search_docs: a page's cosine is its best row's; the best of n rows beats one row by about this × √(2 ln n) by
#: their number alone, so that much is taken off before the blend (DOCSLICE_ABLATE=cosine-breadth; issue 42:
#: a page of hundreds of sections has one near any query). Chosen on the audit's tuning sites (0.03 and 0.05).
SEMANTIC_BREADTH_SPREAD = 0.03
#: search_docs: pages (best lexical first) whose order the cosine may change (20 -> 150: GTK 4 tuning r@5 +.08).
SEMANTIC_TOP = 150
#: Section vectors kept in memory, per page read on first use (float32; 32 MB: ~65,000 at 128 dims).
SEMANTIC_CACHE_BYTES = 32 * 1024 * 1024
#: search_docs: pages nearest the query by their best section, among all pages of the scope, that join the
#: re-ranked ones (a paraphrased question shares no selective word with its page).
SEMANTIC_SCAN_TOP = 20
#: The scan's matrix at most (float32: 128 MB holds ~260,000 sections at 128 dims); a bigger site isn't scanned.
SEMANTIC_SCAN_BYTES = 128 * 1024 * 1024
#: Characters of a section's text its vector is computed from (all of a 2.8 MB one: 4 s, 400 MB).
SEMANTIC_TEXT_CHARS = 20_000
#: Pages whose vectors are computed per batch when an index built without them is filled in.
SEMANTIC_FILL_BATCH = 32

# --- Source names (owner: cli; the HTTP transport's limits: http_settings.py) ----------------------
#: Host labels and path segments that say nothing about which docs a source holds: left out of its name.
GENERIC_NAME_PARTS = frozenset(
    {"www", "docs", "doc", "documentation", "html", "htm", "en", "en-us", "readthedocs", "github", "gitlab"}
)
#: A folder with one of these names is named after its parent (`…/python3.11/html` → `python3.11`).
GENERIC_FOLDER_NAMES = frozenset(
    {"html", "htm", "docs", "doc", "documentation", "_build", "build", "_site", "dirhtml", "public", "out"}
)
SOURCE_NAME_MAX = 40  # longest derived source name; whole words are kept


@dataclass(frozen=True)
class Settings:
    """Runtime configuration, built once by the CLI or a test."""

    max_chars: int = HARD_CAP
    cache_size: int = CACHE_SIZE
    cache_ttl: float = CACHE_TTL
    cache_mb: int = CACHE_MB
    max_body_bytes: int = MAX_BODY_BYTES
    connect_timeout: float = CONNECT_TIMEOUT
    read_timeout: float = READ_TIMEOUT
    crawl_limit: int = CRAWL_PAGE_LIMIT
    concurrency: int = CRAWL_CONCURRENCY
    index_ttl_days: float = INDEX_TTL_DAYS
    #: Total seconds per request and per tool call (see DEADLINE).
    deadline: float = DEADLINE
    cache_dir: Path | None = field(default=None)
    #: Build the site index in the background when the server starts.
    auto_index: bool = True
    #: A PostgreSQL address (`--index-url`, $DOCSLICE_INDEX_URL): the index lives there, not in cache_dir.
    index_url: str | None = None
    #: `--session-budget`: chars one MCP session may be sent in all (None: no budget).
    session_budget: int | None = None
