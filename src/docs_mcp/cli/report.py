"""What the command line says about builds: the progress bar, summaries, verdicts, start-up lines."""

from __future__ import annotations

import sys
import time

from docs_mcp.cli.app import App, for_terminal, say
from docs_mcp.cli.eta import Eta
from docs_mcp.fetch.sources import missing_folder
from docs_mcp.model.progress import Progress, cut_note
from docs_mcp.search.site.search import SourceStatus
from docs_mcp.text.counts import counted
from docs_mcp.text.dates import utc_minute


class ProgressBar:
    """pages done/total, rate and ETA on stderr; plain lines when stderr is not a terminal."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr  # the stream of now, not of the import (a test captures it)
        self.tty = self.stream.isatty()
        self.last = 0.0
        self.drawn = False
        self.waited = False  # the end of a wait for another build said
        #: One estimate per source (an `index` of several sources reports each in turn).
        self.etas: dict[str, Eta] = {}

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        final = p.finished is not None
        # Said before anything is read (a waiting build has read nothing yet): the early return below hid it.
        if p.waiting and not final:
            self.stream.write(
                f"{p.source}: waiting for another docslice process (pid {p.waiting}) building this source; "
                "the pages it revalidates will then be fresh\n"
            )
            self.stream.flush()
            return
        if p.waited and not self.waited:
            # The other build is done: what follows is this build's own progress, from its start.
            self.waited, self.last, self.drawn = True, 0.0, False
            self.stream.write(f"{p.source}: the other build is done (waited {p.waited:.1f}s); building\n")
            self.stream.flush()
            return
        if not self.drawn and p.done <= p.failed and p.discovered <= 1:
            return  # nothing read yet: a dead source says why, with no bar drawn first
        if not final and now - self.last < (0.1 if self.tty else 2.0):
            return
        self.last = now
        self.drawn = True
        total = max(p.discovered, p.done, 1)
        rate = p.done / p.elapsed if p.elapsed > 0 else 0.0
        eta = 0.0 if final else self.etas.setdefault(p.source, Eta()).update(p.elapsed, p.done, total)
        width = 30
        filled = int(width * p.done / total)
        line = (
            f"{p.source} [{'#' * filled}{'.' * (width - filled)}] {p.done:,}/{total:,} pages "
            f"({p.method}) · {rate:,.1f} pages/s · ETA {'…' if eta is None else f'{eta:,.0f}s'}"
        )
        if self.tty:
            self.stream.write("\r" + line.ljust(100) + ("\n" if final else ""))
        elif not final:
            self.stream.write(line + "\n")
        self.stream.flush()


#: Links not found on the site named in a summary (the rest are counted).
NOT_FOUND_LISTED = 5


def summary(p: Progress) -> str:
    """What a build did, for people: what became of every page (the counts add up to the pages gone through),
    then the site's broken links, unread discovery files, errors."""
    counts = [
        (p.not_modified, "unchanged (304)"),
        (p.fresh, "still fresh"),
        (p.removed, "removed (gone from the site)"),
        (p.redirected, "redirected (indexed at their target)"),
        (len(p.not_found), "not found (404)"),
        (p.robots_skipped, "disallowed by robots.txt"),
        (p.unwritten, "not stored"),
    ]
    # Pages taken from the queue but never read: the build stopped (a full disk, a damaged index, shutdown).
    unread = p.done - p.fetched - p.failed - sum(n for n, _ in counts)
    counts.append((unread, "not read (the build stopped)"))
    parts = [
        f"{p.fetched:,} fetched",
        *(f"{n:,} {what}" for n, what in counts if n > 0),
        f"{p.failed:,} failed",
    ]
    waited = f" (after waiting {p.waited:.1f}s for another build)" if p.waited else ""
    text = f"{p.source}: {counted(p.done, 'page')} via {p.method} in {p.elapsed:.1f}s{waited} — " + ", ".join(
        parts
    )
    if p.not_found:
        text += f"\n  links not found on the site: {len(p.not_found):,} (list: {_first(p.not_found, p.root)})"
    if p.left_out:
        text += f"\n  ! {cut_note(p.left_out, p.limit)}"
    if p.discovery and p.reached:
        text += f"\n  ! could not read {', '.join(p.discovery)}; pages found via {p.method}"
    for err in p.errors[:5]:
        text += f"\n  ! {err}"
    if len(p.errors) > 5:
        text += f"\n  … and {len(p.errors) - 5} more"
    # Escaped here, for every command that prints it: a site's Content-Type and links reach these lines.
    return for_terminal(text)


def _first(keys: list[str], root: str) -> str:
    """The first few keys, under their root when they are (a site's links are long), then how many more."""
    shown = [k.removeprefix(root) or k for k in keys[:NOT_FOUND_LISTED]]
    more = len(keys) - len(shown)
    return ", ".join(shown) + (f", … {more:,} more" if more else "")


def verdict(p: Progress) -> str:
    """Why a build did not do its job (the `index` command then exits 1), or "" when it did."""
    why = p.cause or (p.detail if p.failed else "")
    if not p.pages:
        return f"{p.source}: no page indexed from {p.root}" + (f": {why}" if why else "")
    if not p.reached:
        return f"{p.source}: unreachable ({why}); the {counted(p.pages, 'page')} indexed before are kept"
    if p.unwritten:
        return f"{p.source}: {p.unwritten_cause()}"
    return ""


def build_line(p: Progress) -> str:
    """One line on a finished build, for the server's stderr: pages, failures, the first error."""
    line = (
        f"{p.source}: {counted(p.pages, 'page')} indexed · {p.fetched:,} fetched, {p.not_modified + p.fresh:,} unchanged, "
        f"{p.failed:,} failed in {p.elapsed:.1f}s"
    )
    problem = verdict(p)
    if problem:
        return f"{line} · {problem.partition(': ')[2]}"
    if p.not_found:
        line += f" · links not found on the site: {len(p.not_found):,}"
    if p.discovery:
        line += f" · could not read {', '.join(p.discovery)}"
    return f"{line} · first error: {p.detail}" if p.detail else line


def start_line(state: SourceStatus, auto_index: bool, ttl_days: float) -> str:
    """One line per source when the server starts: what it serves, and what happens next."""
    src = state.source
    if missing_folder(src):
        return (
            f"{src.name}: folder {src.root} not found; serving the other sources, and answers name this one"
        )
    head = f"{src.name} ({src.root}): "
    if state.pages:
        head += f"{counted(state.pages, 'page')} indexed, newest fetched {utc_minute(state.newest, 'never')}"
    else:
        head += "no page indexed yet"
    problem = state.problem()
    if problem:
        head += f"; last build: {problem.split(': ', 1)[1]}"
    elif state.last is not None and state.last.failed:
        head += f"; last build: {state.last.failed:,} failed ({state.last.error})"
    if not problem and state.last is not None and state.last.discovery:
        head += f"; last build could not read {state.last.discovery}"
    if state.last is not None and state.last.left_out:
        head += f"; last build: {state.last.cut_note()}"
    if not auto_index:
        return head + ("" if state.pages else "; --no-index: run `docslice index` to build it")
    due = state.due()
    if due == "refresh":
        return head + f"; revalidating its {state.stale:,} pages older than {ttl_days:g} d in the background"
    if due == "build":
        going_on = "; its last build was stopped: going on" if state.pages else "; building"
        return head + going_on + " in the background"
    return head + f"; fresh: used as it is (its pages are revalidated once older than {ttl_days:g} d)"


def stopped_line(p: Progress) -> str:
    """The one line for a build stopped at shutdown: what it did, and what the index keeps."""
    checked = f"{p.done:,} of ~{max(p.discovered, p.done):,} pages checked ({p.fetched:,} fetched)"
    if p.refreshing:
        return (
            f"{p.source}: refresh stopped at shutdown, {checked}; the index keeps all its pages, "
            "and the next start revalidates the rest"
        )
    return (
        f"{p.source}: build stopped at shutdown, {checked}; the index keeps the pages indexed so far, "
        "and the next start goes on"
    )


async def index_if_empty(app: App) -> bool:
    """Commands that search index empty sources first, showing progress on stderr; False when no source has
    a page after that (each dead one said in one line, in the command line's words)."""
    if app.index_notice:
        say(app.index_notice)
    if app.index is None:
        return True
    from docs_mcp.store.interface import Scope

    empty = [s for s in app.sources.sources if not app.index.page_count(Scope.of([s]))]
    if not empty:
        return True
    print(
        for_terminal(f"indexing {', '.join(s.name for s in empty)} first, into {where(app)}…"),
        file=sys.stderr,
    )
    reports = await app.indexer.run(sources=empty, on_progress=ProgressBar())
    for line in build_report(reports)[0]:
        print(line, file=sys.stderr)
    for problem in build_report(reports)[1]:
        say(problem)
    return len(empty) < len(app.sources.sources) or any(r.pages for r in reports)


def build_report(reports: list[Progress]) -> tuple[list[str], list[str]]:
    """What a run of builds says, in the command line's words: a summary per source that has pages or no
    problem (for stdout), and one line per problem (for stderr); a source with nothing indexed is said once."""
    from docs_mcp.cli.commands import for_people

    summaries = [for_terminal(for_people(summary(r))) for r in reports if r.pages or not verdict(r)]
    return summaries, [for_people(v) for v in map(verdict, reports) if v]


def where(app: App) -> str:
    """The index's place, and what moves it: said when a command first writes there."""
    if app.settings.index_url:
        return app.index.location if app.index is not None else "the shared index"
    moved = "--cache-dir or DOCSLICE_CACHE_DIR moves it"
    return f"{app.index.location if app.index is not None else app.settings.cache_dir} ({moved})"


def index_line(app: App, failed: frozenset[str] = frozenset()) -> str:
    """After `index`: what these sources have now (but the `failed` roots, said on stderr), where, and the
    file's total when it holds other sources too."""
    assert app.index is not None and app.search is not None
    pages, everything = app.index.page_count(app.search.scope()), app.index.page_count()
    names = ", ".join(s.name for s in app.sources.sources if s.root not in failed)
    others = f"; the index holds {counted(everything, 'page')} in all" if everything != pages else ""
    return f"index: {counted(pages, 'page')} of {names} in {where(app)}{others}"
