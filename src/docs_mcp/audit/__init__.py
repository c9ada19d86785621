"""The findability audit: known-item queries made from a site's own pages, searched as search_docs and
search_in_doc search, and the pages that rank above the right one (issue 42)."""
