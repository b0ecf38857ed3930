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
    db.on_request("client.lookup", lambda params: db.cache.get(params["key"])["value"])
    assert db.call("debug.ask", {"method": "client.lookup", "params": {"key": "k"}}) == {"result": "from the store"}


def test_many_asks_from_threads(db):
    db.on_request("client.double", lambda params: params["n"] * 2)
    futures = [db.call_async("debug.ask", {"method": "client.double", "params": {"n": n}}) for n in range(200)]
    assert [f.result(30)["result"] for f in futures] == [n * 2 for n in range(200)]


def test_on_migrate_through_debug_ask(db):
    db.on_migrate(lambda params: {**params["object"], "version": 2})
    answer = db.call("debug.ask", {"method": "migrate.object", "params": {"object": {"id": 1}}})
    assert answer == {"result": {"id": 1, "version": 2}}


# The real server has no $/progress or migrate.run yet: a stand-in sidecar checks the client's side.

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


def test_migrate_run_with_on_migrate(fake):
    fake.on_migrate(lambda p: {**p["object"], "title": p["object"]["title"].upper()})
    progress = []
    result = fake.call("migrate.run", {"objects": [{"title": "a"}, {"title": "b"}]}, progress=progress.append)
    assert result == {"converted": [{"title": "A"}, {"title": "B"}]}
    assert progress == [{"kind": "report", "done": 1}, {"kind": "report", "done": 2}]


def test_migrate_failure_reported(fake):
    def convert(params):
        if params["object"].get("bad"):
            raise larder.InvalidParams("cannot convert", data={"object": params["object"]})
        return params["object"]

    fake.on_migrate(convert)
    with pytest.raises(larder.LarderError) as e:
        fake.call("migrate.run", {"objects": [{"ok": 1}, {"bad": True}]})
    assert e.value.code == -31050
    assert e.value.data["failed"][0]["error"]["code"] == -32602
