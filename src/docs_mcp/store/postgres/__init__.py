"""The PostgreSQL store (`--index-url postgresql://…`): the same `Store`/`Reads` contract as the SQLite file,
for a team's shared index. Needs the `postgres` extra (psycopg 3 and psycopg-pool), imported on first use.

The twin of sqlite/: store.py (the pool, transactions; breaker.py fails fast while the database is down),
schema.py (versioned migrations; upgrade.py converts stored rows), reads.py, writes.py, keywords.py and
locks.py (an advisory build lock). Full text: postings.py packs term counts one row per term and bundle of
pages (bundles.py), rank.py sums FTS5's BM25 over them, text.py gives a row's tokens as SQLite indexes
them; upkeep.py merges small bundles and gives dead rows back.
"""
