"""Response bodies: one content-coding layer, inflated step by step under a size limit, then decoded to text."""

from __future__ import annotations

import codecs
import re
import zlib
from collections.abc import AsyncIterator

from docs_mcp.errors import FetchError
from docs_mcp.settings import CONTENT_CODINGS, INFLATE_STEP

_META_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_-]+)""", re.I)
#: Characters no parser accepts in a page (XML 1.0 excludes them; lxml refuses text holding NUL).
_INVALID_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_GZIP_MAGIC = b"\x1f\x8b"


class BodyTooLarge(Exception):
    """Internal: the body grew past its limit (`size` is what was read or inflated by then, `partial` the
    output of the step that passed it, up to the limit)."""

    def __init__(self, size: int, partial: bytes = b""):
        super().__init__(size)
        self.size = size
        self.partial = partial


def coding_of(header_values: list[str], url: str) -> str:
    """The one content coding of a response ("" for none); stacked or unknown codings are refused."""
    values = [v.strip().lower() for header in header_values for v in header.split(",")]
    codings = [v for v in values if v and v != "identity"]
    if len(codings) > 1:
        raise FetchError(
            f"{url} is sent with {len(codings)} stacked content codings ({', '.join(codings)[:100]}); "
            "docs-mcp decodes one layer only, so the page cannot be read"
        )
    if codings and codings[0] not in CONTENT_CODINGS:
        raise FetchError(
            f"{url} is sent with content coding {codings[0][:40]!r}, which docs-mcp does not decode "
            f"(only {', '.join(CONTENT_CODINGS)}); the page cannot be read"
        )
    return codings[0] if codings else ""


class Inflater:
    """Decompresses one coding incrementally: never more than INFLATE_STEP bytes per step, never past `limit`."""

    def __init__(self, coding: str, limit: int):
        self.coding = coding
        self.limit = limit
        self.produced = 0
        self._z: zlib._Decompress | None = None
        self._done = False

    def feed(self, data: bytes) -> bytes:
        """Inflate `data`; BodyTooLarge when the output passes the limit, FetchError on corrupt data."""
        if not self.coding:
            self.produced += len(data)
            if self.produced > self.limit:
                raise BodyTooLarge(self.produced, data[: len(data) - (self.produced - self.limit)])
            return data
        out = []
        try:
            while not self._done:
                if self._z is None:
                    if not data:
                        break
                    self._z = zlib.decompressobj(self._wbits(data))
                # max_length bounds each step; input zlib has not consumed yet waits in unconsumed_tail.
                step = min(INFLATE_STEP, self.limit - self.produced + 1)
                chunk = self._z.decompress(data, step)
                self.produced += len(chunk)
                if self.produced > self.limit:
                    raise BodyTooLarge(self.produced, b"".join(out) + chunk[: len(chunk) - 1])
                out.append(chunk)
                if self._z.eof:
                    data, self._z = self._z.unused_data, None
                    # Concatenated gzip members are one body; anything else after the end is ignored.
                    if data and not (self.coding != "deflate" and data[:2] == _GZIP_MAGIC):
                        self._done = True
                    continue
                data = self._z.unconsumed_tail
                if not data and len(chunk) < step:  # all input consumed, no output pending
                    break
        except zlib.error as exc:
            raise CorruptBody(str(exc)) from None
        return b"".join(out)

    def _wbits(self, data: bytes) -> int:
        if self.coding != "deflate":
            return CONTENT_CODINGS[self.coding]
        # "deflate" is meant to be zlib-wrapped; some servers send raw deflate. The header says which.
        zlib_header = len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
        return 15 if zlib_header else -15


class CorruptBody(Exception):
    """Internal: compressed data that does not inflate."""


async def read_body(chunks: AsyncIterator[bytes], coding: str, limit: int, truncate: bool = False) -> bytes:
    """The body, inflated, at most `limit` bytes read and produced. Over the limit: BodyTooLarge, or with
    `truncate` the first `limit` bytes (discovery files: a huge sitemap still lists its first pages)."""
    inflater = Inflater(coding, limit)
    out: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        over = size > limit  # what is sent counts too, compressed or not
        if over:
            if not truncate:
                raise BodyTooLarge(size)
            chunk = chunk[: len(chunk) - (size - limit)]
        try:
            out.append(inflater.feed(chunk))
        except BodyTooLarge as exc:
            if not truncate:
                raise
            out.append(exc.partial)
            over = True
        if over:
            return b"".join(out)[:limit]
    return b"".join(out)


def gunzip(data: bytes, limit: int) -> bytes:
    """A gzip file's content, at most `limit` bytes (a bomb stops there); what was readable of a cut or corrupt
    one ("" when nothing was)."""
    inflater = Inflater("gzip", limit)
    out: list[bytes] = []
    # Fed in slices so a corrupt tail still leaves what came before it.
    for i in range(0, len(data), INFLATE_STEP):
        try:
            out.append(inflater.feed(data[i : i + INFLATE_STEP]))
        except BodyTooLarge as exc:
            out.append(exc.partial)
            break
        except CorruptBody:
            break
    return b"".join(out)[:limit]


#: Byte-order marks and the codec that reads past them: a BOM outranks any declared charset.
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def decode(body: bytes, header_charset: str | None) -> str:
    """Text of a body: by its byte-order mark, else the HTTP charset, else the <meta> one, else UTF-8;
    undecodable bytes replaced and characters no parser accepts removed. A charset that is no text
    encoding, or that cannot replace errors (`undefined`, `idna`, `rot13`, `base64`), counts as absent."""
    text = None
    bom = next((codec for mark, codec in _BOMS if body.startswith(mark)), None)
    for charset in (bom, header_charset, _meta_charset(body), "utf-8"):
        if not charset:
            continue
        try:
            if not codecs.lookup(charset)._is_text_encoding:
                continue
            text = body.decode(charset, errors="replace")
            break
        except (LookupError, UnicodeError, ValueError, TypeError):
            continue
    if text is None:
        text = body.decode("utf-8", errors="replace")
    return _INVALID_CHARS.sub("", text)


def _meta_charset(body: bytes) -> str | None:
    m = _META_CHARSET.search(body[:4096])
    return m.group(1).decode("ascii") if m else None
