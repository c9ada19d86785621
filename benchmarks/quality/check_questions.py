"""Check benchmark question files against the HTML pages they name, without running docs-mcp.

For each question: the gold page exists; every needle occurs in the page's text after the matching rule's
normalisation, how often, under which heading and whether only inside code blocks; the gold section is the
smallest section holding a needle; ids are unique; every question has a terse form (`terse`, or for a
shared read-only set the map benchmarks/questions/<set>-terse.json). Failures make the exit status 1;
warnings (style rules for new questions: 4-12 words per needle, neither the query nor the terse form
containing a needle or being the heading, the terse form 2-6 words and not containing the heading, needles
outside boxed notes that carry their own heading) are printed but do not.

    python benchmarks/quality/check_questions.py benchmarks/questions/django-3.2.json [--verbose]
"""

from __future__ import annotations

import argparse
import bisect
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import question_files

# Chrome around the content (navigation bars, sidebars, headers, footers): not the page's prose.
SKIP_TAGS = frozenset({"script", "style", "nav", "header", "footer", "form", "noscript", "template"})
SKIP_IDS = frozenset({"hd", "ft", "sidebar", "searchbox", "global-nav"})
SKIP_CLASSES = frozenset({"navheader", "navfooter", "sphinxsidebar", "related", "headerlink", "footer"})
SKIP_ROLES = frozenset({"navigation", "search"})
# A boxed note with its own heading (DocBook's <div class="note"><h3>Note</h3>): its section ends with the box.
BOX_CLASSES = frozenset({"note", "tip", "warning", "caution", "important", "admonition"})
# Tag names as words: one line each would make these lists 40 lines long.
BLOCK_TAGS = frozenset(
    "p div li dt dd pre table tr td th ul ol dl blockquote br hr section article main aside caption figure"  # noqa: SIM905
    " figcaption h1 h2 h3 h4 h5 h6".split()
)
VOID_TAGS = frozenset("area base br col embed hr img input link meta source wbr".split())  # noqa: SIM905
HEADING = re.compile(r"^h([1-6])$")
KINDS = ("keyword", "sentence")
KEYS = ("id", "query", "page", "section", "needles", "code", "kind")
NEEDLE_WORDS = (4, 12)
TERSE_WORDS = (2, 6)
NEEDLES_PER_QUESTION = (1, 3)

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_DROPPED = "`*_[]()#>|\\"
_DROP = str.maketrans("", "", _DROPPED)
_SPACE = re.compile(r"\s+")
_ANCHOR_MARK = re.compile(r"\s*[#¶§]$")  # a permalink sign at a heading's end (Node.js docs: "#")
_SECTION_NUMBER = re.compile(r"^\s*(?:[A-Z]?\d+(?:\.\d+)*\.?|[IVXLC]+\.)\s+")


def normalise(text: str) -> str:  # the rule of common.normalise, kept here so no docs_mcp import is needed
    """The matching rule: lowercase, links to [text], drop `*_[]()#>|\\ and backticks, collapse spaces."""
    text = _LINK.sub(r"[\1]", text.lower())
    return _SPACE.sub(" ", text.translate(_DROP))


def heading_key(heading: str) -> str:
    """A heading compared loosely: a leading section number dropped, casefolded, spaces collapsed."""
    return _SPACE.sub(" ", _SECTION_NUMBER.sub("", heading)).strip().casefold()


@dataclass(frozen=True)
class Heading:
    """A heading of the page: where its section starts in the raw text, its level and displayed text.

    `outer` names the enclosing section's heading when this one titles a boxed note; `resumed` marks the
    enclosing section going on after such a box (same text as the heading before the box)."""

    start: int
    level: int
    text: str
    outer: str | None = None
    resumed: bool = False


class _PageText(HTMLParser):
    """Collects a page's visible content text, its headings and the spans that are code blocks."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.size = 0
        self.stack: list[tuple[str, bool, int | None]] = []  # (tag, skipped, headings before a box)
        self.skip = 0
        self.boxes: list[int] = []  # for each open box, how many headings preceded it
        self.pre = 0
        self._pre_start = 0
        self.code: list[tuple[int, int]] = []
        self.headings: list[Heading] = []
        self._heading: tuple[int, int, list[str]] | None = None

    def _emit(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID_TAGS:
            self.handle_startendtag(tag, attrs)
            return
        a = {k: v or "" for k, v in attrs}
        classes = set(a.get("class", "").split())
        skipped = (
            tag in SKIP_TAGS
            or a.get("id", "") in SKIP_IDS
            or a.get("role", "") in SKIP_ROLES
            or bool(SKIP_CLASSES & classes)
        )
        boxed = tag == "div" and bool(BOX_CLASSES & classes) and not self.skip and not skipped
        self.stack.append((tag, skipped, len(self.headings) if boxed else None))
        self.skip += skipped
        if self.skip:
            return
        if boxed:
            self.boxes.append(len(self.headings))
        if tag in BLOCK_TAGS:
            self._emit("\n")
        if tag == "pre":
            self.pre += 1
            if self.pre == 1:
                self._pre_start = self.size
        m = HEADING.match(tag)
        if m and self._heading is None:
            self._heading = (self.size, int(m.group(1)), [])

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.skip and tag in BLOCK_TAGS:
            self._emit("\n")

    def handle_endtag(self, tag: str) -> None:
        if not any(t == tag for t, _, _ in self.stack):
            return  # a stray end tag
        while self.stack:
            t, skipped, before = self.stack.pop()
            if not self.skip:
                self._close(t, before)
            self.skip -= skipped
            if t == tag:
                break

    def _close(self, tag: str, box_before: int | None) -> None:
        if tag == "pre" and self.pre:
            self.pre -= 1
            if not self.pre:
                self.code.append((self._pre_start, self.size))
        if HEADING.match(tag) and self._heading is not None:
            start, level, texts = self._heading
            outer = self.headings[self.boxes[0] - 1].text if self.boxes and self.boxes[0] > 0 else None
            self.headings.append(
                Heading(start, level, _ANCHOR_MARK.sub("", _SPACE.sub(" ", "".join(texts)).strip()), outer)
            )
            self._heading = None
        if box_before is not None:
            self.boxes.pop()
            if 0 < box_before < len(self.headings):  # the box had a heading: the outer section resumes
                prev = self.headings[box_before - 1]
                self.headings.append(Heading(self.size, prev.level, prev.text, prev.outer, resumed=True))
        if tag in BLOCK_TAGS:
            self._emit("\n")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        self._emit(data)
        if self._heading is not None:
            self._heading[2].append(data)


class Page:
    """A page's normalised text, each normalised position mapped back to its heading and code flag."""

    def __init__(self, html: str) -> None:
        parser = _PageText()
        parser.feed(html)
        parser.close()
        self.raw = "".join(parser.parts)
        self.headings = parser.headings
        self._starts = [h.start for h in self.headings]
        self.code = parser.code
        chars: list[str] = []
        self.where: list[int] = []  # raw offset of each normalised character
        for i, ch in enumerate(self.raw.lower()):
            if ch.isspace():
                if chars and chars[-1] != " ":
                    chars.append(" ")
                    self.where.append(i)
            elif ch not in _DROPPED:
                chars.append(ch)
                self.where.append(i)
        self.text = "".join(chars)

    def heading_at(self, pos: int) -> Heading | None:
        """The heading of the smallest section holding normalised position `pos`."""
        i = bisect.bisect_right(self._starts, self.where[pos])
        return self.headings[i - 1] if i else None

    def in_code(self, pos: int) -> bool:
        """Whether normalised position `pos` lies inside a code block."""
        raw = self.where[pos]
        return any(a <= raw < b for a, b in self.code)

    def find(self, needle: str) -> list[int]:
        """Normalised start positions of every occurrence of the needle."""
        want = normalise(needle).strip()
        out, pos = [], self.text.find(want) if want else -1
        while pos >= 0:
            out.append(pos)
            pos = self.text.find(want, pos + 1)
        return out


@dataclass
class Report:
    """What one file's check found."""

    questions: int = 0
    needles: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _check_needle(q: dict[str, Any], page: Page, needle: str, rep: Report, verbose: bool) -> None:
    """Where one needle sits on the gold page, against the question's section and code flag."""
    qid, gold = q["id"], heading_key(q["section"])
    hits = page.find(needle)
    heads = [page.heading_at(p) for p in hits]
    where = Counter(h.text if h else "(before any heading)" for h in heads)
    in_gold = [p for p, h in zip(hits, heads, strict=True) if h and heading_key(h.text) == gold]
    boxed = [p for p, h in zip(hits, heads, strict=True) if h and h.outer and heading_key(h.outer) == gold]
    if verbose or not in_gold:
        found = "; ".join(f"{n}x {s!r}" for s, n in where.items()) or "nowhere"
        print(f"  {qid} {needle!r}: {len(hits)} on the page ({found})")
    words = len(needle.split())
    if not NEEDLE_WORDS[0] <= words <= NEEDLE_WORDS[1]:
        rep.warnings.append(
            f"{qid}: needle {needle!r} has {words} words (want {NEEDLE_WORDS[0]}-{NEEDLE_WORDS[1]})"
        )
    for form in ("query", "terse"):
        if normalise(needle).strip() in normalise(q.get(form) or ""):
            rep.warnings.append(f"{qid}: the {form} contains needle {needle!r}")
    if not hits:
        rep.failures.append(f"{qid}: needle {needle!r} not on {q['page']}")
    elif boxed and not in_gold:
        rep.warnings.append(
            f"{qid}: needle {needle!r} is in a boxed note ({heads[hits.index(boxed[0])].text!r})"
        )
    elif not in_gold:
        rep.failures.append(
            f"{qid}: needle {needle!r} not in section {q['section']!r} (found under {list(where)})"
        )
    elif all(page.in_code(p) for p in in_gold) and not q["code"]:
        rep.failures.append(f"{qid}: needle {needle!r} only in a code block but 'code' is false")
    elif q["code"] and not any(page.in_code(p) for p in in_gold):
        rep.warnings.append(f"{qid}: 'code' is true but needle {needle!r} is in prose")
    if len(hits) > len(in_gold) + len(boxed):
        rep.warnings.append(f"{qid}: needle {needle!r} also occurs outside the gold section ({dict(where)})")


def check_terse(q: dict[str, Any], rep: Report) -> None:
    """The terse form: present (a failure without), 2-6 words, neither the heading nor holding it verbatim."""
    qid, terse = q["id"], q.get("terse")
    if not isinstance(terse, str) or not terse.strip():
        rep.failures.append(
            f"{qid}: no terse form (a 'terse' key, or the set's <set>{question_files.TERSE_SUFFIX}.json map)"
        )
        return
    words = len(terse.split())
    if not TERSE_WORDS[0] <= words <= TERSE_WORDS[1]:
        rep.warnings.append(
            f"{qid}: terse form {terse!r} has {words} words (want {TERSE_WORDS[0]}-{TERSE_WORDS[1]})"
        )
    heading = heading_key(q["section"])
    if heading == heading_key(terse):
        rep.warnings.append(f"{qid}: the terse form is the section heading")
    elif f" {normalise(heading)} " in f" {normalise(terse)} ":
        rep.warnings.append(f"{qid}: the terse form contains the section heading {q['section']!r}")


def check_file(path: Path, verbose: bool = False, docs: Path | None = None) -> Report:
    """Check one question file; `docs` is the folder for a file without a top-level "docs" key."""
    try:
        data, questions = question_files.read(path)
    except ValueError as exc:  # a terse map naming ids the set does not have
        return Report(failures=[f"{question_files.terse_map_path(path)}: {exc}"])
    rep = Report(questions=len(questions), kinds=Counter(str(q.get("kind")) for q in questions))
    if isinstance(data, dict) and data.get("docs"):
        docs = Path(data["docs"])
    elif docs is None:
        rep.failures.append(
            f"{path}: no top-level 'docs' key naming the documentation folder (or pass --docs)"
        )
        return rep
    ids = Counter(q.get("id") for q in questions)
    rep.failures += [f"id {i!r} used {n} times" for i, n in ids.items() if n > 1]
    pages: dict[str, Page] = {}
    for q in questions:
        qid = q.get("id", "?")
        missing = [k for k in KEYS if k not in q]
        if missing:
            rep.failures.append(f"{qid}: missing keys {missing}")
            continue
        if q["kind"] not in KINDS:
            rep.failures.append(f"{qid}: kind {q['kind']!r} is not one of {KINDS}")
        if not isinstance(q["code"], bool):
            rep.failures.append(f"{qid}: 'code' must be true or false")
        file = docs / q["page"]
        if not file.is_file():
            rep.failures.append(f"{qid}: page {q['page']} not found under {docs}")
            continue
        if q["page"] not in pages:
            pages[q["page"]] = Page(file.read_text(encoding="utf-8", errors="replace"))
        page = pages[q["page"]]
        if not any(heading_key(h.text) == heading_key(q["section"]) for h in page.headings):
            rep.failures.append(f"{qid}: no heading {q['section']!r} on {q['page']}")
        if heading_key(q["section"]) == heading_key(q["query"]):
            rep.warnings.append(f"{qid}: the query is the section heading")
        check_terse(q, rep)
        lo, hi = NEEDLES_PER_QUESTION
        if not lo <= len(q["needles"]) <= hi:
            rep.warnings.append(f"{qid}: {len(q['needles'])} needles (want {lo}-{hi})")
        for needle in q["needles"]:
            rep.needles += 1
            _check_needle(q, page, needle, rep, verbose)
    return rep


def main(argv: list[str] | None = None) -> int:
    """Check each file given; print failures, warnings and a summary line per file."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="question JSON files")
    parser.add_argument("--verbose", action="store_true", help="print every needle's occurrences")
    parser.add_argument("--docs", type=Path, help="docs folder for files without a top-level 'docs' key")
    args = parser.parse_args(argv)
    status = 0
    for path in args.files:
        rep = check_file(path, args.verbose, args.docs)
        for line in rep.failures:
            print(f"FAIL {line}")
        for line in rep.warnings:
            print(f"WARN {line}")
        print(
            f"{path}: {rep.questions} questions ({', '.join(f'{n} {k}' for k, n in sorted(rep.kinds.items()))}), "
            f"{rep.needles} needles, {len(rep.failures)} failures, {len(rep.warnings)} warnings"
        )
        status = status or (1 if rep.failures else 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
