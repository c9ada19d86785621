"""The persistent index: all SQL lives here, behind the `Store` and `Reads` protocols of interface.py.

Two engines implement them, twins in layout: sqlite/ (the default: store.py for connections, transactions
and healing a file damaged while in use; schema.py, reads.py, writes.py, keywords.py; indexfile.py and
files.py for the file on disk; locks.py for one build of a root at a time) and postgres/ (the same modules
for a team's database). opening.py picks one; pagerows.py is the rows a page becomes, for both.
"""
