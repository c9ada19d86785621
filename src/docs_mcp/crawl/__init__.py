"""Building the index: discover, fetch, digest on all cores, store."""
