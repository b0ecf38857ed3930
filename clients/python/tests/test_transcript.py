"""The transcript reader/replayer, and every protocol transcript replayed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO
import larder
from larder import transcript as tr

PROTOCOL_TRANSCRIPTS = REPO / "protocol" / "transcripts"


# -- reading ---------------------------------------------------------------

def test_parse_directives_and_steps():
    t = tr.parse(
        "// a comment\n"
        "// args: --memory  --enable-test-methods\n"
        "// framing: content-length\n"
        "// exit-code: 1\r\n"
        "\n"
        "-->  {\"raw\": true}\n"
        "// args: --ignored-after-the-first-send\n"
        "<-- (none)\n"
        "<--   {\"a\": 1}  \n"
        "-->\n",
        "x.transcript",
    )
    assert t.args == ["--memory", "--enable-test-methods"]
    assert t.framing == "content-length" and t.exit_code == 1
    assert [(s.kind, s.line) for s in t.steps] == [("send", 6), ("none", 8), ("expect", 9), ("send", 10)]
    assert t.steps[0].text == ' {"raw": true}'  # only the one space after --> is dropped
    assert t.steps[2].expected == {"a": 1}
    assert t.steps[3].text == ""
    assert t.name == "x.transcript"


@pytest.mark.parametrize("text", ["<-- {not json\n", "hello\n", "// framing: carrier-pigeon\n", "// exit-code: x\n"])
def test_parse_errors(text):
    with pytest.raises(tr.TranscriptSyntaxError):
        tr.parse(text)


# -- matching --------------------------------------------------------------

@pytest.mark.parametrize("expected,actual", [
    ({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}),
    (1, 1.0),
    (1.5e2, 150),
    ("{...}", {"anything": [1]}),
    ({"t": "{...}"}, {"t": None}),
    ("Invalid params: [..]", "Invalid params: params.key must not be empty"),
    ("[..]", ""),
    ("a[..]b[..]c", "a-b--c"),
    ("a.b*[..]", "a.b*\nmore"),
    ([{"id": 1}, {"id": 2}], [{"id": 2}, {"id": 1}]),
    ([{"id": "{...}", "x": 1}, {"id": 1, "x": "{...}"}], [{"id": 1, "x": 1}, {"id": 2, "x": 1}]),
    (None, None),
    (True, True),
])
def test_matches(expected, actual):
    assert tr.matches(expected, actual), tr.message_mismatch(expected, actual)


@pytest.mark.parametrize("expected,actual", [
    ({"a": 1}, {"a": 1, "b": 2}),
    ({"a": 1, "b": 2}, {"a": 1}),
    (1, True),
    (True, 1),
    (0, False),
    (None, False),
    ("1", 1),
    ("a[..]c", "abd"),
    ("a.c", "abc"),
    ("[..]", 5),
    ({"a": [1, 2]}, {"a": [2, 1]}),
    ({"a": [1]}, {"a": [1, 1]}),
    ([{"id": 1}, {"id": 1}], [{"id": 1}, {"id": 2}]),
    ([{"id": 1}], {"id": 1}),
    ({"id": 1}, [{"id": 1}]),
])
def test_mismatches(expected, actual):
    assert not tr.matches(expected, actual)
    assert tr.message_mismatch(expected, actual)


def test_nested_arrays_keep_order_inside_a_batch():
    assert not tr.matches([{"r": [1, 2]}], [{"r": [2, 1]}])


def test_mismatch_names_the_path():
    why = tr.message_mismatch({"result": {"entries": [{"k": 1}]}}, {"result": {"entries": [{"k": 2}]}})
    assert why.startswith("$.result.entries[0].k:")


# -- replaying -------------------------------------------------------------

def test_replay_passing_fixture(binary):
    tr.replay(FIXTURES / "pass.transcript", binary)


def test_replay_failing_fixture(binary):
    with pytest.raises(tr.ReplayFailure) as e:
        tr.replay(FIXTURES / "fail.transcript", binary)
    assert e.value.line == 8
    assert "$.result.value: expected 3, got 2" in str(e.value)


def replay_text(text, binary, tmp_path, name="t.transcript", timeout=5.0):
    path = tmp_path / name
    path.write_text(text)
    tr.replay(path, binary, timeout=timeout)


def test_content_length_framing(binary, tmp_path):
    replay_text(
        "// framing: content-length\n"
        "// args: --memory\n"
        '--> {"jsonrpc":"2.0","id":1,"method":"cache.set","params":{"key":"k","value":"é"}}\n'
        '<-- {"jsonrpc":"2.0","id":1,"result":{"stored":true,"size":4}}\n'
        "--> not json\n"
        '<-- {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: [..]"}}\n',
        binary, tmp_path)


def test_default_store_is_a_fresh_directory(binary, tmp_path):
    replay_text(
        '--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n'
        '<-- {"jsonrpc":"2.0","id":1,"result":{"serverInfo":"{...}","protocolVersion":"{...}",'
        '"capabilities":"{...}","store":{"path":"[..]larder-transcript-[..]","persistent":true}}}\n'
        '--> {"jsonrpc":"2.0","id":2,"method":"cache.list"}\n'
        '<-- {"jsonrpc":"2.0","id":2,"result":{"caches":[]}}\n',
        binary, tmp_path)


def test_exit_code(binary, tmp_path):
    text = '// args: --memory\n{}--> {{"jsonrpc":"2.0","method":"exit"}}\n'
    replay_text(text.format("// exit-code: 1\n"), binary, tmp_path)
    with pytest.raises(tr.ReplayFailure, match="exited with 1, expected 0"):
        replay_text(text.format(""), binary, tmp_path)


def test_server_to_client_request(binary, tmp_path):
    replay_text(
        "// args: --memory --enable-test-methods\n"
        '--> {"jsonrpc":"2.0","id":1,"method":"debug.ask","params":{"method":"client.hello","params":{"n":1}}}\n'
        '<-- {"jsonrpc":"2.0","id":"larder-1","method":"client.hello","params":{"n":1}}\n'
        '--> {"jsonrpc":"2.0","id":"larder-1","result":"hi"}\n'
        '<-- {"jsonrpc":"2.0","id":1,"result":{"result":"hi"}}\n',
        binary, tmp_path)


def test_none_is_enforced(binary, tmp_path):
    # The eviction notification arrives before the answer to the set.
    head = (
        "// args: --memory\n"
        '--> {"jsonrpc":"2.0","id":1,"method":"cache.open","params":{"cache":"c","persistent":false,"memory":{"maxCount":1}}}\n'
        '<-- {"jsonrpc":"2.0","id":1,"result":"{...}"}\n'
        '--> {"jsonrpc":"2.0","id":2,"method":"cache.subscribe","params":{"cache":"c"}}\n'
        '<-- {"jsonrpc":"2.0","id":2,"result":{"subscribed":"c"}}\n'
        '--> {"jsonrpc":"2.0","id":3,"method":"cache.set","params":{"cache":"c","key":"a","value":1}}\n'
        '<-- {"jsonrpc":"2.0","id":3,"result":"{...}"}\n'
    )
    evicting_set = '--> {"jsonrpc":"2.0","id":4,"method":"cache.set","params":{"cache":"c","key":"b","value":1}}\n'
    replay_text(
        head + evicting_set +
        '<-- {"jsonrpc":"2.0","method":"cache.evicted","params":{"cache":"c","group":"","key":"a","tier":"memory","reason":"capacity"}}\n'
        '<-- {"jsonrpc":"2.0","id":4,"result":"{...}"}\n',
        binary, tmp_path)
    with pytest.raises(tr.ReplayFailure, match="nothing arrives before") as e:
        replay_text(head + "<-- (none)\n" + evicting_set + '<-- {"jsonrpc":"2.0","id":4,"result":"{...}"}\n',
                    binary, tmp_path)
    assert e.value.line == 10


def test_extra_message_at_the_end_fails(binary, tmp_path):
    with pytest.raises(tr.ReplayFailure, match="after the last line"):
        replay_text('// args: --memory\n--> {"jsonrpc":"2.0","id":1,"method":"cache.list"}\n', binary, tmp_path)


def test_missing_message_times_out_or_ends(binary, tmp_path):
    with pytest.raises(tr.ReplayFailure, match="no message within"):
        replay_text('// args: --memory\n--> {"jsonrpc":"2.0","method":"initialized"}\n'
                    '<-- {"jsonrpc":"2.0","id":1,"result":null}\n', binary, tmp_path, timeout=1.0)


def test_command_line(binary, capsys):
    assert tr.main(["--binary", binary, str(FIXTURES / "pass.transcript")]) == 0
    assert tr.main(["--binary", binary, str(FIXTURES)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "fail.transcript:8" in out and "1 passed, 1 failed" in out


# -- the protocol's own transcripts -----------------------------------------

def _protocol_transcripts():
    files = sorted(PROTOCOL_TRANSCRIPTS.glob("*.transcript")) if PROTOCOL_TRANSCRIPTS.is_dir() else []
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"no *.transcript files in {PROTOCOL_TRANSCRIPTS} yet"), id="none-yet")]
    return [pytest.param(f, id=f.name) for f in files]


@pytest.mark.parametrize("path", _protocol_transcripts())
def test_protocol_transcript(path: Path, binary):
    tr.replay(path, binary)


# -- recording -------------------------------------------------------------

def test_a_session_recorded_from_python_replays(binary, tmp_path):
    """`larder --record` turns a real client session into a transcript that replays green."""
    recording = tmp_path / "session.transcript"
    args = ["--clock", "2026-01-01T00:00:00Z", "--record", str(recording)]
    with larder.Larder.spawn(store=str(tmp_path / "store"), binary=binary, args=args) as db:
        db.cache.open("recorded", disk={"max_count": 2})
        db.cache.set("a", {"x": [1, 2]}, cache="recorded")
        db.cache.set("b", data=b"\x00\x01", cache="recorded")
        assert db.cache.entry("a", cache="recorded")["value"] == {"x": [1, 2]}
        with pytest.raises(larder.InvalidParams):
            db.cache.set("", 1)
    text = recording.read_text()
    assert "// args: --clock 2026-01-01T00:00:00Z" in text
    assert text.count("\n--> ") >= 6
    assert '"version":"{...}"' in text, "the recorder leaves the build's version out"
    tr.replay(recording, binary=binary)
    result = subprocess.run([binary, "replay", str(recording)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
