"""Build state of each source: live counters while a build runs, and the outcome it leaves behind."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field

from docs_mcp.model.failures import failure
from docs_mcp.model.holder import gone, this_process
from docs_mcp.text.tidy import clip

#: Longest error text kept in an outcome (it reaches status lines and tool responses).
ERROR_CHARS = 200
#: Meta key (plus the source's root) of the last build's outcome: roots are a source's identity, not names.
BUILD_META = "build:"
#: Distinct pages found past the crawl limit counted at most (by hash, never kept); past it: "at least".
LEFT_OUT_COUNTED = 100_000


#: What JSON value each of an outcome's field types accepts (annotations are strings here).
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "float": (int, float),
    "int": (int,),
    "bool": (bool,),
    "str": (str,),
}


@dataclass(frozen=True)
class Outcome:
    """How the last build of a source ended; stored in the index, so every process sharing it can say."""

    at: float
    #: The site answered at least once: a page was fetched or revalidated (or none needed a request).
    reached: bool
    fetched: int = 0
    failed: int = 0
    #: Why nothing could be fetched ("connection refused", "DNS lookup failed", "404 at the root", …).
    cause: str = ""
    #: The first error of the build, short.
    error: str = ""
    #: Links to pages the site answers 404/410 for: its own broken links, not a failure of the build.
    not_found: int = 0
    #: Discovery files that could not be read, and why ("/docs/sitemap.xml (HTTP 503)"), ", " between them.
    discovery: str = ""
    #: Pages found but left out because the crawl limit was reached, and that limit.
    left_out: int = 0
    limit: int = 0
    #: The build went through every page it found (not stopped at shutdown or by a damaged index). An
    #: outcome stored before 0.4.6 has no such field: those builds are taken as complete.
    complete: bool = True
    #: Pages fetched but not stored (a full disk, a damaged file), and the store's reason.
    unwritten: int = 0
    store_error: str = ""
    #: False for the outcome a build stores as it starts: still there after it, the build never got to say.
    finished: bool = True
    lease: float = 0.0  # until when an unfinished build is alive (time.time(); writer.hold_lease renews it)
    #: The process holding the lease (holder.this_process()): once it has ended, its lease is over.
    holder: str = ""

    def missing_note(self) -> str:
        """'… did not finish …' or 'N pages could not be stored …': pages the index may lack, or ""."""
        # Its lease ran out, or its process is gone (one alive is no alarm).
        if not self.finished and (self.lease <= time.time() or gone(self.holder)):
            return (
                "has not finished: pages may be missing (it stopped, or could not store its outcome: "
                "a full disk?); run `docslice index` again"
            )
        if self.unwritten:
            why = f": {self.store_error}" if self.store_error else ""
            return f"could not store {self.unwritten:,} pages{why}; run `docslice index` again"
        return ""

    @classmethod
    def whole(cls, text: str | None) -> bool:
        """Whether a stored outcome says its source's index is complete (a build went through every page)."""
        last = cls.from_json(text)
        return last is not None and last.complete

    def cut_note(self) -> str:
        """'27,114 discovered pages not indexed: the crawl limit is 5,000 (--crawl-limit 32,114 …)', or ""."""
        return cut_note(self.left_out, self.limit)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str | None) -> Outcome | None:
        try:
            data = json.loads(text or "")
            fields = cls.__dataclass_fields__.items()
            # Read from the index: a field of the wrong type is left at its default, not compared later.
            return cls(
                **{k: data[k] for k, f in fields if k in data and isinstance(data[k], _JSON_TYPES[f.type])}
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


@dataclass
class Progress:
    """Live counters of one build, for progress bars, status lines and MCP progress notifications."""

    source: str
    root: str = ""
    method: str = "…"
    done: int = 0
    discovered: int = 0
    fetched: int = 0
    not_modified: int = 0
    fresh: int = 0
    removed: int = 0
    failed: int = 0
    robots_skipped: int = 0
    #: Addresses that redirect to another page of the source: that page is indexed, once, in their place.
    redirected: int = 0
    #: Pages fetched but not stored: the index could not be written.
    unwritten: int = 0
    #: The site's scripts read for the pages they name (not pages: never in `done`).
    scripts: int = 0
    #: Why the first page could not be stored (a full disk, a damaged file), for the verdict.
    store_error: str = ""
    #: Failures without an answer from the site (refused, DNS, timeout, a broken connection).
    unanswered: int = 0
    #: Another process is building this source (its pid): this build waits, then finds its pages fresh.
    waiting: str = ""
    #: Seconds this build waited for that other build (its own time, `elapsed`, starts after the wait).
    waited: float = 0.0
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    errors: list[str] = field(default_factory=list)
    #: The first failure: what went wrong in a few words ("connection refused") and its technical detail
    #: ("ConnectError: [Errno 111] Connection refused").
    cause: str = ""
    detail: str = ""
    #: Pages of the source in the index when the build ended.
    pages: int = 0
    #: Keys the site answered 404/410 for that were never indexed: links to pages that do not exist.
    not_found: list[str] = field(default_factory=list)
    #: Discovery files (robots.txt, sitemaps, llms.txt) that could not be read, as opposed to absent
    #: (a 4xx): "/robots.txt (connection refused)", "/docs/sitemap.xml (HTTP 503)".
    discovery: list[str] = field(default_factory=list)
    #: Distinct pages found after the crawl limit was reached (not fetched), and that limit.
    left_out: int = 0
    limit: int = 0
    #: Every page found was gone through (set at the end of the build; a stopped build is not complete).
    complete: bool = False
    #: The source's last build was complete and its pages are being revalidated: its search results are
    #: whole all along, so status lines say "refreshing", never "building … may be incomplete".
    refreshing: bool = False

    @property
    def elapsed(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    @property
    def reached(self) -> bool:
        """The site answered at least once (a 404 is an answer), or nothing failed to reach it."""
        answered = (
            self.fetched
            + self.not_modified
            + self.redirected
            + self.removed
            + len(self.not_found)
            + self.failed
            - self.unanswered
        )
        return answered > 0 or self.unanswered == 0

    def unwritten_cause(self) -> str:
        """How many pages the index could not store, and why (the store's first error: a full disk, a lock)."""
        why = f": {self.store_error}" if self.store_error else ""
        return f"{self.unwritten:,} pages could not be stored in the index{why}"

    def note_error(self, message: str, cause: str = "", detail: str = "", unanswered: bool = False) -> None:
        """Count a failure: its message for the summary; the first one's cause and detail for the outcome."""
        self.failed += 1
        self.unanswered += unanswered
        self.errors.append(message)
        if not self.cause and not self.detail:
            self.cause, self.detail = cause, _short(detail or message)

    def never_answered(self, exc: BaseException) -> None:
        """The host never answered (its name does not resolve, it refuses): one failure, the root's."""
        self.discovered = self.done = 1
        said = f"could not reach {self.root}: {(cause := failure(exc)[0])}"
        self.note_error(said, cause, said, unanswered=True)

    def unfinished(self, lease: float = 0.0) -> Outcome:
        """What a build stores as it starts, renewed with its lease (a refresh's keeps the index as whole as it was)."""
        return Outcome(
            time.time(),
            reached=True,
            complete=self.refreshing,
            finished=False,
            lease=lease,
            holder=this_process(),
        )

    def outcome(self) -> Outcome:
        # An unreachable site's discovery files failed like its pages: the cause says it all.
        discovery = _short(", ".join(self.discovery)) if self.reached else ""
        return Outcome(
            time.time(),
            self.reached,
            self.fetched,
            self.failed,
            self.cause,
            self.detail,
            len(self.not_found),
            discovery,
            self.left_out,
            self.limit,
            # A refresh stopped halfway leaves the index as whole as it found it.
            self.complete or self.refreshing,
            self.unwritten,
            _short(self.store_error),
        )


def cut_note(left_out: int, limit: int) -> str:
    """What a crawl cut by its limit left out, and the option that includes it (exact below LEFT_OUT_COUNTED)."""
    if not left_out:
        return ""
    more = ("at least ", " or more") if left_out >= LEFT_OUT_COUNTED else ("", "")
    return (
        f"{more[0]}{left_out:,} discovered pages not indexed: the crawl limit is {limit:,} "
        f"(--crawl-limit {limit + left_out}{more[1]} to include them)"
    )


def _short(text: str) -> str:
    return clip(text, ERROR_CHARS)


class Builds:
    """The builds of this process: under way, or announced (the server starts its build a moment late)."""

    def __init__(self) -> None:
        self._live: dict[str, Progress] = {}
        self._pending: set[str] = set()
        #: The outcomes of builds that found nothing: the index keeps no trace of them, this process says why.
        self._empty: dict[str, Outcome] = {}

    def announce(self, roots: list[str]) -> None:
        """A build of these roots will start shortly: status lines say 'building' from the first second."""
        self._pending.update(roots)

    def begin(self, progress: Progress) -> None:
        self._pending.discard(progress.root)
        self._live[progress.root] = progress

    def end(self, progress: Progress) -> None:
        if self._live.get(progress.root) is progress:
            del self._live[progress.root]
        if progress.finished is not None and not progress.pages:
            self._empty[progress.root] = progress.outcome()
        else:
            self._empty.pop(progress.root, None)

    def found_nothing(self, root: str) -> Outcome | None:
        """The outcome of this process's last build of `root` when it found nothing (not in the index)."""
        return self._empty.get(root)

    def settle(self) -> None:
        """Announced builds that will not run (the build failed or was cancelled before them)."""
        self._pending.clear()

    def live(self, root: str) -> Progress | None:
        return self._live.get(root)

    def pending(self, root: str) -> bool:
        return root in self._pending

    def progress(self) -> tuple[int, int]:
        """(pages done, pages known so far) over the builds under way (a refresh of a complete index is no
        build: its results are whole)."""
        live = [p for p in self._live.values() if not p.refreshing]
        return sum(p.done for p in live), sum(p.discovered for p in live)
