#!/usr/bin/env python3
"""Issue 35, D6 and D7: whose SQLite file a history is, and a history locked by another process.

D6: `history add`, `history check`, `report --history` and `gate --history` refuse another
application's SQLite database (exit 2) and leave it byte for byte as it was; they take a new
or empty file, one marked with rooftop's application id, and an older rooftop's history (its
tables, no id: `history add` marks it, the read-only commands change nothing).
D7: a valid history that another process holds locked is said to be locked (exit 2), never
"not a rooftop history ... move it aside".

usage: history_db.py ROOFTOP RESULTS.json WORK_DIR
"""
import hashlib
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cli_checks  # noqa: E402

ROOFTOP_ID = 0x526F6F66  # "Roof"
rooftop, source, work = sys.argv[1], sys.argv[2], cli_checks.fresh_dir(sys.argv[3])
run, expect = cli_checks.runner(rooftop), cli_checks.expect


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def application_id(path):
    with sqlite3.connect(path) as c:
        return c.execute("PRAGMA application_id").fetchone()[0]


def database(name, *statements):
    path = os.path.join(work, name)
    c = sqlite3.connect(path)
    for s in statements:
        c.execute(s)
    c.commit()
    c.close()
    return path


base = json.load(open(source))
nights = []
for n in range(3):
    d = json.loads(json.dumps(base))
    d["created"] = f"2026-10-{n + 1:02d}T02:17:00Z"
    d["complete"] = True
    nights.append(os.path.join(work, f"night{n}.json"))
    json.dump(d, open(nights[-1], "w"))
html = os.path.join(work, "report.html")


def every_command(db):
    """The four commands that open a history, each given `db`."""
    return [("history", "add", nights[0], "--db", db), ("history", "check", "--db", db),
            ("report", nights[0], "--history", db, "-o", html), ("gate", nights[0], "--history", db)]


# Another application's databases: no id and its own tables; its own id and no tables; its
# own id and tables named as rooftop's.
foreign = [
    (database("notes.sqlite", "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
              "INSERT INTO notes (text) VALUES ('keep me')"), "tables: notes"),
    (database("app-id.sqlite", "PRAGMA application_id = 252645135"), "0x0f0f0f0f"),
    (database("lookalike.sqlite", "PRAGMA application_id = 1", "CREATE TABLE runs (id INTEGER)",
              "CREATE TABLE points (run INTEGER)", "PRAGMA user_version = 1"), "tables: points, runs"),
]
for db, detail in foreign:
    before = digest(db)
    for args in every_command(db):
        expect(2, "SQLite database of another application", run(*args))
        cli_checks.expect(2, detail, run(*args))
        if digest(db) != before:
            sys.exit(f"`rooftop {' '.join(args)}` changed another application's database {db}")
if os.path.exists(html):
    sys.exit("report --history wrote a report from another application's database")

# A new file: made a history, marked with rooftop's id.
fresh = os.path.join(work, "new.sqlite")
expect(0, "benchmarks added", run("history", "add", nights[0], "--db", fresh))
if application_id(fresh) != ROOFTOP_ID:
    sys.exit(f"a new history's application_id is {application_id(fresh):#x}, not rooftop's")
expect(0, "benchmarks added", run("history", "add", nights[1], "--db", fresh))

# An empty existing file: the read-only commands leave it empty; add makes it a history.
empty = os.path.join(work, "empty.sqlite")
open(empty, "w").close()
expect(0, "0 series", run("history", "check", "--db", empty))
if os.path.getsize(empty) != 0:
    sys.exit("history check wrote into an empty file")
expect(0, "benchmarks added", run("history", "add", nights[0], "--db", empty))

# An older rooftop's history (0312b28 made its tables and schema version 1, no id).
older = database(
    "older.sqlite",
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL, tier TEXT NOT NULL, created TEXT NOT NULL, "
    "git_commit TEXT, origin TEXT, UNIQUE (fingerprint, tier, created))",
    "CREATE TABLE points (run INTEGER NOT NULL REFERENCES runs(id), benchmark TEXT NOT NULL, median_s REAL NOT NULL, "
    "repetitions INTEGER NOT NULL)",
    "CREATE INDEX points_by_benchmark ON points (benchmark)", "PRAGMA user_version = 1")
before = digest(older)
expect(0, "0 series", run("history", "check", "--db", older))
if digest(older) != before:
    sys.exit("history check changed an older rooftop's history")
expect(0, "benchmarks added", run("history", "add", nights[0], "--db", older))
if application_id(older) != ROOFTOP_ID:
    sys.exit("history add did not mark an older rooftop's history with rooftop's application_id")

# D7: a valid history held by another process (BEGIN EXCLUSIVE, kept open).
holder = sqlite3.connect(fresh, isolation_level=None)
holder.execute("BEGIN EXCLUSIVE")
for args in [("history", "check", "--db", fresh), ("history", "add", nights[2], "--db", fresh)]:
    expect(2, "is locked by another process", run(*args), absent="move it aside")
holder.execute("ROLLBACK")
holder.close()
expect(0, "benchmarks added", run("history", "add", nights[2], "--db", fresh))
expect(0, "series", run("history", "check", "--db", fresh))
print("history files of other applications, empty, older and locked: ok")
