"""Fetch stage: canonical URLs, sources and their roots, the one guarded request path, discovery."""
