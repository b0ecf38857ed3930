"""cache.getOrFetch against the real binary: the client's fetchers answer
cache.fetch and cache.fallback."""

from __future__ import annotations

import threading
import time

import pytest

import larder
from larder import FetchFailed, Fetched, NOT_FOUND

from conftest import TEST_ARGS


@pytest.fixture
def fdb(binary):
    with larder.Larder.spawn(memory=True, binary=binary, args=TEST_ARGS, timeout=60, fetch=True) as d:
        yield d


def test_declares_capabilities(fdb):
    assert fdb.cache.fetchers.fetch_declared and fdb.cache.fetchers.fallback_declared


def test_miss_is_fetched_and_stored(fdb):
    calls = []

    def fetch(key):
        calls.append(key)
        return {"name": "Ada"}

    assert fdb.cache.get_or_fetch("user:1", fetch) == {"name": "Ada"}
    assert calls == ["user:1"]
    assert fdb.cache.get("user:1") == {"name": "Ada"}
    entry = fdb.cache.entry_or_fetch("user:1", fetch)
    assert entry["found"] and entry["fetched"] is False
    assert calls == ["user:1"]


def test_bytes_ttl_and_not_found(fdb):
    entry = fdb.cache.entry_or_fetch("b", lambda k: Fetched(data=b"\xde\xad", ttl=60))
    assert entry["data"] == b"\xde\xad" and entry["stored"] and "expiresAt" in entry
    assert fdb.cache.get_or_fetch("none", lambda k: NOT_FOUND, default="dflt") == "dflt"
    assert fdb.cache.get_or_fetch("none2", lambda k: None) is None
    assert fdb.cache.has("none")["found"] is False
    assert fdb.cache.get_or_fetch("null", lambda k: Fetched(None), default=1) is None
    assert fdb.cache.has("null")["found"] is True


def test_retries_then_success(fdb):
    attempts = []

    def flaky(key):
        attempts.append(key)
        if len(attempts) < 3:
            raise RuntimeError("upstream 503")
        return {"name": "Grace"}

    entry = fdb.cache.entry_or_fetch("user:2", flaky, retries=3, retry_delay_ms=(1, 5))
    assert entry["value"] == {"name": "Grace"}
    assert entry["attempts"] == 3 and entry["fetched"] and entry["stored"]
    assert len(attempts) == 3


def test_all_failing_raises_fetch_failed(fdb):
    def broken(key):
        raise ValueError("no such user")

    with pytest.raises(FetchFailed) as info:
        fdb.cache.get_or_fetch("user:3", broken, retries=1, retry_delay_ms=[1, 1])
    e = info.value
    assert e.code == -31050
    assert e.data["attempts"] == 2 and e.attempts == 2
    assert "no such user" in e.data["lastError"]["message"]
    assert "no such user" in str(e.last_error)
    assert fdb.cache.has("user:3")["found"] is False


def test_larder_error_is_sent_as_is(fdb):
    def broken(key):
        raise larder.LarderError("gone", 7, {"why": "x"})

    with pytest.raises(FetchFailed) as info:
        fdb.cache.get_or_fetch("k", broken, retries=0)
    assert info.value.data["lastError"] == {"code": 7, "message": "gone", "data": {"why": "x"}}


def test_fallback_per_call_and_cache_wide(fdb):
    seen = []

    def fail(key):
        raise RuntimeError("upstream 503")

    def fallback(key, error):
        seen.append((key, error.message))
        return 0.95

    fdb.cache.open("rates", fetch={"retries": 1, "retry_delay_ms": (1, 1)}, fetcher=fail, fallback=fallback)
    entry = fdb.cache.entry_or_fetch("chf", cache="rates")
    assert entry["value"] == 0.95 and entry["fallback"] is True and entry["attempts"] == 2
    assert seen and seen[0][0] == "chf" and "upstream 503" in seen[0][1]
    assert fdb.cache.has("chf", cache="rates")["found"] is False
    # A per-call fetcher wins over the cache's.
    assert fdb.cache.get_or_fetch("usd", lambda k: 1.08, cache="rates") == 1.08
    # A per-call fallback too.
    assert fdb.cache.get_or_fetch("eur", fail, cache="rates", fallback=lambda k, e: "per-call") == "per-call"


def test_cache_open_fetch_settings(fdb):
    result = fdb.cache.open("s", fetch={"retries": 2, "retry_delay_ms": (1, 2), "timeout_ms": 500,
                                        "negative_ttl": 5, "staleWhileRevalidate": 3, "shared": True})
    fetch = result["config"]["fetch"]
    assert fetch["retries"] == 2 and fetch["retryDelayMs"] == [1, 2] and fetch["timeoutMs"] == 500
    assert fetch["negativeTtl"] == 5 and fetch["staleWhileRevalidate"] == 3 and fetch["shared"] is True
    with pytest.raises(larder.InvalidParams):
        fdb.cache.open("s", fetch={"retires": 2})


def test_timeout_counts_as_failure_and_late_answer_is_ignored(fdb):
    def slow(key):
        time.sleep(0.3)
        return "late"

    with pytest.raises(FetchFailed) as info:
        fdb.cache.get_or_fetch("slow", slow, timeout_ms=50, retries=0)
    assert info.value.data["lastError"]["code"] == -32800
    time.sleep(0.4)
    assert fdb.cache.get("other", "d") == "d"  # the connection is fine


def test_fifty_threads_one_key_one_fetch(fdb):
    calls = []
    lock = threading.Lock()

    def fetch(key):
        with lock:
            calls.append(key)
        time.sleep(0.2)
        return {"v": 1}

    barrier = threading.Barrier(50)
    results = []

    def worker():
        barrier.wait()
        results.append(fdb.cache.get_or_fetch("hot", fetch))

    threads = [threading.Thread(target=worker) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results == [{"v": 1}] * 50
    assert calls == ["hot"]


def test_two_processes_on_one_store_fetch_a_shared_key_once(binary, tmp_path):
    """Two sidecars on one store directory, each with its own client, miss
    one key at once with ``shared``: one fetcher runs, and both get its value."""
    calls = []
    lock = threading.Lock()
    barrier = threading.Barrier(2)
    answers: dict[int, larder.results.FetchedEntry] = {}

    def worker(n):
        def fetch(key):
            with lock:
                calls.append(n)
            time.sleep(0.5)
            return {"from": n}

        with larder.Larder.spawn(store=str(tmp_path / "store"), binary=binary, timeout=60, fetch=True) as db:
            barrier.wait()
            answers[n] = db.cache.entry_or_fetch("hot", fetch, shared=True, timeout_ms=20_000)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(calls) == 1
    assert [answers[n]["value"] for n in range(2)] == [{"from": calls[0]}] * 2
    waited = answers[1 - calls[0]]
    assert waited["fetched"] is False and waited.get("fetchedElsewhere") is True, waited


def test_concurrent_keys_get_their_own_fetchers(fdb):
    results = {}

    def worker(i):
        def fetch(key, i=i):
            time.sleep(0.05)
            return f"value-{i}-{key}"

        results[i] = fdb.cache.get_or_fetch(f"k{i}", fetch)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results == {i: f"value-{i}-k{i}" for i in range(20)}


def test_no_fetcher_is_a_failed_attempt(fdb):
    with pytest.raises(FetchFailed):
        fdb.cache.get_or_fetch("nobody", retries=0)


def test_without_capability(db):
    with pytest.raises(FetchFailed):
        db.cache.get_or_fetch("x", lambda k: 1)


def test_memoize_uses_get_or_fetch(fdb):
    calls = []

    @fdb.memoize(cache="memo", ttl=60)
    def square(n):
        calls.append(n)
        time.sleep(0.1)
        return n * n

    threads = [threading.Thread(target=square, args=(4,)) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert square(4) == 16 and calls == [4]


def test_a_slow_fetch_does_not_hold_up_events(fdb):
    """cache.fetch runs on the worker pool: the callback thread delivers
    events (in order) while a fetcher waits for one of them."""
    seen = threading.Event()
    order = []

    def on_evicted(params):
        order.append(params["key"])
        seen.set()

    fdb.on_event("cache.evicted", on_evicted)
    fdb.cache.open("tiny", persistent=False, memory={"max_count": 1})
    fdb.cache.subscribe(cache="tiny")

    def fetch(key):
        assert seen.wait(10), "the event was not delivered while the fetch ran"
        return "fetched"

    result = []
    t = threading.Thread(target=lambda: result.append(fdb.cache.get_or_fetch("slow", fetch, timeout_ms=20000)))
    t.start()
    time.sleep(0.1)  # the fetch is out
    for k in ("a", "b", "c"):
        fdb.cache.set(k, 1, cache="tiny")
    t.join(15)
    assert result == ["fetched"]
    # Events run on the callback thread: the last may still be on its way.
    fdb._connection.wait_for_callbacks()
    assert order == ["a", "b"]


def test_fetches_overlap(fdb):
    started = threading.Barrier(4, timeout=10)

    def fetch(key):
        started.wait()  # all four fetchers run at once, or this times out
        return key.upper()

    results = {}
    threads = [threading.Thread(target=lambda k=k: results.__setitem__(k, fdb.cache.get_or_fetch(k, fetch)))
               for k in ("w", "x", "y", "z")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15)
    assert results == {"w": "W", "x": "X", "y": "Y", "z": "Z"}


def test_the_answer_to_a_cancelled_fetch_is_dropped(fdb):
    connection = fdb._connection
    written = []
    write = connection._write_locked

    def spy(data):
        written.append(bytes(data))
        write(data)

    connection._write_locked = spy
    done = threading.Event()

    def slow(key):
        time.sleep(0.4)
        done.set()
        return "late"

    with pytest.raises(FetchFailed) as info:
        fdb.cache.get_or_fetch("slow", slow, timeout_ms=50, retries=0)
    assert info.value.data["lastError"]["code"] == -32800
    assert done.wait(5)
    time.sleep(0.1)
    assert fdb.cache.get("x", "d") == "d"
    answers = [w for w in written if b'"id":"larder-' in w and b"late" in w]
    assert answers == []  # the server had cancelled it: nothing sent
    assert connection._serving == set() and connection._cancelled == set()


def test_pipeline_get_or_fetch(fdb):
    with fdb.pipeline() as p:
        value = p.cache.get_or_fetch("p1", lambda k: {"k": k})
        entry = p.cache.entry_or_fetch("p2", lambda k: Fetched(data=b"\x01"))
        failed = p.cache.get_or_fetch("p3", lambda k: 1 / 0, retries=0)
        p.raise_on_error = False
    assert value.result() == {"k": "p1"}
    assert entry.result()["data"] == b"\x01" and entry.result()["fetched"] is True
    assert isinstance(failed.exception(), FetchFailed)
    assert fdb.cache.fetchers._calls == {}  # every call's fetcher was let go, the failed one's too


def test_a_call_fetcher_is_let_go_after_the_call(fdb):
    with pytest.raises(FetchFailed):
        fdb.cache.get_or_fetch("gone", lambda k: 1 / 0)
    assert fdb.cache.fetchers._calls == {}
    with pytest.raises(FetchFailed):  # no fetcher left behind for the key
        fdb.cache.get_or_fetch("gone2")
    assert fdb.cache.fetchers._calls == {}


def test_reply_done_callbacks(fdb):
    seen = []
    reply = fdb.call_async("cache.has", {"key": "k"})
    reply.add_done_callback(lambda r: seen.append(r.result()))
    assert seen == []
    assert reply.result() == {"found": False, "valid": False}
    assert seen == [{"found": False, "valid": False}]
    reply.add_done_callback(lambda r: seen.append("again"))
    assert seen[-1] == "again"


def test_stale_while_revalidate_uses_the_calls_fetcher(fdb):
    refreshed = threading.Event()

    def first(key):
        return Fetched("v1", ttl=1)

    def second(key):
        refreshed.set()
        return "v2"

    assert fdb.cache.get_or_fetch("s", first) == "v1"
    fdb.call("debug.advanceClock", {"seconds": 2})
    entry = fdb.cache.entry_or_fetch("s", second, stale_while_revalidate=60)
    assert entry["value"] == "v1" and entry.get("revalidating") is True and entry["expired"] is True
    assert refreshed.wait(10)  # the background fetch found the call's fetcher after its answer
    for _ in range(100):
        if fdb.cache.get("s") == "v2":
            break
        time.sleep(0.02)
    assert fdb.cache.get("s") == "v2"
    assert fdb.cache.fetchers._calls == {}
    assert fdb.cache.fetchers._lingering == {}  # let go once it answered


def test_a_coroutine_fetcher_on_the_sync_client(fdb):
    async def fetch(key):
        return {"async": key}

    assert fdb.cache.get_or_fetch("co", fetch) == {"async": "co"}
