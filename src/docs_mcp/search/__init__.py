"""Search: in one page (in_page), across a site (site), and the semantic signal both use (semantic)."""
