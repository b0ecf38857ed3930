"""The sidecar process: finding it, starting it, stopping it, losing it."""

from __future__ import annotations

import os
import signal
import stat
import sys
import threading
import time

import pytest

import larder
from conftest import FAKE_SIDECAR, REPO
from larder.binary import find_binary
import larder.binary


def test_clean_shutdown(binary):
    db = larder.Larder.spawn(memory=True, binary=binary)
    assert db.alive and db.pid > 0
    assert db.close() == 0
    assert not db.alive and db.returncode == 0
    assert db.close() == 0  # again: nothing happens
    with pytest.raises(larder.SidecarExited):
        db.cache.entry("k")


def test_context_manager_closes_on_error(binary):
    with pytest.raises(ZeroDivisionError):
        with larder.Larder.spawn(memory=True, binary=binary) as db:
            1 / 0
    assert db.returncode == 0


def test_killed_sidecar_raises_promptly(binary):
    with larder.Larder.spawn(memory=True, binary=binary) as db:
        db.cache.set("k", 1)
        os.kill(db.pid, signal.SIGKILL)
        start = time.monotonic()
        with pytest.raises(larder.SidecarExited) as e:
            for _ in range(1000):  # the first call after the kill may still be written into the pipe
                db.cache.entry("k")
        assert time.monotonic() - start < 5
        assert e.value.returncode == -signal.SIGKILL
        assert "signal 9" in str(e.value)
        assert not db.alive
        with pytest.raises(larder.SidecarExited):
            db.cache.set("k", 2)


def test_kill_fails_a_waiting_call(db):
    started, release = threading.Event(), threading.Event()
    db.on_request("client.block", lambda params: started.set() or release.wait(30))
    threading.Timer(0.2, lambda: started.wait(5) and os.kill(db.pid, signal.SIGKILL)).start()
    start = time.monotonic()
    try:
        with pytest.raises(larder.SidecarExited) as e:
            db.call("debug.ask", {"method": "client.block"})
        assert time.monotonic() - start < 5
        assert e.value.returncode == -signal.SIGKILL
    finally:
        release.set()


def test_pipeline_fails_when_killed(binary):
    with larder.Larder.spawn(memory=True, binary=binary) as db:
        os.kill(db.pid, signal.SIGKILL)
        db.process.wait()
        with pytest.raises(larder.SidecarExited):
            with db.pipeline() as p:
                for i in range(100):
                    p.cache.set(f"k{i}", i)
        assert all(isinstance(r, larder.SidecarExited) for r in p.results)


def test_bad_arguments_report_exit_status_and_stderr(binary):
    with pytest.raises(larder.SidecarExited) as e:
        larder.Larder.spawn(memory=True, binary=binary, args=["--no-such-flag"])
    assert e.value.returncode == 2
    assert "unknown argument --no-such-flag" in e.value.stderr
    assert "unknown argument" in str(e.value)


def test_store_and_memory_are_exclusive(tmp_path):
    with pytest.raises(ValueError):
        larder.Larder.spawn(store=tmp_path, memory=True)


def test_crash_reports_stderr_tail():
    with larder.Larder.spawn(binary=sys.executable, args=[str(FAKE_SIDECAR)]) as db:
        with pytest.raises(larder.SidecarExited) as e:
            db.call("crash")
        assert e.value.returncode == 3 and "crashing on purpose" in e.value.stderr
        assert "crashing on purpose" in db.stderr_tail


def test_close_kills_a_sidecar_that_will_not_exit(tmp_path):
    stubborn = tmp_path / "stubborn.py"
    stubborn.write_text(
        "import json, signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if 'id' in m:\n"
        "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': None}), flush=True)\n"
        "time.sleep(60)\n"
    )
    db = larder.Larder.spawn(binary=sys.executable, args=[str(stubborn)])
    start = time.monotonic()
    assert db.close(timeout=1) == -signal.SIGKILL
    assert time.monotonic() - start < 10


def test_app_version_and_client_info_are_sent(tmp_path):
    recorder = tmp_path / "recorder.py"
    log = tmp_path / "log"
    recorder.write_text(
        "import json, sys\n"
        f"log = open({str(log)!r}, 'w')\n"
        "for line in sys.stdin:\n"
        "    log.write(line); log.flush()\n"
        "    m = json.loads(line)\n"
        "    if 'id' in m:\n"
        "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {}}), flush=True)\n"
        "    elif m['method'] == 'exit':\n"
        "        break\n"
    )
    with larder.Larder.spawn(binary=sys.executable, args=[str(recorder)], app_version="7.1", events=True):
        pass
    import json
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    assert [m["method"] for m in messages] == ["initialize", "initialized", "shutdown", "exit"]
    assert messages[0]["params"] == {"clientInfo": {"name": "larder-python", "version": larder.__version__},
                                     "appVersion": "7.1", "capabilities": {"events": True}}


def _executable(path, text="#!/bin/sh\nexit 0\n"):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_find_binary_order(tmp_path, monkeypatch):
    (tmp_path / "bin").mkdir()
    on_path = _executable(tmp_path / "bin" / "larder")
    packaged = tmp_path / "pkg" / "bin" / "larder"
    packaged.parent.mkdir(parents=True)
    monkeypatch.setattr(larder.binary, "PACKAGED_BINARY", packaged)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("LARDER_BIN", "/from/env")
    assert find_binary("/explicit") == "/explicit"
    assert find_binary() == "/from/env"
    monkeypatch.delenv("LARDER_BIN")
    assert find_binary() == str(on_path)
    _executable(packaged)
    assert find_binary() == str(packaged)  # the packaged binary comes before PATH
    packaged.unlink()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError) as e:
        find_binary()
    for tried in ("binary=", "$LARDER_BIN", str(packaged), "PATH"):
        assert tried in str(e.value)
    with pytest.raises(FileNotFoundError):
        larder.Larder.spawn(memory=True)
