"""Text analysis shared by the site index and in-page scoring: words, CJK bigrams, stemming, stopwords."""

from __future__ import annotations

import itertools
import math
import re
import threading
from functools import lru_cache
from typing import Protocol

import snowballstemmer

from docs_mcp.settings import MAX_QUERY_CHARS, MAX_QUERY_TERMS
from docs_mcp.text.cjk import CJK_CHAR, CJK_RANGES, CJK_RUN, cjk_bigrams
from docs_mcp.text.stopwords import STOPWORDS

#: A one-letter command-line flag ("-O", "-m") is a real search term, unlike other single letters.
_FLAG = re.compile(r"(?:^|\s)-([A-Za-z])\b")
_TOKEN = re.compile(f"[{CJK_RANGES}]+|[^\\W_]+(?:['’][^\\W_]+)?", re.UNICODE)

#: One Snowball stemmer per thread: a stemmer keeps the word it works on in its own fields, so one shared by
#: threads returns another thread's stems ("files" → "container") and raises on the way.
_local = threading.local()


class _Stemmer(Protocol):  # the stemmers' own method names
    def stemWord(self, word: str) -> str: ...
    def stemWords(self, words: list[str]) -> list[str]: ...


def _stemmer() -> _Stemmer:
    """This thread's stemmer (made on first use): PyStemmer's C stemmer, which `snowballstemmer` hands out
    when it is installed (a dependency; 22% of indexing's CPU went to the pure-Python one, same stems)."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    return stemmer


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """Snowball (Porter 2) stem; memoized because vocabularies are small and texts are large.

    The memo is safe to share: each thread stems with its own stemmer, so every result is the right one.
    """
    return _stemmer().stemWord(word)


def tokenize(text: str) -> list[str]:
    """Lowercased, stemmed words; CJK runs as bigrams. Used for documents and queries alike."""
    low = text.lower()
    if CJK_CHAR.search(low) is None:  # most texts: the stemmer takes every word in one call
        return _stemmer().stemWords(_TOKEN.findall(low.replace("’", "'")))
    out: list[str] = []
    for m in _TOKEN.finditer(low):
        tok = m.group(0)
        if CJK_RUN.fullmatch(tok):
            out.extend(cjk_bigrams(tok))
        else:
            out.append(stem(tok.replace("’", "'")))
    return out


def tokenize_spans(text: str) -> list[tuple[str, int]]:
    """`tokenize` with each token's offset in `text`: passages score how close the matches sit.

    Offsets are into `text.lower()`, so the same tokens as `tokenize` come out; after a rare character whose
    lowercase is longer (`İ`), later offsets drift by a char, which closeness scoring can bear.
    """
    out: list[tuple[str, int]] = []
    for m in _TOKEN.finditer(text.lower()):
        tok = m.group(0)
        if CJK_RUN.fullmatch(tok):
            out.extend((bigram, m.start() + k) for k, bigram in enumerate(cjk_bigrams(tok)))
        else:
            out.append((stem(tok.replace("’", "'")), m.start()))
    return out


def bounded_query(query: str) -> str:
    """The query cut to MAX_QUERY_CHARS, at a space when there is one near the end: the work done for a query
    (terms, names, snippets, ranking) stays bounded whatever an agent sends."""
    if len(query) <= MAX_QUERY_CHARS:
        return query
    cut = query[:MAX_QUERY_CHARS]
    space = cut.rfind(" ", MAX_QUERY_CHARS - 50)
    return cut[:space] if space > 0 else cut


def query_terms(query: str) -> list[str]:
    """Distinct content terms of a query, in order, at most MAX_QUERY_TERMS; stopwords dropped unless nothing
    else is left. The query is cut first (`bounded_query`), so the cost of ranking has a ceiling."""
    query = bounded_query(query)
    words = [m.group(0) for m in _TOKEN.finditer(query.lower().replace("’", "'"))]
    flags = {m.group(1).lower() for m in _FLAG.finditer(query)}
    kept = [
        w for w in words if w not in STOPWORDS and (len(w) > 1 or w in flags or CJK_RUN.fullmatch(w))
    ] or words
    terms: dict[str, None] = {}  # ordered set: `t not in list` was quadratic in the number of terms
    for w in kept:
        for t in tokenize(w):
            terms.setdefault(t)
            if len(terms) == MAX_QUERY_TERMS:
                return list(terms)
    return list(terms)


#: An API name in a query: qualified (`time.sleep`), called (`round(2.5)`) or snake_case (`lru_cache`).
#: Bare CamelCase words are left to BM25: `KeyError` in a question is usually the symptom, not the subject.
_DOTTED = re.compile(r"(?<![\w./:-])[A-Za-z_]\w*(?:(?:\.[A-Za-z_]\w*)+|(?=\())|\b[A-Za-z][A-Za-z0-9]*_\w*")
#: A command-line option in a query: `-O`, `--system-site-packages`, also in backticks or parentheses.
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
#: Characters the tokenizer drops that make a written token an operator or syntax literal (`2>&1`, `~+`, `=~`,
#: `**/`, `&str`): the words of a section never hold it, its text does, verbatim.
_SYMBOLS = frozenset("~!@#$%^&*+=<>|\\{}[]")
#: Two or more such characters in a row (`::`, `A..B`, `x.(T)`) make a literal too; one dot, slash or hyphen
#: between words (`os.path`, `I/O`, `re-use`) does not.
_PUNCTUATION_RUN = re.compile(r"[^\w\s]{2,}")
#: Quotes around a literal, and the sentence punctuation after it (`"~+".`, `2>&1,`, `$@?`, `utcnow()?`):
#: `::`, `?:` and `...` stay literals of their own.
_QUOTES, _SENTENCE = "\"'`“”‘’", ",;:!?"
#: Addresses and e-mail addresses hold such characters but are not literals.
_ADDRESS = re.compile(r"\w://|^[\w.+-]+@[\w-]+\.\w")
#: Literals a query keeps, at most.
MAX_QUERY_LITERALS = 5


def query_literals(query: str) -> list[str]:
    """The operator and syntax literals a query holds, as written (`~+`, `2>&1`, `::`, `A..B`): the tokenizer
    drops their characters, so only the sections' text, read verbatim, can match them. Words, dotted names,
    abbreviations and options (`os.path`, `e.g.`, `--jobs=4`) are left to the terms and names."""
    out: list[str] = []
    for tok in map(bare_token, bounded_query(query).split()):
        if len(tok) < 2 or tok in out or _OPTION.match(tok) or _ADDRESS.search(tok):
            continue
        if _SYMBOLS.intersection(tok) or _PUNCTUATION_RUN.search(tok):
            out.append(tok)
            if len(out) == MAX_QUERY_LITERALS:
                break
    # `...` inside `A...B` of the same query would count the same characters twice.
    return [lit for lit in out if not any(lit != other and lit in other for other in out)]


def places(literal: str, text: str) -> list[int]:
    """Where a literal starts in a text, each occurrence."""
    out, at = [], text.find(literal)
    while at >= 0:
        out.append(at)
        at = text.find(literal, at + len(literal))
    return out


def bare_token(token: str) -> str:
    """A token without the quotes around it and the sentence punctuation after it."""
    before = ""
    while token != before:
        before, token = token, token.strip(_QUOTES)
        if any(ch.isalnum() for ch in token):
            token = token.rstrip(_SENTENCE)
            if token.endswith(".") and (token[-2:-1].isalnum() or token[-2:-1] in ")]}"):
                token = token[:-1]  # a full stop (`e.g.` is then `e.g`, no literal)
            if token.endswith(")") and "(" not in token:
                token = token[:-1]  # the end of a parenthesis around words
        elif len(token) > 2 and (token[-1] in ",;!?" or (token[-1] == "." and token[-2] in _QUOTES)):
            token = token[:-1]  # `$@?` is `$@`, `"=~".` is `=~`; `::`, `?:` and `...` stay whole
    return token


#: Dotted words that are file names or hosts, not APIs (`config.yaml`, `docs.python.org`).
_NOT_API_SUFFIXES = frozenset(
    [
        "com",
        "org",
        "net",
        "io",
        "html",
        "htm",
        "md",
        "txt",
        "json",
        "yaml",
        "yml",
        "toml",
        "cfg",
        "ini",
        "xml",
        "csv",
        "pdf",
        "zip",
        "gz",
    ]
)
_OPTION_SPLIT = re.compile(r"[\s,=\[\]]+")


def query_names(query: str) -> list[str]:
    """API names and command-line options a query gives, as written (`time.sleep`, `round`, `-O`)."""
    query = bounded_query(query)
    out: list[str] = []
    for m in [*_DOTTED.finditer(query), *_OPTION.finditer(query)]:
        name = m.group(0)
        parts = name.split(".")
        if query[m.end() : m.end() + 1] == "/" or parts[-1].lower() in _NOT_API_SUFFIXES:
            continue  # a path, URL or file name
        if any(len(p) < 2 for p in parts) and not name.startswith("-"):
            continue  # "e.g", "O(n)"
        if name not in out:
            out.append(name)
            if len(out) == MAX_QUERY_TERMS:
                break
    return out


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def spaced_names(query: str) -> list[tuple[str, str]]:
    """Qualified names a query may spell as plain words: each pair of adjacent words, neither a function word
    (`json dumps` for `json.dumps`, `pathlib glob` for pathlib's `Path.glob`)."""
    words = [w.casefold() for w in _WORD.findall(bounded_query(query))]
    pairs: list[tuple[str, str]] = []
    for a, b in itertools.pairwise(words):
        plain = a != b and len(a) > 1 and len(b) > 1 and a not in STOPWORDS and b not in STOPWORDS
        if plain and (a, b) not in pairs:
            pairs.append((a, b))
    return pairs[:MAX_QUERY_TERMS]


def names_match(defined: str, wanted: str) -> bool:
    """Whether a defined name is the wanted one, or either is a qualified form of the other; options exact."""
    if wanted.startswith("-"):  # `-O` is not `-o`; a definition may list aliases or a value (`-h, --help`)
        return wanted in _OPTION_SPLIT.split(defined)
    d, w = defined.casefold(), wanted.casefold()
    # `importlib.reload` defines `reload`; `Cls.meth` (a method shown in its class) defines `pkg.Cls.meth`.
    return d == w or d.endswith("." + w) or ("." in d and w.endswith("." + d))


class NameMatcher:
    """`names_match` against several wanted names at once, over many defined names: set lookups instead of a
    comparison per pair (a Javadoc section defines thousands of names)."""

    def __init__(self, wanted: list[str]):
        self.options = [w for w in wanted if w.startswith("-")]
        self.exact = {w.casefold() for w in wanted if not w.startswith("-")}
        # `w.endswith("." + d)`: d is one of w's parts after a dot.
        self.tails = {w.split(".", k)[k] for w in self.exact for k in range(1, w.count(".") + 1)}

    def any_in(self, defined: str) -> bool:
        """Whether any of the newline-separated defined names matches a wanted one."""
        for d in defined.casefold().split("\n"):
            if d in self.exact or ("." in d and (d in self.tails or self._qualifies(d))):
                return True
        if self.options:
            return any(names_match(d, w) for d in defined.split("\n") for w in self.options)
        return False

    def _qualifies(self, d: str) -> bool:
        """`d.endswith("." + w)`: one of d's parts after a dot is a wanted name."""
        return any(d.split(".", k)[k] in self.exact for k in range(1, d.count(".") + 1))


def index_text(text: str) -> str:
    """Text as the FTS index stores it: the same tokens as `tokenize`, space separated."""
    return " ".join(tokenize(text))


def idf(total: int, containing: int) -> float:
    """Lucene's BM25 IDF of a term found in `containing` of `total` texts: log(1 + (N - n + 0.5) / (n + 0.5)).

    Never negative, unlike Okapi's: a term in most texts still counts a little.
    """
    return math.log(1 + (total - containing + 0.5) / (containing + 0.5))
