"""Reliability figures (issue 13): hostile-origin cases, fuzzing, load. One command reproduces them all:

    python benchmarks/reliability/reliability.py --out docs/reliability.md

`--src PATH` measures another checkout's code (e.g. a worktree of an older main) with `--label before`.
Everything runs on loopback: a scripted hostile origin and two canaries (127.0.0.1 and 127.0.0.2) from
tests/hostile/origin.py, the docs site served by http.server, servers started as subprocesses.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import logging
import os
import platform
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the hostile origin is the test suite's
sys.path.insert(0, str(HERE.parent))  # benchmarks/: common.py

CAP = 20_000
LIMIT = CAP + 1_000
DEADLINE = 10.0  # seconds, per request and per call, in every case below (the default is 30)
SLOW_TRICKLE = 60.0  # a page trickling one byte a second for this long


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=Path, default=REPO / "src", help="code under test (a checkout's src/)")
    ap.add_argument("--label", default="", help="heading suffix, e.g. 'before' for an older checkout")
    ap.add_argument("--out", type=Path, default=None, help="markdown file whose sections are rewritten")
    ap.add_argument("--only", default="cases,fuzz,load", help="comma-separated parts: cases, fuzz, load")
    ap.add_argument("--fuzz-calls", type=int, default=5_000)
    ap.add_argument("--seed", type=int, default=None, help="fuzz seed (default: random, printed)")
    ap.add_argument("--docs", type=Path, default=None, help="docs folder for the load runs")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def use_src(src: Path) -> None:
    """Import docs_mcp from `src`, in this process and in every child (the SDK's per-call logs muted)."""
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    sys.path.insert(0, str(src.resolve()))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(src.resolve()), os.environ.get("PYTHONPATH")])
    )


def settings(**extra: Any):
    """Settings with the benchmark's deadline; options the code under test lacks are dropped."""
    from docs_mcp.settings import Settings

    values = {"deadline": DEADLINE, **extra}
    return Settings(**{k: v for k, v in values.items() if k in Settings.__dataclass_fields__})


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- children: one case in a fresh process, so its peak memory is its own ------------------------------
async def child_tool(spec: dict) -> dict:
    from mcp import Client

    from docs_mcp.fetch.sources import SourceSet
    from docs_mcp.tools.docs import DocsTools
    from docs_mcp.transport.server import build_server

    tools = DocsTools(SourceSet.from_specs(spec["sources"]), settings(**spec.get("settings", {})))
    server = build_server(tools)
    args = spec["args"]
    if "query_chars" in spec:
        args = {**args, "query": "z" * spec["query_chars"]}
    if "url_chars" in spec:
        args = {**args, "url": args["url"] + "a" * spec["url_chars"]}
    async with Client(server, mode="legacy") as client:
        for warm in spec.get("warm", []):
            await client.call_tool("get_doc_toc", {"url": warm})
        t0 = time.perf_counter()
        res = await client.call_tool(spec["tool"], args)
        elapsed = time.perf_counter() - t0
    text = "".join(getattr(c, "text", "") for c in res.content)
    return {"error": res.is_error, "chars": len(text), "text": text[:160], "seconds": elapsed}


async def child_index(spec: dict) -> dict:
    from docs_mcp.crawl.indexer import Indexer
    from docs_mcp.fetch.fetching import Fetcher
    from docs_mcp.fetch.sources import SourceSet
    from docs_mcp.store.sqlite.store import SiteIndex

    sources = SourceSet.from_specs([spec["source"]])
    conf = settings()
    cache = Path(tempfile.mkdtemp(prefix="docs-mcp-rel-"))
    indexer = Indexer(sources, conf, Fetcher(sources, conf), SiteIndex(cache / "index.sqlite"), workers=1)
    t0 = time.perf_counter()
    try:
        [report] = await indexer.run()
    finally:
        await indexer.fetcher.aclose()
    pages = indexer.index.page_count()
    text = f"{pages} pages via {report.method}, {report.robots_skipped} disallowed by robots.txt"
    return {"error": False, "chars": 0, "text": text, "seconds": time.perf_counter() - t0, "pages": pages}


async def child_pool(spec: dict) -> dict:
    """32 trickling pages of one origin in flight, then one call to a healthy second source."""
    from docs_mcp.fetch.sources import SourceSet
    from docs_mcp.tools.docs import DocsTools

    tools = DocsTools(SourceSet.from_specs([spec["slow"], spec["healthy"]]), settings())
    slow = [asyncio.create_task(tools.get_doc_toc(f"{spec['slow']}trickle.html?n={i}")) for i in range(32)]
    await asyncio.sleep(1.0)
    t0 = time.perf_counter()
    try:
        text, error = await tools.get_doc_toc(spec["healthy"] + "seed.html"), False
    except Exception as exc:
        text, error = str(exc), True
    elapsed = time.perf_counter() - t0
    for t in slow:
        t.cancel()
    await asyncio.gather(*slow, return_exceptions=True)
    return {"error": error, "chars": len(text), "text": text[:160], "seconds": elapsed}


async def child_starve(spec: dict) -> dict:
    """Six slow parses in flight; the latency of a call on a cached page meanwhile."""
    from docs_mcp.fetch.sources import SourceSet
    from docs_mcp.tools.docs import DocsTools

    tools = DocsTools(
        SourceSet.from_specs([spec["root"]]), settings(max_body_bytes=20_000_000, deadline=120.0)
    )
    await tools.get_doc_toc(spec["root"] + "page.html")
    slow = [asyncio.create_task(tools.document(spec["root"] + f"heavy-{i}.html")) for i in range(6)]
    await asyncio.sleep(0.5)
    t0 = time.perf_counter()
    text = await tools.get_doc_toc(spec["root"] + "page.html")
    elapsed = time.perf_counter() - t0
    await asyncio.gather(*slow, return_exceptions=True)
    return {
        "error": False,
        "chars": len(text),
        "text": f"cached call took {elapsed * 1000:,.0f} ms",
        "seconds": elapsed,
    }


def child_stdio(spec: dict) -> dict:
    """A tools/call whose JSON holds a lone surrogate escape, over stdio: answered, and within how long."""
    import select

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "docs_mcp",
            "--source",
            spec["site"],
            "--cache-dir",
            tempfile.mkdtemp(),
            "--no-index",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )

    def send(line: str) -> None:
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()

    def reply(rid: int, timeout: float) -> dict | None:
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0 and select.select([proc.stdout], [], [], left)[0]:
            msg = json.loads(proc.stdout.readline() or "{}")
            if msg.get("id") == rid:
                return msg
        return None

    try:
        init = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "r", "version": "1"},
        }
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
        reply(1, 20)
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        t0 = time.perf_counter()
        send(
            '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_doc_toc","arguments":'
            '{"url":"seed\\ud800.html"}}}'
        )
        got = reply(2, 60)
        elapsed = time.perf_counter() - t0
    finally:
        proc.kill()
        proc.wait()
    if got is None:
        return {"error": True, "chars": 0, "text": "no answer within 60 s", "seconds": elapsed}
    text = got.get("result", {}).get("content", [{}])[0].get("text", "")
    return {"error": True, "chars": len(text), "text": text[:160], "seconds": elapsed}


def run_child(spec: dict) -> None:
    kind = spec["kind"]
    if kind == "stdio":
        out = child_stdio(spec)
    else:
        runner = {"tool": child_tool, "index": child_index, "pool": child_pool, "starve": child_starve}[kind]
        out = asyncio.run(runner(spec))
    out["rss_mb"] = rss_mb()
    print("RESULT " + json.dumps(out))


def spawn(spec: dict, timeout: float = 120.0) -> dict:
    """Run one case in a fresh interpreter; a crash or a hang is a result too."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, __file__, "--child", json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=os.environ,
        )
    except subprocess.TimeoutExpired:
        return {
            "error": True,
            "chars": 0,
            "text": f"no answer in {timeout:g}s",
            "seconds": timeout,
            "rss_mb": 0,
        }
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
    return {
        "error": True,
        "chars": 0,
        "text": f"crashed: {tail[:150]}",
        "seconds": time.perf_counter() - t0,
        "rss_mb": 0,
        "crash": True,
    }


# --- the case table -----------------------------------------------------------------------------------
def cases(canary, alt) -> list[dict]:
    """(name, kind, extra routes, spec) for every hostile case; `{O}` is the origin's base URL."""
    from hostile.origin import gzip_bomb, page, redirect, static, trickle
    from hostile.test_path_roots import ESCAPES

    bomb = gzip_bomb(2_000)  # 2 GB of spaces, ~2 MB compressed
    out: list[dict] = []

    def index(name: str, routes: dict) -> None:
        out.append({"name": name, "kind": "index", "routes": routes})

    def tool(name: str, tool_name: str = "get_doc_toc", routes: dict | None = None, **spec) -> None:
        out.append({"name": name, "kind": "tool", "tool": tool_name, "routes": routes or {}, **spec})

    index("robots.txt → another port", {"/robots.txt": redirect(canary.url + "robots.txt")})
    index("robots.txt → 127.0.0.2", {"/robots.txt": redirect(alt.url + "robots.txt")})
    index("robots.txt → file:", {"/robots.txt": redirect("file:///etc/passwd")})
    index("robots.txt → itself (loop)", {"/robots.txt": redirect("/robots.txt")})
    index("sitemap.xml → another port", {"/docs/sitemap.xml": redirect(canary.url + "sitemap.xml")})
    index("llms.txt → another port", {"/docs/llms.txt": redirect(canary.url + "llms.txt")})
    index("robots.txt: 2 MB gzip bomb", {"/robots.txt": static(bomb, "text/plain", Content_Encoding="gzip")})
    index(
        "sitemap.xml: 2 MB gzip bomb",
        {"/docs/sitemap.xml": static(bomb, "text/xml", Content_Encoding="gzip")},
    )
    index("sitemap.xml.gz: 2 MB gzip bomb", {"/docs/sitemap.xml": static(bomb, "application/gzip")})
    for path in ("port", "host", "file", "loop", "escape", "backslash"):
        tool(f"page redirect → {path}", url="{O}docs/redirect-" + path + ".html")
    tool(
        "page: 2 MB gzip bomb",
        routes={"/docs/b2.html": static(bomb, Content_Encoding="gzip")},
        url="{O}docs/b2.html",
    )
    tool("page: Content-Encoding gzip, gzip", url="{O}docs/gzip-gzip-bomb.html")
    tool("page: Content-Encoding br (unknown)", url="{O}docs/brotli.html")
    tool("page: 1 MB header", url="{O}docs/huge-header.html")
    tool(
        f"page trickling 1 byte/s for {SLOW_TRICKLE:g} s",
        routes={"/docs/t.html": trickle(SLOW_TRICKLE, 1.0)},
        url="{O}docs/t.html",
        settings={"read_timeout": 20.0},
    )
    for charset in ("undefined", "idna", "rot13"):
        tool(f"charset={charset}", url="{O}docs/charset-" + charset + ".html")
    tool("random bytes as text/html", url="{O}docs/random.html")
    for form in ESCAPES:
        tool(f"path `{form.replace('docs/', '…/docs/', 1)}`", url="{O}" + form)
    tool("1 MB URL", url="{O}docs/", url_chars=1_000_000)
    tool(
        "20 MB query (search_in_doc, no match)",
        "search_in_doc",
        url="{O}docs/page.html",
        query_chars=20_000_000,
    )
    heads = "".join(f"<h2 id='{'x' * 2000}{i}'>Heading {i}</h2><p>Text {i}.</p>" for i in range(40))
    tool(
        "unknown section_id, 40 ids of 2,000 chars",
        "get_doc_section",
        routes={"/docs/ids.html": static(page("Long ids", heads))},
        url="{O}docs/ids.html",
        section_id="nope",
    )
    tool(
        "200,000-char <title> (get_doc_toc)",
        routes={"/docs/title.html": static(page("T" * 200_000))},
        url="{O}docs/title.html",
    )
    tool("lone surrogate in url (in-process)", url="{O}docs/\ud800.html")
    tool("NUL in url", url="{O}docs/x\x00.html")
    tool("encoded CR/LF in url", url="{O}docs/%0d%0aX:%20y.html")
    out.append({"name": "lone surrogate in url (stdio)", "kind": "stdio", "routes": {}})
    out.append({"name": "32 trickling pages, then a healthy 2nd source", "kind": "pool", "routes": {}})
    out.append({"name": "6 slow parses, then a cached call", "kind": "starve", "routes": {}})
    for local in ("FIFO x.html", "symlink loop", "name too long", "NUL in path"):
        out.append({"name": f"local root: {local}", "kind": "local", "what": local.split()[0], "routes": {}})
    return out


def local_case(what: str, folder: Path) -> dict:
    """A local-root case: the file system object it needs, and the url to ask for."""
    if what == "FIFO":
        os.mkfifo(folder / "x.html")
        url = "x.html"
    elif what == "symlink":
        (folder / "loop.html").symlink_to(folder / "loop.html")
        url = "loop.html"
    elif what == "name":
        url = "a" * 300 + ".html"
    else:
        url = "x\x00.html"
    return {"kind": "tool", "tool": "get_doc_toc", "sources": [str(folder)], "args": {"url": url}}


def run_cases(canary, alt) -> tuple[list[list[str]], dict[str, int]]:
    from hostile.origin import ROOT, Server, docs_site, heavy_page, static, trickle

    site = REPO / "fixtures" / "site"
    rows, totals = [], {"cases": 0, "outside": 0, "over_cap": 0, "unexpected": 0, "crashes": 0, "hangs": 0}
    healthy = Server("127.0.0.1", {"/seed.html": static((site / "seed.html").read_bytes())})
    for case in cases(canary, alt):
        origin = Server("127.0.0.1")
        origin.routes.update(docs_site(origin.url, canary.url, alt.url))
        origin.routes.update(case["routes"])
        canary.httpd.recorder.clear()
        alt.httpd.recorder.clear()
        root = origin.url + "docs/"
        kind = case["kind"]
        folder = Path(tempfile.mkdtemp(prefix="docs-mcp-rel-local-"))
        if kind == "index":
            spec = {"kind": "index", "source": root}
        elif kind == "tool":
            args = {"url": case["url"].replace("{O}", origin.url)}
            for key in ("section_id",):
                if key in case:
                    args[key] = case[key]
            if case["tool"] == "search_in_doc":
                args["query"] = ""
            spec = {
                "kind": "tool",
                "tool": case["tool"],
                "sources": [root],
                "args": args,
                "settings": case.get("settings", {}),
            }
            for key in ("query_chars", "url_chars"):
                if key in case:
                    spec[key] = case[key]
        elif kind == "pool":
            origin.routes["/docs/trickle.html"] = trickle(SLOW_TRICKLE, 1.0)
            spec = {"kind": "pool", "slow": root, "healthy": healthy.url}
        elif kind == "starve":
            for i in range(6):
                origin.routes[f"/docs/heavy-{i}.html"] = static(heavy_page(6000, i))
            spec = {"kind": "starve", "root": root}
        elif kind == "stdio":
            spec = {"kind": "stdio", "site": str(site)}
        else:
            spec = local_case(case["what"], folder)
        res = spawn(spec)
        outside = [p for p in origin.requests if not p.startswith(ROOT) and p != "/robots.txt"]
        outside += canary.requests + alt.requests
        origin.stop()
        if kind == "local" and case["what"] == "FIFO":
            with contextlib.suppress(OSError):  # release a reader a blocking version left waiting
                os.close(os.open(folder / "x.html", os.O_WRONLY | os.O_NONBLOCK))
        shutil.rmtree(folder, ignore_errors=True)
        text = res["text"].replace("|", "\\|").replace("\n", " ")
        text = re.sub(r"^Error executing tool \w+: ", "", text)
        unexpected = "unexpected" in res["text"] or res.get("crash")
        totals["cases"] += 1
        totals["outside"] += len(outside)
        totals["over_cap"] += res["chars"] > LIMIT
        totals["unexpected"] += bool(unexpected)
        totals["crashes"] += bool(res.get("crash"))
        totals["hangs"] += res["text"].startswith("no answer")
        rows.append(
            [
                case["name"],
                text[:90] + ("…" if len(text) > 90 else ""),
                f"{res['chars']:,}",
                str(len(outside)),
                f"{res['rss_mb']:,.0f}",
                f"{res['seconds']:.1f}",
            ]
        )
        print(
            f"  {case['name'][:50]:50} {res['seconds']:6.1f}s {res['rss_mb']:7.0f} MB out={len(outside)} "
            f"{text[:70]}",
            flush=True,
        )
    healthy.stop()
    return rows, totals


# --- fuzzing ------------------------------------------------------------------------------------------
ODD = [
    "%",
    ".",
    "/",
    "\\",
    "\x00",
    "\r",
    "\n",
    "#",
    "?",
    "@",
    ":",
    "~",
    " ",
    "é",
    "\u202e",
    "\ud800",
    "\udfff",
    "%2e",
    "%2f",
    "%5c",
    "%25",
    "..",
    "%00",
    "ｆ",
    "\U0001f600",
    "<",
    ">",
    '"',
    "'",
]


def fuzz_text(rng: random.Random, max_len: int = 40) -> str:
    parts = []
    for _ in range(rng.randint(0, max_len)):
        r = rng.random()
        if r < 0.4:
            parts.append(rng.choice(ODD))
        elif r < 0.7:
            parts.append(chr(rng.randint(32, 126)))
        else:
            parts.append(chr(rng.randint(0, 0x10FFFF)))
    return "".join(parts)


def fuzz_calls(rng: random.Random, origin: str, canary: str, alt: str, paths: list[str], escapes: list[str]):
    """An endless stream of (tool, arguments), hostile in every argument."""

    def url() -> str:
        r = rng.random()
        if r < 0.35:
            return origin + rng.choice(paths)
        if r < 0.5:
            return origin + rng.choice(escapes)
        if r < 0.65:
            return rng.choice(
                [
                    "local:page.html",
                    "page.html",
                    "guide/intro.md",
                    "../etc/passwd",
                    "/etc/passwd",
                    "file:///etc/passwd",
                    canary + "docs/page.html",
                    alt + "docs/page.html",
                    "http://127.0.0.1:1/docs/x.html",
                    origin + "docs/" + "a" * 3000,
                    "a" * 300 + ".html",
                ]
            )
        return rng.choice([origin + "docs/", "", "local:"]) + fuzz_text(rng)

    def number() -> int:
        return rng.choice([rng.randint(-10, 30_000), rng.randint(-(2**70), 2**70), 0, -1])

    def text() -> str:
        return rng.choice(["tide", "datum offsets", "", fuzz_text(rng), fuzz_text(rng, 400)])

    def maybe(args: dict, **optional) -> dict:
        for key, make in optional.items():
            if rng.random() < 0.5:
                args[key] = make()
        return args

    while True:
        tool = rng.choice(
            ["search_docs", "search_in_doc", "get_doc_toc", "get_doc_section", "get_doc_content"]
        )
        if tool == "search_docs":
            args = maybe(
                {"query": text()},
                max_results=number,
                include_headings=lambda: rng.random() < 0.5,
                source=lambda: rng.choice([None, "local", "docs", fuzz_text(rng, 10)]),
            )
        elif tool == "search_in_doc":
            args = maybe({"url": url(), "query": text()}, max_sections=number, max_length=number)
        elif tool == "get_doc_toc":
            args = {"url": url()}
        elif tool == "get_doc_section":
            args = maybe(
                {"url": url(), "section_id": rng.choice(["details", "Details", "", fuzz_text(rng)])},
                max_length=number,
                start_index=number,
            )
        else:
            args = maybe(
                {"url": url()},
                max_length=number,
                start_index=number,
                include_code_blocks=lambda: rng.random() < 0.5,
            )
        yield tool, args


async def run_fuzz(n: int, seed: int, canary, alt) -> dict:
    from hostile.origin import ROOT, Server, docs_site
    from hostile.test_path_roots import ESCAPES
    from mcp import Client

    from docs_mcp.fetch.sources import SourceSet
    from docs_mcp.tools.docs import DocsTools
    from docs_mcp.transport.server import build_server

    origin = Server("127.0.0.1")
    origin.routes.update(docs_site(origin.url, canary.url, alt.url))
    for slow in ("/docs/trickle.html", "/docs/slow-headers.html"):
        origin.routes.pop(slow)
    folder = Path(tempfile.mkdtemp(prefix="docs-mcp-rel-fuzz-"))
    (folder / "guide").mkdir()
    (folder / "page.html").write_text(
        "<html><body><main><h1>Local page</h1><p>Tide text.</p></main></body></html>"
    )
    (folder / "guide" / "intro.md").write_text(
        "# Intro\n\nSome *markdown* about datums.\n\n## Next\n\nMore.\n"
    )
    tools = DocsTools(SourceSet.from_specs([origin.url + "docs/", f"local={folder}"]), settings(deadline=2.0))
    server = build_server(tools)
    paths = sorted(p.lstrip("/") for p in origin.routes if p != "*")
    calls = fuzz_calls(random.Random(seed), origin.url, canary.url, alt.url, paths, ESCAPES)
    canary.httpd.recorder.clear()
    alt.httpd.recorder.clear()
    stats = {
        "calls": 0,
        "errors": 0,
        "timeouts": 0,
        "over_cap": 0,
        "unexpected": 0,
        "crashes": 0,
        "latency": [],
    }
    examples: list[str] = []
    done = 0
    while done < n:
        try:
            async with Client(server, mode="legacy") as client:
                while done < n:
                    tool, args = next(calls)
                    done += 1
                    t0 = time.perf_counter()
                    try:
                        res = await asyncio.wait_for(client.call_tool(tool, args), 2.0 + 5)
                    except TimeoutError:
                        stats["timeouts"] += 1
                        examples.append(f"timeout: {tool} {args!r:.200}")
                        continue
                    stats["latency"].append(time.perf_counter() - t0)
                    stats["calls"] += 1
                    text = "".join(getattr(c, "text", "") for c in res.content)
                    stats["errors"] += res.is_error
                    if len(text) > LIMIT:
                        stats["over_cap"] += 1
                        examples.append(f"over cap ({len(text):,}): {tool} {args!r:.200}")
                    if res.is_error and "unexpected" in text:
                        stats["unexpected"] += 1
                        examples.append(f"{text[:200]} ← {tool} {args!r:.200}")
        except Exception as exc:  # the session broke: a crash
            stats["crashes"] += 1
            examples.append(f"crash: {exc.__class__.__name__}: {str(exc)[:200]}")
    stats["outside"] = len([p for p in origin.requests if not p.startswith(ROOT) and p != "/robots.txt"])
    stats["outside"] += len(canary.requests) + len(alt.requests)
    stats["examples"] = examples
    origin.stop()
    shutil.rmtree(folder, ignore_errors=True)
    return stats


# --- load ---------------------------------------------------------------------------------------------
def site_pages(docs: Path, limit: int = 60) -> list[str]:
    pages = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.html"))
    rng = random.Random(7)
    return rng.sample(pages, min(limit, len(pages)))


def load_call(rng: random.Random, root: str, pages: list[str]) -> tuple[str, dict]:
    page = root + rng.choice(pages)
    words = ["configure", "timeout", "error handling", "install", "datum", "file", "thread", "json parse"]
    tool = rng.choice(["search_docs", "search_in_doc", "get_doc_toc", "get_doc_section", "get_doc_content"])
    if tool == "search_docs":
        return tool, {"query": rng.choice(words)}
    if tool == "search_in_doc":
        return tool, {"url": page, "query": rng.choice(words)}
    if tool == "get_doc_section":
        return tool, {"url": page, "section_id": rng.choice(["intro", "details", "1", "usage"])}
    if tool == "get_doc_content":
        return tool, {"url": page, "start_index": rng.choice([0, 0, 5000])}
    return tool, {"url": page}


def server_params(root: str, cache: Path, index: bool = True):
    from mcp.client.stdio import StdioServerParameters

    args = ["-m", "docs_mcp", "--source", root, "--cache-dir", str(cache)]
    return StdioServerParameters(
        command=sys.executable, args=args + ([] if index else ["--no-index"]), env={**os.environ}
    )


def tally(stats: dict, res, elapsed: float) -> None:
    text = "".join(getattr(c, "text", "") for c in res.content)
    stats["calls"] += 1
    stats["latency"].append(elapsed)
    stats["errors"] += res.is_error
    stats["over_cap"] += len(text) > LIMIT
    bad = res.is_error and ("unexpected" in text or "database is locked" in text)
    stats["unexpected"] += res.is_error and "unexpected" in text
    stats["locked"] += res.is_error and "database is locked" in text
    if bad and text.splitlines()[0][:200] not in stats["examples"] and len(stats["examples"]) < 5:
        stats["examples"].append(text.splitlines()[0][:200])


def new_stats() -> dict:
    return {
        "calls": 0,
        "errors": 0,
        "over_cap": 0,
        "unexpected": 0,
        "locked": 0,
        "crashes": 0,
        "latency": [],
        "examples": [],
    }


async def load_callers(root: str, pages: list[str], callers: int = 20, each: int = 200) -> dict:
    """`callers` concurrent callers × `each` calls on one stdio server (indexing in the background)."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    stats = new_stats()
    cache = Path(tempfile.mkdtemp(prefix="docs-mcp-rel-load-"))
    with open(os.devnull, "w") as devnull:
        try:
            async with (
                stdio_client(server_params(root, cache), errlog=devnull) as (rd, wr),
                ClientSession(rd, wr) as session,
            ):
                await session.initialize()

                async def caller(k: int) -> None:
                    rng = random.Random(k)
                    for _ in range(each):
                        tool, args = load_call(rng, root, pages)
                        t0 = time.perf_counter()
                        res = await asyncio.wait_for(session.call_tool(tool, args), 120)
                        tally(stats, res, time.perf_counter() - t0)

                await asyncio.gather(*(caller(k) for k in range(callers)))
        except Exception as exc:
            stats["crashes"] += 1
            stats["examples"].append(f"crash: {exc!r:.200}")
    shutil.rmtree(cache, ignore_errors=True)
    return stats


async def load_servers(root: str, pages: list[str], servers: int = 20, each: int = 20) -> dict:
    """`servers` stdio servers at once on one cache dir, each indexing in the background and answering."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    stats = new_stats()
    cache = Path(tempfile.mkdtemp(prefix="docs-mcp-rel-servers-"))

    async def one(k: int) -> None:
        rng = random.Random(100 + k)
        with open(os.devnull, "w") as devnull:
            try:
                async with (
                    stdio_client(server_params(root, cache), errlog=devnull) as (rd, wr),
                    ClientSession(rd, wr) as session,
                ):
                    await asyncio.wait_for(session.initialize(), 60)
                    for _ in range(each):
                        tool, args = load_call(rng, root, pages)
                        t0 = time.perf_counter()
                        res = await asyncio.wait_for(session.call_tool(tool, args), 120)
                        tally(stats, res, time.perf_counter() - t0)
            except Exception as exc:
                stats["crashes"] += 1
                if len(stats["examples"]) < 5:
                    stats["examples"].append(f"crash: {exc!r:.200}")

    await asyncio.gather(*(one(k) for k in range(servers)))
    shutil.rmtree(cache, ignore_errors=True)
    return stats


def load_indexers(root: str, processes: int = 20) -> dict:
    """`processes` `docs-mcp index` at once on one cache dir; the pages they leave against one run alone."""
    alone = Path(tempfile.mkdtemp(prefix="docs-mcp-rel-alone-"))
    shared = Path(tempfile.mkdtemp(prefix="docs-mcp-rel-shared-"))
    cmd = [sys.executable, "-m", "docs_mcp", "index", "--source", root, "--workers", "1"]
    subprocess.run([*cmd, "--cache-dir", str(alone)], capture_output=True, timeout=1800)
    t0 = time.perf_counter()
    procs = [
        subprocess.Popen(
            [*cmd, "--cache-dir", str(shared)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(processes)
    ]
    outs = [p.communicate(timeout=3600) for p in procs]
    elapsed = time.perf_counter() - t0
    codes = [p.returncode for p in procs]
    text = "\n".join(o + e for o, e in outs)
    count = (
        "import sys; from pathlib import Path; from docs_mcp.store.sqlite.store import SiteIndex; "
        "print(SiteIndex(Path(sys.argv[1]) / 'index.sqlite').page_count())"
    )

    def pages(cache: Path) -> int:
        out = subprocess.run([sys.executable, "-c", count, str(cache)], capture_output=True, text=True)
        return int(out.stdout.strip() or -1)

    result = {
        "processes": processes,
        "exit_codes": {c: codes.count(c) for c in sorted(set(codes))},
        "locked": text.count("database is locked"),
        "tracebacks": text.count("Traceback"),
        "pages_alone": pages(alone),
        "pages_shared": pages(shared),
        "seconds": elapsed,
    }
    shutil.rmtree(alone, ignore_errors=True)
    shutil.rmtree(shared, ignore_errors=True)
    return result


# --- report -------------------------------------------------------------------------------------------
def pct(values: list[float], q: float) -> str:
    if not values:
        return "n/a"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000:,.1f}"


#: Columns of a fuzz or load table (stats_row fills one row).
STATS_HEAD = [
    "run",
    "calls",
    "crashes",
    "outside roots",
    "over cap+1,000",
    "unexpected",
    "locked",
    "p50 ms",
    "p95 ms",
]


def stats_row(name: str, s: dict) -> list[str]:
    return [
        name,
        f"{s['calls']:,}",
        str(s["crashes"]),
        str(s.get("outside", "—")),
        str(s["over_cap"]),
        str(s["unexpected"]),
        str(s.get("locked", "—")),
        pct(s["latency"], 0.5),
        pct(s["latency"], 0.95),
    ]


def main() -> None:
    ns = parse_args()
    if ns.child:
        use_src(Path(os.environ.get("DOCS_MCP_SRC", REPO / "src")))
        run_child(json.loads(ns.child))
        return
    use_src(ns.src)
    os.environ["DOCS_MCP_SRC"] = str(ns.src.resolve())
    from common import DOCS_DIR, docs_server, md_table, replace_section
    from hostile.conftest import canary_routes
    from hostile.origin import Server

    parts = set(ns.only.split(","))
    label = f" ({ns.label})" if ns.label else ""
    rev = subprocess.run(
        ["git", "-C", str(ns.src), "log", "-1", "--format=%h %s"], capture_output=True, text=True
    )
    when = (
        f"Run {dt.date.today()} on {platform.platform()} ({os.cpu_count()} cores), Python {platform.python_version()};"
        f" code under test: `{ns.src}` ({rev.stdout.strip()[:70] or 'not a git checkout'})."
    )
    command = "python benchmarks/reliability/reliability.py --out docs/reliability.md" + (
        f" --src {ns.src} --label {ns.label!r}" if ns.label else ""
    )
    canary, alt = Server("127.0.0.1", canary_routes()), Server("127.0.0.2", canary_routes())
    sections: dict[str, str] = {}
    if "cases" in parts:
        print("hostile cases (each in a fresh process):", flush=True)
        rows, t = run_cases(canary, alt)
        table = md_table(
            ["case", "answer (start)", "chars", "requests outside the roots", "peak RSS MB", "s"], rows
        )
        sections[f"## Hostile origin{label}"] = (
            f"{when}\n\n```sh\n{command} --only cases\n```\n\n"
            f"Each case runs in a fresh interpreter (its peak RSS is its own) against a scripted origin on "
            f"127.0.0.1 with canaries on another port and on 127.0.0.2; deadline {DEADLINE:g} s, body limit "
            f"10 MB. Requests outside the roots count every request the origin understood as outside `/docs/` "
            f"(robots.txt excepted) and every request a canary got.\n\n{table}\n\n"
            f"Totals: {t['cases']} cases, {t['crashes']} crashes, {t['hangs']} calls with no answer, "
            f"{t['outside']} requests outside the roots, {t['over_cap']} answers over cap + 1,000, "
            f'{t["unexpected"]} internal ("unexpected") errors.'
        )
    if "fuzz" in parts:
        seed = ns.seed if ns.seed is not None else random.randrange(2**32)
        print(f"fuzzing {ns.fuzz_calls:,} calls, seed {seed}:", flush=True)
        f = asyncio.run(run_fuzz(ns.fuzz_calls, seed, canary, alt))
        head = STATS_HEAD
        table = md_table(head, [stats_row(f"fuzz, seed {seed}", f)])
        shown = "\n".join(f"- `{e[:240]}`" for e in f["examples"][:10]) or "- none"
        sections[f"## Fuzzing{label}"] = (
            f"{when}\n\n```sh\n{command} --only fuzz --fuzz-calls {ns.fuzz_calls} --seed {seed}\n```\n\n"
            "Random calls of the five tools through the in-process MCP client: hostile URLs (encoded escapes, "
            "control characters, lone surrogates, other ports and hosts, every misbehaving path of the origin "
            "but the two slow ones), random Unicode queries and section ids, huge and negative integers. Deadline "
            f"2 s. {f['timeouts']} calls got no answer within deadline + 5 s; {f['errors']:,} were errors (most "
            f"arguments are invalid on purpose).\n\n{table}\n\nFailures seen (at most 10):\n\n{shown}"
        )
    if "load" in parts:
        docs = ns.docs or (
            DOCS_DIR if (DOCS_DIR / "library" / "os.html").is_file() else REPO / "fixtures" / "site"
        )
        with docs_server(docs, check=False) as root:
            pages = site_pages(docs)
            print(f"load on {docs} ({root}):", flush=True)
            a = asyncio.run(load_callers(root, pages))
            print("  20 callers × 200 calls:", {k: v for k, v in a.items() if k != "latency"}, flush=True)
            b = asyncio.run(load_servers(root, pages))
            print("  20 servers:", {k: v for k, v in b.items() if k != "latency"}, flush=True)
            c = load_indexers(root)
            print("  20 indexers:", c, flush=True)
        head = STATS_HEAD
        table = md_table(
            head,
            [
                stats_row("20 callers × 200 calls, one stdio server", a),
                stats_row("20 stdio servers × 20 calls, one cache dir", b),
            ],
        )
        examples = "\n".join(f"- {e[:240]!r}" for e in a["examples"] + b["examples"]) or "- none"
        sections[f"## Load{label}"] = (
            f"{when}\n\n```sh\n{command} --only load\n```\n\n"
            f"Docs: `{docs}` served on loopback. Servers are `python -m docs_mcp` over stdio with background "
            "indexing on, so calls meet an index being built; calls are random tools on 60 of the site's pages "
            f'("locked": errors saying the database is locked).\n\n{table}\n\n'
            f"Examples:\n\n{examples}\n\n"
            f"20 concurrent `docs-mcp index --workers 1` on one cache dir ({c['seconds']:.0f} s): exit codes "
            f'{c["exit_codes"]}, "database is locked" {c["locked"]} times, {c["tracebacks"]} tracebacks; they left '
            f"{c['pages_shared']} pages where one run alone indexes {c['pages_alone']}."
        )
    canary.stop()
    alt.stop()
    for heading, body in sections.items():
        print(f"\n{heading}\n\n{body}")
        if ns.out:
            replace_section(ns.out, heading, body)


if __name__ == "__main__":
    main()
