"""Errors map to the right LarderError subclasses."""

from __future__ import annotations

import json
import threading

import pytest

import larder
from conftest import REPO
from larder.errors import error_class, error_from_json

CODES = sorted(e["code"] for e in json.loads((REPO / "protocol" / "openrpc.json").read_text())["x-error-codes"])


@pytest.mark.parametrize("code", CODES)
def test_every_code_gives_its_class(code):
    """Which class each code has, by name, is test_contract's to check."""
    cls = error_class(code)
    assert cls is not larder.LarderError and cls.CODE == code
    e = error_from_json({"code": code, "message": "m", "data": {"x": 1}})
    assert type(e) is cls and isinstance(e, larder.LarderError)
    assert (e.code, e.message, e.data) == (code, "m", {"x": 1})
    assert str(e) == f"[{code}] m"


def test_retryable_is_what_data_says():
    unavailable = error_from_json({"code": -31003, "message": "storage unavailable: gone",
                                   "data": {"retryable": True, "sqlState": "57P01"}})
    assert type(unavailable) is larder.StorageUnavailable and unavailable.retryable
    conflict = error_from_json({"code": -31002, "message": "m", "data": {"sqlState": "40001", "retryable": True}})
    assert conflict.retryable
    assert not error_from_json({"code": -31002, "message": "m", "data": {"sqliteCode": 5}}).retryable
    assert not error_from_json({"code": -31001, "message": "m"}).retryable


def test_unknown_code_is_plain_larder_error():
    e = error_from_json({"code": -31999, "message": "new"})
    assert type(e) is larder.LarderError and e.code == -31999 and e.data is None


def test_sidecar_exited_has_no_code():
    assert issubclass(larder.SidecarExited, larder.LarderError) and larder.SidecarExited.CODE is None


def test_encryption_errors_read_their_data():
    e = error_from_json({"code": -31060, "message": "m", "data": {"cache": "s", "reason": "rekeyRunning", "retryable": True}})
    assert isinstance(e, larder.EncryptionKeyError) and (e.reason, e.cache, e.retryable) == ("rekeyRunning", "s", True)
    bare = error_from_json({"code": -31060, "message": "m"})
    assert (bare.reason, bare.cache, bare.retryable) == (None, None, False)
    sealed_key = error_from_json({"code": -31061, "message": "m", "data": {"cache": "s"}})
    assert isinstance(sealed_key, larder.IntegrityError) and (sealed_key.cache, sealed_key.key) == ("s", None)


def test_app_version_superseded_reads_its_data():
    e = error_from_json({"code": -31070, "message": "m", "data": {"cache": "c", "appVersion": "1.0", "cacheAppVersion": "2.0"}})
    assert isinstance(e, larder.AppVersionSuperseded)
    assert (e.cache, e.app_version, e.cache_app_version, e.retryable) == ("c", "1.0", "2.0", False)


def test_malformed_error_object():
    assert error_from_json("oops").code == -32603
    assert error_from_json({"code": "x", "message": "m"}).code == -32603


def test_method_not_found(db):
    with pytest.raises(larder.MethodNotFound) as e:
        db.call("cache.nope")
    assert e.value.code == -32601 and e.value.message == "Method not found: cache.nope"


def test_test_methods_need_the_flag(binary):
    with larder.Larder.spawn(memory=True, binary=binary) as db:
        with pytest.raises(larder.MethodNotFound):
            db.call("debug.ask", {"method": "x"})
        assert "debug.ask" not in db.init_result["capabilities"]["methods"]


def test_invalid_params(db):
    with pytest.raises(larder.InvalidParams, match="missing required parameter params.key"):
        db.call("cache.get", {})
    with pytest.raises(larder.InvalidParams, match="type mismatch at params.key: expected string"):
        db.call("cache.get", {"key": 5})
    with pytest.raises(larder.InvalidParams, match="ttl must not be negative"):
        db.cache.set("k", 1, ttl=-1)
    with pytest.raises(larder.InvalidParams, match="not valid base64"):
        db.call("cache.set", {"key": "k", "data": "***"})
    with pytest.raises(larder.InvalidParams, match="must not be empty"):
        db.cache.entry("")


def test_invalid_request_initialize_twice(db):
    with pytest.raises(larder.InvalidRequest, match="initialize"):
        db.call("initialize", {})


def test_server_not_initialized(binary):
    with larder.Larder.spawn(memory=True, binary=binary, args=["--require-initialize"], initialize=False) as db:
        with pytest.raises(larder.ServerNotInitialized) as e:
            db.cache.entry("k")
        assert e.value.code == -32002
        db.initialize(app_version="1.2.3")
        assert db.cache.entry("k") == {"found": False}


def test_request_failed(binary):
    with larder.Larder.spawn(memory=True, binary=binary, args=["--enable-test-methods"]) as db:
        with pytest.raises(larder.RequestFailed, match="--clock"):
            db.call("debug.advanceClock", {"seconds": 1})


def test_store_unavailable(binary, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with larder.Larder.spawn(memory=True, binary=binary, initialize=False) as db:
        with pytest.raises(larder.StoreUnavailable) as e:
            db.initialize(store=blocker / "store")
        assert e.value.data == {"path": str(blocker / "store")}


def test_initialize_with_store_path(binary, tmp_path):
    with larder.Larder.spawn(memory=True, binary=binary, initialize=False) as db:
        info = db.initialize(store=tmp_path / "s")
        assert info["store"] == {"path": str(tmp_path / "s"), "persistent": True}


def test_request_cancelled(db):
    release = threading.Event()
    db.on_request("client.slow", lambda params: release.wait(10) and "late")
    future = db.call_async("debug.ask", {"method": "client.slow"})
    db.cancel(future)
    with pytest.raises(larder.RequestCancelled):
        future.result(10)
    release.set()
    assert db.cache.set("still", "working")["stored"] is True


def test_timeout_sends_cancel(db):
    release = threading.Event()
    db.on_request("client.slow", lambda params: release.wait(10) and "late")
    with pytest.raises(TimeoutError):
        db.call("debug.ask", {"method": "client.slow"}, timeout=0.3)
    release.set()
    assert db.cache.entry("x") == {"found": False}


def test_unserializable_params(db):
    with pytest.raises(TypeError, match="not JSON"):
        db.cache.set("k", object())
    with pytest.raises(TypeError, match="not JSON"):
        db.cache.set("k", float("nan"))
    assert db.cache.set("k", 1)["stored"] is True


def test_error_stays_usable_after_errors(db):
    for _ in range(3):
        with pytest.raises(larder.LarderError):
            db.call("nope")
    assert db.cache.set("k", 1) == {"stored": True, "size": 1, "revision": 1}
