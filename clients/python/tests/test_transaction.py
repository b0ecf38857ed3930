"""Transactions over several keys (``db.transaction()``, ``cache.transaction``)
through the client, sync, async and pipelined, against the real binary: each
comparison and operation, the else branch, ``commit(check=True)``, an
increment that rolls the whole transaction back, a malformed element named
by the server; and four processes on one store directory moving money
between accounts, which neither creates nor loses any."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import larder
from larder.aio import AsyncLarder


def test_every_comparison_holding_applies_then_in_order(db):
    alice = db.cache.set("alice", 100, cache="accounts")["revision"]
    db.cache.set("bob", 10, cache="accounts")
    db.cache.set("pending", "x", cache="accounts")
    txn = db.transaction(cache="accounts")
    txn.if_revision("alice", alice).if_absent("lock:x").if_present("bob").if_value("bob", 10)
    txn.set("alice", 90).incr("bob", 10).remove("pending").get("bob").remove("pending").decr("fresh", 2)
    txn.otherwise.get("alice")
    result = txn.commit()

    assert result["succeeded"] is True and "failed" not in result
    written, summed, removed, read, again, fresh = result["results"]
    assert written["revision"] != alice
    assert summed["value"] == 20
    assert removed == {"removed": True} and again == {"removed": False}
    assert read["found"] is True and read["value"] == 20 and read["revision"] == summed["revision"]
    assert fresh["value"] == -2
    assert db.cache.get("alice", cache="accounts", with_revision=True) == (90, written["revision"])
    assert db.cache.get("bob", cache="accounts") == 20
    assert db.cache.entry("pending", cache="accounts") == {"found": False}


def test_a_comparison_that_does_not_hold_applies_else_and_names_the_first(db):
    stale = db.cache.set("alice", 80)["revision"]
    now = db.cache.set("alice", 81)["revision"]
    txn = db.transaction().if_absent("nobody").if_revision("alice", stale).if_present("nobody")
    txn.set("alice", 0).set("written", True)
    txn.otherwise.get("alice").incr("misses")
    result = txn.commit()

    assert result["succeeded"] is False
    assert result["failed"] == {"index": 1, "key": "alice", "revision": now}
    entry, misses = result["results"]
    assert (entry["value"], entry["revision"]) == (81, now)
    assert misses["value"] == 1
    assert db.cache.get("alice") == 81 and db.cache.entry("written") == {"found": False}

    absent = db.transaction().if_present("nobody").commit()
    assert absent == {"succeeded": False, "failed": {"index": 0, "key": "nobody", "revision": None}, "results": []}


@pytest.mark.parametrize("comparison, holds", [
    (lambda t, r: t.if_revision("k", r), True),
    (lambda t, r: t.if_revision("k", r + 1), False),
    (lambda t, r: t.if_revision("k", None), False),
    (lambda t, r: t.if_revision("none", None), True),
    (lambda t, r: t.if_absent("k"), False),
    (lambda t, r: t.if_absent("none"), True),
    (lambda t, r: t.if_present("k"), True),
    (lambda t, r: t.if_present("none"), False),
    (lambda t, r: t.if_value("k", {"b": [1, 2.0], "a": "x"}), True),
    (lambda t, r: t.if_value("k", {"a": "x", "b": [1, 2]}), True),
    (lambda t, r: t.if_value("k", {"a": "x"}), False),
    (lambda t, r: t.if_value("none", None), False),
    (lambda t, r: t.if_value("bytes", "AAE="), False),
], ids=["revision", "other-revision", "revision-None-of-an-entry", "revision-None-of-none", "absent-of-an-entry",
        "absent", "present", "present-of-none", "value-members-in-another-order", "value-1-is-1.0",
        "value-other", "value-of-none", "value-of-bytes"])
def test_each_comparison(db, comparison, holds):
    revision = db.cache.set("k", {"a": "x", "b": [1.0, 2]})["revision"]
    db.cache.set("bytes", data=b"\x00\x01")
    result = comparison(db.transaction(), revision).set("done", 1).commit()
    assert result["succeeded"] is holds
    assert ("failed" in result) is not holds


def test_bytes_go_in_and_come_back_as_bytes(db):
    result = db.transaction().set("b", data=b"\x00\xff").get("b").commit()
    assert result["results"][1]["data"] == b"\x00\xff"
    assert db.cache.get("b") == b"\x00\xff"
    raw = db.cache.transaction(then=[{"op": "set", "key": "c", "data": b"\x01"}, {"op": "get", "key": "c"}])
    assert raw["results"][1]["data"] == b"\x01"
    with pytest.raises(TypeError):
        db.transaction().if_value("b", b"\x00\xff")
    with pytest.raises(TypeError):
        db.transaction().set("b", 1, data=b"\x00")


def test_a_scoped_transaction_names_its_cache_and_group_unless_an_element_does(db):
    txn = db.transaction(cache="shop", group="eu").set("apples", 5).set("pears", 1, group="us")
    txn.set("plums", 2, cache="other").commit()
    assert db.cache.get("apples", cache="shop", group="eu") == 5
    assert db.cache.get("pears", cache="shop", group="us") == 1
    assert db.cache.get("plums", cache="other", group="eu") == 2
    assert db.cache.get("apples") is None
    assert db.transaction(cache="shop").if_value("apples", 5, group="eu").commit()["succeeded"] is True


def test_check_raises_condition_failed_naming_the_comparison(db):
    now = db.cache.set("k", 1)["revision"]
    with pytest.raises(larder.ConditionFailed) as caught:
        db.transaction().if_present("k").if_revision("k", now + 1).set("k", 2).commit(check=True)
    assert (caught.value.index, caught.value.key, caught.value.revision) == (1, "k", now)
    assert db.cache.get("k") == 1
    assert db.transaction().if_revision("k", now).set("k", 2).commit(check=True)["succeeded"] is True


def test_an_increment_of_a_value_that_is_not_an_integer_rolls_everything_back(db):
    db.cache.set("name", "ada")
    db.cache.set("n", 1)
    txn = db.transaction().set("written", 1).incr("n").incr("name")
    with pytest.raises(larder.NotAnInteger) as caught:
        txn.commit()
    assert (caught.value.key, caught.value.index, caught.value.branch) == ("name", 2, "then")
    assert db.cache.entry("written") == {"found": False} and db.cache.get("n") == 1

    otherwise = db.transaction().if_absent("n")
    otherwise.otherwise.incr("n").decr("name")
    with pytest.raises(larder.NotAnInteger) as caught:
        otherwise.commit()
    assert (caught.value.index, caught.value.branch) == (1, "else")
    assert db.cache.get("n") == 1


def test_a_malformed_element_or_a_mix_of_memory_only_and_persistent_caches_is_invalid_params(db):
    with pytest.raises(larder.InvalidParams) as caught:
        db.cache.transaction(then=[{"op": "set", "key": "k", "value": 1}, {"op": "inc", "key": "n"}])
    assert "then[1]" in caught.value.message and "increment" in caught.value.message
    with pytest.raises(larder.InvalidParams) as caught:
        db.transaction().set("k", 1).if_revision("k", "12").commit()
    assert "compare[0]" in caught.value.message
    with pytest.raises(larder.InvalidParams) as caught:
        db.cache.transaction(compare=[{"key": "k", "absent": True, "present": True}])
    assert "compare[0]" in caught.value.message
    db.cache.open("scratch", persistent=False)
    with pytest.raises(larder.InvalidParams) as caught:
        db.transaction().set("k", 1).set("k", 1, cache="scratch").commit()
    assert "scratch" in caught.value.message
    assert db.cache.entry("k") == {"found": False}
    assert db.transaction(cache="scratch").set("k", 1).get("k").commit()["results"][1]["value"] == 1


def test_a_transaction_of_reads_and_comparisons_alone_writes_nothing(db):
    db.cache.set("a", 1)
    db.cache.set("b", 2)
    result = db.transaction().if_present("a").get("a").get("b").get("c").commit()
    assert [r.get("value") for r in result["results"]] == [1, 2, None]
    assert result["results"][2] == {"found": False}


def test_pipelined_transactions_answer_in_order(db):
    with db.pipeline() as p:
        p.cache.transaction(then=[{"op": "increment", "key": "n"}])
        p.cache.transaction(compare=[{"key": "n", "value": 1}], then=[{"op": "increment", "key": "n"}])
        p.cache.transaction(compare=[{"key": "n", "value": 1}], otherwise=[{"op": "get", "key": "n"}])
    first, second, third = p.results
    assert first["results"][0]["value"] == 1 and second["results"][0]["value"] == 2
    assert third["succeeded"] is False and third["results"][0]["value"] == 2


def test_async_transactions(binary):
    async def body(db: AsyncLarder) -> None:
        created = (await db.cache.set("k", 1))["revision"]
        result = await db.transaction().if_revision("k", created).set("k", 2).get("k").commit()
        assert result["succeeded"] is True and result["results"][1]["value"] == 2
        with pytest.raises(larder.ConditionFailed) as caught:
            await db.transaction().if_revision("k", created).set("k", 3).commit(check=True)
        assert caught.value.revision == result["results"][0]["revision"]
        with pytest.raises(larder.InvalidParams):
            await db.cache.transaction(then=[{"op": "inc", "key": "n"}])

    async def main() -> None:
        async with AsyncLarder.spawn(memory=True, binary=binary) as db:
            await asyncio.wait_for(body(db), 60)

    asyncio.run(main())


#: Accounts and the money each starts with.
ACCOUNTS = [f"account:{i}" for i in range(5)]
OPENING = 100

BANK_WORKER = textwrap.dedent("""
    import random
    import sys
    import larder

    binary, store, rounds, schema, accounts = sys.argv[1:6]
    accounts = accounts.split(",")
    moved = retried = 0
    with larder.Larder.spawn(store=store, pg_schema=schema or None, binary=binary, timeout=60) as db:
        for _ in range(int(rounds)):
            source, target = random.sample(accounts, 2)
            amount = random.randint(1, 60)
            read = db.transaction(cache="bank").get(source).get(target).commit()["results"]
            while read[0]["value"] >= amount:  # no overdraft: declined when the money is not there
                txn = db.transaction(cache="bank")
                txn.if_revision(source, read[0]["revision"]).if_revision(target, read[1]["revision"])
                txn.set(source, read[0]["value"] - amount).set(target, read[1]["value"] + amount)
                txn.incr("transfers")
                txn.otherwise.get(source).get(target)  # what a retry starts from
                result = txn.commit()
                if result["succeeded"]:
                    moved += 1
                    break
                retried += 1
                read = result["results"]
    print(moved, retried)
""")


def bank_transfers(binary: str, store: str, pg_schema: str = "") -> None:
    """Opens the accounts, has four processes, each with its own sidecar on
    ``store`` (a directory, or a PostgreSQL URL with ``pg_schema``), move
    money between them at random, and checks that no money was made or
    lost, no account went below zero and every transfer a process saw
    succeed was counted once."""
    with larder.Larder.spawn(store=store, pg_schema=pg_schema or None, binary=binary, timeout=60) as db:
        db.cache.set_many({account: OPENING for account in ACCOUNTS}, cache="bank")
    env = {**os.environ, "PYTHONPATH": str(Path(larder.__file__).resolve().parents[1])}
    workers = [subprocess.Popen([sys.executable, "-c", BANK_WORKER, binary, store, "100", pg_schema, ",".join(ACCOUNTS)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(4)]
    moved = retried = 0
    for process in workers:
        stdout, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr
        moved += int(stdout.split()[0])
        retried += int(stdout.split()[1])
    with larder.Larder.spawn(store=store, pg_schema=pg_schema or None, binary=binary, timeout=60) as db:
        read = db.transaction(cache="bank").get("transfers")
        for account in ACCOUNTS:
            read.get(account)
        counted, *entries = read.commit()["results"]
    money = [e["value"] for e in entries]
    assert sum(money) == OPENING * len(ACCOUNTS), money
    assert min(money) >= 0, money
    assert moved > 0 and counted["value"] == moved, (counted, moved)
    print(f"{moved} transfers, {retried} retried after a comparison did not hold; balances {money}")


def test_four_processes_move_money_and_neither_make_nor_lose_any(binary, tmp_path):
    bank_transfers(binary, str(tmp_path / "store"))


def test_not_an_integer_carries_its_place_in_the_transaction():
    error = larder.error_from_json({"code": -31081, "message": "m", "data": {"key": "k", "index": 2, "branch": "else"}})
    assert isinstance(error, larder.NotAnInteger)
    assert (error.key, error.index, error.branch) == ("k", 2, "else")
    plain = larder.error_from_json({"code": -31081, "message": "m", "data": {"key": "k"}})
    assert (plain.index, plain.branch) == (None, None)
