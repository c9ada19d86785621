"""Known-item queries made from a page's own structure: its title, a heading, a defined name, what links to it
say, and a section's first sentence without its heading's words (a paraphrase's shape). Each query knows its
answer: the page (site search) or the section (search inside the page)."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass

from docs_mcp.model.document import Document
from docs_mcp.settings import AUDIT_SECTIONS_PER_PAGE
from docs_mcp.text.terms import query_terms

#: The kinds of known-item query, in report order; the in-page part uses the two a section has.
PAGE_KINDS = ("title", "heading", "name", "link", "paraphrase")
SECTION_KINDS = ("heading", "paraphrase")
#: Words of a query at most (a title or heading runs on), and a paraphrase's content words at least.
MAX_QUERY_WORDS, MIN_PARAPHRASE_WORDS = 16, 4
#: A link query: the words the most pages linking to the page say of it.
LINK_WORDS = 4
#: A sentence ends at its first stop followed by a space (or at the text's end).
_SENTENCE_END = re.compile(r"(?<=[.!?:;])\s")
#: A defined name's signature: the name is what comes before its arguments.
_ARGUMENTS = re.compile(r"[(<\[{]")


@dataclass(frozen=True)
class KnownItem:
    """One query and its right answer: a page (`section` -1) or one of its sections (by index)."""

    kind: str
    query: str
    key: str
    section: int = -1


def stable_hash(text: str) -> str:
    """A hash that is the same on every run and machine (Python's own `hash` is salted per process)."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def learning(relative: str) -> bool:
    """Whether a page (by its address relative to the root) is in the half a build's self-audit learns the
    thieves' prior from (audit/prior.py); the audit samples only the other half, so it never grades its lesson."""
    return stable_hash("prior\0" + relative) < "8"


def read_as(words: str) -> str:
    """Link words as site search reads them: their terms, in no order (a link's words are a stemmed bag, and
    "version 3 4 5" and "3 4 version" both ask for `version`: one-character numbers are no terms)."""
    return " ".join(sorted(query_terms(words)))


def _pick(seed: str, candidates: list[str]) -> str:
    """One of the candidates, the same on every run: the one whose hash with the seed is smallest."""
    return min(candidates, key=lambda c: stable_hash(seed + "\0" + c)) if candidates else ""


def _words(text: str) -> str:
    """At most MAX_QUERY_WORDS words, on one line."""
    return " ".join(text.split()[:MAX_QUERY_WORDS])


def askable(text: str) -> bool:
    """Whether a text says anything to search by: a term of three characters or more ('- e -' says nothing)."""
    return any(len(t) >= 3 for t in query_terms(text))


def headings(doc: Document) -> list[str]:
    """The page's headings other than its title, each once (a heading twice on a page names neither)."""
    counts = Counter(s.title.strip() for s in doc.sections if s.level and s.title.strip())
    return [t for t, n in counts.items() if n == 1 and t != doc.title.strip() and askable(t)]


def names(doc: Document) -> list[str]:
    """The names the page defines (a signature cut to its name), each once."""
    out = (_ARGUMENTS.split(n, 1)[0].strip() for s in doc.sections for n in s.names)
    return [n for n in dict.fromkeys(out) if askable(n)]


def paraphrase(heading: str, text: str) -> str:
    """A section's first sentence with its heading's words taken out ('' when fewer than a few words stay)."""
    first = _SENTENCE_END.split(text.strip(), 1)[0] if text.strip() else ""
    said = set(query_terms(heading))
    kept = [w for w in first.split() if not said & set(query_terms(w))]
    content = [w for w in kept if query_terms(w)]
    return _words(" ".join(kept)) if len(content) >= MIN_PARAPHRASE_WORDS else ""


def answerable_sections(doc: Document) -> list[int]:
    """Sections a query can be made from and asked for: a heading unique on the page, and text of their own."""
    unique = set(headings(doc))
    return [
        i for i, s in enumerate(doc.sections) if s.level and s.title.strip() in unique and query_terms(s.text)
    ]


@dataclass(frozen=True)
class PageFacts:
    """What a sampled page offers to ask for it, read once: its known items are picked after every sampled
    page is read (a heading or name that other sampled pages hold too names none of them)."""

    key: str
    seed: str
    title: str
    headings: tuple[str, ...]
    names: tuple[str, ...]
    #: The paraphrase of each answerable section that has one.
    sentences: tuple[str, ...]

    @classmethod
    def of(cls, doc: Document, key: str, seed: str) -> PageFacts:
        said = (paraphrase(doc.sections[i].title, doc.sections[i].text) for i in answerable_sections(doc))
        return cls(
            key, seed, doc.title.strip(), tuple(headings(doc)), tuple(names(doc)), tuple(p for p in said if p)
        )


def page_items(facts: PageFacts, inbound: list[str], common: set[str]) -> list[KnownItem]:
    """One query of each kind the page allows; `common` holds what names no one page (a title other pages of
    the site have too, a heading, name, sentence or link words of other sampled pages too), `inbound` the words
    the site's links to it say most."""
    key, seed, items = facts.key, facts.seed, []
    if askable(facts.title) and facts.title not in common:
        items.append(KnownItem("title", _words(facts.title), key))
    heading = _pick(seed, [h for h in facts.headings if h not in common])
    if heading:
        items.append(KnownItem("heading", _words(heading), key))
    name = _pick(seed, [n for n in facts.names if n not in common])
    if name:
        items.append(KnownItem("name", _words(name), key))
    link = " ".join(inbound[:LINK_WORDS])
    if askable(link) and read_as(link) not in common:
        items.append(KnownItem("link", link, key))
    sentence = _pick(seed, [x for x in facts.sentences if x not in common])
    if sentence:
        items.append(KnownItem("paraphrase", sentence, key))
    return items


def section_items(doc: Document, key: str, seed: str) -> list[KnownItem]:
    """For a few of the page's sections, its heading and its paraphrase, each answered by that section."""
    indexes = answerable_sections(doc)
    if len(indexes) < 2:  # a page of one section: nothing to find inside it
        return []
    ordered = sorted(indexes, key=lambda i: stable_hash(f"{seed}\0{i}"))[:AUDIT_SECTIONS_PER_PAGE]
    items = []
    for i in sorted(ordered):
        section = doc.sections[i]
        items.append(KnownItem("heading", _words(section.title), key, i))
        sentence = paraphrase(section.title, section.text)
        if sentence:
            items.append(KnownItem("paraphrase", sentence, key, i))
    return items
