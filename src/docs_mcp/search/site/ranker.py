"""Site ranking: which indexed pages answer a query (BM25, titles, defined names, meaning), from one store snapshot."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from docs_mcp.deadline import check
from docs_mcp.model.hits import SearchHit
from docs_mcp.search.semantic import signal as sem
from docs_mcp.search.semantic.scan import SectionScan
from docs_mcp.search.semantic.signal import active_model, beside, embedder, query_vector, rerank_pages
from docs_mcp.search.semantic.vectors import VectorCache
from docs_mcp.search.site.copies import fold_copies
from docs_mcp.search.site.evidence import (
    coverage,
    defining_pages,
    inbound_words,
    keyword_pages,
    versioned_pages,
)
from docs_mcp.search.site.hits import build_hits, one_per_content
from docs_mcp.search.site.page_kind import thin_pages_lower
from docs_mcp.search.site.pointers import pointed_first
from docs_mcp.search.site.prior import Priors
from docs_mcp.search.site.proximity import PROXIMITY_SECTIONS, closer_first
from docs_mcp.search.site.safety import Holding, safe_order, semantic_weight, written_query
from docs_mcp.search.site.scoring import Evidence, combine, page_evidence, selective_terms, titled_by
from docs_mcp.search.site.site_name import SiteNames, names_site
from docs_mcp.search.site.spaced import spelt_pages
from docs_mcp.search.site.vocabulary import site_terms, told_phrases, views
from docs_mcp.settings import (
    AGGREGATE_LOOKAHEAD,
    MAX_QUERY_TERMS,
    PAGE_CANDIDATES,
    SECTION_CANDIDATES,
    SEMANTIC_CACHE_BYTES,
    SEMANTIC_SCAN_BYTES,
    SEMANTIC_SCAN_TOP,
    SEMANTIC_TOP,
    SEMANTIC_WEIGHT,
    mechanism_on,
    site_terms_on,
)
from docs_mcp.store.interface import Reads, Scope, Store
from docs_mcp.text.compounds import compound_terms
from docs_mcp.text.terms import bounded_query, query_terms, tokenize
from docs_mcp.text.terms import idf as term_idf

if TYPE_CHECKING:
    import numpy as np

    #: The model, its size, the query's vector, and the pages the scan found nearest it (page → cosine).
    Semantic = tuple[str, int, np.ndarray, dict[int, float]]
    #: A search's hits, and the site's terms it names for a weak match (vocabulary.py).
    Found = tuple[list[SearchHit], list[str]]

#: Titles memoized at most (a page id is never reused, so an entry never goes stale; this bounds memory).
TITLE_MEMO_SIZE = 50_000


class SiteRanker:
    """Ranks a store's pages for a query; each search reads one snapshot on its thread's own connection."""

    def __init__(self, index: Store, prior: bool = True):
        self.index = index
        #: The thieves' prior of each source (None: the self-audit that learns it ranks without one).
        self._priors = Priors() if prior else None
        #: Per page id: title, its tokens, and key + content hash (a page served at two addresses is shown once).
        #: Ids are never reused, so an entry stays right for as long as its page exists.
        self._title_memo: dict[int, tuple[str, frozenset[str], str, str]] = {}
        self._memo_lock = threading.Lock()
        self._site = SiteNames()
        #: Semantic re-ranking: section vectors of pages ranked so far, read per page on first use.
        self._vectors = VectorCache(SEMANTIC_CACHE_BYTES)
        #: The same, of every page at once: pages nearest the query that its words did not find.
        self._scan = SectionScan(SEMANTIC_SCAN_BYTES)

    def search(self, query: str, limit: int, scope: Scope) -> list[SearchHit]:
        """Pages of the scope ranked by their best section's BM25 blended with page-level BM25, each pointing at
        its best section. Hits carry the page's key as `url` and no source: the caller names them."""
        return self.ranking(query, limit, scope)[0]

    def ranking(self, query: str, limit: int, scope: Scope) -> Found:
        """`search`'s hits, and the site's terms nearest the query when it matched weakly (vocabulary.py)."""
        query = bounded_query(query)
        with self.index.reading() as reads:
            return self._search(reads, query, limit, scope)

    def _search(self, reads: Reads, query: str, limit: int, scope: Scope) -> Found:
        terms = query_terms(query)
        if mechanism_on("site-name"):
            # "postgres" in a question about PostgreSQL names the whole site, not app-postgres.html.
            site = self._site.words(reads, scope)
            terms = [t for t in terms if not names_site(t, site)] or terms
        compounds = [t for t in compound_terms(query) if t not in terms] if mechanism_on("compounds") else []
        df, total = reads.doc_freq(terms + compounds, scope)
        # A compound counts only where the index has it: `hash map` finds the HashMap page.
        terms += [t for t in compounds if t in df][: max(0, MAX_QUERY_TERMS - len(terms))]
        selected = selective_terms(terms, df, total)
        if not selected:
            return [], []
        idf = {t: term_idf(total, df.get(t, 0)) for t in terms}
        # The query's vector and the scan (numpy, no store) run beside the text queries below.
        semantic = self._start_semantic(reads, query, scope)
        holding = Holding(reads.pages_holding)
        found = self._evidence(reads, query, selected, scope, idf, holding)
        combined = combine(query, terms, idf, found)
        check()  # between the stages (and in the store's queries): a search past its deadline stops
        if mechanism_on("proximity"):
            combined = closer_first(reads, query, combined, found, idf)
        model, qvec, lexical, cosine = None, None, combined, {}  # vocabulary.views weighs the two
        if semantic is not None:
            model, dim, qvec, near = semantic()
            weight = semantic_weight(query) if mechanism_on("query-weight") else SEMANTIC_WEIGHT
            combined, cosine = self._semantic(reads, model, dim, qvec, near, combined, weight)
        check()
        combined = self._lowered(reads, query, scope, combined, found, idf, selected)
        # No blend may put a page holding none of the query's words above one holding all as written, nor a
        # page without the version the query writes above one titled with it.
        combined = safe_order(combined, written_query(query, selected), found.versioned, holding)
        check()
        # A page that defines the queried name links to that definition, not to its best text match.
        section_of = {
            pid: found.defines.get(pid) or found.best_section.get(pid, (None, 0.0))[0] for pid in combined
        }
        ordered = sorted(combined, key=lambda pid: -combined[pid])
        distinct = one_per_content(ordered, found.titles, limit * AGGREGATE_LOOKAHEAD)
        # Copies are judged within one root, as one_per_content's are: two sources' pages are each a source's.
        owners = {pid: t[2].split("\n", 1)[0] for pid, t in self._titles(reads, set(distinct), scope).items()}
        folded = fold_copies(reads, distinct, section_of, combined, owners)
        ranked, section_of = folded.ranked[:limit], folded.section_of
        if model is not None:
            self._nearest_sections(reads, model, qvec, ranked, section_of)
        scored = [(pid, section_of[pid], folded.score[pid]) for pid in ranked]
        hits = build_hits(reads, scored, query, scope, folded.also)
        weak = site_terms_on() and views(told_phrases(query, terms, df, total), lexical, cosine, holding).weak
        return hits, site_terms(reads, query, selected, scope, ranked, idf) if weak else []

    def _lowered(
        self,
        reads: Reads,
        query: str,
        scope: Scope,
        combined: dict[int, float],
        found: Evidence,
        idf: dict[str, float],
        selected: list[str],
    ) -> dict[int, float]:
        """Thin pages lowered but for the query their titles say (page_kind.py); the pages the source's
        self-audit found stealing (prior.py), never one defining the queried name, filed under it in the site's
        index, or titled by the query; a page at the head below the one it points at (pointers.py)."""
        # How far each title is the query's words (numbers are the version rule's): a thin page it titles is the
        # one asked for; a listing yields to it.
        worded = [t for t in idf if not t.replace(".", "").isdigit()]
        titled = {pid: titled_by(worded, idf, t[1]) for pid, t in found.titles.items()}
        exempt = {*found.defines, *found.keywords}
        if mechanism_on("page-kind"):
            spared = titled if mechanism_on("titled-thin") else {}
            combined = thin_pages_lower(reads, combined, exempt, spared)
        keys = lambda ps: self._keys(reads, ps, scope)  # noqa: E731
        if self._priors is not None and mechanism_on("prior"):
            said = frozenset(tokenize(query))
            exempt |= {pid for pid, (_, words, _) in found.titles.items() if words and words <= said}
            combined = self._priors.lowered(reads, scope, combined, keys, exempt)
        if mechanism_on("pointers"):
            combined = pointed_first(reads, combined, selected, titled, keys)
        return combined

    def _evidence(
        self,
        reads: Reads,
        query: str,
        terms: list[str],
        scope: Scope,
        idf: dict[str, float],
        holding: Holding,
    ) -> Evidence:
        """The candidate pages of a query: best sections, page-level matches and pages defining a queried name."""
        sections = reads.section_matches(terms, scope, SECTION_CANDIDATES)
        pages = reads.page_matches(terms, scope, PAGE_CANDIDATES)
        defines = defining_pages(reads, query, scope)
        spelt = spelt_pages(reads, query, scope, terms)
        check()
        # Section rows come best first, so each page's list does too.
        by_page: dict[int, list[tuple[int, float]]] = {}
        for page_id, section_id, score in sections:
            by_page.setdefault(page_id, []).append((section_id, score))
        best_section = {pid: v[0] for pid, v in by_page.items()}
        page_score = page_evidence(dict(pages), by_page)
        keywords = keyword_pages(reads, terms, scope, idf)
        versioned = versioned_pages(reads, query, scope)
        candidates = set(best_section) | set(page_score) | set(defines) | set(keywords) | set(versioned)
        titles = self._titles(reads, candidates | set(spelt), scope)
        # A name spelt as words counts on the page whose title starts with its first word (`pathlib glob`:
        # pathlib's page, not the audit events table listing pathlib.Path.glob among thousands, nor, for
        # "process pool", multiprocessing's page, whose title only holds the word).
        for pid, (section_id, first) in spelt.items():
            if pid not in defines and tokenize(titles[pid][0])[:1] == tokenize(first)[:1]:
                defines[pid] = section_id
                candidates.add(pid)
        # Coverage only beside the cosine: alone it lifts long pages holding every word over the exact one
        # (Python pipeline, tuning half: 87% -> 80%); blended, the pages it lifts are judged by meaning too.
        covered = candidates if active_model() is not None else set()
        # Every term of the query, as combine weighs them.
        anchors = inbound_words(reads, candidates, list(idf)) if mechanism_on("anchors") else {}
        check()
        return Evidence(
            candidates,
            best_section,
            page_score,
            defines,
            titles,
            coverage(holding, terms, idf, covered),
            keywords,
            anchors,
            {pid: [sid for sid, _ in v[:PROXIMITY_SECTIONS]] for pid, v in by_page.items()},
            versioned,
        )

    def _start_semantic(self, reads: Reads, query: str, scope: Scope) -> Callable[[], Semantic] | None:
        """The query's vector and the pages nearest it among all (`scan`), started on a background thread; the
        call returned gives them. None without a model. The scan's matrix follows the pages with vectors."""
        model = active_model() if SEMANTIC_WEIGHT > 0 else None
        loaded = embedder(model) if model is not None else None
        if model is None or loaded is None:
            return None
        view = self._scan.view(reads, model, loaded.dim, scope) if mechanism_on("scan") else None

        def work() -> Semantic:
            qvec = query_vector(model, query)
            return model, loaded.dim, qvec, {} if view is None else view.nearest(qvec, SEMANTIC_SCAN_TOP)

        return beside(work)

    def _semantic(
        self,
        reads: Reads,
        name: str,
        dim: int,
        qvec: np.ndarray,
        near: dict[int, float],
        combined: dict[int, float],
        weight: float,
    ) -> tuple[dict[int, float], dict[int, float]]:
        """The best pages re-ranked by their best section's cosine, less what their number of sections alone gives
        (without_breadth), blended in at `weight` with the scan's `near` pages; returns it and the cosines."""
        head = sorted(combined, key=lambda p: -combined[p])[:SEMANTIC_TOP]
        missing = self._vectors.missing(name, head)
        if missing:
            self._vectors.add(name, dim, reads.vectors(name, missing))
        cosine = {**near, **self._vectors.cosines(name, qvec, head)}
        rows = {**self._scan.rows(list(near)), **self._vectors.rows(name, head)}
        fair = sem.without_breadth(cosine, rows) if mechanism_on("cosine-breadth") else cosine
        return rerank_pages(combined, fair, weight, SEMANTIC_TOP, list(near)), cosine

    def _nearest_sections(
        self, reads: Reads, name: str, qvec: np.ndarray, ranked: list[int], section_of: dict[int, int | None]
    ) -> None:
        """A hit without a section among the text matches points at its section nearest the query, from the
        vectors at hand: a full-text lookup per hit cost ~1 ms each, and finds none on a paraphrase. Where the
        nearest row is an entry's (past the sections: no section there), the hits take the full-text lookup."""
        rows = {}
        for pid in ranked:
            if section_of.get(pid) is None:
                row = self._vectors.best_row(name, qvec, pid)
                row = self._scan.best_row(pid, qvec) if row is None else row
                if row is not None:
                    rows[pid] = row
        ids = reads.section_ids_at(list(rows.items()))
        section_of.update({pid: ids[(pid, row)] for pid, row in rows.items() if (pid, row) in ids})

    def _keys(self, reads: Reads, page_ids: set[int], scope: Scope) -> dict[int, str]:
        """The pages' keys (from the titles' memo, filled first)."""
        self._titles(reads, page_ids, scope)
        return {pid: memo[2] for pid in page_ids if (memo := self._title_memo.get(pid)) is not None}

    def _titles(
        self, reads: Reads, page_ids: set[int], scope: Scope
    ) -> dict[int, tuple[str, frozenset[str], str]]:
        """Title, title tokens and owner + content hash per page (two addresses of one page share the last)."""
        missing = [pid for pid in page_ids if pid not in self._title_memo]
        if missing:
            rows = reads.page_rows(missing)
            with self._memo_lock:
                if len(self._title_memo) > TITLE_MEMO_SIZE:
                    self._title_memo.clear()
                for row in rows:
                    tokens = frozenset(tokenize(row.title))
                    self._title_memo[row.id] = (row.title, tokens, row.key, row.hash or f"page {row.id}")
        out = {}
        for pid in page_ids:
            memo = self._title_memo.get(pid)
            if memo is not None:
                title, tokens, key, digest = memo
                # Copies are judged within one root: the same page under two roots is two sources' page.
                owner = next((p for p in scope.prefixes if key.startswith(p)), "")
                out[pid] = (title, tokens, f"{owner}\n{digest}")
        return out
