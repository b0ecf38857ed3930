#!/usr/bin/env python3
"""Makes the fixture stores: a store written by a given larder, and what that
larder answers when it reads the store back.

    make-fixtures.py LARDER OUT_DIR [--postgresql URL]

writes, for each engine, a store (OUT_DIR/sqlite-LAYOUT/, the files of a
store directory; OUT_DIR/postgresql-LAYOUT.sql, a pg_dump of a store in the
schema ``larder_fixture``) and ``….reads.jsonl``: one line per request of
a second session on the store, ``{"request": …, "answer": …}`` (the answer
null for ``initialize``, whose answer names the server's version). A
newer larder must open the store and answer each request alike
(``StoreLayoutFixtureTests``). ``layout-N`` names a store written before
layouts were recorded step by step, at the engine's layout counter N;
``steps-N`` one that records N steps. Both are read from the store itself.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
INIT = {"appVersion": "3.1.0", "encryption": {"keys": {"secrets": KEY}}}
# Far enough ahead that the entry is alive whenever the fixture is read.
FAR_TTL = 50 * 365 * 24 * 3600

WRITES = [
    ("cache.open", {"cache": "thumbnails", "disk": {"maxCount": 100}}),
    ("cache.set", {"cache": "thumbnails", "key": "a", "value": {"w": 64, "h": 48}}),
    ("cache.set", {"cache": "thumbnails", "group": "small", "key": "b", "data": "AAEC/w=="}),
    ("cache.set", {"cache": "thumbnails", "group": "small", "key": "c", "value": [1, "two", None], "ttl": FAR_TTL}),
    ("cache.open", {"cache": "drafts", "kind": "store"}),
    ("cache.set", {"cache": "drafts", "key": "d1", "value": {"title": "kept", "body": "ünïcödé ✓"}}),
    ("cache.setMany", {"cache": "drafts", "group": "g", "entries": [{"key": "x", "value": 1}, {"key": "y", "value": 2.5}]}),
    ("cache.open", {"cache": "secrets", "encrypted": True}),
    ("cache.set", {"cache": "secrets", "group": "tokens", "key": "github", "value": {"token": "ghp_example"}}),
    ("cache.set", {"cache": "secrets", "key": "plain", "data": "c2VjcmV0"}),
    ("schema.register", {"type": "Bar", "version": "1.0.0", "fields": {"s": "string", "n": "integer"}}),
    ("object.put", {"key": "bar at 1", "type": "Bar", "value": {"s": "one", "n": 1}}),
    ("schema.register", {"type": "Bar", "version": "1.1.0", "fields": {"text": "string", "n": "integer"},
                         "migrations": [{"from": "1.0.0", "steps": [{"op": "rename", "from": "s", "to": "text"}]}]}),
    ("object.put", {"key": "bar at 1.1", "type": "Bar", "value": {"text": "two", "n": 2}}),
    ("entity.define", {"model": "Library", "entities": [
        {"name": "Author", "identifier": "name", "attributes": {"name": "string", "born": "integer?"},
         "relationships": [{"name": "books", "destination": "Book", "toMany": True, "inverse": "author", "deleteRule": "cascade"}]},
        {"name": "Book", "identifier": "title", "attributes": {"title": "string", "year": "integer"},
         "relationships": [{"name": "author", "destination": "Author", "inverse": "books"}]}]}),
    ("entity.upsert", {"entity": "Author", "records": [{"name": "Le Guin", "born": 1929}, {"name": "Lem"}]}),
    ("entity.upsert", {"entity": "Book", "records": [{"title": "The Dispossessed", "year": 1974, "author": "Le Guin"},
                                                     {"title": "Solaris", "year": 1961, "author": "Lem"}]}),
]

READS = [
    ("cache.list", {}),
    ("cache.open", {"cache": "thumbnails"}),
    ("cache.get", {"cache": "thumbnails", "key": "a"}),
    ("cache.getMany", {"cache": "thumbnails", "group": "small", "keys": ["b", "c", "none"]}),
    ("cache.keys", {"cache": "thumbnails"}),
    ("cache.groups", {"cache": "thumbnails"}),
    ("cache.open", {"cache": "drafts"}),
    ("cache.get", {"cache": "drafts", "key": "d1"}),
    ("cache.keys", {"cache": "drafts", "group": "g"}),
    ("cache.open", {"cache": "secrets"}),
    ("cache.get", {"cache": "secrets", "group": "tokens", "key": "github"}),
    ("cache.get", {"cache": "secrets", "key": "plain"}),
    ("schema.list", {}),
    ("object.get", {"key": "bar at 1", "type": "Bar"}),
    ("object.get", {"key": "bar at 1.1", "type": "Bar"}),
    ("entity.models", {}),
    ("entity.get", {"entity": "Author", "id": "Le Guin", "include": ["books"]}),
    ("entity.query", {"entity": "Book", "orderBy": "-year"}),
    # Still writable, and what is written is there (`has`: a get would
    # answer the time it was stored, which is the time the test runs).
    ("cache.set", {"cache": "drafts", "key": "d2", "value": "after"}),
    ("cache.has", {"cache": "drafts", "key": "d2"}),
    ("entity.upsert", {"entity": "Book", "records": [{"title": "Fiasco", "year": 1986, "author": "Lem"}]}),
    ("entity.count", {"entity": "Book"}),
    ("cache.set", {"cache": "secrets", "key": "new", "value": 3}),
    ("cache.has", {"cache": "secrets", "key": "new"}),
]


class Session:
    def __init__(self, larder, store_args):
        self.p = subprocess.Popen([larder] + store_args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.id = 0
        self.initialize, _ = self.call("initialize", INIT)

    def call(self, method, params):
        self.id += 1
        request = {"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}
        self.p.stdin.write(json.dumps(request, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.p.stdin.flush()
        answer = json.loads(self.p.stdout.readline())
        if "error" in answer and method != "cache.get":
            sys.exit(f"{method} failed: {answer}")
        return request, answer

    def close(self):
        self.call("shutdown", None)
        self.p.stdin.close()
        if self.p.wait(timeout=30) != 0:
            sys.exit("larder did not exit cleanly")


def sqlite_layout(path):
    """layout-N for a store of counter N before steps were recorded; steps-N for one with N steps."""
    c = sqlite3.connect(path)
    try:
        if c.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'layout_steps'").fetchone()[0]:
            return "steps-%d" % c.execute("SELECT count(*) FROM layout_steps").fetchone()[0]
        return "layout-%d" % c.execute("PRAGMA user_version").fetchone()[0]
    finally:
        c.close()


def write_and_read(larder, store_args, snapshot, reads_path):
    s = Session(larder, store_args)
    for method, params in WRITES:
        s.call(method, params)
    s.close()
    snapshot()
    s = Session(larder, store_args)
    with open(reads_path, "w") as out:
        # initialize's answer names the server's version: it is not compared.
        out.write(json.dumps({"request": s.initialize, "answer": None}, separators=(",", ":")) + "\n")
        for method, params in READS:
            request, answer = s.call(method, params)
            out.write(json.dumps({"request": request, "answer": answer}, ensure_ascii=False, separators=(",", ":")) + "\n")
    s.close()


def sqlite_fixture(larder, out):
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "store")
        holder = {}

        def snapshot():
            files = sorted(os.listdir(store))
            db = [f for f in files if f.endswith(".sqlite") or f.endswith(".db")]
            if len(db) != 1:
                sys.exit(f"expected one database file in the store directory, found {files}")
            layout = sqlite_layout(os.path.join(store, db[0]))
            # A store closed cleanly has all of its data in its database file.
            wal = os.path.join(store, db[0] + "-wal")
            if os.path.exists(wal) and os.path.getsize(wal) > 0:
                sys.exit("the store's write-ahead log was not checkpointed")
            target = os.path.join(out, f"sqlite-{layout}")
            shutil.rmtree(target, ignore_errors=True)
            os.makedirs(target)
            shutil.copy(os.path.join(store, db[0]), target)
            holder["reads"] = target + ".reads.jsonl"

        reads = os.path.join(tmp, "reads.jsonl")
        write_and_read(larder, ["--store", store], snapshot, reads)
        shutil.copy(reads, holder["reads"])
        print("wrote", holder["reads"])


def postgresql_fixture(larder, out, url):
    schema = "larder_fixture"
    subprocess.run(["psql", "-q", url, "-c", f"DROP SCHEMA IF EXISTS {schema} CASCADE"], check=True)
    holder = {}

    def snapshot():
        def ask(sql):
            return subprocess.run(["psql", "-qAt", url, "-c", sql], check=True, capture_output=True, text=True).stdout.strip()
        if ask(f"SELECT to_regclass('{schema}.layout_steps') IS NOT NULL") == "t":
            layout = "steps-" + ask(f"SELECT count(*) FROM {schema}.layout_steps")
        else:
            layout = "layout-" + ask(f"SELECT value FROM {schema}.meta WHERE name = 'schemaVersion'")
        dump = subprocess.run(["pg_dump", "--schema", schema, "--inserts", "--no-owner", "--no-privileges",
                               "--no-comments", url], check=True, capture_output=True, text=True).stdout
        # psql's own commands (\restrict …) and comments are not SQL: the test runs the rest as one query.
        lines = [l for l in dump.splitlines() if not l.startswith("\\") and not l.startswith("--")]
        target = os.path.join(out, f"postgresql-{layout}")
        with open(target + ".sql", "w") as f:
            f.write("\n".join(l for i, l in enumerate(lines) if l or (i and lines[i - 1])).strip() + "\n")
        holder["reads"] = target + ".reads.jsonl"

    with tempfile.TemporaryDirectory() as tmp:
        reads = os.path.join(tmp, "reads.jsonl")
        write_and_read(larder, ["--store", url, "--pg-schema", schema], snapshot, reads)
        shutil.copy(reads, holder["reads"])
    subprocess.run(["psql", "-q", url, "-c", f"DROP SCHEMA {schema} CASCADE"], check=True)
    print("wrote", holder["reads"])


def main():
    args = sys.argv[1:]
    url = None
    if "--postgresql" in args:
        i = args.index("--postgresql")
        url = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    larder, out = args
    sqlite_fixture(larder, out)
    if url:
        postgresql_fixture(larder, out, url)


if __name__ == "__main__":
    main()
