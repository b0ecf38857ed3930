"""Transcripts: the protocol's sessions driven through this client's own
transport, checked by ``larder replay`` (the one replayer, in the server).

For each transcript the client sends its requests (``db.call``) and
notifications (``db.notify``) to a server started with ``--record``; then

- the recording — what the client actually sent and what came back — must
  replay green with ``larder replay``;
- every result and error the client returned must be the one in the
  recording (the transport loses and invents nothing);
- the transcript's own expected answers, re-addressed to the ids the client
  used, must match the server's answers to the client's requests: a
  transcript of the client's ``-->`` lines with the original ``<--`` lines,
  replayed by ``larder replay``.

Params are sent as the transcript writes them (:class:`larder.wire.RawJSON`),
since the server keeps number literals (``1.50``) and sizes depend on them.
Transcripts a client library cannot drive — raw bytes, batches, another
framing, ``(none)``, answers to the server's requests, several servers on
one store — are left to
``larder replay`` alone (the Swift suite plays every one).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, REPO, missing
import larder
from larder import transcript as tr
from larder.wire import RawJSON

PROTOCOL_TRANSCRIPTS = REPO / "protocol" / "transcripts"


def replay(path: Path, binary: str) -> None:
    result = tr.replay([str(path)], binary)
    assert result.returncode == 0, result.stdout


class Transcript:
    """The parts of a transcript a client can drive: its header and lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.args: list[str] = []
        self.exit_code = 0
        self.lines: list[tuple[str, Any, str]] = []  # ("-->" | "<--", message, text)
        self.drivable = True
        for line in path.read_text().split("\n"):
            if line.startswith("// args:") and not self.lines:
                self.args = line[len("// args:"):].split()
            elif line.startswith("// exit-code:") and not self.lines:
                self.exit_code = int(line.split(":", 1)[1])
            elif line.startswith("// framing:"):
                self.drivable = False
            elif re.match(r"[A-Z](-->|<--) ", line):
                self.drivable = False  # another server on the same store: only a replayer runs several
            elif line.startswith(("--> ", "<-- ")):
                text = line[4:]
                try:
                    message = json.loads(text)
                except ValueError:
                    self.drivable = False  # raw bytes or "(none)": only a replayer sends or checks those
                    continue
                sent = line.startswith("-->")
                if not isinstance(message, dict) or (sent and not isinstance(message.get("method"), str)) \
                        or (not sent and "method" in message and "id" in message):
                    self.drivable = False  # batches, answers to the server: not what a client library sends
                self.lines.append((line[:3], message, text))


def raw_params(text: str) -> RawJSON | None:
    """A request's params as written in the transcript (``1.50`` stays ``1.50``)."""
    start = text.find('"params":')
    if start < 0:
        return None
    start += len('"params":')
    while text[start] in " \t":
        start += 1
    _, end = json.JSONDecoder().raw_decode(text, start)
    return RawJSON(text[start:end])


def protocol_transcripts() -> list[Any]:
    files = sorted(PROTOCOL_TRANSCRIPTS.glob("*.transcript")) if PROTOCOL_TRANSCRIPTS.is_dir() else []
    drivable = [f for f in files if Transcript(f).drivable]
    if not drivable:
        return [pytest.param(None, id="none")]
    return [pytest.param(f, id=f.name) for f in drivable]


@pytest.mark.parametrize("path", protocol_transcripts())
def test_protocol_transcript_through_the_client(path: Path | None, binary: str, tmp_path: Path) -> None:
    if path is None:
        missing(f"no transcripts a client can drive in {PROTOCOL_TRANSCRIPTS}")
        return
    t = Transcript(path)
    recording = tmp_path / "recording.transcript"
    args = [*t.args, "--record", str(recording)]
    if "--memory" not in args and "--store" not in args:
        args += ["--store", str(tmp_path / "store")]
    db = larder.Larder.spawn(binary=binary, args=args, initialize=False, timeout=30)
    ids: dict[Any, int] = {}
    returned: dict[int, Any] = {}
    sent_lines: list[str] = []
    try:
        for direction, message, text in t.lines:
            if direction != "-->":
                continue
            if "id" in message:
                reply = db.call_async(message["method"], raw_params(text))
                ids[message["id"]] = reply.request_id
                error = reply.exception()
                returned[reply.request_id] = error.to_json() if error else {"result": reply.result()}
            else:
                db.notify(message["method"], message.get("params"))
    finally:
        exit_code = db.close()

    # The recording, with the exit status the client saw (the server cannot know it while recording).
    text = recording.read_text()
    recording.write_text(f"// exit-code: {exit_code}\n" + text)
    replay(recording, binary)

    recorded = [line for line in text.split("\n") if line.startswith(("--> ", "<-- "))]
    answers = {}
    for line in recorded:
        message = json.loads(line[4:])
        if line.startswith("-->"):
            sent_lines.append(line)
        elif isinstance(message, dict) and message.get("id") in returned:
            answers[message["id"]] = message.get("error", {"result": message.get("result")})
    for rid, got in returned.items():
        if "result" in got and "result" in answers[rid]:
            continue  # patterns such as "{...}" stand for run values in the recording; replay checked them
        assert got == answers[rid], f"request {rid}"

    # A session holding an encryption key is recorded with its secrets
    # redacted (SPEC 6.10): its requests are not written as sent, so the
    # recording replays on its own and is not held to the transcript.
    if '"[redacted]"' in text:
        return

    # The transcript's expectations, addressed to the client's requests.
    header = [f"// args: {' '.join(t.args)}"] if t.args else []
    header.append(f"// exit-code: {t.exit_code}")
    body = []
    sent = iter(sent_lines)
    for direction, message, text in t.lines:
        if direction == "-->":
            body.append(next(sent))
        elif "method" not in message and message.get("id") in ids:
            body.append("<-- " + json.dumps({**message, "id": ids[message["id"]]}))
        else:
            body.append("<-- " + text)
    expected = tmp_path / "expected.transcript"
    expected.write_text("\n".join(header + body) + "\n")
    replay(expected, binary)


def test_results_match_the_recording_exactly(binary: str, tmp_path: Path) -> None:
    """What the client returns is what the server sent, byte-level types
    included (the recording of a run on a fixed clock has no patterns)."""
    recording = tmp_path / "session.transcript"
    args = ["--clock", "2026-01-01T00:00:00Z", "--record", str(recording)]
    values = [None, 0, -1.5, 2**53, "é✓\u2028", [1, [2, {}]], {"a": {"b": [True, False]}}]
    with larder.Larder.spawn(memory=True, binary=binary, args=args) as db:
        with db.pipeline() as p:
            for i, v in enumerate(values):
                p.cache.set(f"k{i}", v)
            for i in range(len(values)):
                p.cache.entry(f"k{i}")
        entries = p.results[len(values):]
    answers = [json.loads(line[4:]) for line in recording.read_text().split("\n") if line.startswith("<-- ")]
    recorded = [a["result"] for a in answers if isinstance(a.get("result"), dict) and "found" in a["result"]]
    assert entries == recorded
    assert [e["value"] for e in entries] == values
    replay(recording, binary)


def test_a_session_recorded_from_python_replays(binary: str, tmp_path: Path) -> None:
    """`larder --record` turns a real client session into a transcript that replays green."""
    recording = tmp_path / "session.transcript"
    args = ["--clock", "2026-01-01T00:00:00Z", "--record", str(recording)]
    with larder.Larder.spawn(store=str(tmp_path / "store"), binary=binary, args=args) as db:
        db.cache.open("recorded", disk={"max_count": 2})
        db.cache.set("a", {"x": [1, 2]}, cache="recorded")
        db.cache.set("b", data=b"\x00\x01", cache="recorded")
        assert db.cache.get("a", cache="recorded") == {"x": [1, 2]}
        with pytest.raises(larder.InvalidParams):
            db.cache.set("", 1)
    text = recording.read_text()
    assert "// args: --clock 2026-01-01T00:00:00Z" in text
    assert text.count("\n--> ") >= 6
    assert '"version":"{...}"' in text, "the recorder leaves the build's version out"
    replay(recording, binary)


def test_command_line(binary: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert tr.main(["--binary", binary, str(FIXTURES / "pass.transcript")]) == 0
    assert tr.main(["--binary", binary, str(FIXTURES)]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "fail.transcript:8" in out and "1 passed, 1 failed" in out
