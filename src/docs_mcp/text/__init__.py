"""Text: words and CJK bigrams, stopwords, token estimates, fences, tidying and clipping, UTC times, budgets."""
