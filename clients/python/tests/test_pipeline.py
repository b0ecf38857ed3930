"""Pipelining: queued calls go out in one write, results come back in order."""

from __future__ import annotations

import pytest

import larder


def count_writes(db, monkeypatch):
    writes = []
    connection = db._connection
    original = connection._write_locked

    def spy(payload):
        writes.append(payload)
        return original(payload)

    monkeypatch.setattr(connection, "_write_locked", spy)
    return writes


def test_ten_thousand_sets(db, monkeypatch):
    writes = count_writes(db, monkeypatch)
    with db.pipeline() as p:
        for i in range(10_000):
            p.cache.set(f"key{i:05}", {"i": i}, cache="bulk")
        assert len(p) == 10_000
    assert len(writes) == 1 and writes[0].count(b"\n") == 10_000
    assert len(p.results) == 10_000
    assert all(r["stored"] is True for r in p.results)
    assert db.cache.stats(cache="bulk")["memory"]["count"] == 10_000
    got = db.cache.get_many([f"key{i:05}" for i in (0, 4321, 9999)], cache="bulk")["entries"]
    assert [e["value"]["i"] for e in got.values()] == [0, 4321, 9999]


def test_results_in_order_with_futures_and_decoding(db):
    with db.pipeline() as p:
        p.cache.set("a", 1)
        f_bytes = p.cache.set("b", data=b"\x00")
        p.cache.get("a")
        f_get = p.cache.entry("b")
        p.call("cache.has", {"key": "a"})
        p.cache.get("b")
        p.cache.get("missing", "fallback")
    assert p.results[0] == {"stored": True, "size": 1, "revision": 1}
    assert f_bytes.result() == {"stored": True, "size": 1, "revision": 2}
    assert p.results[2] == 1
    assert f_get.result()["data"] == b"\x00" and p.results[3] is f_get.result()
    assert p.results[4] == {"found": True, "valid": True}
    assert p.results[5:] == [b"\x00", "fallback"]


def test_errors_raise_first_and_stay_in_results(db):
    with pytest.raises(larder.CacheNotFound):
        with db.pipeline() as p:
            p.cache.set("a", 1)
            p.cache.stats(cache="missing")
            p.call("nope")
            p.cache.entry("a")
    assert isinstance(p.results[1], larder.CacheNotFound)
    assert isinstance(p.results[2], larder.MethodNotFound)
    assert p.results[3]["value"] == 1


def test_no_raise_mode(db):
    with db.pipeline(raise_on_error=False) as p:
        p.call("nope")
        p.cache.set("a", 1)
    assert isinstance(p.results[0], larder.MethodNotFound)
    assert p.results[1]["stored"] is True


def test_batch_mode(db, monkeypatch):
    writes = count_writes(db, monkeypatch)
    with db.pipeline(batch=True, raise_on_error=False) as p:
        for i in range(100):
            p.cache.set(f"k{i}", i)
        p.cache.entry("k42")
        p.call("nope")
    assert len(writes) == 1 and writes[0].startswith(b"[")
    assert p.results[100]["value"] == 42
    assert isinstance(p.results[101], larder.MethodNotFound)


def test_exception_in_block_sends_nothing(db, monkeypatch):
    writes = count_writes(db, monkeypatch)
    with pytest.raises(RuntimeError):
        with db.pipeline() as p:
            f = p.cache.set("a", 1)
            raise RuntimeError("changed my mind")
    assert writes == [] and f.cancelled()
    assert db.cache.entry("a") == {"found": False}


def test_results_before_running(db):
    p = db.pipeline()
    p.cache.set("a", 1)
    with pytest.raises(RuntimeError):
        p.results
    assert p.wait()[0]["stored"] is True
    with pytest.raises(RuntimeError):
        p.cache.set("b", 2)


def test_empty_pipeline(db):
    with db.pipeline(batch=True) as p:
        pass
    assert p.results == []


def test_call_async_futures(db):
    futures = [db.call_async("cache.set", {"key": f"k{i}", "value": i}) for i in range(100)]
    assert all(f.result(10)["stored"] for f in futures)
    assert len({f.request_id for f in futures}) == 100


ODD_KEYS = ["plain", 'q"uote', "back\\slash", "line\nbreak", "tab\t", "é ü 字 😀", "\u2028", "\x00nul"]
ODD_VALUES = [None, True, 0, -1.5, 10**30, "", "v" * 100, 'q"\\\n\u2028😀', [], {}, {"a": [1, {"b": None}]}]


def test_get_and_set_send_what_their_params_encode_to(db, monkeypatch):
    """``cache.get``/``cache.set`` format their params without a mapping;
    the bytes are those of the mapping encoded as any request's params."""
    from larder.wire import encode_request

    writes = count_writes(db, monkeypatch)
    calls = [("cache.set", {"key": k, "value": v}) for k in ODD_KEYS for v in ODD_VALUES]
    calls += [("cache.get", {"key": k}) for k in ODD_KEYS]
    with db.pipeline() as p:
        for method, params in calls:
            if method == "cache.set":
                p.cache.set(params["key"], params["value"])
            else:
                p.cache.get(params["key"])
    [payload] = writes
    first = p.replies[0].request_id
    assert payload == "".join(encode_request(rid, m, params) for rid, (m, params) in enumerate(calls, first)).encode()
    assert p.results[-len(ODD_KEYS):] == [ODD_VALUES[-1]] * len(ODD_KEYS)
    for k in ODD_KEYS:
        assert db.cache.get(k) == ODD_VALUES[-1]
        db.cache.set(k, k)
        assert db.cache.get(k) == k


def test_odd_keys_and_values_behave_as_before(db):
    with pytest.raises(larder.InvalidParams):
        db.cache.get(5)  # type: ignore[arg-type]
    with pytest.raises(larder.InvalidParams):
        db.cache.set(5, 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not JSON"):
        db.cache.set("k", {1j: 1})
    with pytest.raises(TypeError, match="not JSON"):
        with db.pipeline() as p:
            reply = p.cache.set("k", object())
            assert not reply.done(), "nothing is encoded before the pipeline runs"
    assert db.cache.get("k") is None, "nothing was sent"
