"""Encrypted caches through the client and the real sidecar: keys given to
``spawn`` (bytes, base64, per cache, a key file), the errors of a wrong or
missing key and of a changed value, and ``cache.rekey``."""

from __future__ import annotations

import asyncio
import base64
import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import larder
from conftest import HERE
from larder.aio import AsyncLarder

OLD = bytes(range(32))
NEW = bytes(range(31, -1, -1))
OTHER = b"\x07" * 32


def spawn(binary: str, store: Path, **options: Any) -> larder.Larder:
    return larder.Larder.spawn(store=store, binary=binary, timeout=60, **options)


def fill(binary: str, store: Path, key: object = OLD, cache: str = "secrets", count: int = 3) -> None:
    """Creates ``cache`` encrypted under ``key`` with ``count`` entries k0, k1, ..."""
    with spawn(binary, store, encryption_key=key) as db:
        assert db.cache.open(cache, encrypted=True)["config"]["encrypted"] is True
        db.cache.set_many({f"k{i}": f"value {i}" for i in range(count)}, cache=cache)


def key_file(tmp_path: Path, key: bytes, mode: int) -> Path:
    path = tmp_path / f"key-{mode:o}"
    path.write_text(base64.b64encode(key).decode() + "\n")
    path.chmod(mode)
    return path


# -- keys ------------------------------------------------------------------------

def test_an_encrypted_cache_reads_and_writes_and_keeps_nothing_in_clear(binary, store_dir):
    with spawn(binary, store_dir, encryption_key=OLD) as db:
        opened = db.cache.open("secrets", encrypted=True)
        assert opened["created"] is True and opened["config"]["encrypted"] is True
        db.cache.set("key_plaintext_marker", {"github": "ghp_plaintext_marker"}, cache="secrets")
        db.cache.set("raw", data=b"bytes_plaintext_marker", cache="secrets")
        assert db.cache.get("key_plaintext_marker", cache="secrets") == {"github": "ghp_plaintext_marker"}
        assert db.cache.get("raw", cache="secrets") == b"bytes_plaintext_marker"
        assert db.cache.keys(cache="secrets") == {"keys": ["key_plaintext_marker", "raw"]}
        assert db.cache.open("plain")["config"]["encrypted"] is False
    on_disk = b"".join(p.read_bytes() for p in store_dir.iterdir() if p.is_file())
    assert b"plaintext_marker" not in on_disk  # the key, the value and the data each hold it
    # The same key as base64 text opens it in the next process; read from disk this time.
    with spawn(binary, store_dir, encryption_key=base64.b64encode(OLD).decode()) as db:
        entry = db.cache.entry("key_plaintext_marker", cache="secrets")
        assert entry["tier"] == "disk" and entry["value"] == {"github": "ghp_plaintext_marker"}


def test_a_wrong_key_is_key_mismatch_and_none_is_key_required(binary, store_dir):
    fill(binary, store_dir)
    # Two processes at once: the one with the right key reads, the others are refused.
    with spawn(binary, store_dir, encryption_key=OLD) as right, spawn(binary, store_dir, encryption_key=OTHER) as wrong:
        assert right.cache.get("k1", cache="secrets") == "value 1"
        with pytest.raises(larder.EncryptionKeyError) as info:
            wrong.cache.get("k1", cache="secrets")
        e = info.value
        assert (e.code, e.reason, e.cache, e.retryable) == (-31060, "keyMismatch", "secrets", False)
        assert e.data == {"cache": "secrets", "reason": "keyMismatch"}
        with pytest.raises(larder.EncryptionKeyError) as info:
            wrong.cache.set("k1", "overwritten", cache="secrets")
        assert info.value.reason == "keyMismatch"
        assert right.cache.get("k1", cache="secrets") == "value 1", "nothing was overwritten"
    with spawn(binary, store_dir) as none:
        with pytest.raises(larder.EncryptionKeyError) as info:
            none.cache.open("secrets")
        assert (info.value.reason, info.value.cache) == ("keyRequired", "secrets")
        with pytest.raises(larder.EncryptionKeyError) as info:
            none.cache.open("vault", encrypted=True)
        assert info.value.reason == "keyRequired"
        assert [c["name"] for c in none.cache.list()["caches"]] == ["secrets"], "vault was not created"


def test_keys_per_cache_override_the_common_key(binary, store_dir):
    with spawn(binary, store_dir, encryption_key=OLD, encryption_keys={"vault": NEW}) as db:
        db.cache.open("secrets", encrypted=True)
        db.cache.open("vault", encrypted=True)
        db.cache.set("a", 1, cache="secrets")
        db.cache.set("b", 2, cache="vault")
    with spawn(binary, store_dir, encryption_keys={"vault": NEW}) as db:
        assert db.cache.get("b", cache="vault") == 2
        with pytest.raises(larder.EncryptionKeyError) as info:
            db.cache.get("a", cache="secrets")
        assert info.value.reason == "keyRequired"
    with spawn(binary, store_dir, encryption_key=NEW) as db:
        assert db.cache.get("b", cache="vault") == 2
        with pytest.raises(larder.EncryptionKeyError) as info:
            db.cache.get("a", cache="secrets")
        assert info.value.reason == "keyMismatch"


@pytest.mark.parametrize("key,error,message", [
    (b"short", ValueError, "encryption_key must be 32 bytes, not 5"),
    ("c2hvcnQ=", ValueError, "encryption_key must be base64 of 32 bytes, not of 5"),
    ("not base64!", ValueError, "encryption_key is not standard base64"),
    (12345, TypeError, "encryption_key must be 32 bytes or their base64 as a str, not int"),
])
def test_a_bad_key_is_refused_before_the_process_starts(key, error, message, tmp_path):
    # A binary that does not exist: reaching Popen would raise FileNotFoundError instead.
    with pytest.raises(error, match=message):
        larder.Larder.spawn(memory=True, binary=tmp_path / "no-such-larder", encryption_key=key)
    with pytest.raises(ValueError, match=r"encryption_keys\['vault'\] must be 32 bytes, not 31"):
        larder.Larder.spawn(memory=True, binary=tmp_path / "no-such-larder", encryption_keys={"vault": bytes(31)})
    with pytest.raises(ValueError, match="initialize=False"):
        larder.Larder.spawn(memory=True, binary=tmp_path / "no-such-larder", encryption_key=OLD, initialize=False)


def test_keys_may_be_given_to_initialize(binary, store_dir):
    fill(binary, store_dir)
    with spawn(binary, store_dir, initialize=False) as db:
        with pytest.raises(ValueError, match="encryption_key must be 32 bytes"):
            db.initialize(encryption_key=bytearray(16))
        db.initialize(encryption_key=memoryview(OLD))
        assert db.cache.get("k0", cache="secrets") == "value 0"


def test_a_private_key_file_is_used(binary, store_dir, tmp_path):
    path = key_file(tmp_path, OLD, 0o600)
    with spawn(binary, store_dir, key_file=path) as db:
        db.cache.open("secrets", encrypted=True)
        db.cache.set("k", "v", cache="secrets")
    with spawn(binary, store_dir, encryption_key=OLD) as db:
        assert db.cache.get("k", cache="secrets") == "v", "sealed under the file's key"


def test_a_key_file_others_may_read_stops_the_sidecar_with_its_reason(binary, store_dir, tmp_path):
    path = key_file(tmp_path, OLD, 0o644)
    with pytest.raises(larder.SidecarExited) as info:
        spawn(binary, store_dir, key_file=path)
    e = info.value
    assert e.returncode == 2
    assert f"key file {path} may be read by its group or others (mode 644)" in str(e)
    assert "chmod 600" in str(e) and "chmod 600" in e.stderr


# -- rekey -----------------------------------------------------------------------

def test_rekey_reseals_under_the_new_key_with_progress(binary, store_dir):
    fill(binary, store_dir, count=5)
    seen: list[dict[str, object]] = []
    with spawn(binary, store_dir, encryption_key=OLD) as db:
        result = db.cache.rekey("secrets", NEW, batch_size=2, progress=seen.append)
        assert result == {"cache": "secrets", "resealed": 5, "resumed": False}
        assert db.cache.get("k4", cache="secrets") == "value 4", "this session now holds the new key"
    assert [v["kind"] for v in seen] == ["begin", "report", "report", "end"]
    assert seen[-1]["message"] == "5 entries re-sealed"
    with spawn(binary, store_dir, encryption_keys={"secrets": base64.b64encode(NEW).decode()}) as db:
        assert db.cache.get_many([f"k{i}" for i in range(5)], cache="secrets")["entries"]["k3"]["value"] == "value 3"
    with spawn(binary, store_dir, encryption_key=OLD) as db:
        with pytest.raises(larder.EncryptionKeyError) as info:
            db.cache.get("k0", cache="secrets")
        assert info.value.reason == "keyMismatch"


def test_uses_of_a_cache_being_rekeyed_are_retryable(binary, store_dir):
    fill(binary, store_dir, count=50)
    with spawn(binary, store_dir, encryption_key=OLD) as db:
        # Sent in one write: the get arrives before the rekey's 50 batches are done.
        with db.pipeline(raise_on_error=False) as p:
            p.cache.rekey("secrets", NEW, batch_size=1)
            p.cache.get("k0", cache="secrets")
        rekeyed, refused = p.results
        assert rekeyed["resealed"] == 50
        assert isinstance(refused, larder.EncryptionKeyError)
        assert (refused.reason, refused.retryable) == ("rekeyRunning", True)
        assert db.cache.get("k0", cache="secrets") == "value 0", "the same request succeeds afterwards"


def test_a_rekey_killed_midway_is_rekey_interrupted_until_finished(binary, store_dir):
    fill(binary, store_dir, count=2000)
    db = spawn(binary, store_dir, encryption_key=OLD)
    reports: list[dict[str, object]] = []

    def kill_after_two_reports(value: dict[str, object]) -> None:
        reports.append(value)
        if len([r for r in reports if r["kind"] == "report"]) == 2:
            os.kill(db.pid, signal.SIGKILL)

    with pytest.raises(larder.SidecarExited):
        db.cache.rekey("secrets", NEW, batch_size=10, progress=kill_after_two_reports)
    db.close()
    with spawn(binary, store_dir, encryption_key=OLD) as again:
        with pytest.raises(larder.EncryptionKeyError) as info:
            again.cache.get("k0", cache="secrets")
        assert (info.value.reason, info.value.retryable) == ("rekeyInterrupted", False)
        finished = again.cache.rekey("secrets", NEW)
        assert finished["resumed"] is True and 0 < finished["resealed"] < 2000
    with spawn(binary, store_dir, encryption_key=NEW) as new:
        entries = new.cache.get_many([f"k{i}" for i in range(2000)], cache="secrets")["entries"]
        assert all(entries[f"k{i}"].get("value") == f"value {i}" for i in range(2000))


def test_rekey_checks_the_new_key_here_and_the_cache_on_the_server(binary, store_dir):
    fill(binary, store_dir)
    with spawn(binary, store_dir, encryption_key=OLD) as db:
        with pytest.raises(ValueError, match="key must be 32 bytes, not 3"):
            db.cache.rekey("secrets", b"new")
        db.cache.set("k", "v", cache="plain")
        with pytest.raises(larder.InvalidParams, match="not encrypted"):
            db.cache.rekey("plain", NEW)
        assert db.cache.get("k0", cache="secrets") == "value 0", "still under the old key"
    with spawn(binary, store_dir, encryption_key=OTHER) as db:
        with pytest.raises(larder.EncryptionKeyError) as info:
            db.cache.rekey("secrets", NEW)
        assert info.value.reason == "keyMismatch", "only a session holding the current key may rekey"


# -- integrity -------------------------------------------------------------------

def change_a_sealed_value(store: Path, size: int) -> None:
    """Flips one byte inside the sealed value of the entry of ``size`` bytes,
    as something outside Larder might, while no sidecar runs."""
    with sqlite3.connect(store / "larder.db") as connection:
        (row, value), = connection.execute("SELECT id, value FROM entries WHERE size = ?", (size,)).fetchall()
        changed = bytearray(value)
        changed[20] ^= 0x01
        connection.execute("UPDATE entries SET value = ? WHERE id = ?", (bytes(changed), row))
    connection.close()


def test_a_changed_sealed_value_is_an_integrity_error_for_that_entry_only(binary, store_dir):
    with spawn(binary, store_dir, encryption_key=OLD) as db:
        db.cache.open("secrets", encrypted=True)
        db.cache.set("changed", "a value of 21 bytes!", cache="secrets")
        db.cache.set("intact", "short", cache="secrets")
    change_a_sealed_value(store_dir, len('"a value of 21 bytes!"'))
    with spawn(binary, store_dir, encryption_key=OLD) as db:
        with pytest.raises(larder.IntegrityError) as info:
            db.cache.get("changed", cache="secrets")
        e = info.value
        assert (e.code, e.cache, e.key) == (-31061, "secrets", "changed")
        assert db.cache.get("intact", cache="secrets") == "short"
        assert db.cache.remove("changed", cache="secrets") == {"removed": True}
        assert db.cache.entry("changed", cache="secrets") == {"found": False}


# -- entities and asyncio --------------------------------------------------------

def test_entities_cannot_be_encrypted(binary, store_dir):
    with spawn(binary, store_dir, encryption_key=OLD) as db:
        with pytest.raises(larder.InvalidParams, match="entities cannot be encrypted"):
            db.entity.define("M", [{"name": "User", "identifier": "id", "attributes": {"id": "integer"}}],
                             encrypted=True)


def test_asyncio_client_takes_the_same_keys(binary, store_dir, tmp_path):
    path = key_file(tmp_path, OLD, 0o600)
    seen: list[dict[str, object]] = []

    async def main() -> None:
        async with AsyncLarder.spawn(store=store_dir, binary=binary, key_file=path) as db:
            await db.cache.open("secrets", encrypted=True)
            await db.cache.set("k", "v", cache="secrets")
            result = await db.cache.rekey("secrets", base64.b64encode(NEW).decode(), progress=seen.append)
            assert result == {"cache": "secrets", "resealed": 1, "resumed": False}
        async with AsyncLarder.spawn(store=store_dir, binary=binary, encryption_keys={"secrets": NEW}) as db:
            assert await db.cache.get("k", cache="secrets") == "v"
        async with AsyncLarder.spawn(store=store_dir, binary=binary, encryption_key=OLD) as db:
            with pytest.raises(larder.EncryptionKeyError) as info:
                await db.cache.get("k", cache="secrets")
            assert info.value.reason == "keyMismatch"
        with pytest.raises(ValueError, match="encryption_key must be 32 bytes"):
            AsyncLarder.spawn(memory=True, binary=binary, encryption_key=os.urandom(16))

    asyncio.run(asyncio.wait_for(main(), 60))
    assert [v["kind"] for v in seen] == ["begin", "end"]


def test_the_readme_example_runs(binary, tmp_path):
    readme = (HERE.parent / "README.md").read_text()
    section = readme.split("## Encrypted caches\n", 1)[1]
    example = re.search(r"```python\n(.*?)```", section, flags=re.S)
    assert example is not None, "README.md's Encrypted caches section has no example"
    env = {**os.environ, "LARDER_BIN": binary, "TMPDIR": str(tmp_path), "PYTHONPATH": str(HERE.parent)}
    run = subprocess.run([sys.executable, "-c", example.group(1)], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "keyMismatch"
    assert lines[-2:] == ["{'cache': 'secrets', 'resealed': 1, 'resumed': False}", "{'token': 'ghp_example'}"]
