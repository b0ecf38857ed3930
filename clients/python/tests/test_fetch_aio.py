"""cache.getOrFetch on the asyncio client against the real binary: fetchers
and fallbacks, plain or coroutine functions, answer cache.fetch and
cache.fallback on tasks of their own."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

import pytest

import larder
from larder import FetchFailed, Fetched, NOT_FOUND
from larder.aio import AsyncLarder
from larder.results import FetchedEntry

from conftest import TEST_ARGS, missing

GUARD = 20


def run(binary: str, body: Callable[[AsyncLarder], Awaitable[None]], **spawn: Any) -> None:
    """Runs ``body(db)`` on a fresh in-memory sidecar that declared fetch."""
    spawn.setdefault("fetch", True)

    async def main() -> None:
        async with AsyncLarder.spawn(memory=True, binary=binary, args=TEST_ARGS, **spawn) as db:
            await asyncio.wait_for(body(db), GUARD)

    asyncio.run(main())


def test_declares_capabilities(binary):
    async def body(db: AsyncLarder) -> None:
        assert db.cache.fetchers.fetch_declared and db.cache.fetchers.fallback_declared

    run(binary, body)


def test_miss_is_fetched_and_stored(binary):
    async def body(db: AsyncLarder) -> None:
        calls: list[str] = []

        async def fetch(key: str) -> Any:
            calls.append(key)
            await asyncio.sleep(0.01)
            return {"name": "Ada"}

        assert await db.cache.get_or_fetch("user:1", fetch) == {"name": "Ada"}
        assert calls == ["user:1"]
        assert await db.cache.get("user:1") == {"name": "Ada"}
        entry: FetchedEntry = await db.cache.entry_or_fetch("user:1", fetch)
        assert entry["found"] and entry["fetched"] is False and calls == ["user:1"]
        # Plain functions work too, and so do bytes, NOT_FOUND and Fetched.
        entry = await db.cache.entry_or_fetch("b", lambda k: Fetched(data=b"\xde\xad", ttl=60))
        assert entry["data"] == b"\xde\xad" and entry.get("stored") and "expiresAt" in entry
        assert await db.cache.get_or_fetch("none", lambda k: NOT_FOUND, default="dflt") == "dflt"
        assert (await db.cache.has("none"))["found"] is False
        assert await db.cache.get_or_fetch("raw", lambda k: b"\x00") == b"\x00"

    run(binary, body)


def test_retries_then_success(binary):
    async def body(db: AsyncLarder) -> None:
        attempts: list[str] = []

        async def flaky(key: str) -> Any:
            attempts.append(key)
            if len(attempts) < 3:
                raise RuntimeError("upstream 503")
            return {"name": "Grace"}

        entry = await db.cache.entry_or_fetch("user:2", flaky, retries=3, retry_delay_ms=(1, 5))
        assert entry["value"] == {"name": "Grace"}
        assert entry.get("attempts") == 3 and entry["fetched"] and entry.get("stored")
        assert len(attempts) == 3

    run(binary, body)


def test_all_failing_raises_fetch_failed(binary):
    async def body(db: AsyncLarder) -> None:
        async def broken(key: str) -> Any:
            raise ValueError("no such user")

        with pytest.raises(FetchFailed) as info:
            await db.cache.get_or_fetch("user:3", broken, retries=1, retry_delay_ms=[1, 1])
        e = info.value
        assert e.code == -31050 and e.attempts == 2
        assert "no such user" in e.data["lastError"]["message"]
        assert (await db.cache.has("user:3"))["found"] is False

        async def refuses(key: str) -> Any:
            raise larder.LarderError("gone", 7, {"why": "x"})

        with pytest.raises(FetchFailed) as info:
            await db.cache.get_or_fetch("k", refuses)
        assert info.value.data["lastError"] == {"code": 7, "message": "gone", "data": {"why": "x"}}
        assert db.cache.fetchers._calls == {}

    run(binary, body)


def test_fallback_per_call_and_cache_wide(binary):
    async def body(db: AsyncLarder) -> None:
        seen: list[tuple[str, str]] = []

        async def fail(key: str) -> Any:
            raise RuntimeError("upstream 503")

        async def fallback(key: str, error: larder.LarderError) -> Any:
            seen.append((key, error.message))
            return 0.95

        await db.cache.open("rates", fetch={"retries": 1, "retry_delay_ms": (1, 1)}, fetcher=fail, fallback=fallback)
        entry = await db.cache.entry_or_fetch("chf", cache="rates")
        assert entry["value"] == 0.95 and entry.get("fallback") is True and entry.get("attempts") == 2
        assert seen and seen[0][0] == "chf" and "upstream 503" in seen[0][1]
        assert (await db.cache.has("chf", cache="rates"))["found"] is False
        assert await db.cache.get_or_fetch("usd", lambda k: 1.08, cache="rates") == 1.08  # a call's own wins
        assert await db.cache.get_or_fetch("eur", fail, cache="rates", fallback=lambda k, e: "per-call") == "per-call"

    run(binary, body)


def test_fifty_tasks_one_key_one_fetch(binary):
    async def body(db: AsyncLarder) -> None:
        calls: list[str] = []

        async def fetch(key: str) -> Any:
            calls.append(key)
            await asyncio.sleep(0.2)
            return {"v": 1}

        results = await asyncio.gather(*(db.cache.get_or_fetch("hot", fetch) for _ in range(50)))
        assert results == [{"v": 1}] * 50
        assert calls == ["hot"]
        assert db.cache.fetchers._calls == {}

    run(binary, body)


def test_two_sidecars_on_one_store_fetch_a_shared_key_once(binary, tmp_path):
    """Two sidecars on one store directory miss one key at once with
    ``shared``: one fetcher runs (a coroutine), and both get its value."""
    calls: list[int] = []

    def fetcher(n: int) -> Callable[[str], Awaitable[Any]]:
        async def fetch(key: str) -> Any:
            calls.append(n)
            await asyncio.sleep(0.5)
            return {"from": n}
        return fetch

    async def main() -> None:
        store = str(tmp_path / "store")
        async with AsyncLarder.spawn(store=store, binary=binary, fetch=True) as a, \
                AsyncLarder.spawn(store=store, binary=binary, fetch=True) as b:
            answers = await asyncio.wait_for(asyncio.gather(
                a.cache.entry_or_fetch("hot", fetcher(0), shared=True, timeout_ms=20_000),
                b.cache.entry_or_fetch("hot", fetcher(1), shared=True, timeout_ms=20_000)), GUARD)
            assert len(calls) == 1
            assert [e["value"] for e in answers] == [{"from": calls[0]}] * 2
            assert answers[1 - calls[0]].get("fetchedElsewhere") is True

    asyncio.run(main())


def test_fetches_of_different_keys_overlap(binary):
    async def body(db: AsyncLarder) -> None:
        running = 0
        most = 0

        async def fetch(key: str) -> Any:
            nonlocal running, most
            running += 1
            most = max(most, running)
            await asyncio.sleep(0.1)
            running -= 1
            return key

        keys = [f"k{i}" for i in range(10)]
        assert await asyncio.gather(*(db.cache.get_or_fetch(k, fetch) for k in keys)) == keys
        assert most == 10

    run(binary, body)


def test_a_fetch_the_server_gave_up_on_is_cancelled(binary):
    async def body(db: AsyncLarder) -> None:
        cancelled = asyncio.Event()

        async def slow(key: str) -> Any:
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return "late"

        with pytest.raises(FetchFailed) as info:
            await db.cache.get_or_fetch("slow", slow, timeout_ms=50)
        assert info.value.data["lastError"]["code"] == -32800
        await asyncio.wait_for(cancelled.wait(), 5)  # the server's $/cancelRequest cancelled the task
        assert await db.cache.get("other", "d") == "d"

    run(binary, body)


def test_a_cancelled_call_lets_its_fetcher_go(binary):
    async def body(db: AsyncLarder) -> None:
        release = asyncio.Event()

        async def slow(key: str) -> Any:
            await release.wait()
            return "v"

        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(db.cache.get_or_fetch("k", slow), 0.1)
        assert db.cache.fetchers._calls == {}
        release.set()
        # A coroutine never awaited registers nothing.
        pending = db.cache.get_or_fetch("never", slow)
        assert db.cache.fetchers._calls == {}
        pending.close()  # type: ignore[attr-defined]

    run(binary, body)


def test_without_capability(binary):
    async def body(db: AsyncLarder) -> None:
        with pytest.raises(FetchFailed) as info:
            await db.cache.get_or_fetch("x", lambda k: 1)
        assert info.value.attempts == 0

    run(binary, body, fetch=False)


def test_pipeline_get_or_fetch(binary):
    async def body(db: AsyncLarder) -> None:
        async def fetch(key: str) -> Any:
            return key * 2

        async with db.pipeline(raise_on_error=False) as p:
            a = p.cache.get_or_fetch("ab", fetch)
            b = p.cache.entry_or_fetch("cd", fetch)
            c = p.cache.get_or_fetch("ef", lambda k: 1 / 0)
        assert a.result() == "abab"
        assert b.result()["value"] == "cdcd" and b.result()["fetched"]
        assert isinstance(c.exception(), FetchFailed)
        await asyncio.sleep(0)  # a future's done callbacks run soon after, not at once
        assert db.cache.fetchers._calls == {}

    run(binary, body)


def test_memoize_uses_get_or_fetch(binary):
    async def body(db: AsyncLarder) -> None:
        calls: list[int] = []

        @db.memoize(cache="memo", ttl=60)
        async def square(n: int) -> int:
            calls.append(n)
            await asyncio.sleep(0.1)
            return n * n

        assert await asyncio.gather(*(square(4) for _ in range(10))) == [16] * 10
        assert await square(4) == 16 and calls == [4]

    run(binary, body)


def test_subscribe_with_values_and_removed_events(binary):
    async def body(db: AsyncLarder) -> None:
        removed: list[Any] = []
        got = asyncio.Event()

        async def on_removed(params: Any) -> None:
            removed.append(params)
            got.set()

        db.on_event("cache.removed", on_removed)
        try:
            assert await db.cache.subscribe(with_values=True) == {"subscribed": "*"}
        except larder.InvalidParams as e:
            assert e.path == "params.withValues"
            missing("this larder has no cache.subscribe withValues (nor cache.removed) yet")
        await db.cache.set("a", {"n": 1})
        await db.cache.remove("a")
        await asyncio.wait_for(got.wait(), 5)
        assert removed == [{"cache": "default", "group": "", "key": "a", "tier": "all", "reason": "removed",
                            "value": {"n": 1}}]

    run(binary, body, fetch=False)
