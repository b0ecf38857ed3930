"""Reads and replays ``*.transcript`` files (protocol/transcripts/README.md).

A transcript is one recorded session with a fresh ``larder``::

    // args: --memory
    --> {"jsonrpc":"2.0","id":1,"method":"cache.get","params":{"key":"a"}}
    <-- {"jsonrpc":"2.0","id":1,"result":{"found":false}}

``-->`` lines are written to the server as they come; each ``<--`` line reads
the next message from the server and compares it structurally (member order
ignored, numbers by value, a batch answer as a multiset, ``[..]`` in a string
matching any run of characters, the string ``"{...}"`` matching any value).
``<-- (none)``: nothing may arrive before the response to the request on the
next ``-->`` line. At the end the server's input is closed; it must exit with
the expected code (``// exit-code: N``, default 0) without another message.

Use :func:`replay` from tests, or the command line::

    python -m larder.transcript [--binary PATH] protocol/transcripts
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Literal

from .client import find_binary

__all__ = [
    "Step",
    "Transcript",
    "TranscriptSyntaxError",
    "ReplayFailure",
    "parse",
    "load",
    "matches",
    "mismatch",
    "replay",
    "find_transcripts",
    "main",
]

ANY_VALUE = "{...}"
ANY_RUN = "[..]"
DEFAULT_TIMEOUT = 10.0


@dataclass
class Step:
    """One line that does something: ``send`` (``-->``), ``expect`` (``<--
    JSON``; ``expected`` holds the parsed JSON) or ``none`` (``<-- (none)``)."""

    kind: Literal["send", "expect", "none"]
    text: str
    line: int
    expected: Any = None


@dataclass
class Transcript:
    steps: list[Step] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    framing: Literal["lines", "content-length"] = "lines"
    exit_code: int = 0
    path: str | None = None

    @property
    def name(self) -> str:
        return os.path.basename(self.path) if self.path else "<transcript>"


class TranscriptSyntaxError(ValueError):
    """A transcript that cannot be read."""


class ReplayFailure(AssertionError):
    """The server did not do what the transcript says.

    Attributes: ``transcript`` (its path), ``line`` (1-based, or None for the
    ending), ``reason``, ``stderr`` (the tail of the server's stderr).
    """

    def __init__(self, transcript: str, line: int | None, reason: str, stderr: str = "") -> None:
        self.transcript = transcript
        self.line = line
        self.reason = reason
        self.stderr = stderr
        where = f"{transcript}:{line}" if line is not None else f"{transcript} (at the end)"
        message = f"{where}: {reason}"
        if stderr.strip():
            message += "\n--- larder stderr (tail) ---\n" + stderr.rstrip()
        super().__init__(message)


# ----------------------------------------------------------------------
# Reading


def parse(text: str, path: str | None = None) -> Transcript:
    """Parses a transcript's text."""
    t = Transcript(path=path)
    where = path or "<transcript>"
    seen_send = False
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line.strip():
            continue
        if line.startswith("//"):
            comment = line[2:].strip()
            if seen_send:
                continue
            directive, sep, value = comment.partition(":")
            directive = directive.strip().lower()
            if not sep or directive not in ("args", "framing", "exit-code"):
                continue
            value = value.strip()
            if directive == "args":
                t.args += [a for a in value.split(" ") if a]
            elif directive == "framing":
                if value not in ("content-length", "lines"):
                    raise TranscriptSyntaxError(f"{where}:{number}: unknown framing {value!r}")
                t.framing = value  # type: ignore[assignment]
            else:
                try:
                    t.exit_code = int(value)
                except ValueError:
                    raise TranscriptSyntaxError(f"{where}:{number}: exit-code must be an integer, not {value!r}") from None
            continue
        if line.startswith("-->"):
            body = line[3:]
            if body.startswith(" "):
                body = body[1:]
            t.steps.append(Step("send", body, number))
            seen_send = True
            continue
        if line.startswith("<--"):
            body = line[3:].strip()
            if body == "(none)":
                t.steps.append(Step("none", body, number))
                continue
            try:
                expected = json.loads(body)
            except ValueError as e:
                raise TranscriptSyntaxError(f"{where}:{number}: the expected message is not JSON: {e}") from None
            t.steps.append(Step("expect", body, number, expected))
            continue
        raise TranscriptSyntaxError(f"{where}:{number}: a line must start with -->, <-- or //: {line[:80]!r}")
    return t


def load(path: str | os.PathLike[str]) -> Transcript:
    """Reads a transcript file."""
    return parse(Path(path).read_text(encoding="utf-8"), os.fspath(path))


def find_transcripts(*paths: str | os.PathLike[str]) -> list[Path]:
    """The ``*.transcript`` files given, or inside the folders given, sorted."""
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found += sorted(p.glob("*.transcript"))
        else:
            found.append(p)
    return found


# ----------------------------------------------------------------------
# Matching


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _pattern(expected: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in expected.split(ANY_RUN)), re.DOTALL)


def _kind(x: Any) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "boolean"
    if _is_number(x):
        return "number"
    if isinstance(x, str):
        return "string"
    if isinstance(x, list):
        return "array"
    return "object"


def _short(x: Any) -> str:
    text = json.dumps(x, ensure_ascii=False)
    return text if len(text) <= 200 else text[:197] + "..."


def mismatch(expected: Any, actual: Any, path: str = "$") -> str | None:
    """Why ``actual`` does not match ``expected`` (None when it does), for
    values below the top level (arrays compare element by element)."""
    if isinstance(expected, str):
        if expected == ANY_VALUE:
            return None
        if not isinstance(actual, str):
            return f"{path}: expected string {_short(expected)}, got {_kind(actual)} {_short(actual)}"
        if ANY_RUN in expected:
            ok = _pattern(expected).fullmatch(actual) is not None
        else:
            ok = expected == actual
        return None if ok else f"{path}: expected {_short(expected)}, got {_short(actual)}"
    if _is_number(expected):
        if not _is_number(actual) or expected != actual:
            return f"{path}: expected {_short(expected)}, got {_short(actual)}"
        return None
    if expected is None or isinstance(expected, bool):
        if actual is expected:
            return None
        return f"{path}: expected {_short(expected)}, got {_short(actual)}"
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{path}: expected an array, got {_kind(actual)} {_short(actual)}"
        if len(expected) != len(actual):
            return f"{path}: expected {len(expected)} elements, got {len(actual)}: {_short(actual)}"
        for k, (e, a) in enumerate(zip(expected, actual)):
            why = mismatch(e, a, f"{path}[{k}]")
            if why:
                return why
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {_kind(actual)} {_short(actual)}"
        missing = [k for k in expected if k not in actual]
        extra = [k for k in actual if k not in expected]
        if missing or extra:
            parts = []
            if missing:
                parts.append("missing " + ", ".join(missing))
            if extra:
                parts.append("unexpected " + ", ".join(f"{k}={_short(actual[k])}" for k in extra))
            return f"{path}: {'; '.join(parts)}"
        for k in expected:
            why = mismatch(expected[k], actual[k], f"{path}.{k}")
            if why:
                return why
        return None
    raise TypeError(f"not a JSON value: {expected!r}")


def _multiset_mismatch(expected: list[Any], actual: list[Any]) -> str | None:
    """A batch answer: the same elements in any order (a perfect matching)."""
    if not isinstance(actual, list):
        return f"$: expected a batch (array), got {_kind(actual)} {_short(actual)}"
    if len(expected) != len(actual):
        return f"$: expected a batch of {len(expected)}, got {len(actual)}: {_short(actual)}"
    fits = [[mismatch(e, a) is None for a in actual] for e in expected]
    owner: list[int | None] = [None] * len(actual)

    def assign(i: int, seen: set[int]) -> bool:
        for j, ok in enumerate(fits[i]):
            if ok and j not in seen:
                seen.add(j)
                if owner[j] is None or assign(owner[j], seen):  # type: ignore[arg-type]
                    owner[j] = i
                    return True
        return False

    for i in range(len(expected)):
        if not assign(i, set()):
            return f"$: no answer in the batch matches {_short(expected[i])}; got {_short(actual)}"
    return None


def message_mismatch(expected: Any, actual: Any) -> str | None:
    """Why a whole message does not match (None when it does)."""
    if isinstance(expected, list):
        return _multiset_mismatch(expected, actual)
    return mismatch(expected, actual)


def matches(expected: Any, actual: Any) -> bool:
    """True when the message ``actual`` matches ``expected``."""
    return message_mismatch(expected, actual) is None


# ----------------------------------------------------------------------
# Replaying


def _id_key(value: Any) -> Any:
    if _is_number(value):
        return ("n", float(value))
    return ("v", value) if isinstance(value, (str, type(None))) else ("x", json.dumps(value))


def _request_ids(text: str) -> set[Any] | None:
    """The ids answered to for a ``-->`` message: those of its requests; the
    null id for text that is not JSON; None when nothing is answered."""
    try:
        message = json.loads(text)
    except ValueError:
        return {_id_key(None)}
    items = message if isinstance(message, list) else [message]
    ids = {_id_key(m["id"]) for m in items if isinstance(m, dict) and "method" in m and "id" in m}
    return ids or None


def _answers(message: Any, ids: set[Any]) -> bool:
    items = message if isinstance(message, list) else [message]
    return any(
        isinstance(m, dict) and "method" not in m and "id" in m and _id_key(m["id"]) in ids for m in items
    )


class _Server:
    """The ``larder`` process under replay and a thread reading its messages."""

    def __init__(self, command: list[str], framing: str) -> None:
        self.framing = framing
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=100)
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr_thread = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_thread.start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                body = self._read_line(out) if self.framing == "lines" else self._read_framed(out)
                if body is None:
                    break
                try:
                    self.messages.put(("message", json.loads(body)))
                except ValueError:
                    self.messages.put(("garbage", body.decode("utf-8", "replace")))
        except (OSError, ValueError) as e:
            self.messages.put(("garbage", f"<reading failed: {e}>"))
        finally:
            self.messages.put(("eof", None))

    @staticmethod
    def _read_line(out: Any) -> bytes | None:
        while True:
            line = out.readline()
            if not line:
                return None
            if line.strip():
                return line.rstrip(b"\r\n")

    @staticmethod
    def _read_framed(out: Any) -> bytes | None:
        length = None
        while True:
            line = out.readline()
            if not line:
                return None
            line = line.rstrip(b"\r\n")
            if not line:
                if length is None:
                    continue
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        body = out.read(length)
        return body if len(body) == length else None

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def stderr_tail(self) -> str:
        self._stderr_thread.join(0.5)
        return "".join(self.stderr)

    def send(self, text: str) -> None:
        body = text.encode("utf-8")
        if self.framing == "content-length":
            data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        else:
            data = body + b"\n"
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next(self, timeout: float) -> tuple[str, Any]:
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            return ("timeout", None)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for s in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                s.close()  # type: ignore[union-attr]
            except (OSError, ValueError):
                pass


def replay(
    transcript: Transcript | str | os.PathLike[str],
    binary: str | os.PathLike[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> None:
    """Plays a transcript (a :class:`Transcript` or a file) against a fresh
    ``larder``; raises :class:`ReplayFailure` at the first difference."""
    t = transcript if isinstance(transcript, Transcript) else load(transcript)
    name = t.path or "<transcript>"
    args = list(t.args)
    store_dir = None
    if "--memory" not in args and "--store" not in args:
        store_dir = tempfile.mkdtemp(prefix="larder-transcript-")
        args = ["--store", store_dir, *args]
    server = _Server([find_binary(binary), *args], t.framing)
    try:
        _play(t, server, name, timeout)
    finally:
        server.stop()
        if store_dir:
            shutil.rmtree(store_dir, ignore_errors=True)


def _play(t: Transcript, server: _Server, name: str, timeout: float) -> None:
    def fail(line: int | None, reason: str) -> None:
        raise ReplayFailure(name, line, reason, server.stderr_tail())

    waiting_for_none = False  # a (none) whose barrier request was not sent yet
    barrier: tuple[set[Any], int] | None = None  # ids, line of the (none)

    for step in t.steps:
        if step.kind == "none":
            waiting_for_none = True
            barrier_line = step.line
            continue
        if step.kind == "send":
            if waiting_for_none:
                ids = _request_ids(step.text)
                if ids is not None:
                    barrier = (ids, barrier_line)
                    waiting_for_none = False
            try:
                server.send(step.text)
            except (OSError, ValueError):
                fail(step.line, f"the server stopped reading (exit status {server.proc.poll()})")
            continue
        kind, message = server.next(timeout)
        if kind == "timeout":
            fail(step.line, f"no message within {timeout}s; expected {step.text}")
        if kind == "eof":
            server.proc.wait()
            fail(step.line, f"the server closed its output (exit status {server.proc.returncode}); expected {step.text}")
        if kind == "garbage":
            fail(step.line, f"the server sent something that is not JSON: {message!r}")
        if barrier is not None:
            ids, none_line = barrier
            if not _answers(message, ids):
                fail(step.line, f"line {none_line} says nothing arrives before the answer to the next request, "
                                f"but the server sent {_short(message)}")
            barrier = None
        why = message_mismatch(step.expected, message)
        if why:
            fail(step.line, f"{why}\n  expected: {step.text}\n  received: {json.dumps(message, ensure_ascii=False)}")

    # The ending: close the input; no further message; the expected exit code.
    try:
        assert server.proc.stdin is not None
        server.proc.stdin.close()
    except (OSError, ValueError):
        pass
    while True:
        kind, message = server.next(timeout)
        if kind == "eof":
            break
        if kind == "timeout":
            fail(None, f"the server did not close its output within {timeout}s after its input was closed")
        fail(None, f"a message arrived after the last line: {_short(message)}")
    try:
        code = server.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        fail(None, f"the server did not exit within {timeout}s after its input was closed")
        return
    if code != t.exit_code:
        fail(None, f"the server exited with {code}, expected {t.exit_code}")


def main(argv: Iterable[str] | None = None) -> int:
    """``python -m larder.transcript [--binary PATH] [--timeout S] PATH...``"""
    parser = argparse.ArgumentParser(prog="python -m larder.transcript", description="Replays Larder transcripts.")
    parser.add_argument("paths", nargs="+", help="transcript files or folders of *.transcript")
    parser.add_argument("--binary", help="the larder executable (default: $LARDER_BIN, PATH, the build folder)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds to wait for each message")
    options = parser.parse_args(list(argv) if argv is not None else None)
    files = find_transcripts(*options.paths)
    failed = 0
    for f in files:
        try:
            replay(f, options.binary, options.timeout)
            print(f"ok    {f}")
        except (ReplayFailure, TranscriptSyntaxError) as e:
            failed += 1
            print(f"FAIL  {e}")
    print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed or not files else 0


if __name__ == "__main__":
    sys.exit(main())
