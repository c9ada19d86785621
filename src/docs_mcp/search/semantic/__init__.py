"""Semantic signal: sentence embedders shipped in wheels, vectors blended with BM25, the section-vector scan."""
