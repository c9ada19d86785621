"""Function words that carry no topic: dropped from queries (documents keep them for BM25's lengths)."""

from __future__ import annotations

_ENGLISH = """
a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours ourselves out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up very was we
were what when where which while who whom why will with would you your yours yourself yourselves
"""
#: Words of question phrasing that name no topic ("how do I use", "what happens when I want").
_QUESTION = "use used using get gets way ways want need happen happens"
#: Quantifiers and contractions of question phrasing ("how many", "why don't").
_CONTRACTIONS = "many much don't doesn't didn't can't cannot isn't aren't won't shouldn't"

STOPWORDS = frozenset((_ENGLISH + _QUESTION + " " + _CONTRACTIONS).split())
