"""The asyncio client (larder.aio) against the real sidecar, and against the
stand-in one for crashes and $/progress."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import sys
import threading
from typing import Any, Awaitable, Callable

import pytest

import larder
from conftest import FAKE_SIDECAR, TEST_ARGS
from larder.aio import AsyncLarder

#: How long a test waits for something that must happen before failing it
#: (a guard against hanging, not a measurement).
GUARD = 20


def run(binary: str, body: Callable[[AsyncLarder], Awaitable[None]], **spawn: Any) -> None:
    """Runs ``body(db)`` on a fresh in-memory sidecar in a new event loop."""
    async def main() -> None:
        async with AsyncLarder.spawn(memory=True, binary=binary, args=TEST_ARGS, **spawn) as db:
            await asyncio.wait_for(body(db), GUARD)

    asyncio.run(main())


def run_fake(body: Callable[[AsyncLarder], Awaitable[None]]) -> None:
    async def main() -> None:
        async with AsyncLarder.spawn(binary=sys.executable, args=[str(FAKE_SIDECAR)]) as db:
            await asyncio.wait_for(body(db), GUARD)

    asyncio.run(main())


# -- cache ---------------------------------------------------------------------

def test_cache_set_get_entry(binary):
    async def body(db: AsyncLarder) -> None:
        assert await db.cache.set("user:1", {"name": "Ada"}, ttl=60) == {"stored": True, "size": 14, "revision": 1}
        assert await db.cache.get("user:1") == {"name": "Ada"}
        assert await db.cache.get("user:2", "nobody") == "nobody"
        await db.cache.set("blob", data=b"\x00\xff")
        assert await db.cache.get("blob") == b"\x00\xff"
        entry = await db.cache.entry("blob")
        assert entry["found"] and entry["data"] == b"\x00\xff" and entry["tier"] == "memory"
        assert await db.cache.entry("missing") == {"found": False}
        many = await db.cache.get_many(["user:1", "blob", "missing"])
        assert many["entries"]["blob"]["data"] == b"\x00\xff"
        assert await db.cache.has("user:1") == {"found": True, "valid": True}
        assert await db.cache.remove("user:1") == {"removed": True}
        assert await db.cache.keys() == {"keys": ["blob"]}

    run(binary, body)


def test_spawn_awaited_and_context_managers(binary):
    async def main() -> None:
        db = await AsyncLarder.spawn(memory=True, binary=binary)
        assert db.alive and db.init_result is not None
        assert db.init_result["serverInfo"]["name"] == "larder"
        async with db:
            await db.cache.set("k", 1)
        assert db.returncode == 0 and not db.alive

        async with await AsyncLarder.spawn(memory=True, binary=binary) as db2:
            assert await db2.cache.get("k") is None  # a new, empty sidecar
        assert db2.returncode == 0

    asyncio.run(main())


# -- errors --------------------------------------------------------------------

def test_errors_map_to_the_same_exception_classes(binary):
    async def body(db: AsyncLarder) -> None:
        with pytest.raises(larder.CacheNotFound):
            await db.cache.stats(cache="nowhere")
        with pytest.raises(larder.MethodNotFound) as e:
            await db.call("cache.gett", {"key": "k"})
        assert e.value.suggestion == "cache.get"
        with pytest.raises(larder.InvalidParams) as p:
            await db.cache.open("c", memory={"max_cont": 5})
        assert p.value.suggestion == "maxCount"
        with pytest.raises(larder.SchemaNotFound):
            await db.object.put("k", "Nope", {})
        with pytest.raises(TypeError):
            await db.cache.set("k", 1, tll=5)  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="not JSON"):
            await db.call("cache.set", {"key": "k", "value": object()})
        assert await db.cache.get("k") is None, "nothing was sent for the refused calls"

    run(binary, body)


# -- pipelines -----------------------------------------------------------------

def test_pipeline_results_in_order(binary):
    async def body(db: AsyncLarder) -> None:
        async with db.pipeline() as p:
            for i in range(2000):
                p.cache.set(f"k{i}", i)
            got = p.cache.get("k1999")
            entry = p.cache.entry("k7")
            count = p.cache.keys(limit=5)
        assert len(p.results) == 2003 and len(p) == 2003
        assert p.results[0] == {"stored": True, "size": 1, "revision": 1}
        assert await got == 1999 and got.result() == 1999
        assert entry.result()["value"] == 7
        assert count.result()["keys"] == ["k0", "k1", "k10", "k100", "k1000"]

    run(binary, body)


def test_pipeline_errors(binary):
    async def body(db: AsyncLarder) -> None:
        with pytest.raises(larder.CacheNotFound):
            async with db.pipeline() as p:
                p.cache.set("a", 1)
                p.cache.stats(cache="nowhere")
                p.cache.set("b", 2)
        assert p.results[0] == {"stored": True, "size": 1, "revision": 1}
        assert isinstance(p.results[1], larder.CacheNotFound)
        assert p.results[2] == {"stored": True, "size": 1, "revision": 2}, "the calls after a failure still ran"

        async with db.pipeline(raise_on_error=False, batch=True) as q:
            q.cache.get("a")
            failed = q.cache.drop("nowhere")
        assert q.results[0] == 1 and isinstance(q.results[1], larder.CacheNotFound)
        with pytest.raises(larder.CacheNotFound):
            await failed

    run(binary, body)


def test_pipeline_left_by_an_exception_sends_nothing(binary):
    async def body(db: AsyncLarder) -> None:
        with pytest.raises(ZeroDivisionError):
            async with db.pipeline() as p:
                queued = p.cache.set("k", 1)
                1 / 0
        assert queued.cancelled()
        assert await db.cache.get("k") is None

    run(binary, body)


# -- concurrency ---------------------------------------------------------------

def test_many_tasks_get_their_own_answers(binary):
    async def body(db: AsyncLarder) -> None:
        async def worker(n: int) -> tuple[int, Any]:
            await db.cache.set(f"k{n}", {"n": n}, group=f"g{n % 7}")
            await asyncio.sleep(0)
            return n, await db.cache.get(f"k{n}", group=f"g{n % 7}")

        results = await asyncio.gather(*(worker(n) for n in range(300)))
        assert results == [(n, {"n": n}) for n in range(300)]

    run(binary, body)


def test_server_requests_answered_by_coroutines_while_tasks_call(binary):
    async def body(db: AsyncLarder) -> None:
        async def double(params: dict[str, Any]) -> int:
            await asyncio.sleep(0)
            stored = await db.cache.get(f"n{params['n']}")  # a handler may call the server
            return int(stored) * 2

        db.on_request("client.double", double)
        db.on_request("client.plain", lambda params: params["x"])
        await db.cache.set_many({f"n{n}": n for n in range(50)})
        answers = await asyncio.gather(*(
            db.call("debug.ask", {"method": "client.double", "params": {"n": n}}) for n in range(50)))
        assert [a["result"] for a in answers] == [n * 2 for n in range(50)]
        assert await db.call("debug.ask", {"method": "client.plain", "params": {"x": [1]}}) == {"result": [1]}
        assert await db.call("debug.ask", {"method": "client.unknown"}) == {
            "error": {"code": -32601, "message": "Method not found: client.unknown"}}

        async def refuse(params: Any) -> None:
            raise larder.RequestFailed("not today")

        db.on_request("client.refuse", refuse)
        assert (await db.call("debug.ask", {"method": "client.refuse"}))["error"]["message"] == "not today"

    run(binary, body)


def test_server_requests_are_answered_concurrently(binary):
    async def body(db: AsyncLarder) -> None:
        second_ran = asyncio.Event()

        async def first(params: Any) -> str:
            await second_ran.wait()  # answered only once the second question is
            return "first"

        async def second(params: Any) -> str:
            second_ran.set()
            return "second"

        db.on_request("client.first", first)
        db.on_request("client.second", second)
        asked = asyncio.ensure_future(db.call("debug.ask", {"method": "client.first"}))
        assert await db.call("debug.ask", {"method": "client.second"}) == {"result": "second"}
        assert await asked == {"result": "first"}

    run(binary, body)


def test_server_cancelling_its_request_cancels_the_handler():
    async def body(db: AsyncLarder) -> None:
        cancelled = asyncio.Event()

        async def slow(params: Any) -> None:
            await db.notify("started")
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise

        db.on_request("client.slow", slow)
        assert await db.call("ask_then_cancel") == "asked"
        await cancelled.wait()

    run_fake(body)


# -- migrations answered by a coroutine ------------------------------------------

def test_migration_callback_answered_by_a_coroutine(binary):
    calls: list[dict[str, Any]] = []

    async def upgrade(params: dict[str, Any]) -> Any:
        calls.append(params)
        value = params["value"]
        if value["mode"] == "drop":
            return larder.DROP
        if value["mode"] == "fail":
            raise larder.RequestFailed("cannot migrate this one")
        await asyncio.sleep(0)
        return {**value, "n": value["n"] * 10}

    async def body(db: AsyncLarder) -> None:
        assert db.migration_callbacks is True
        await db.schema.register("Note", "1", {"n": "integer", "mode": "string"})
        for key, mode in (("a", "ok"), ("b", "drop"), ("c", "fail")):
            await db.object.put(key, "Note", {"n": 1, "mode": mode})
        await db.schema.register("Note", "2", {"n": "integer", "mode": "string"},
                                 migrations=[{"from": "1", "steps": [{"op": "callback"}]}])
        assert await db.object.get("a") == {"found": True, "type": "Note", "version": "2",
                                            "value": {"n": 10, "mode": "ok"}, "migratedFrom": "1", "revision": 4}
        assert calls[0] == {"type": "Note", "key": "a", "cache": "default", "group": "", "fromVersion": "1",
                            "toVersion": "2", "value": {"n": 1, "mode": "ok"}}
        assert await db.object.get("b") == {"found": False, "dropped": True, "type": "Note", "migratedFrom": "1"}
        with pytest.raises(larder.MigrationFailed) as e:
            await db.object.get("c")
        assert "cannot migrate this one" in e.value.data["reason"]
        assert (await db.cache.entry("c"))["value"] == {"n": 1, "mode": "fail"}, "left as it was"

        reports: list[Any] = []

        async def progress(value: Any) -> None:
            reports.append(value)

        counts = await db.migrate.run(progress=progress)
        assert (counts["migrated"], counts["failed"]) == (0, 1)
        assert reports[0]["kind"] == "begin" and reports[-1]["kind"] == "end", "progress ran before the result"

    run(binary, body, on_migrate=upgrade)


# -- events --------------------------------------------------------------------

def test_events_reach_plain_and_coroutine_handlers(binary):
    async def body(db: AsyncLarder) -> None:
        plain: list[Any] = []
        seen: list[Any] = []
        arrived = asyncio.Event()

        async def on_evicted(params: Any) -> None:
            seen.append((params, await db.cache.has(params["key"], cache=params["cache"])))
            arrived.set()

        db.on_event("cache.evicted", plain.append)
        db.on_event("cache.evicted", on_evicted)
        await db.cache.open("small", persistent=False, memory={"max_count": 2})
        await db.cache.subscribe(cache="small")
        for k in ("a", "b", "c"):
            await db.cache.set(k, 1, cache="small")
        await arrived.wait()
        event = {"cache": "small", "group": "", "key": "a", "tier": "memory", "reason": "capacity"}
        assert plain == [event]
        assert seen == [(event, {"found": False, "valid": False})]

    run(binary, body)


def test_removed_event_handler_is_not_called(binary):
    async def body(db: AsyncLarder) -> None:
        removed: list[Any] = []
        kept = asyncio.Queue[Any]()
        remove = db.on_event("cache.cleared", removed.append)
        db.on_event("cache.cleared")(kept.put_nowait)
        await db.cache.subscribe()
        await db.cache.set("k", 1)
        await db.cache.clear()
        assert await kept.get() == {"cache": "default", "tier": "all"}
        assert len(removed) == 1
        remove()
        await db.cache.clear()
        await kept.get()
        assert len(removed) == 1

    run(binary, body)


def test_cache_view(binary):
    async def body(db: AsyncLarder) -> None:
        thumbs = db.cache_view("images", group="thumbs")
        await thumbs.set("cat.png", b"\x89PNG")
        await thumbs.update({"a": 1, "b": {"x": 2}})
        assert await thumbs.get("cat.png") == b"\x89PNG"
        assert await thumbs.contains("a") and not await thumbs.contains("zzz")
        assert await db.cache.get("a", cache="images") is None, "the view's entries are in its group"
        thumbs.page_size = 2
        assert [k async for k in thumbs] == ["a", "b", "cat.png"]
        assert [item async for item in thumbs.items()] == [("a", 1), ("b", {"x": 2}), ("cat.png", b"\x89PNG")]
        assert await thumbs.count() == 3
        assert await thumbs.pop("a") == 1 and await thumbs.pop("a", "gone") == "gone"
        with pytest.raises(KeyError):
            await thumbs.pop("a")
        assert await thumbs.clear() == 2 and await thumbs.count() == 0
        assert await db.cache_view("never-opened").clear() == 0

    run(binary, body)


def test_cache_view_entries_and_lifetimes(binary):
    async def body(db: AsyncLarder) -> None:
        view = db.cache_view("short", group="g", ttl=5)
        assert repr(view) == "AsyncCacheView(cache='short', group='g')"
        await view.set("k", 1)
        await view.set("forever", b"\x00", ttl=0)
        assert (await view.entry("forever"))["data"] == b"\x00"
        assert await view.get_many(["k", "forever", "none"]) == {"k": 1, "forever": b"\x00"}
        await db.namespace("debug").advance_clock(seconds=6)
        assert not await view.contains("k") and await view.get("k", "gone") == "gone"
        assert await view.touch("forever") is True and await view.touch("none") is False
        assert await view.remove("forever") is True and await view.remove("forever") is False

    run(binary, body)


# -- memoize and entities --------------------------------------------------------

def test_memoize_an_async_function(binary):
    async def body(db: AsyncLarder) -> None:
        computed: list[int] = []

        @db.memoize(cache="api", ttl=300)
        async def profile(user_id: int) -> dict[str, Any]:
            computed.append(user_id)
            return {"id": user_id}

        assert await profile(1) == {"id": 1}
        assert await profile(1) == {"id": 1}
        assert await profile(2) == {"id": 2}
        assert computed == [1, 2]
        key = profile.__cache_key__(1)  # type: ignore[attr-defined]
        assert await db.cache.get(key, cache="api") == {"id": 1}

    run(binary, body)


def test_entity_iter_query_is_an_async_iterator(binary):
    async def body(db: AsyncLarder) -> None:
        await db.entity.define("M", [{"name": "Item", "identifier": "n", "attributes": {"n": "integer"}}])
        await db.entity.upsert("Item", [{"n": n} for n in range(25)])
        assert await db.entity.count("Item") == 25
        seen = [r["n"] async for r in db.entity.iter_query("Item", order_by="n", page_size=10)]
        assert seen == list(range(25))

    run(binary, body)


def test_namespace(binary):
    async def body(db: AsyncLarder) -> None:
        await db.cache.set("k", 1, ttl=1)
        await db.namespace("debug").advance_clock(seconds=2)
        assert await db.cache.get("k") is None

    run(binary, body)


def test_groups_arrays_and_store_clear(binary):
    async def body(db: AsyncLarder) -> None:
        await db.schema.register("Bar", "1", {"name": "string"})
        assert (await db.object.put("bars", "Bar", values=[{"name": "a"}], group="g.1"))["form"] == "array"
        await db.cache.set("k", 1, group="g.2")
        assert await db.cache.groups(prefix="g.") == {"groups": [{"group": "g.1", "count": 1}, {"group": "g.2", "count": 1}]}
        assert (await db.object.get("bars", group="g.1"))["values"] == [{"name": "a"}]
        assert await db.store.clear(kind="objects") == {"removed": 1, "caches": [{"cache": "default", "removed": 1}]}
        async with db.pipeline() as p:
            cleared = p.store.clear()
        assert cleared.result() == {"removed": 1, "caches": [{"cache": "default", "removed": 1}]}

    run(binary, body)


# -- progress (stand-in sidecar) ---------------------------------------------------

def test_progress_routed_to_a_coroutine_before_the_result():
    async def body(db: AsyncLarder) -> None:
        reports: list[Any] = []
        others: list[Any] = []

        async def report(value: Any) -> None:
            await asyncio.sleep(0)
            reports.append(value)

        db.on_event("$/progress", others.append)
        result = await db.call("work", {"steps": 3}, progress=report)
        assert result["done"] is True
        assert [r["kind"] for r in reports] == ["begin", "report", "report", "report", "end"]
        while not others:  # the notification for another token arrived before the answer
            await asyncio.sleep(0)
        assert others == [{"token": "someone-else", "value": {"kind": "report"}}]

    run_fake(body)


def test_cancelling_a_call_asks_the_server_to_cancel_it(caplog):
    async def body(db: AsyncLarder) -> None:
        hanging = asyncio.ensure_future(db.call("hang"))
        await asyncio.sleep(0)  # sent
        hanging.cancel()
        with pytest.raises(asyncio.CancelledError):
            await hanging
        # The stand-in answers the cancelled request with an error, then this one.
        assert await db.call("cancelled") == ["hang"]

    with caplog.at_level(logging.WARNING, logger="larder"):
        run_fake(body)
    assert caplog.records == [], "the answer to the cancelled request is dropped quietly"


# -- closing and losing the sidecar --------------------------------------------------

def test_close_then_calls_fail(binary):
    async def main() -> None:
        db = await AsyncLarder.spawn(memory=True, binary=binary)
        assert await db.close() == 0
        assert await db.close() == 0  # again: nothing happens
        with pytest.raises(larder.SidecarExited) as e:
            await db.cache.get("k")
        assert "closed" in str(e.value)
        with pytest.raises(larder.SidecarExited):
            async with db.pipeline() as p:
                p.cache.set("k", 1)
        assert isinstance(p.results[0], larder.SidecarExited)

    asyncio.run(main())


def test_context_manager_closes_on_error(binary):
    async def main() -> AsyncLarder:
        async with AsyncLarder.spawn(memory=True, binary=binary) as db:
            raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        asyncio.run(main())


# asyncio reports the subprocess transport left open, as it should.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_client_left_open_when_the_loop_ends(binary):
    def scenario() -> None:
        async def main() -> AsyncLarder:
            db = await AsyncLarder.spawn(memory=True, binary=binary)
            await db.cache.set("k", 1)
            return db

        db = asyncio.run(main())
        assert not db.alive

        async def later() -> None:
            await db.cache.get("k")

        with pytest.raises(larder.SidecarExited, match="event loop stopped"):
            asyncio.run(later())

    scenario()
    # asyncio's complaint about the transport belongs to this test: let the
    # threads that wait for sidecars to exit (Python 3.11's child watcher)
    # finish, then collect.
    for thread in threading.enumerate():
        if thread.name.startswith("asyncio-waitpid-"):
            thread.join(GUARD)
    gc.collect()


def test_crash_mid_call_reports_exit_status_and_stderr():
    async def body(db: AsyncLarder) -> None:
        with pytest.raises(larder.SidecarExited) as e:
            await db.call("crash")
        assert e.value.returncode == 3 and "crashing on purpose" in e.value.stderr
        assert not db.alive
        with pytest.raises(larder.SidecarExited):
            await db.call("work")

    run_fake(body)


def test_killed_sidecar_fails_every_waiting_call(binary):
    async def body(db: AsyncLarder) -> None:
        asked = asyncio.Event()

        async def block(params: Any) -> None:
            asked.set()
            await asyncio.Event().wait()  # never answers

        db.on_request("client.block", block)
        blocked = asyncio.ensure_future(db.call("debug.ask", {"method": "client.block"}))
        await asked.wait()
        others = [asyncio.ensure_future(db.cache.set(f"k{n}", n)) for n in range(20)]
        os.kill(db.pid, signal.SIGKILL)
        results = await asyncio.gather(blocked, *others, return_exceptions=True)
        failed = [r for r in results if isinstance(r, larder.SidecarExited)]
        assert isinstance(results[0], larder.SidecarExited), "the call waiting on the callback failed"
        assert all(isinstance(r, (dict, larder.SidecarExited)) for r in results)
        assert failed[0].returncode == -signal.SIGKILL
        with pytest.raises(larder.SidecarExited):
            await db.cache.get("k0")

    run(binary, body)


def test_bad_arguments_report_exit_status_and_stderr(binary):
    async def main() -> None:
        await AsyncLarder.spawn(memory=True, binary=binary, args=["--no-such-flag"])

    with pytest.raises(larder.SidecarExited) as e:
        asyncio.run(main())
    assert e.value.returncode == 2
    assert "unknown argument --no-such-flag" in e.value.stderr
