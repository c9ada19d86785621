"""Plain data the stages hand each other: the converted page, search hits, build progress."""
