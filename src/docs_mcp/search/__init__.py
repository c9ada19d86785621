"""Ranking: sections within a page, pages across a site, snippets, the optional semantic signal."""
