"""`serve --http`'s limits: where MCP is served, the token, the connections, sessions and event streams."""

#: `serve --http`: where MCP is served, the host when only a port is given, and the shortest token accepted.
HTTP_PATH = "/mcp"
HTTP_DEFAULT_HOST = "127.0.0.1"
HTTP_TOKEN_MIN_CHARS = 16
HTTP_BACKLOG = 128
#: Seconds for complete headers (or idle between requests) before a connection is closed, and for the body
#: after them before the request gets 408 and its connection is closed.
HTTP_HEADER_TIMEOUT = 5.0
HTTP_BODY_TIMEOUT = 10.0
#: Open files kept out of the connection cap: the index, fetches, parsing pipes, sockets evicted but not closed.
HTTP_FILE_RESERVE = 256
#: Client connections open at once: what the open-file limit leaves after the reserve, within these bounds.
HTTP_MIN_CONNECTIONS = 64
HTTP_MAX_CONNECTIONS = 16_384
#: MCP sessions per token (~50 KB each; past it the least recently used idle one ends), idle seconds before one
#: ends (SDK: 30 min), event streams (GET /mcp) per client address and in all (at most half the connections).
HTTP_MAX_SESSIONS = 500
HTTP_SESSION_IDLE_TIMEOUT = 600.0
HTTP_STREAMS_PER_CLIENT, HTTP_MAX_STREAMS = 32, 512  # past either, the oldest stream ends
