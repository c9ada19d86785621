"""The PostgreSQL store (`--index-url postgresql://…`): the same `Store`/`Reads` contract as the SQLite file,
for a team's shared index. Needs the `postgres` extra (psycopg 3 and psycopg-pool), imported on first use.

schema.py holds the versioned migrations; text.py turns a row's indexed tokens into a tsvector (GIN: names
phrases) and term frequencies (`section_terms`/`page_terms`: BM25 and token matches); rank.py computes
FTS5's BM25 in SQL; reads.py and writes.py the rest; store.py the pool, transactions and build locks.
"""
