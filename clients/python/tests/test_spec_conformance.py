"""Points of protocol/SPEC.md that older server builds got wrong (found while
building this client), checked through the client."""

from __future__ import annotations

import pytest

import larder
from larder import transcript as tr


def test_answers_leave_in_request_order(binary, tmp_path):
    path = tmp_path / "order.transcript"
    path.write_text(
        "// args: --memory\n"
        '--> {"jsonrpc":"2.0","id":1,"method":"cache.set","params":{"key":"a","value":1}}\n'
        '--> {"jsonrpc":"2.0","id":2,"method":"nope"}\n'
        '--> not json\n'
        '<-- {"jsonrpc":"2.0","id":1,"result":{"stored":true,"size":1,"revision":1}}\n'
        '<-- {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: nope"}}\n'
        '<-- {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: [..]"}}\n'
    )
    result = tr.replay([str(path)], binary)
    assert result.returncode == 0, result.stdout


def test_failed_initialize_may_be_retried(binary, tmp_path):
    (tmp_path / "file").write_text("")
    with larder.Larder.spawn(memory=True, binary=binary, initialize=False) as db:
        with pytest.raises(larder.StoreUnavailable):
            db.initialize(store=tmp_path / "file" / "store")
        assert db.initialize(store=tmp_path / "good")["store"]["persistent"] is True


def test_touch_revives_an_expired_entry_until_it_is_purged(db):
    db.cache.set("k", 1, ttl=1)
    db.call("debug.advanceClock", {"seconds": 2})
    assert db.cache.entry("k") == {"found": False}
    assert db.cache.touch("k") == {"found": True, "revived": True}
    assert db.cache.get("k") == 1
    db.call("debug.advanceClock", {"seconds": 2})
    assert db.cache.purge_expired() == {"removed": 1}
    assert db.cache.touch("k") == {"found": False}
