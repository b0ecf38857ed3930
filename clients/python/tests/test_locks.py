"""Leases on names (SPEC 6.13) through the client: the lock.* methods, and
``with db.lock(...)`` / ``async with db.lock(...)``, renewed while held."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import larder
from conftest import TEST_ARGS
from larder.aio import AsyncLarder

#: How long a test waits for something that must happen before failing it
#: (a guard against hanging, not a measurement).
GUARD = 20


def eventually(condition, what: str) -> None:
    deadline = time.monotonic() + GUARD
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


def test_acquire_renew_release_list(db):
    taken = db.lock.acquire("reports/daily", ttl=30)
    assert taken == {"acquired": True, "token": 1, "expiresAt": "2026-01-01T00:00:30.000Z"}
    assert db.lock.acquire("reports/daily", ttl=30) == {
        "acquired": False, "holderExpiresAt": "2026-01-01T00:00:30.000Z", "heldHere": True}
    assert db.lock.renew("reports/daily", 1, ttl=60) == {"token": 1, "expiresAt": "2026-01-01T00:01:00.000Z"}
    assert db.lock.list(prefix="reports/") == {"locks": [
        {"name": "reports/daily", "token": 1, "expiresAt": "2026-01-01T00:01:00.000Z", "heldHere": True}]}
    assert db.lock.list(prefix="other/") == {"locks": []}
    assert db.lock.release("reports/daily", 1) == {"released": True}
    assert db.lock.release("reports/daily", 1) == {"released": False}
    assert db.lock.list() == {"locks": []}
    assert db.lock.acquire("reports/daily", ttl=30)["token"] == 2


def test_a_token_not_held_raises_lock_not_held_with_the_live_token(db):
    db.lock.acquire("job", ttl=30)
    with pytest.raises(larder.LockNotHeldError) as caught:
        db.lock.renew("job", 7, ttl=30)
    assert (caught.value.code, caught.value.name, caught.value.token) == (-31090, "job", 1)
    assert not caught.value.retryable
    db.lock.release("job", 1)
    with pytest.raises(larder.LockNotHeldError) as caught:
        db.lock.renew("job", 1, ttl=30)
    assert (caught.value.name, caught.value.token) == ("job", None)


def test_lock_methods_on_a_pipeline(db):
    with db.pipeline() as p:
        taken = p.lock.acquire("p", ttl=30)
        listed = p.lock.list()
    assert taken.result()["token"] == 1
    assert [lock["name"] for lock in listed.result()["locks"]] == ["p"]


def test_with_lock_holds_the_lease_and_releases_it(db):
    with db.lock("job", ttl=30) as lease:
        assert (lease.name, lease.token, lease.expires_at, lease.lost) == ("job", 1, "2026-01-01T00:00:30.000Z", False)
        assert [lock["token"] for lock in db.lock.list()["locks"]] == [1]
    assert db.lock.list() == {"locks": []}


def test_with_lock_releases_when_the_block_raises(db):
    with pytest.raises(KeyError):
        with db.lock("job", ttl=30):
            raise KeyError("boom")
    assert db.lock.list() == {"locks": []}
    with db.lock("job", ttl=30) as again:
        assert again.token == 2


def test_with_lock_not_acquired_names_the_holders_expiry(db):
    db.lock.acquire("job", ttl=30)
    with pytest.raises(larder.LockNotAcquired) as caught:
        with db.lock("job", ttl=5, wait=0.05):
            pytest.fail("entered a lock held by this session")
    e = caught.value
    assert (e.name, e.holder_expires_at, e.held_here, e.code) == ("job", "2026-01-01T00:00:30.000Z", True, None)
    assert "'job'" in str(e) and "2026-01-01T00:00:30.000Z" in str(e)


def test_renew_every_must_come_before_the_ttl(db):
    with pytest.raises(ValueError, match="renew_every"):
        db.lock("job", ttl=1, renew_every=1)
    assert db.lock.list() == {"locks": []}


def test_background_renewal_keeps_a_short_lease_past_its_ttl(binary, tmp_path):
    store = tmp_path / "store"
    with larder.Larder.spawn(store=store, binary=binary, timeout=60) as a, \
            larder.Larder.spawn(store=store, binary=binary, timeout=60) as b:
        with a.lock("job", ttl=0.6) as lease:
            held_until = time.monotonic() + 1.5  # 2.5 ttls: held only if renewed
            while time.monotonic() < held_until:  # the renewals share the client with this thread's calls
                a.cache.set("busy", time.monotonic())
            assert not lease.lost
            assert b.lock.acquire("job", ttl=5)["acquired"] is False
        assert b.lock.acquire("job", ttl=5)["token"] == 2


def test_a_lost_lease_shows_and_raises_when_the_block_ends(db):
    with pytest.raises(larder.LockNotHeldError) as caught:
        with db.lock("job", ttl=0.9) as lease:
            db.call("debug.advanceClock", {"seconds": 10})  # the store's clock passes the expiry
            eventually(lambda: lease.lost, "the next renewal finds the lease expired")
            assert isinstance(lease.error, larder.LockNotHeldError)
    assert caught.value.name == "job"


WORKER = textwrap.dedent("""
    import json, os, sys
    import larder

    binary, store, marker, log, rounds = sys.argv[1:6]
    with larder.Larder.spawn(store=store, binary=binary, timeout=60) as db:
        for _ in range(int(rounds)):
            with db.lock("counter", ttl=10, wait=60) as lease:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)  # FileExistsError: two inside at once
                with open(log, "a") as f:
                    f.write(json.dumps([os.getpid(), lease.token]) + "\\n")
                os.close(fd)
                os.unlink(marker)
""")


def test_four_processes_take_turns_and_tokens_grow(binary, tmp_path):
    rounds = 15
    store, marker, log = tmp_path / "store", tmp_path / "inside", tmp_path / "log"
    env = {**os.environ, "PYTHONPATH": str(Path(larder.__file__).resolve().parents[1])}
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, binary, str(store), str(marker), str(log), str(rounds)],
                                env=env, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    for worker in workers:
        _, stderr = worker.communicate(timeout=120)
        assert worker.returncode == 0, stderr
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    tokens = [token for _, token in entries]
    assert len(entries) == 4 * rounds
    assert len({pid for pid, _ in entries}) == 4
    assert tokens == list(range(1, 4 * rounds + 1))  # granted in order, one at a time


def run(binary: str, body, **spawn) -> None:
    async def main() -> None:
        async with AsyncLarder.spawn(binary=binary, **spawn) as db:
            await asyncio.wait_for(body(db), GUARD)

    asyncio.run(main())


def test_async_lock_methods_and_async_with(binary):
    async def body(db: AsyncLarder) -> None:
        assert (await db.lock.acquire("a", ttl=30))["token"] == 1
        assert await db.lock.renew("a", 1, ttl=60) == {"token": 1, "expiresAt": "2026-01-01T00:01:00.000Z"}
        assert await db.lock.release("a", 1) == {"released": True}
        with pytest.raises(larder.LockNotHeldError):
            await db.lock.renew("a", 1, ttl=60)
        async with db.lock("b", ttl=30) as lease:
            assert (lease.name, lease.token) == ("b", 1)
            assert [lock["name"] for lock in (await db.lock.list())["locks"]] == ["b"]
        with pytest.raises(KeyError):
            async with db.lock("b", ttl=30):
                raise KeyError("boom")
        assert await db.lock.list() == {"locks": []}
        async with db.pipeline() as p:
            listed = p.lock.list()
        assert listed.result() == {"locks": []}

    run(binary, body, memory=True, args=TEST_ARGS)


def test_async_renewal_keeps_a_short_lease_past_its_ttl(binary, tmp_path):
    store = tmp_path / "store"

    async def body(db: AsyncLarder) -> None:
        async with db.lock("job", ttl=0.6) as lease:
            await asyncio.sleep(1.5)
            assert not lease.lost
            async with AsyncLarder.spawn(store=store, binary=binary) as other:
                assert (await other.lock.acquire("job", ttl=5))["acquired"] is False
        assert await db.lock.list() == {"locks": []}

    run(binary, body, store=store)


def test_async_lost_lease_raises_when_the_block_ends(binary):
    async def body(db: AsyncLarder) -> None:
        with pytest.raises(larder.LockNotHeldError):
            async with db.lock("job", ttl=0.9) as lease:
                await db.call("debug.advanceClock", {"seconds": 10})
                while not lease.lost:
                    await asyncio.sleep(0.01)

    run(binary, body, memory=True, args=TEST_ARGS)
