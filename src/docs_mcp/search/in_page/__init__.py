"""In-page search (search_in_doc): sections ranked within one page, their passages, and the map of the rest."""
