"""The persistent index: all SQL lives here (schema, reads, writes, the file and its locks)."""
