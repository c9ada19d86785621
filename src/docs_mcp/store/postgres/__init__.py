"""The PostgreSQL store (`--index-url postgresql://…`): the same `Store`/`Reads` contract as the SQLite file,
for a team's shared index. Needs the `postgres` extra (psycopg 3 and psycopg-pool), imported on first use.

schema.py holds the versioned migrations, text.py the tsvector/tsquery literals built from the indexed tokens,
reads.py the reads (FTS5's BM25 computed in SQL), store.py the pool, writes and build locks.
"""
