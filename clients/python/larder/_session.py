"""The JSON-RPC session with one sidecar, with no I/O: what both transports
(the threads of :mod:`larder.connection`, the tasks of
:mod:`larder.aio.connection`) share, so that each only moves bytes and
decides where code runs.

A :class:`Session` numbers requests and encodes them (with their
``workDoneToken`` when a call takes ``progress``), sorts what the sidecar
sends — an answer goes to the transport by request id, unless its caller
gave up on it; a server request, a ``$/cancelRequest`` for one, a
``$/progress`` and an event notification each go to the transport's hook for
them — writes the answer to a server request from its handler's outcome, and
keeps how the sidecar ended and the tail of its stderr.
"""

from __future__ import annotations

import collections
import logging
from typing import Any, Callable

from ._steps import Steps
from .errors import LarderError, MethodNotFound
from .wire import Message, encode_burst, encode_request, encode_response

__all__ = ["Handler", "Session", "hashable"]

log = logging.getLogger("larder")

Handler = Callable[[Any], Any]
#: What a transport does with a server request (id, method, params).
Serve = Callable[[Any, str, Any], None]
#: What it does with the server's ``$/cancelRequest`` for one of its own
#: requests; ``False`` when it is not answering that one (the notification
#: then goes to the event handlers, as any other).
Cancel = Callable[[Any], bool]
#: How it queues a callback: ``fn`` and its arguments, run in arrival order.
Queue = Callable[[Handler, tuple[Any, ...]], None]

_STDERR_TAIL_LINES = 200


def hashable(value: Any) -> bool:
    """Whether a request id or token from the sidecar can be looked up."""
    return isinstance(value, (int, str, float, type(None)))


class Session:
    """One connection's JSON-RPC state (see the module docstring). The
    transport gives the hooks: ``serve`` for a server request, ``cancel``
    for the server's ``$/cancelRequest``, ``queue`` for a callback; it holds
    whatever lock its threads need around :meth:`requests` and
    :meth:`burst`."""

    def __init__(self, serve: Serve, cancel: Cancel, queue: Queue) -> None:
        self._serve = serve
        self._cancel = cancel
        self._queue = queue
        #: The id the next request gets.
        self.next_id = 1
        #: ``$/progress`` tokens of requests still out, and where their values go.
        self.progress: dict[Any, Handler] = {}
        #: Requests whose callers stopped waiting: their answers are dropped.
        self.abandoned: set[int] = set()
        #: The handler of each server-request method (:meth:`answer`).
        self.request_handlers: dict[str, Handler] = {}
        #: The handlers of each notification method.
        self.event_handlers: dict[str, list[Handler]] = {}
        #: ``SidecarExited``'s arguments once the sidecar has ended.
        self.exit_info: tuple[int | None, str, str | None] | None = None
        #: Set when the client closes, so that an exit then is no failure.
        self.closing = False
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL_LINES)

    # ------------------------------------------------------------------
    # Requests

    def track_progress(self, rid: int, params: Any, progress: Handler) -> tuple[dict[str, Any], Any]:
        """``params`` with a ``workDoneToken`` (unless it has one) whose
        ``$/progress`` values go to ``progress``, and the token."""
        params = dict(params or {})
        token = params.setdefault("workDoneToken", f"python-{rid}")
        self.progress[token] = progress
        return params, token

    def forget_progress(self, token: Any) -> None:
        """Stops routing ``$/progress`` for ``token`` (its request is answered)."""
        self.progress.pop(token, None)

    def request(self, method: str, params: Any, progress: Handler | None = None) -> tuple[int, Any, bytes]:
        """Numbers and encodes one request: its id, progress token (or
        ``None``) and line. :class:`TypeError` for params JSON cannot hold."""
        rid = self.next_id
        token = None
        if progress is not None:
            params, token = self.track_progress(rid, params, progress)
        try:
            line = encode_request(rid, method, params)
        except (TypeError, ValueError) as e:
            self.forget_progress(token)
            raise TypeError(f"parameters are not JSON: {e}") from e
        self.next_id = rid + 1
        return rid, token, line.encode("utf-8")

    def requests(self, calls: list[tuple[str, Any, Handler | None]], batch: bool = False
                 ) -> tuple[int, list[Any], bytes]:
        """Numbers and encodes requests ``(method, params, progress)`` as one
        burst (a JSON array when ``batch``): the id of the first (the others
        follow one by one), each one's progress token (or ``None``), and the
        bytes. Nothing is numbered or tracked when one cannot be encoded."""
        first = self.next_id
        tokens: list[Any] = []
        lines: list[str] = []
        try:
            for rid, (method, params, progress) in enumerate(calls, first):
                token = None
                if progress is not None:
                    params, token = self.track_progress(rid, params, progress)
                tokens.append(token)
                lines.append(encode_request(rid, method, params))
        except (TypeError, ValueError) as e:
            for token in tokens:
                self.forget_progress(token)
            raise TypeError(f"parameters are not JSON: {e}") from e
        self.next_id = first + len(calls)
        payload = "[" + ",".join(line[:-1] for line in lines) + "]\n" if batch else "".join(lines)
        return first, tokens, payload.encode("utf-8")

    def burst(self, methods: list[str], params: list[Any]) -> tuple[int, bytes]:
        """Numbers and encodes requests without progress, each method beside
        its params, in one burst: the id of the first, and the bytes."""
        first = self.next_id
        try:
            payload = encode_burst(first, methods, params)
        except (TypeError, ValueError) as e:
            raise TypeError(f"parameters are not JSON: {e}") from e
        self.next_id = first + len(methods)
        return first, payload.encode("utf-8")

    # ------------------------------------------------------------------
    # What the sidecar sends

    def file(self, messages: list[Any], answer: Callable[[int, Message], Any]) -> None:
        """Sorts decoded messages: each answer to a request still waited for
        goes to ``answer(id, message)``, which returns ``False`` when no
        request waits for it; the rest go to the hooks."""
        abandoned = self.abandoned
        for m in messages:
            # The common case first: an answer to a request still waited for.
            if type(m) is dict and "method" not in m:
                rid = m.get("id")
                if type(rid) is int:
                    if rid not in abandoned:
                        if answer(rid, m) is not False:
                            continue
                    else:
                        abandoned.discard(rid)
                        continue
                if "error" in m:
                    log.warning("larder answered an error to no known request: %s", m.get("error"))
                else:
                    log.warning("larder answered an unknown request id %r", rid)
            elif type(m) is not dict:
                log.warning("larder sent a message that is not an object: %r", m)
            else:
                self._incoming(m)

    def _incoming(self, message: Message) -> None:
        method = message["method"]
        params = message.get("params")
        if not isinstance(method, str):
            log.warning("larder sent a message with a method that is not a string: %r", message)
        elif "id" in message:
            self._serve(message["id"], method, params)
        elif method == "$/cancelRequest" and isinstance(params, dict) and hashable(params.get("id")) \
                and self._cancel(params["id"]):
            pass
        elif method == "$/progress" and isinstance(params, dict) and hashable(params.get("token")) \
                and params.get("token") in self.progress:
            self._queue(self.progress[params["token"]], (params.get("value"),))
        else:
            handlers = self.event_handlers.get(method)
            if not handlers:
                log.debug("unhandled notification %s", method)
                return
            for fn in list(handlers):
                self._queue(fn, (params,))

    def answer(self, rid: Any, method: str, params: Any) -> Steps[bytes]:
        """The line answering a server request, as an operation (see
        :mod:`larder._steps`): it yields what the handler returned, which the
        asyncio transport awaits, and returns the result, or the handler's
        :class:`~larder.LarderError`, or -32603 for any other exception, or
        -32601 when no handler is registered."""
        fn = self.request_handlers.get(method)
        if fn is None:
            return encode_response(rid, error=MethodNotFound(f"Method not found: {method}").to_json())
        try:
            return encode_response(rid, (yield fn({} if params is None else params)))
        except LarderError as e:
            return encode_response(rid, error=e.to_json())
        except Exception as e:
            log.exception("the handler for %s failed", method)
            return encode_response(rid, error={"code": -32603, "message": f"Internal error: {type(e).__name__}: {e}"})

    # ------------------------------------------------------------------
    # The end

    def heard(self, line: bytes) -> None:
        """A line the sidecar wrote to stderr: kept in the tail, logged."""
        text = line.decode("utf-8", "replace")
        self._stderr_tail.append(text)
        log.debug("larder stderr: %s", text.rstrip())

    @property
    def stderr_tail(self) -> str:
        """The last lines the sidecar wrote to stderr."""
        return "".join(self._stderr_tail)

    def ended(self, returncode: int | None) -> tuple[int | None, str, str | None]:
        """``SidecarExited``'s arguments for output that ended with the
        process's ``returncode``: an exit 0 while closing is the client's
        doing."""
        reason = "the larder client was closed" if self.closing and returncode == 0 else None
        return returncode, self.stderr_tail, reason

    def end(self, info: tuple[int | None, str, str | None]) -> bool:
        """Marks the session ended with ``info`` unless it already is;
        whether it did."""
        if self.exit_info is not None:
            return False
        self.exit_info = info
        return True
