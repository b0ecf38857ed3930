"""Several threads share one client."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import larder


def test_threads_share_a_client(db):
    errors = []

    def worker(n):
        try:
            view = db.cache_view("shared", group=f"t{n}")
            for i in range(300):
                view[f"k{i}"] = [n, i]
                assert view[f"k{i}"] == [n, i]
            with db.pipeline() as p:
                for i in range(300):
                    p.cache.get(f"k{i}", cache="shared", group=f"t{n}")
            assert p.results == [[n, i] for i in range(300)]
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert db.cache.stats(cache="shared")["memory"]["count"] == 8 * 300


def test_thread_pool_mixed_calls(db):
    def job(i):
        db.cache.set(f"k{i}", i, cache="pool")
        assert db.cache.has(f"k{i}", cache="pool")["valid"]
        try:
            db.call("nope")
        except larder.MethodNotFound:
            pass
        return db.cache.get(f"k{i}", cache="pool")

    with ThreadPoolExecutor(16) as pool:
        assert list(pool.map(job, range(500))) == list(range(500))
