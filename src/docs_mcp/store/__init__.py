"""The persistent index: all SQL lives here, behind the `Store` and `Reads` protocols of interface.py.

SQLite implements them: index.py (connections, transactions, healing a file damaged while in use), schema.py,
reads.py, writes.py; indexfile.py opens the file (moving a damaged one aside), files.py holds the file-level
checks (damage, a private folder, a full disk) and locks.py holds one build of a root at a time.
"""
