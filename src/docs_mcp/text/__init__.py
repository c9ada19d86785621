"""Text: words and CJK bigrams, token estimates, budgets (cutting at natural boundaries, pagination)."""
