"""The SQLite store (the default): one index file per cache folder, FTS5 for full text; the twin of postgres/."""
