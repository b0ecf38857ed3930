"""Every cache.* method against the real server."""

from __future__ import annotations

import json

import pytest

import larder
from conftest import CLOCK, REPO, Waiter, missing


def advance(db, seconds):
    return db.call("debug.advanceClock", {"seconds": seconds})


def test_initialize_result(db):
    info = db.init_result
    assert info["serverInfo"]["name"] == "larder"
    assert info["store"] == {"path": None, "persistent": False}
    assert "cache.set" in info["capabilities"]["methods"]
    assert "debug.ask" in info["capabilities"]["methods"]


def test_set_and_get_json_values(db):
    for key, value in [("null", None), ("int", 42), ("float", 1.5), ("text", "héllo ✓"), ("list", [1, [2, {}]]),
                       ("obj", {"a": {"b": [True, False, None]}}), ("bool", False)]:
        assert db.cache.set(key, value)["stored"] is True
        got = db.cache.entry(key)
        assert got["found"] is True and got["value"] == value and "data" not in got
        assert got["expired"] is False
        assert got["tier"] == "memory"
        assert got["storedAt"] == "2026-01-01T00:00:00.000Z"
        assert "expiresAt" not in got


def test_set_reports_size(db):
    assert db.cache.set("k", "abc") == {"stored": True, "size": 5, "revision": 1}
    assert db.cache.set("b", data=b"\x00\xff\x10") == {"stored": True, "size": 3, "revision": 2}


def test_bytes_round_trip_as_data(db):
    blob = bytes(range(256)) * 4
    db.cache.set("blob", data=blob)
    got = db.cache.entry("blob")
    assert got["data"] == blob and "value" not in got


def test_set_argument_checks(db):
    with pytest.raises(TypeError):
        db.cache.set("k")
    with pytest.raises(TypeError):
        db.cache.set("k", 1, data=b"x")
    with pytest.raises(TypeError):
        db.cache.set("k", data="not bytes")


def test_get_missing(db):
    assert db.cache.entry("nothing") == {"found": False}
    assert db.cache.entry("nothing", cache="no-such-cache") == {"found": False}


def test_groups_and_caches_are_separate(db):
    db.cache.set("k", 1)
    db.cache.set("k", 2, group="g")
    db.cache.set("k", 3, cache="other")
    db.cache.set("k", 4, cache="other", group="g")
    assert [db.cache.entry("k")["value"], db.cache.entry("k", group="g")["value"],
            db.cache.entry("k", cache="other")["value"], db.cache.entry("k", cache="other", group="g")["value"]] == [1, 2, 3, 4]


def test_ttl_expiry_has_touch(db):
    db.cache.set("k", "v", ttl=10)
    got = db.cache.entry("k")
    assert got["expiresAt"] == "2026-01-01T00:00:10.000Z"
    assert db.cache.has("k") == {"found": True, "valid": True}
    advance(db, 8)
    assert db.cache.touch("k") == {"found": True}
    advance(db, 8)
    assert db.cache.has("k") == {"found": True, "valid": True}
    advance(db, 3)
    assert db.cache.has("k") == {"found": True, "valid": False}
    assert db.cache.entry("k") == {"found": False}
    assert db.cache.touch("k") == {"found": True, "revived": True}, "expired but still stored: revived"
    assert db.cache.get("k") == "v"
    assert db.cache.touch("missing") == {"found": False}


def test_open_settings_and_returns_expired(db):
    opened = db.cache.open("stale", lifespan=5, returns_expired=True, persistent=False,
                           memory={"max_count": 10, "max_bytes": 1000})
    assert opened["cache"] == "stale" and opened["created"] is True
    assert opened["config"] == {"persistent": False, "memory": {"maxCount": 10, "maxBytes": 1000},
                                "disk": {"maxCount": 0, "maxBytes": 0}, "lifespan": 5, "returnsExpired": True,
                                "fetch": {"retries": 0, "retryDelayMs": [100, 2000], "timeoutMs": 30000, "ttl": None,
                                          "negativeTtl": 0, "staleWhileRevalidate": 0, "shared": False},
                                "kind": "cache", "persistsAcrossVersions": False, "purgeExpiredAfter": None,
                                "encrypted": False}
    again = db.cache.open("stale", disk={"maxCount": 7})
    assert again["created"] is False and again["config"]["disk"]["maxCount"] == 7
    db.cache.set("k", 1, cache="stale")
    advance(db, 6)
    got = db.cache.entry("k", cache="stale")
    assert got["found"] is True and got["expired"] is True and got["value"] == 1


def test_open_rejects_bad_limits(db):
    with pytest.raises(larder.InvalidParams, match="maxCount"):
        db.cache.open("x", memory={"max_count": -1})


def test_remove(db):
    db.cache.set("k", 1)
    assert db.cache.remove("k") == {"removed": True}
    assert db.cache.remove("k") == {"removed": False}
    assert db.cache.remove("k", cache="no-such-cache") == {"removed": False}


def test_get_many(db):
    db.cache.set("a", 1)
    db.cache.set("b", data=b"B")
    got = db.cache.get_many(["a", "b", "c", "a"])
    assert set(got["entries"]) == {"a", "b", "c"}
    assert got["entries"]["a"]["value"] == 1
    assert got["entries"]["b"]["data"] == b"B"
    assert got["entries"]["c"] == {"found": False}


def test_set_many_list_and_mapping(db):
    result = db.cache.set_many([{"key": "a", "value": 1}, {"key": "b", "data": b"xy", "ttl": 5},
                                {"key": "c", "value": None, "group": "other"}], group="g")
    assert result == {"stored": 3, "size": 1 + 2 + 4, "revisions": [1, 2, 3]}
    assert db.cache.entry("a", group="g")["value"] == 1
    assert db.cache.entry("b", group="g")["expiresAt"] == "2026-01-01T00:00:05.000Z"
    assert db.cache.entry("c", group="other")["value"] is None
    assert db.cache.set_many({"x": [1], "y": b"raw"}) == {"stored": 2, "size": 3 + 3, "revisions": [4, 5]}
    assert db.cache.entry("y")["data"] == b"raw"


def test_set_many_is_all_or_nothing(db):
    with pytest.raises(larder.InvalidParams):
        db.call("cache.setMany", {"entries": [{"key": "ok", "value": 1}, {"key": "", "value": 2}]})
    assert db.cache.entry("ok") == {"found": False}


def test_keys_prefix_limit_cursor(db):
    db.cache.set_many({f"item{i:02}": i for i in range(25)} | {"other": 0})
    page = db.cache.keys(prefix="item", limit=10)
    assert page["keys"] == [f"item{i:02}" for i in range(10)] and page["cursor"] == "item09"
    page = db.cache.keys(prefix="item", limit=10, cursor=page["cursor"])
    assert page["keys"][0] == "item10"
    page = db.cache.keys(prefix="item", limit=10, cursor=page["cursor"])
    assert page["keys"] == [f"item{i:02}" for i in range(20, 25)] and "cursor" not in page
    assert db.cache.keys(cache="no-such-cache") == {"keys": []}
    with pytest.raises(larder.InvalidParams):
        db.cache.keys(limit=0)


def test_keys_hides_expired(db):
    db.cache.set("short", 1, ttl=1)
    db.cache.set("long", 1)
    advance(db, 2)
    assert db.cache.keys()["keys"] == ["long"]


def test_clear(db):
    db.cache.set_many({"a": 1, "b": 2})
    db.cache.set("c", 3, group="g")
    assert db.cache.clear(group="g") == {"removed": 1}
    assert db.cache.entry("a")["found"] is True
    assert db.cache.clear()["removed"] == 2
    assert db.cache.entry("a") == {"found": False}
    with pytest.raises(larder.InvalidParams, match="tier"):
        db.cache.clear(tier="attic")
    with pytest.raises(larder.CacheNotFound):
        db.cache.clear(cache="no-such-cache")


def test_purge_expired(db):
    db.cache.set("a", 1, ttl=1)
    db.cache.set("b", 1, ttl=1, group="g")
    db.cache.set("c", 1)
    advance(db, 2)
    assert db.cache.purge_expired(group="g") == {"removed": 1}
    assert db.cache.purge_expired() == {"removed": 1}
    assert db.cache.purge_expired() == {"removed": 0}
    assert db.cache.purge_expired(cache="no-such-cache") == {"removed": 0}


def test_stats(db):
    db.cache.set("a", "xyz")
    db.cache.entry("a")
    db.cache.entry("missing")
    stats = db.cache.stats()
    assert stats["cache"] == "default"
    assert stats["memory"]["count"] == 1 and stats["memory"]["bytes"] == 5
    assert stats["memory"]["hits"] == 1 and stats["memory"]["misses"] == 1
    assert set(stats["disk"]) == {"count", "bytes", "hits", "misses", "evictions"}
    with pytest.raises(larder.CacheNotFound) as e:
        db.cache.stats(cache="no-such-cache")
    assert e.value.data == {"cache": "no-such-cache"}


def test_list_and_drop(db):
    db.cache.set("a", 1, cache="one")
    db.cache.open("two")
    caches = {c["name"]: c for c in db.cache.list()["caches"]}
    assert set(caches) >= {"one", "two"}
    assert caches["one"]["count"] == 1 and "config" in caches["one"]
    assert db.cache.drop("one") == {"dropped": True}
    assert "one" not in {c["name"] for c in db.cache.list()["caches"]}
    assert db.cache.entry("a", cache="one") == {"found": False}
    with pytest.raises(larder.CacheNotFound):
        db.cache.drop("one")


def test_subscribe_answers(db):
    assert db.cache.subscribe(cache="images") == {"subscribed": "images"}
    assert db.cache.subscribe() == {"subscribed": "*"}


def test_persistent_store_survives_restart(binary, store_dir):
    with larder.Larder.spawn(store=store_dir, binary=binary) as db:
        assert db.init_result["store"]["persistent"] is True
        db.cache.set("k", {"kept": True})
        db.cache.set("b", data=b"\x01\x02", cache="files", group="g")
    with larder.Larder.spawn(store=store_dir, binary=binary) as db:
        got = db.cache.entry("k")
        assert got["value"] == {"kept": True} and got["tier"] == "disk"
        assert db.cache.entry("b", cache="files", group="g")["data"] == b"\x01\x02"


def _rows(store_dir, cache):
    """The rows a cache has in the store's database, read with SQLite itself."""
    import sqlite3
    with sqlite3.connect(store_dir / "larder.db") as conn:
        return conn.execute("SELECT COUNT(*) FROM entries JOIN caches ON caches.id = entries.cache WHERE caches.name = ?",
                            (cache,)).fetchone()[0]


def test_a_memory_only_cache_made_persistent_survives_a_restart(binary, store_dir):
    with larder.Larder.spawn(store=store_dir, binary=binary) as db:
        db.cache.open("session", persistent=False)
        db.cache.set("token", "abc", cache="session")
        db.cache.set("blob", data=b"\x00\x01", cache="session", group="g")
        assert _rows(store_dir, "session") == 0
        opened = db.cache.open("session", persistent=True)
        assert opened["config"]["persistent"] is True and opened["created"] is False
        assert db.cache.stats(cache="session")["disk"]["count"] == 2
        assert _rows(store_dir, "session") == 2
    with larder.Larder.spawn(store=store_dir, binary=binary) as db:
        got = db.cache.entry("token", cache="session")
        assert got["value"] == "abc" and got["tier"] == "disk"
        assert db.cache.get("blob", cache="session", group="g") == b"\x00\x01"


def test_a_persistent_cache_made_memory_only_leaves_no_rows(binary, store_dir):
    with larder.Larder.spawn(store=store_dir, binary=binary) as db:
        db.cache.set_many({"a": 1, "b": 2, "c": 3}, cache="docs")
        db.cache.set("other", 1)
    with larder.Larder.spawn(store=store_dir, binary=binary) as db:
        cleared = Waiter()
        db.on_event("cache.cleared", cleared)
        db.cache.subscribe(cache="docs")
        assert db.cache.get("a", cache="docs") == 1                 # read last: the most recently used
        opened = db.cache.open("docs", persistent=False, memory={"max_count": 2})
        assert opened["config"]["persistent"] is False
        assert cleared.wait(1) == [{"cache": "docs", "tier": "disk"}]
        assert sorted(db.cache.keys(cache="docs")["keys"]) == ["a", "c"]
        assert db.cache.entry("a", cache="docs")["tier"] == "memory"
        assert _rows(store_dir, "docs") == 0
        assert _rows(store_dir, "default") == 1
    with larder.Larder.spawn(store=store_dir, binary=binary) as db:
        assert db.cache.get("a", cache="docs") is None               # memory-only from now on
        assert db.cache.open("docs")["config"]["persistent"] is False


def test_a_durable_store_stays_persistent(db):
    db.cache.open("outbox", kind="store")
    db.cache.set("m", 1, cache="outbox")
    with pytest.raises(larder.InvalidParams, match="always persistent") as e:
        db.cache.open("outbox", persistent=False)
    assert e.value.code == -32602
    assert db.cache.open("outbox")["config"]["persistent"] is True
    assert db.cache.get("m", cache="outbox") == 1


def test_cache_view(db):
    thumbs = db.cache_view("images", group="thumbs")
    thumbs["cat"] = b"\x89PNG"
    thumbs["meta"] = {"w": 10}
    assert thumbs["cat"] == b"\x89PNG"
    assert thumbs["meta"] == {"w": 10}
    assert "cat" in thumbs and "dog" not in thumbs and 3 not in thumbs
    assert thumbs.get("dog") is None and thumbs.get("dog", "x") == "x"
    with pytest.raises(KeyError):
        thumbs["dog"]
    assert db.cache.entry("cat", cache="images", group="thumbs")["data"] == b"\x89PNG"
    assert db.cache.entry("cat", cache="images") == {"found": False}
    assert sorted(thumbs) == ["cat", "meta"]
    del thumbs["cat"]
    with pytest.raises(KeyError):
        del thumbs["cat"]
    thumbs.update({"a": 1, "b": b"2"}, c=None)
    assert thumbs.get_many(["a", "b", "c", "z"]) == {"a": 1, "b": b"2", "c": None}
    assert dict(thumbs.items()) == {"a": 1, "b": b"2", "c": None, "meta": {"w": 10}}
    assert thumbs.pop("a") == 1 and thumbs.pop("a", "gone") == "gone"
    assert thumbs.clear() == 3
    assert list(thumbs) == []
    assert db.cache_view("never-made").clear() == 0


def test_cache_view_pages_keys(db):
    view = db.cache_view("many")
    view.update({f"k{i:03}": i for i in range(250)})
    assert list(view.keys(page_size=100)) == [f"k{i:03}" for i in range(250)]
    assert list(view.keys(prefix="k24")) == [f"k{i}" for i in range(240, 250)]


def test_cache_view_ttl(db):
    view = db.cache_view("short", ttl=5)
    view["k"] = 1
    view.set("forever", 1, ttl=0)
    advance(db, 6)
    assert "k" not in view and view.get("k") is None
    assert view["forever"] == 1
    assert view.touch("forever") is True


def test_namespace_generic_access(db):
    cache = db.namespace("cache")
    assert cache.set(key="n", value=1, group="g")["stored"] is True
    assert cache.get(key="n", group="g")["value"] == 1
    assert cache.purge_expired()["removed"] == 0


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def test_wrappers_cover_the_openrpc_document(db):
    import inspect

    try:
        doc = db.discover()
    except larder.MethodNotFound:
        missing("this larder has no rpc.discover yet")
    documented = {m["name"]: {p["name"] for p in m.get("params", [])} for m in doc["methods"]}
    # The repository's document may be ahead of the binary under test (one built
    # before the protocol's last addition): the client follows the document.
    ahead: dict[str, set[str]] = {}
    repo_document = REPO / "protocol" / "openrpc.json"
    if repo_document.is_file():
        for m in json.loads(repo_document.read_text())["methods"]:
            newer = {p["name"] for p in m.get("params", [])} - documented.get(m["name"], set())
            if newer and m["name"] in documented:
                ahead[m["name"]] = newer
    cache_methods = {name for name in documented if name.startswith("cache.")}
    assert cache_methods, "the document lists no cache methods"
    unknown_to_server = []
    for name in sorted(cache_methods):
        wrapper = getattr(db.cache, _snake(name.split(".", 1)[1]), None)
        assert wrapper is not None, f"no wrapper for {name}"
        sent = {larder.cache.camel(p) for p in inspect.signature(wrapper).parameters}
        if name == "cache.set":
            sent |= {"value", "data"}
        if name == "cache.get":
            sent -= {"default", "withRevision"}  # the client's own: what get answers, and how
        if name == "cache.getOrFetch":
            sent -= {"default", "fetcher", "fallback"}  # the client's own: kept here, not sent
        if name == "cache.open":
            sent -= {"fetcher", "fallback"}
        if name == "cache.rekey":
            sent -= {"progress"}  # the client's own: receives the $/progress of workDoneToken
        if name == "cache.transaction":
            sent = sent - {"otherwise"} | {"else"}  # else is Python's keyword: passed as otherwise
        assert ahead.get(name, set()) <= sent, f"{name}: {sorted(ahead[name] - sent)} cannot be passed"
        unknown_to_server += [f"{name}.{p}" for p in sorted(ahead.get(name, set()))]
        sent -= ahead.get(name, set())
        assert sent <= documented[name], f"{name}: {sorted(sent - documented[name])} are not documented"
        assert documented[name] <= sent, f"{name}: {sorted(documented[name] - sent)} cannot be passed"
    if unknown_to_server:
        missing(f"this larder is older than protocol/openrpc.json: it does not document {unknown_to_server}")


def test_get_returns_the_value_or_the_default(db):
    db.cache.set("json", {"a": [1]})
    db.cache.set("blob", data=b"\x00\xff")
    db.cache.set("null", None)
    assert db.cache.get("json") == {"a": [1]}
    assert db.cache.get("blob") == b"\x00\xff"
    assert db.cache.get("null", "fallback") is None  # a stored null is a value
    assert db.cache.get("missing") is None
    assert db.cache.get("missing", 0) == 0
    db.cache.set("soon", 1, ttl=1)
    advance(db, 2)
    assert db.cache.get("soon", "gone") == "gone"


def test_cache_view_is_a_mutable_mapping(db, monkeypatch):
    from collections.abc import MutableMapping

    view = db.cache_view("mm", group="g")
    assert isinstance(view, MutableMapping)
    view.update({f"k{i:04}": i for i in range(2500)})
    view["bytes"] = b"\x01"
    view.page_size = 1000
    calls = []
    original = db._connection._write_locked

    def spy(payload):
        calls.extend(json.loads(line)["method"] for line in payload.splitlines())
        return original(payload)

    monkeypatch.setattr(db._connection, "_write_locked", spy)
    assert len(view) == 2501
    assert calls == ["cache.keys"] * 3
    calls.clear()
    items = dict(view.items())
    assert items["k0042"] == 42 and items["bytes"] == b"\x01" and len(items) == 2501
    assert calls.count("cache.getMany") == 3 and "cache.get" not in calls
    assert sum(v for v in view.values() if isinstance(v, int)) == sum(range(2500))
    assert view.setdefault("new", 5) == 5 and view["new"] == 5
    assert view.popitem()[0] == "bytes"  # MutableMapping's own, in key order


def test_memoize(db):
    calls = []

    @db.memoize(cache="memo", ttl=5)
    def square(n, *, label="x"):
        calls.append(n)
        return {"label": label, "n": n * n}

    assert square(3) == {"label": "x", "n": 9}
    assert square(3) == {"label": "x", "n": 9}
    assert square(3, label="y") == {"label": "y", "n": 9}
    assert calls == [3, 3]
    key = square.__cache_key__(3)
    assert db.cache.get(key, cache="memo") == {"label": "x", "n": 9}
    advance(db, 6)
    square(3)
    assert calls == [3, 3, 3], "an expired result is computed again"
    assert square.__name__ == "square"

    @db.memoize(cache="memo")
    def nothing():
        calls.append("nothing")
        return None

    assert nothing() is None and nothing() is None
    assert calls.count("nothing") == 1, "a stored None is a result"

    @db.memoize(cache="memo", name="blob")
    def blob():
        return b"\x00\x01"

    assert blob() == b"\x00\x01" and blob() == b"\x00\x01"
    with pytest.raises(TypeError, match="JSON"):
        square(object())


def test_a_durable_store_expires_as_a_cache_does_but_keeps_what_expired(db):
    opened = db.cache.open("drafts", kind="store", lifespan=60)
    assert opened["config"]["kind"] == "store" and opened["config"]["lifespan"] == 60
    db.cache.set("d1", {"title": "kept"}, cache="drafts")
    db.cache.set("d2", 1, cache="drafts", ttl=600)
    with pytest.raises(larder.InvalidParams, match="never purged"):
        db.cache.open("drafts", purge_expired_after=10)
    with pytest.raises(larder.InvalidParams, match="cannot become"):
        db.cache.open("drafts", kind="cache")
    advance(db, 61)
    assert db.cache.get("d1", cache="drafts") is None
    assert db.cache.has("d1", cache="drafts") == {"found": True, "valid": False}
    with pytest.raises(larder.InvalidParams, match="durable store"):
        db.cache.purge_expired(cache="drafts")
    db.cache.open("drafts", returns_expired=True)
    assert db.cache.entry("d1", cache="drafts")["expired"] is True
    assert db.cache.touch("d1", cache="drafts") == {"found": True, "revived": True}
    assert db.cache.entry("d1", cache="drafts")["expired"] is False
    assert db.cache.get("d2", cache="drafts") == 1
    kept = db.cache.open("settings", persists_across_versions=True, purge_expired_after=60)
    assert kept["config"]["persistsAcrossVersions"] is True and kept["config"]["purgeExpiredAfter"] == 60
    assert db.cache.open("settings", purge_expired_after=None)["config"]["purgeExpiredAfter"] is None


def test_another_app_version_wipes_a_cache_on_first_use(tmp_path):
    with larder.Larder.spawn(store=tmp_path, app_version="1.0") as v1:
        v1.cache.set("k", 1)
        v1.cache.open("notes", kind="store")
        v1.cache.set("n", 2, cache="notes")
    with larder.Larder.spawn(store=tmp_path, app_version="2.0") as v2:
        assert v2.init_result["previousAppVersion"] == "1.0"
        assert v2.cache.get("k") is None
        assert v2.cache.get("n", cache="notes") == 2


def test_a_sidecar_whose_cache_a_newer_version_claimed_reads_it_empty(tmp_path):
    with larder.Larder.spawn(store=tmp_path, app_version="1.0", fetch=True) as v1, \
            larder.Larder.spawn(store=tmp_path, app_version="2.0") as v2:
        v1.cache.set("k", "1.0")
        assert v2.cache.get("k") is None
        v2.cache.set("k", "2.0")
        assert v1.cache.get("k") is None
        with pytest.raises(larder.AppVersionSuperseded) as info:
            v1.cache.set("k", "1.0 late")
        assert (info.value.cache, info.value.app_version, info.value.cache_app_version) == ("default", "1.0", "2.0")
        fetched = v1.cache.entry_or_fetch("f", lambda key: "fetched by 1.0")
        assert (fetched["value"], fetched["fetched"], fetched["stored"]) == ("fetched by 1.0", True, False)
        assert v2.cache.get("k") == "2.0" and v2.cache.get("f") is None


def test_groups_with_their_counts(db):
    db.cache.set("index", 1, group="docs")
    db.cache.set_many([{"key": "a", "value": 1}, {"key": "b", "value": 2}], group="docs.drafts")
    db.cache.set("c", 3, group="docs.final", ttl=1)
    db.cache.set("top", 0)
    assert db.cache.groups() == {"groups": [{"group": "", "count": 1}, {"group": "docs", "count": 1},
                                            {"group": "docs.drafts", "count": 2}, {"group": "docs.final", "count": 1}]}
    assert [g["group"] for g in db.cache.groups(prefix="docs.")["groups"]] == ["docs.drafts", "docs.final"]
    page = db.cache.groups(limit=2)
    assert page["cursor"] == "docs"
    assert "cursor" not in db.cache.groups(limit=2, cursor=page["cursor"])
    advance(db, 2)
    assert db.cache.groups(prefix="docs.") == {"groups": [{"group": "docs.drafts", "count": 2}]}
    assert db.cache.groups(cache="nothing") == {"groups": []}
    with pytest.raises(larder.InvalidParams):
        db.cache.groups(limit=0)


def test_store_clear_by_kind(db, waiter):
    db.on_event("cache.cleared", waiter)
    db.cache.subscribe()
    db.schema.register("Note", "1", {"text": "string"})
    db.cache.set("plain", 1)
    db.object.put("note", "Note", {"text": "x"})
    db.cache.open("settings", kind="store")
    db.object.put("welcome", "Note", {"text": "hi"}, cache="settings")
    assert db.store.clear(kind="objects") == {"removed": 1, "caches": [{"cache": "default", "removed": 1}]}
    assert waiter.wait(1) == [{"cache": "default", "tier": "all", "kind": "objects"}]
    assert db.cache.get("plain") == 1 and db.cache.entry("welcome", cache="settings")["found"]
    assert db.store.clear(include_stores=True) == {
        "removed": 2, "caches": [{"cache": "default", "removed": 1}, {"cache": "settings", "removed": 1}]}
    assert db.store.clear() == {"removed": 0, "caches": []}
    assert db.schema.list()["types"][0]["type"] == "Note"
    with pytest.raises(larder.InvalidParams, match="kind"):
        db.store.clear(kind="everything")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        db.store.clear("objects")  # type: ignore[misc]
    db.cache.set("again", 2)
    db.object.put("note", "Note", {"text": "stays"})
    with db.pipeline() as p:
        reply = p.store.clear(kind="caches")
    assert reply.result() == {"removed": 1, "caches": [{"cache": "default", "removed": 1}]}
    assert db.object.get("note")["value"] == {"text": "stays"}


def test_store_wrapper_covers_the_openrpc_document(db):
    import inspect

    documented = {m["name"]: {p["name"] for p in m.get("params", [])} for m in db.discover()["methods"]}
    names = [n for n in documented if n.startswith("store.")]
    assert names == ["store.clear"]
    for name in names:
        wrapper = getattr(db.store, _snake(name.split(".", 1)[1]))
        assert {larder.cache.camel(p) for p in inspect.signature(wrapper).parameters} == documented[name]
