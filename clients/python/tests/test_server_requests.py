"""Server-to-client requests (debug.ask, migrate.object) and $/progress."""

from __future__ import annotations

import threading

import pytest

import larder


def test_debug_ask_answered_by_on_request(db):
    seen = []

    def echo(params):
        seen.append((threading.current_thread().name, params))
        return {"echo": params}

    db.on_request("client.echo", echo)
    assert db.call("debug.ask", {"method": "client.echo", "params": {"x": [1, 2]}}) == {
        "result": {"echo": {"x": [1, 2]}}}
    assert seen[0][1] == {"x": [1, 2]} and seen[0][0].endswith("-callbacks")


def test_handler_errors_are_sent_back(db):
    def refuse(params):
        raise larder.RequestFailed("not today", data={"why": "tired"})

    db.on_request("client.refuse", refuse)
    db.on_request("client.crash", lambda params: {}["missing"])
    db.on_request("client.weird", lambda params: object())
    assert db.call("debug.ask", {"method": "client.refuse"}) == {
        "error": {"code": -32803, "message": "not today", "data": {"why": "tired"}}}
    crash = db.call("debug.ask", {"method": "client.crash"})["error"]
    assert crash["code"] == -32603 and "KeyError" in crash["message"]
    weird = db.call("debug.ask", {"method": "client.weird"})["error"]
    assert weird["code"] == -32603 and "not JSON" in weird["message"]


def test_unhandled_server_request_is_method_not_found(db):
    assert db.call("debug.ask", {"method": "client.unknown"}) == {
        "error": {"code": -32601, "message": "Method not found: client.unknown"}}


def test_decorator_form_and_params_default(db):
    @db.on_request("client.noparams")
    def handler(params):
        return params

    assert db.call("debug.ask", {"method": "client.noparams"}) == {"result": {}}
    assert handler({"a": 1}) == {"a": 1}


def test_handler_may_call_the_server(db):
    db.cache.set("k", "from the store")
    db.on_request("client.lookup", lambda params: db.cache.entry(params["key"])["value"])
    assert db.call("debug.ask", {"method": "client.lookup", "params": {"key": "k"}}) == {"result": "from the store"}


def test_many_asks_from_threads(db):
    db.on_request("client.double", lambda params: params["n"] * 2)
    futures = [db.call_async("debug.ask", {"method": "client.double", "params": {"n": n}}) for n in range(200)]
    assert [f.result(30)["result"] for f in futures] == [n * 2 for n in range(200)]


def test_on_migrate_answers_value_drop_or_error_through_debug_ask(db):
    """The shapes of migrate.object answers (debug.ask relays whatever the client answers)."""
    def handler(params):
        value = params["value"]
        if value.get("drop"):
            return larder.DROP
        if value.get("bad"):
            raise larder.RequestFailed("cannot", data={"id": value["id"]})
        return {**value, "version": 2}

    db.on_migrate(handler)
    ask = lambda value: db.call("debug.ask", {"method": "migrate.object", "params": {"value": value}})
    assert ask({"id": 1}) == {"result": {"value": {"id": 1, "version": 2}}}
    assert ask({"id": 2, "drop": True}) == {"result": {"drop": True}}
    assert ask({"id": 3, "bad": True}) == {"error": {"code": -32803, "message": "cannot", "data": {"id": 3}}}
    assert repr(larder.DROP) == "larder.DROP"


# $/progress routing details, checked with a stand-in sidecar (migrate.run against the
# real server is in test_objects.py).

def test_progress_routed_by_work_done_token(fake, waiter):
    others = []
    fake.on_event("$/progress", others.append)
    reports = []
    result = fake.call("work", {"steps": 4}, progress=reports.append)
    assert result["done"] is True and result["token"].startswith("python-")
    # Every progress callback has run by the time the result is returned.
    assert [r["kind"] for r in reports] == ["begin", "report", "report", "report", "report", "end"]
    assert reports[-2]["percentage"] == 100
    waiter_done = threading.Event()
    fake.on_event("$/progress", lambda p: waiter_done.set())
    fake.call("work", {"steps": 1})  # no progress callback: notifications go to on_event
    assert waiter_done.wait(5)
    assert {"token": "someone-else", "value": {"kind": "report"}} in others


def test_progress_with_own_token(fake):
    reports = []
    assert fake.call("work", {"steps": 1, "workDoneToken": "mine"}, progress=reports.append)["token"] == "mine"
    assert len(reports) == 3
