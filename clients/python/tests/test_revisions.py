"""Revisions, conditional writes and counters through the client, sync,
async and pipelined, against the real binary; and four processes on one
store directory updating one key, by counter and by compare-and-set,
losing nothing."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import larder
from larder.aio import AsyncLarder


def test_every_write_gives_a_new_revision_which_survives_a_remove(db):
    first = db.cache.set("k", 1)["revision"]
    second = db.cache.set("k", 2)["revision"]
    assert second != first
    assert db.cache.entry("k")["revision"] == second
    assert db.cache.get("k", with_revision=True) == (2, second)
    assert db.cache.touch("k") == {"found": True}
    assert db.cache.entry("k")["revision"] == second  # a touch keeps the revision
    assert db.cache.remove("k") == {"removed": True}
    assert db.cache.get("k", "gone", with_revision=True) == ("gone", None)
    third = db.cache.set("k", 3)["revision"]
    assert third not in (first, second)  # never given twice, a removal between or not
    assert db.cache.set("b", data=b"\x00\x01")["revision"] not in (first, second, third)
    assert db.cache.get("b", with_revision=True)[0] == b"\x00\x01"


def test_conditional_set_remove_and_touch(db):
    created = db.cache.set("job", "queued", if_absent=True)["revision"]
    with pytest.raises(larder.ConditionFailed) as caught:
        db.cache.set("job", "mine", if_absent=True)
    assert (caught.value.key, caught.value.revision, caught.value.index) == ("job", created, None)

    running = db.cache.set("job", "running", if_revision=created)["revision"]
    with pytest.raises(larder.ConditionFailed) as caught:
        db.cache.set("job", "stale", if_revision=created)
    assert caught.value.revision == running
    assert db.cache.get("job") == "running"

    with pytest.raises(larder.InvalidParams):
        db.cache.set("job", 1, if_revision=running, if_absent=True)

    assert db.cache.touch("job", if_revision=running) == {"found": True}
    with pytest.raises(larder.ConditionFailed):
        db.cache.touch("job", if_revision=created)
    with pytest.raises(larder.ConditionFailed):
        db.cache.remove("job", if_revision=created)
    assert db.cache.remove("job", if_revision=running) == {"removed": True}
    with pytest.raises(larder.ConditionFailed) as caught:
        db.cache.remove("job", if_revision=running)
    assert (caught.value.key, caught.value.revision) == ("job", None)


def test_set_many_is_all_or_nothing_and_names_the_element(db):
    held = db.cache.set("job", "running")["revision"]
    with pytest.raises(larder.ConditionFailed) as caught:
        db.cache.set_many([{"key": "a", "value": 1, "ifAbsent": True},
                           {"key": "job", "value": "done", "ifRevision": held + 1}])
    assert (caught.value.key, caught.value.revision, caught.value.index) == ("job", held, 1)
    assert db.cache.entry("a") == {"found": False}

    result = db.cache.set_many([{"key": "a", "value": 1, "ifAbsent": True},
                                {"key": "job", "value": "done", "ifRevision": held}])
    assert result["stored"] == 2
    assert [db.cache.entry(k)["revision"] for k in ("a", "job")] == result["revisions"]
    assert held not in result["revisions"]


def test_object_put_answers_and_checks_the_entry_revision(db):
    db.schema.register("Note", "1", {"n": "integer"})
    put = db.object.put("note", "Note", {"n": 1}, if_absent=True)
    assert put["version"] == "1" and isinstance(put["revision"], int)
    assert db.object.get("note")["revision"] == put["revision"]
    with pytest.raises(larder.ConditionFailed) as caught:
        db.object.put("note", "Note", {"n": 2}, if_absent=True)
    assert caught.value.revision == put["revision"]
    again = db.object.put("note", "Note", {"n": 2}, if_revision=put["revision"])
    assert again["revision"] != put["revision"]


def test_a_failed_condition_in_a_pipeline_fails_its_own_request_alone(db):
    created = db.cache.set("k", 1)["revision"]
    with db.pipeline(raise_on_error=False) as p:
        p.cache.set("k", 2, if_revision=created)
        p.cache.set("k", 3, if_revision=created)
        p.cache.get("k", with_revision=True)
    done, failed, read = p.results
    assert isinstance(failed, larder.ConditionFailed) and failed.revision == done["revision"]
    assert read == (2, done["revision"])


def test_async_conditions_and_revisions(binary):
    async def body(db: AsyncLarder) -> None:
        created = (await db.cache.set("k", 1, if_absent=True))["revision"]
        with pytest.raises(larder.ConditionFailed) as caught:
            await db.cache.set("k", 2, if_absent=True)
        assert caught.value.revision == created
        assert await db.cache.get("k", with_revision=True) == (1, created)
        assert (await db.cache.remove("k", if_revision=created)) == {"removed": True}

    async def main() -> None:
        async with AsyncLarder.spawn(memory=True, binary=binary) as db:
            await asyncio.wait_for(body(db), 60)

    asyncio.run(main())


def test_counters_start_from_initial_and_go_both_ways(db):
    first = db.cache.increment("visits")
    assert first["value"] == 1
    second = db.cache.increment("visits", 5)
    assert second["value"] == 6 and second["revision"] != first["revision"]
    assert db.cache.get("visits", with_revision=True) == (6, second["revision"])
    assert db.cache.incr("visits") == 7
    assert db.cache.decr("visits", 10) == -3
    assert db.cache.decr("stock", initial=10) == 9
    assert db.cache.incr("stock", -4) == 5
    assert db.cache.increment("fresh", -2, initial=-5)["value"] == -7


def test_a_value_that_is_not_an_integer_is_refused_and_kept(db):
    db.cache.set("name", "ada")
    db.cache.set("ratio", 1.5)
    for key in ("name", "ratio"):
        with pytest.raises(larder.NotAnInteger) as caught:
            db.cache.incr(key)
        assert caught.value.key == key
    assert db.cache.get("name") == "ada" and db.cache.get("ratio") == 1.5
    db.cache.set("big", 2**53 - 1)
    with pytest.raises(larder.NotAnInteger):
        db.cache.incr("big")  # the sum would leave the integers every JSON reader takes exactly
    assert db.cache.get("big") == 2**53 - 1


def test_counters_pipelined_and_async(db, binary):
    with db.pipeline() as p:
        for _ in range(10):
            p.cache.incr("n")
        p.cache.increment("n", 0)
    assert p.results[:10] == list(range(1, 11))
    assert p.results[10]["value"] == 10

    async def body(adb: AsyncLarder) -> None:
        assert await adb.cache.incr("n", 2) == 2
        assert await adb.cache.decr("n") == 1
        assert (await adb.cache.increment("n"))["value"] == 2
        await adb.cache.set("s", "x")
        with pytest.raises(larder.NotAnInteger):
            await adb.cache.incr("s")

    async def main() -> None:
        async with AsyncLarder.spawn(memory=True, binary=binary) as adb:
            await asyncio.wait_for(body(adb), 60)

    asyncio.run(main())


INCR_WORKER = textwrap.dedent("""
    import sys
    import larder

    binary, store, rounds, schema = sys.argv[1:5]
    with larder.Larder.spawn(store=store, pg_schema=schema or None, binary=binary, timeout=60) as db:
        for _ in range(int(rounds)):
            db.cache.incr("counter")
""")


CAS_WORKER = textwrap.dedent("""
    import sys
    import larder

    binary, store, rounds, schema = sys.argv[1:5]
    with larder.Larder.spawn(store=store, pg_schema=schema or None, binary=binary, timeout=60) as db:
        for _ in range(int(rounds)):
            while True:
                value, revision = db.cache.get("counter", 0, with_revision=True)
                try:
                    if revision is None:
                        db.cache.set("counter", value + 1, if_absent=True)
                    else:
                        db.cache.set("counter", value + 1, if_revision=revision)
                    break
                except larder.ConditionFailed:
                    continue
""")


def four_processes(worker: str, binary: str, store: str, rounds: int, pg_schema: str = "") -> None:
    """Runs ``worker`` in four processes at once, each with its own sidecar
    on ``store`` (a directory, or a PostgreSQL URL with ``pg_schema``)."""
    env = {**os.environ, "PYTHONPATH": str(Path(larder.__file__).resolve().parents[1])}
    workers = [subprocess.Popen([sys.executable, "-c", worker, binary, store, str(rounds), pg_schema],
                                env=env, stderr=subprocess.PIPE, text=True)
               for _ in range(4)]
    for process in workers:
        _, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr


@pytest.mark.parametrize("worker", [INCR_WORKER, CAS_WORKER], ids=["incr", "compare-and-set"])
def test_four_processes_update_one_key_and_lose_nothing(binary, tmp_path, worker):
    rounds = 250
    store = tmp_path / "store"
    four_processes(worker, binary, str(store), rounds)
    with larder.Larder.spawn(store=store, binary=binary, timeout=60) as db:
        assert db.cache.get("counter") == 4 * rounds


def test_condition_failed_carries_its_data():
    error = larder.error_from_json({"code": -31080, "message": "condition failed",
                                    "data": {"key": "k", "revision": None, "index": 2}})
    assert isinstance(error, larder.ConditionFailed)
    assert (error.key, error.revision, error.index) == ("k", None, 2)
    assert json.loads(json.dumps(error.data)) == {"key": "k", "revision": None, "index": 2}
