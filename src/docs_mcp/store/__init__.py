"""The persistent index: all SQL lives here, behind the `Store` and `Reads` protocols of interface.py.

SQLite implements them: index.py (connections, transactions), schema.py, reads.py, writes.py; indexfile.py
opens the file (moving a damaged one aside) and locks.py holds one build of a root at a time.
"""
