"""Revisions and conditional writes through the client, sync, async and
pipelined, against the real binary; and four processes on one store
directory updating one key by compare-and-set, losing nothing."""
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
        async with AsyncLarder.spawn(memory=True, binary=binary, timeout=60) as db:
            await asyncio.wait_for(body(db), 60)

    asyncio.run(main())


CAS_WORKER = textwrap.dedent("""
    import sys
    import larder

    binary, store, rounds = sys.argv[1:4]
    retries = 0
    with larder.Larder.spawn(store=store, binary=binary, timeout=60) as db:
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
                    retries += 1
    print(retries)
""")


def test_four_processes_compare_and_set_one_key_and_lose_no_update(binary, tmp_path):
    rounds = 250
    store = tmp_path / "store"
    env = {**os.environ, "PYTHONPATH": str(Path(larder.__file__).resolve().parents[1])}
    workers = [subprocess.Popen([sys.executable, "-c", CAS_WORKER, binary, str(store), str(rounds)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(4)]
    for worker in workers:
        _, stderr = worker.communicate(timeout=600)
        assert worker.returncode == 0, stderr
    with larder.Larder.spawn(store=store, binary=binary, timeout=60) as db:
        assert db.cache.get("counter") == 4 * rounds


def test_condition_failed_carries_its_data():
    error = larder.error_from_json({"code": -31080, "message": "condition failed",
                                    "data": {"key": "k", "revision": None, "index": 2}})
    assert isinstance(error, larder.ConditionFailed)
    assert (error.key, error.revision, error.index) == ("k", None, 2)
    assert json.loads(json.dumps(error.data)) == {"key": "k", "revision": None, "index": 2}
