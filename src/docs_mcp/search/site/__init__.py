"""Site search (search_docs): which indexed pages answer a query, copies folded, rank safety, snippets."""
