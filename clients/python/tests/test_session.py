"""The session core both transports share, driven with no process: ids and
encoding, sorting what the sidecar sends, answering server requests."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from larder import InvalidParams
from larder._session import Session
from larder._steps import run, run_async


class Transport:
    """Records what a session hands its transport."""

    def __init__(self, serving: bool = True) -> None:
        self.served: list = []
        self.cancelled: list = []
        self.queued: list = []
        self.answers: dict = {}
        self.serving = serving
        self.session = Session(self.serve, self.cancel, self.queue)

    def serve(self, rid, method, params):
        self.served.append((rid, method, params))

    def cancel(self, rid):
        self.cancelled.append(rid)
        return self.serving

    def queue(self, fn, args):
        self.queued.append((fn, args))


def lines(payload: bytes) -> list:
    return [json.loads(line) for line in payload.decode().splitlines()]


def test_requests_are_numbered_in_order_and_encoded_once():
    session = Transport().session
    rid, token, line = session.request("cache.get", {"key": "k"})
    assert (rid, token) == (1, None)
    assert line == b'{"jsonrpc":"2.0","id":1,"method":"cache.get","params":{"key":"k"}}\n'
    first, payload = session.burst(["cache.set", "cache.set"], [{"key": "a", "value": 1}, None])
    assert first == 2 and [m["id"] for m in lines(payload)] == [2, 3]
    first, tokens, payload = session.requests([("a", None, None), ("b", {}, print)], batch=True)
    assert first == 4 and tokens == [None, "python-5"] and session.next_id == 6
    assert [m["id"] for m in json.loads(payload)] == [4, 5]
    assert json.loads(payload)[1]["params"] == {"workDoneToken": "python-5"}
    assert session.progress == {"python-5": print}


def test_a_request_that_is_not_json_numbers_and_tracks_nothing():
    session = Transport().session
    with pytest.raises(TypeError, match="parameters are not JSON"):
        session.requests([("a", {}, print), ("b", {"x": object()}, None)])
    with pytest.raises(TypeError, match="parameters are not JSON"):
        session.request("a", {"x": {1, 2}}, print)
    assert session.next_id == 1 and session.progress == {}


def test_answers_go_to_the_transport_and_abandoned_ones_nowhere(caplog):
    transport = Transport()
    session = transport.session
    session.abandoned.add(7)
    waiting = {1}

    def answer(rid, message):
        if rid not in waiting:
            return False
        transport.answers[rid] = message

    with caplog.at_level(logging.DEBUG, logger="larder"):
        session.file([{"id": 1, "result": 1}, {"id": 7, "result": 7}, {"id": 9, "result": 9},
                      {"id": "x", "error": {"code": 1}}, [1]], answer)
    assert transport.answers == {1: {"id": 1, "result": 1}}
    assert session.abandoned == set()
    logged = [r.getMessage() for r in caplog.records]
    assert "larder answered an unknown request id 9" in logged
    assert "larder answered an error to no known request: {'code': 1}" in logged
    assert "larder sent a message that is not an object: [1]" in logged


def test_server_requests_cancels_progress_and_events_go_to_their_hooks():
    transport = Transport()
    session = transport.session
    seen, progress = [], []
    session.event_handlers["cache.evicted"] = [seen.append, seen.append]
    session.progress["t"] = progress.append
    session.file([
        {"jsonrpc": "2.0", "id": "s1", "method": "cache.fetch", "params": {"key": "k"}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "s1"}},
        {"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "t", "value": {"kind": "end"}}},
        {"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "other", "value": 1}},
        {"jsonrpc": "2.0", "method": "cache.evicted", "params": {"key": "k"}},
    ], transport.answers.__setitem__)
    assert transport.served == [("s1", "cache.fetch", {"key": "k"})]
    assert transport.cancelled == ["s1"]
    assert transport.queued == [(progress.append, ({"kind": "end"},)), (seen.append, ({"key": "k"},)),
                                (seen.append, ({"key": "k"},))]


def test_a_cancel_for_a_request_not_being_answered_is_an_event():
    transport = Transport(serving=False)
    transport.session.event_handlers["$/cancelRequest"] = [print]
    transport.session.file([{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 3}}], print)
    assert transport.cancelled == [3] and transport.queued == [(print, ({"id": 3},))]


def test_the_answer_to_a_server_request_says_what_its_handler_did(caplog):
    session = Transport().session
    session.request_handlers["ok"] = lambda params: {"got": params}

    def refuse(params):
        raise InvalidParams("no", data={"path": "params.key"})

    def fail(params):
        raise KeyError("key")

    session.request_handlers["refuse"] = refuse
    session.request_handlers["fail"] = fail
    assert json.loads(run(session.answer(1, "ok", None))) == {"jsonrpc": "2.0", "id": 1, "result": {"got": {}}}
    assert json.loads(run(session.answer(2, "refuse", {})))["error"] == {"code": -32602, "message": "no",
                                                                          "data": {"path": "params.key"}}
    with caplog.at_level(logging.ERROR, logger="larder"):
        assert json.loads(run(session.answer(3, "fail", {})))["error"] == {"code": -32603,
                                                                            "message": "Internal error: KeyError: 'key'"}
    assert "the handler for fail failed" in caplog.text
    assert json.loads(run(session.answer(4, "nope", {})))["error"] == {"code": -32601,
                                                                        "message": "Method not found: nope"}


def test_an_awaited_handler_is_answered_the_same_way():
    session = Transport().session

    async def ok(params):
        await asyncio.sleep(0)
        return params["n"] + 1

    async def refuse(params):
        raise InvalidParams("no")

    session.request_handlers.update(ok=ok, refuse=refuse, plain=lambda params: "plain")

    async def main():
        return [json.loads(await run_async(session.answer(i, m, {"n": 1}))) for i, m in
                enumerate(["ok", "refuse", "plain"])]

    ok_answer, refused, plain = asyncio.run(main())
    assert ok_answer["result"] == 2 and refused["error"]["code"] == -32602 and plain["result"] == "plain"


def test_how_the_sidecar_ended():
    session = Transport().session
    session.heard(b"starting\n")
    session.heard(b"bye \xff\n")
    assert session.stderr_tail == "starting\nbye \ufffd\n"
    assert session.ended(0) == (0, session.stderr_tail, None)
    session.closing = True
    assert session.ended(0) == (0, session.stderr_tail, "the larder client was closed")
    assert session.ended(1)[2] is None
    assert session.end((0, "", None)) is True and session.end((1, "", None)) is False
    assert session.exit_info == (0, "", None)
