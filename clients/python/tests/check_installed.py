"""Uses the larder package as installed from its wheel, with the executable
the wheel carries: run with the venv's Python from a directory outside the
checkout, with ``$LARDER_BIN`` unset (``.ci/install-test`` runs it where
the Swift toolchain and the -dev packages are hidden). Exits non-zero, saying
what failed, if anything does; prints how long the first answer took.

A representative subset of the client's suite: spawn, set and get, bytes,
get_or_fetch, entities, a store directory reopened, and a store on
PostgreSQL when ``$LARDER_TEST_PG_URL`` names one (with ``CI=true`` it
must).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import larder
from larder.binary import PACKAGED_BINARY


def check(what: str, got: object, expected: object) -> None:
    if got != expected:
        raise SystemExit(f"{what}: got {got!r}, expected {expected!r}")


def main() -> None:
    if "LARDER_BIN" in os.environ:
        raise SystemExit("unset LARDER_BIN: this checks the executable the wheel installed")
    here = Path(larder.__file__).resolve()
    if "site-packages" not in here.parts:
        raise SystemExit(f"larder was imported from {here}, not from an installed wheel")
    check("the executable found", larder.find_binary(), str(PACKAGED_BINARY))

    started = time.perf_counter()
    with larder.Larder.spawn(memory=True, fetch=True) as db:
        first_answer = time.perf_counter() - started
        check("server", (db.init_result or {}).get("serverInfo", {}).get("name"), "larder")
        db.cache.set("k", {"installed": True})
        check("get", db.cache.get("k"), {"installed": True})
        db.cache.set("png", data=b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
        check("bytes", db.cache.get("png"), b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
        calls: list[str] = []

        def load(key: str, **_: object) -> dict[str, str]:
            calls.append(key)
            return {"loaded": key}

        check("get_or_fetch, a miss", db.cache.get_or_fetch("u:1", load), {"loaded": "u:1"})
        check("get_or_fetch, then a hit", db.cache.get_or_fetch("u:1", load), {"loaded": "u:1"})
        check("fetcher calls", calls, ["u:1"])
        db.entity.define("Bands", [
            {"name": "Band", "identifier": "name", "attributes": {"name": "string", "formed": "integer"},
             "relationships": [{"name": "albums", "destination": "Album", "toMany": True, "inverse": "band"}]},
            {"name": "Album", "identifier": "name", "attributes": {"name": "string"},
             "relationships": [{"name": "band", "destination": "Band", "inverse": "albums"}]},
        ])
        db.entity.stage("Album", [{"name": "Tin Drum", "band": "Japan"}])
        db.entity.stage("Band", [{"name": "Japan", "formed": 1974}])
        db.entity.apply()
        band = db.entity.get("Band", "Japan", include=["albums"])["record"]
        check("entity with its albums", [a["name"] for a in band["albums"]], ["Tin Drum"])

    with tempfile.TemporaryDirectory(prefix="larder-installed-") as scratch:
        store = Path(scratch) / "store"
        with larder.Larder.spawn(store=store) as db:
            db.cache.set("kept", [1, 2, 3])
        with larder.Larder.spawn(store=store) as db:
            check("a store directory reopened", db.cache.get("kept"), [1, 2, 3])

    url = os.environ.get("LARDER_TEST_PG_URL")
    if url:
        schema = os.environ.get("LARDER_TEST_PG_SCHEMA", f"larder_installed_py_{os.getpid()}")
        with larder.Larder.spawn(store=url, pg_schema=schema) as db:
            db.cache.set("on-postgres", {"ok": True})
        with larder.Larder.spawn(store=url, pg_schema=schema) as db:
            check("a store on PostgreSQL reopened", db.cache.get("on-postgres"), {"ok": True})
        print(f"schema {schema} made on PostgreSQL")
    elif os.environ.get("CI") == "true":
        raise SystemExit("LARDER_TEST_PG_URL is not set (CI=true: the store on PostgreSQL must be checked)")

    print(f"python: installed larder answered initialize {first_answer * 1000:.1f} ms after spawn; all checks passed")


if __name__ == "__main__":
    sys.exit(main())
