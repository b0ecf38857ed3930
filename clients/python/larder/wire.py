"""How a call becomes bytes and bytes become answers: Larder's line framing
(one JSON message per line, each ended by LF, ``\\n``) with no I/O, so that
any transport — the threads of :class:`larder.Larder`, or an asyncio one —
can share it.

Encoding: :func:`encode_request` formats the JSON-RPC envelope around one
JSON encoding of the params (the envelope's own members never need
escaping), so a request costs one ``json`` call.

Decoding: :class:`Lines` cuts whatever was read into complete lines, and
:func:`decode_lines` decodes many at once with a single ``json.loads`` over
the lines joined into one array — much cheaper than one ``loads`` per line
for a pipeline's answers. :func:`result_of` turns an answer into its result
or raises the :class:`~larder.LarderError` for its error.
"""

from __future__ import annotations

import itertools
import json
import json.decoder
import json.encoder
import json.scanner
import logging
from typing import Any, Callable

from .errors import error_from_json

__all__ = [
    "Lines",
    "Message",
    "RawJSON",
    "decode_line",
    "decode_lines",
    "encode",
    "encode_burst",
    "encode_json",
    "encode_notification",
    "encode_request",
    "encode_string",
    "encode_response",
    "is_answer",
    "result_of",
]

log = logging.getLogger("larder")

#: A decoded JSON-RPC message.
Message = dict[str, Any]

def _unencodable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# The C encoder and scanner behind ``json.dumps``/``json.loads``, made once:
# the module-level functions rebuild them (or detect the text's encoding) on
# every call, which costs more than encoding a small request.
_c_encoder = getattr(json.encoder, "c_make_encoder", None)
if _c_encoder is not None:
    _encode_chunks = _c_encoder(None, _unencodable, json.encoder.encode_basestring, None, ":", ",",
                                False, False, False)

    def _dumps(value: Any) -> str:
        try:
            return "".join(_encode_chunks(value, 0))
        except RecursionError as e:
            raise ValueError(f"the value is nested too deeply or refers to itself: {e}") from None
else:  # pragma: no cover - Pythons without the C accelerator
    _dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False,  # type: ignore[assignment]
                              check_circular=False, default=_unencodable).encode

_scan: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(json.decoder.JSONDecoder())  # type: ignore[arg-type]
_loads = json.loads


def _decode(text: str) -> Any:
    """One JSON text: the scanner directly when it spans the whole text,
    ``json.loads`` (with its whitespace rules and error messages) otherwise."""
    try:
        value, end = _scan(text, 0)
        if end == len(text) or text[end:].isspace():
            return value
    except (StopIteration, ValueError):
        pass
    return _loads(text)


def encode_json(value: Any) -> str:
    """Compact JSON text for a value. ``TypeError`` or ``ValueError`` for
    what JSON cannot hold."""
    return _dumps(value)


#: The JSON text of a ``str`` (quoted and escaped as :func:`encode_json`
#: would write it).
encode_string: Callable[[str], str] = json.encoder.encode_basestring


def encode(message: Any) -> bytes:
    """Compact UTF-8 JSON for any message (no line end). ``TypeError`` or
    ``ValueError`` for what JSON cannot hold."""
    return _dumps(message).encode("utf-8")


#: The start of a request's envelope for a method, JSON-escaped once.
_method_heads: dict[str, str] = {}


def _method_head(method: str) -> str:
    head = _method_heads.get(method)
    if head is None:
        head = ',"method":' + _dumps(method)
        if len(_method_heads) < 4096:
            _method_heads[method] = head
    return head


class RawJSON(str):
    """Params already encoded as JSON text, sent exactly as written (one
    line: no LF inside). For replaying recorded requests byte for byte."""

    __slots__ = ()


def encode_request(request_id: int, method: str, params: Any = None) -> str:
    """One request line (with its ``\\n``) as text; encode the joined lines
    of a burst to UTF-8 once. ``params`` ``None`` leaves ``params`` out."""
    if params is None:
        return '{"jsonrpc":"2.0","id":%d%s}\n' % (request_id, _method_head(method))
    if type(params) is RawJSON:
        if "\n" in params:
            raise ValueError("raw params must be one line")
        return '{"jsonrpc":"2.0","id":%d%s,"params":%s}\n' % (request_id, _method_head(method), params)
    return '{"jsonrpc":"2.0","id":%d%s,"params":%s}\n' % (request_id, _method_head(method), _dumps(params))


def encode_burst(first_id: int, methods: list[str], params_of: list[Any]) -> str:
    """The request lines for each method with the params beside it,
    numbered from ``first_id``, as :func:`encode_request` writes each,
    joined."""
    lines: list[str] = []
    append = lines.append
    method_of = None
    head = ""
    for rid, method, params in zip(itertools.count(first_id), methods, params_of):
        if method is not method_of:
            head = _method_head(method)
            method_of = method
        if params is None:
            append('{"jsonrpc":"2.0","id":%d%s}\n' % (rid, head))
        elif type(params) is RawJSON:
            if "\n" in params:
                raise ValueError("raw params must be one line")
            append('{"jsonrpc":"2.0","id":%d%s,"params":%s}\n' % (rid, head, params))
        else:
            append('{"jsonrpc":"2.0","id":%d%s,"params":%s}\n' % (rid, head, _dumps(params)))
    return "".join(lines)


def encode_notification(method: str, params: Any = None) -> bytes:
    """One notification line (with its ``\\n``)."""
    message: Message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return encode(message) + b"\n"


def encode_response(request_id: Any, result: Any = None, error: Any = None) -> bytes:
    """The line answering a server-to-client request: ``error`` (a JSON-RPC
    error object) when given, else ``result``. A result JSON cannot hold is
    answered as -32603 instead."""
    message: Message = {"jsonrpc": "2.0", "id": request_id}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result
    try:
        return encode(message) + b"\n"
    except (TypeError, ValueError) as e:
        message.pop("result", None)
        message["error"] = {"code": -32603, "message": f"Internal error: the result is not JSON: {e}"}
        return encode(message) + b"\n"


class Lines:
    """Cuts a byte stream into lines. :meth:`feed` takes what one read
    returned and gives back the complete lines (without their ``\\n``),
    keeping a partial last line for the next read. A line ends at LF only;
    a CR before it is whitespace to JSON and left in place."""

    __slots__ = ("_partial",)

    def __init__(self) -> None:
        self._partial = b""

    def feed(self, data: bytes) -> list[bytes]:
        if self._partial:
            data = self._partial + data
        lines = data.split(b"\n")
        self._partial = lines.pop()
        return lines

    @property
    def pending(self) -> bool:
        """True while part of a line is held."""
        return bool(self._partial)


def decode_line(line: bytes) -> Any:
    """The message on one line (its ``\n`` may be included); ``None`` for
    a line that is not JSON (logged)."""
    try:
        return _decode(line.decode("utf-8"))
    except ValueError:
        return _bad(line)


def decode_lines(lines: list[bytes]) -> list[Any]:
    """The messages on ``lines``, in order. A line holding a batch (a JSON
    array) gives its elements. Blank lines are skipped; a line that is not
    JSON is logged and skipped."""
    if len(lines) == 1:
        message = decode_line(lines[0])
        if isinstance(message, list):
            return message
        return [] if message is None else [message]
    try:
        messages: list[Any] = _decode((b"[" + b",".join(lines) + b"]").decode("utf-8"))
    except ValueError:
        messages = []
        for line in lines:
            try:
                messages.append(_decode(line.decode("utf-8")))
            except ValueError:
                messages.append(_bad(line))
    if len(set(map(type, messages))) > 1 or type(messages[0]) is not dict:
        flat: list[Any] = []
        for m in messages:
            if isinstance(m, list):
                flat.extend(m)
            elif m is not None:
                flat.append(m)
        return flat
    return messages


def _bad(line: bytes) -> Any:
    """Logs a line that is not JSON; stands for it as ``None``."""
    if line.strip():
        log.warning("larder sent a line that is not JSON: %r", line[:200])
    return None


def is_answer(message: Any) -> bool:
    """True for a response (it has an ``id`` and no ``method``)."""
    return type(message) is dict and "method" not in message and "id" in message


def result_of(message: Message, shape: Callable[[Any], Any] | None = None) -> Any:
    """An answer's ``result`` (passed through ``shape`` when given), or its
    error raised as the :class:`~larder.LarderError` subclass for its code."""
    if "error" in message:
        raise error_from_json(message["error"])
    result = message.get("result")
    return result if shape is None else shape(result)
