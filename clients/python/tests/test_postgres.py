"""Stores on PostgreSQL through the client and the real sidecar: a value
outlives its sidecar, two sidecars on one schema see each other's
acknowledged writes (with notify coherence, once the notification arrives),
leases, counters, compare-and-sets and transactions, the coherence asked for
is the one kept, and ``pg_schema`` or ``pg_coherence`` without such a store,
or a misspelt coherence, is refused.

The server is ``$LARDER_TEST_PG_URL`` (``.ci/with-postgres`` sets it for a
throwaway cluster; or point it at a database of your own, whose role may
create schemas). Without it these tests are skipped, and fail under
``CI=true``. Each test works in a schema of its own, dropped afterwards with
``psql``."""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import larder
from conftest import missing
from test_revisions import CAS_WORKER, INCR_WORKER, four_processes
from test_transaction import bank_transfers
from larder.aio import AsyncLarder

#: How long a sidecar with notify coherence may take to read another's
#: acknowledged write: a notification's delay, with room for a loaded machine.
NOTIFIED_WITHIN = 2.0

#: A store on PostgreSQL for the refusals, which come before any connection.
NO_SERVER = "postgresql://larder@db.invalid/app"


@pytest.fixture(scope="session")
def postgres_url() -> str:
    url = os.environ.get("LARDER_TEST_PG_URL")
    if not url:
        missing("LARDER_TEST_PG_URL is not set: run the tests under .ci/with-postgres, or point it at a database")
    elif not larder.client.is_postgresql_url(url):
        missing("LARDER_TEST_PG_URL is not a postgresql:// URL, the form the clients' tests pass to --store")
    return url


@pytest.fixture
def pg_schema(postgres_url: str) -> Iterator[str]:
    """A schema name no other test uses; the schema the sidecars make in it
    is dropped, with everything in it, when the test ends."""
    client = shutil.which("psql")
    if client is None:
        missing("no psql to drop the tests' schemas with (Debian: apt-get install postgresql-client)")
    schema = f"larder_test_{os.getpid()}_{secrets.randbelow(2**32)}"
    yield schema
    subprocess.run([client, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", postgres_url,
                    "-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'],
                   check=True, capture_output=True, timeout=60)


def spawn(binary: str, url: str, schema: str, **options: Any) -> larder.Larder:
    return larder.Larder.spawn(store=url, pg_schema=schema, binary=binary, timeout=60, **options)


def test_a_value_outlives_its_sidecar(binary: str, postgres_url: str, pg_schema: str) -> None:
    with spawn(binary, postgres_url, pg_schema) as db:
        assert db.init_result is not None
        store = db.init_result["store"]
        assert store["persistent"] is True
        assert store["path"].endswith(f" schema {pg_schema}"), store
        assert store["coherence"] == "strict", "the default"
        db.cache.open("profiles", disk={"max_count": 100})
        db.cache.set("user:1", {"name": "Ada"}, cache="profiles")
        db.cache.set("avatar", data=b"\x00\xff", cache="profiles")
    # The second sidecar starts in memory and switches with initialize {store: {url, schema}}.
    with larder.Larder.spawn(memory=True, binary=binary, timeout=60, initialize=False) as db:
        store = db.initialize(store=postgres_url, pg_schema=pg_schema)["store"]
        assert store["persistent"] is True and store["path"].endswith(f" schema {pg_schema}"), store
        assert db.cache.get("user:1", cache="profiles") == {"name": "Ada"}
        assert db.cache.get("avatar", cache="profiles") == b"\x00\xff"
        assert db.cache.stats(cache="profiles")["disk"]["count"] == 2


def test_a_write_acknowledged_through_one_sidecar_is_read_through_another(
        binary: str, postgres_url: str, pg_schema: str) -> None:
    with spawn(binary, postgres_url, pg_schema) as a, spawn(binary, postgres_url, pg_schema) as b:
        a.cache.set("k", "old")
        assert b.cache.get("k") == "old"
        assert b.cache.entry("k")["tier"] == "memory", "b now holds the value in its memory tier"
        a.cache.set("k", "new")  # answered: committed
        assert b.cache.get("k") == "new", "b's next call is a new burst, which finds a's commit"
        b.cache.set("k", "newer")
        assert a.cache.get("k") == "newer"
        a.cache.remove("k")
        assert b.cache.get("k", "gone") == "gone"


def test_a_lease_held_through_one_sidecar_is_refused_through_another_until_released(
        binary: str, postgres_url: str, pg_schema: str) -> None:
    with spawn(binary, postgres_url, pg_schema) as a, spawn(binary, postgres_url, pg_schema) as b:
        with a.lock("reports/daily", ttl=0.6) as lease:
            held_until = time.monotonic() + 1.5  # 2.5 ttls: held only if renewed
            while time.monotonic() < held_until:
                refused = b.lock.acquire("reports/daily", ttl=5)
                assert refused["acquired"] is False and refused["heldHere"] is False, refused
            assert not lease.lost and lease.token == 1
        assert b.lock.acquire("reports/daily", ttl=5)["token"] == 2


@pytest.mark.parametrize("worker", [INCR_WORKER, CAS_WORKER], ids=["incr", "compare-and-set"])
def test_four_sidecars_update_one_key_and_lose_nothing(binary: str, postgres_url: str, pg_schema: str,
                                                       worker: str) -> None:
    rounds = 250
    four_processes(worker, binary, postgres_url, rounds, pg_schema)
    with spawn(binary, postgres_url, pg_schema) as db:
        assert db.cache.get("counter") == 4 * rounds


def test_four_sidecars_move_money_in_transactions_and_neither_make_nor_lose_any(binary: str, postgres_url: str,
                                                                                pg_schema: str) -> None:
    bank_transfers(binary, postgres_url, pg_schema)


def test_pg_schema_without_a_postgresql_store_is_refused(binary: str, store_dir: Path) -> None:
    with pytest.raises(larder.SidecarExited) as info:
        larder.Larder.spawn(store=store_dir, pg_schema="app", binary=binary, timeout=60)
    assert info.value.returncode == 2
    assert "--pg-schema needs a store on PostgreSQL: --store postgresql://..." in str(info.value)
    with larder.Larder.spawn(memory=True, binary=binary, timeout=60, initialize=False) as db:
        with pytest.raises(larder.InvalidParams) as refused:
            db.initialize(store=store_dir, pg_schema="app")
        assert "params.store.schema is for a store on PostgreSQL (url), not for a path" in str(refused.value)


def test_the_coherence_asked_for_is_kept(binary: str, postgres_url: str, pg_schema: str) -> None:
    with spawn(binary, postgres_url, pg_schema, pg_coherence="notify") as db:
        assert db.init_result is not None and db.init_result["store"]["coherence"] == "notify"
    with larder.Larder.spawn(memory=True, binary=binary, timeout=60, initialize=False) as db:
        store = db.initialize(store=postgres_url, pg_schema=pg_schema, pg_coherence="poll")["store"]
        assert store["coherence"] == "poll", store

    async def aio() -> None:
        async with AsyncLarder.spawn(store=postgres_url, pg_schema=pg_schema, pg_coherence="poll", binary=binary) as db:
            assert db.init_result is not None and db.init_result["store"]["coherence"] == "poll"
        async with AsyncLarder.spawn(memory=True, binary=binary, initialize=False) as db:
            store = (await db.initialize(store=postgres_url, pg_schema=pg_schema, pg_coherence="notify"))["store"]
            assert store["coherence"] == "notify", store

    asyncio.run(aio())


def test_with_notify_a_write_through_one_sidecar_is_read_through_another_once_notified(
        binary: str, postgres_url: str, pg_schema: str) -> None:
    with spawn(binary, postgres_url, pg_schema, pg_coherence="notify") as a, \
            spawn(binary, postgres_url, pg_schema, pg_coherence="notify") as b:
        a.cache.set("k", "old")
        # b may read "old" before the notification of its commit arrives and
        # drops the copy; once it has come, b keeps "old" in its memory tier.
        eventually(lambda: (b.cache.get("k"), b.cache.entry("k")["tier"]), ("old", "memory"))
        a.cache.set("k", "new")  # answered: committed, and notified
        eventually(lambda: b.cache.get("k"), "new")
        b.cache.set("k", "newer")
        eventually(lambda: a.cache.get("k"), "newer")


def eventually(read: Callable[[], Any], expected: Any) -> None:
    """Calls ``read`` until it returns ``expected``, failing the test after
    :data:`NOTIFIED_WITHIN` seconds."""
    deadline = time.monotonic() + NOTIFIED_WITHIN
    while (seen := read()) != expected:
        assert time.monotonic() < deadline, f"read {seen!r}, not {expected!r}, {NOTIFIED_WITHIN} s after the write"
        time.sleep(0.01)


def test_a_misspelt_coherence_is_refused(binary: str) -> None:
    # Typed Any: PgCoherence keeps misspelt modes out of type-checked code.
    strcit: Any = "strcit"
    notfy: Any = "notfy"
    with pytest.raises(larder.SidecarExited) as info:
        larder.Larder.spawn(store=NO_SERVER, pg_coherence=strcit, binary=binary, timeout=60)
    assert info.value.returncode == 2
    assert '--pg-coherence must be strict, notify or poll, not "strcit" (did you mean strict?)' in str(info.value)
    with larder.Larder.spawn(memory=True, binary=binary, timeout=60, initialize=False) as db:
        with pytest.raises(larder.InvalidParams) as refused:
            db.initialize(store=NO_SERVER, pg_coherence=notfy)
        assert 'params.store.coherence must be strict, notify or poll, not "notfy" (did you mean notify?)' \
            in str(refused.value)


def test_pg_coherence_without_a_postgresql_store_is_refused(binary: str, store_dir: Path) -> None:
    for where in ({"store": store_dir}, {"memory": True}):
        with pytest.raises(larder.SidecarExited) as info:
            larder.Larder.spawn(**where, pg_coherence="notify", binary=binary, timeout=60)
        assert info.value.returncode == 2
        assert "--pg-coherence needs a store on PostgreSQL: --store postgresql://..." in str(info.value), where
    with larder.Larder.spawn(memory=True, binary=binary, timeout=60, initialize=False) as db:
        with pytest.raises(larder.InvalidParams) as refused:
            db.initialize(store=store_dir, pg_coherence="notify")
        assert "params.store.coherence is for a store on PostgreSQL (url), not for a path" in str(refused.value)
