"""The audit's figures (success@1/@3 per kind, the thieves) as data for machines and as a report a
documentation owner reads; every text from a page is escaped, every list capped."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from docs_mcp.audit.queries import PAGE_KINDS, SECTION_KINDS
from docs_mcp.audit.run import TOP, Outcome, SiteAudit
from docs_mcp.settings import AUDIT_HITS, AUDIT_SHOWN
from docs_mcp.text.controls import escaped

#: A query or title shown in a report line is cut to this many characters.
SHOWN_CHARS = 80


def _rates(outcomes: list[Outcome], kinds: tuple[str, ...]) -> dict[str, dict[str, float | int]]:
    """Per kind (and 'all'): known items, and the share whose answer ranked first, in the top 3, at all."""
    groups: dict[str, list[Outcome]] = {k: [o for o in outcomes if o.item.kind == k] for k in kinds}
    groups["all"] = outcomes
    out = {}
    for kind, group in groups.items():
        n = len(group)
        out[kind] = {
            "items": n,
            "at1": _share(sum(o.rank == 1 for o in group), n),
            "at3": _share(sum(0 < o.rank <= TOP for o in group), n),
            "found": _share(sum(o.rank > 0 for o in group), n),
        }
    return out


def _share(k: int, n: int) -> float:
    return round(k / n, 3) if n else 0.0


def _thieves(outcomes: list[Outcome], by_title: bool, cap: int) -> list[dict[str, Any]]:
    """What stood above the right answer in the top 3 most often: pages (by address), or sections (by
    heading, lowercased), with how often, their share of the known items, and the kinds they stole."""
    counts: Counter[str] = Counter()
    titles: dict[str, str] = {}
    kinds: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for o in outcomes:
        for address, title in dict.fromkeys(o.above):
            name = title.strip().lower() if by_title else address
            counts[name] += 1
            titles.setdefault(name, title)
            kinds[name][o.item.kind] += 1
    total = len(outcomes) or 1
    ranked = sorted(counts.items(), key=lambda nc: (-nc[1], nc[0]))[:cap]
    return [
        {
            ("heading" if by_title else "url"): escaped(name),
            **({} if by_title else {"title": escaped(titles[name])}),
            "above": n,
            "share": round(n / total, 4),
            "kinds": dict(sorted(kinds[name].items())),
        }
        for name, n in ranked
    ]


def _misses(outcomes: list[Outcome], cap: int) -> list[dict[str, Any]]:
    """The first known items (in sample order) whose page was not in the top 3."""
    missed = [o for o in outcomes if not 0 < o.rank <= TOP][:cap]
    return [
        {
            "kind": o.item.kind,
            "query": escaped(o.item.query),
            "page": escaped(o.page),
            "rank": o.rank,
            "above": [escaped(a) for a, _ in o.above],
        }
        for o in missed
    ]


def as_data(audit: SiteAudit, root: str, cap: int = AUDIT_SHOWN) -> dict[str, Any]:
    """The audit as JSON-ready data (`docslice audit --json`, the benchmark)."""
    return {
        "source": audit.source,
        "root": escaped(root),
        "pages_listed": audit.listed,
        "pages_sampled": len(audit.sampled),
        "pages_unread": audit.unread,
        "seconds": round(audit.seconds, 1),
        "site": {
            "kinds": _rates(audit.pages, PAGE_KINDS),
            "thieves": _thieves(audit.pages, False, cap),
            "misses": _misses(audit.pages, cap),
        },
        "in_page": {
            "kinds": _rates(audit.sections, SECTION_KINDS),
            "thieves": _thieves(audit.sections, True, cap),
        },
    }


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, pipes escaped, cut to SHOWN_CHARS."""
    one = " ".join(text.split())
    one = one if len(one) <= SHOWN_CHARS else one[: SHOWN_CHARS - 1] + "…"
    return one.replace("|", "\\|")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rate_table(kinds: dict[str, dict[str, Any]], found: bool) -> list[str]:
    head = "| kind | known items | top 1 | top 3 |" + (f" in top {AUDIT_HITS} |" if found else "")
    lines = [head, "|---|---:|---:|---:|" + ("---:|" if found else "")]
    for kind, r in kinds.items():
        if r["items"]:
            row = f"| {kind} | {r['items']} | {_pct(r['at1'])} | {_pct(r['at3'])} |"
            lines.append(row + (f" {_pct(r['found'])} |" if found else ""))
    return lines


def as_markdown(data: dict[str, Any]) -> str:
    """The report a documentation owner reads: how findable the site's pages are by their own words, and
    which pages take the right one's place."""
    items = data["site"]["kinds"]["all"]["items"]
    lines = [
        f"# Findability audit: {data['source']}",
        "",
        f"{data['root']} · {data['pages_listed']:,} pages listed, {data['pages_sampled']:,} sampled (by the hash "
        f"of their address: the same sample on every run) · {items:,} known items · {data['seconds']} s",
        "",
        "## Site search (search_docs): the right page in the top 1 / top 3",
        "",
        *_rate_table(data["site"]["kinds"], True),
        "",
        "## Thieves: pages ranked above the right one (in the top 3)",
        "",
        *_thieves_table(data["site"]["thieves"]),
        "",
        "## Inside the page (search_in_doc): the right section first / among the 3 shown",
        "",
        *_in_page(data["in_page"]),
        *_misses_list(data["site"]["misses"]),
    ]
    return "\n".join(lines) + "\n"


def _thieves_table(thieves: list[dict[str, Any]]) -> list[str]:
    if not thieves:
        return ["No page ranked above the right one."]
    lines = ["| page | title | times | share of known items | kinds |", "|---|---|---:|---:|---|"]
    return lines + [
        f"| {_cell(t['url'])} | {_cell(t['title'])} | {t['above']} | {_pct(t['share'])} | "
        f"{', '.join(f'{k} {n}' for k, n in t['kinds'].items())} |"
        for t in thieves
    ]


def _in_page(inside: dict[str, Any]) -> list[str]:
    if not inside["kinds"]["all"]["items"]:
        return ["No sampled page had two sections to tell apart."]
    lines = _rate_table(inside["kinds"], False)
    if inside["thieves"]:
        lines += ["", "Sections shown above the right one, by heading:", ""]
        lines += ["| heading | times | share |", "|---|---:|---:|"]
        lines += [f"| {_cell(t['heading'])} | {t['above']} | {_pct(t['share'])} |" for t in inside["thieves"]]
    return lines


def _misses_list(misses: list[dict[str, Any]]) -> list[str]:
    if not misses:
        return []
    lines = ["", "## First misses (the right page not in the top 3)", ""]
    for m in misses:
        where = f"rank {m['rank']}" if m["rank"] else f"not in the top {AUDIT_HITS}"
        above = ", ".join(_cell(a) for a in m["above"]) or "nothing"
        lines.append(
            f"- {m['kind']} `{_cell(m['query'])}` for {_cell(m['page'])}: {where}; above it: {above}"
        )
    return lines
