"""The pipes to one ``larder`` process, for asyncio.

One reader task reads the sidecar's output, cuts it into lines
(:class:`~larder.wire.Lines`), and settles each answer's future, found by
request id in a dict. Event notifications and ``$/progress`` go to a queue
that one callback task works through in arrival order. Each
server-to-client request is answered by a task of its own, so that a slow
answer (a ``cache.fetch`` that goes to the network) holds up neither the
events nor the other requests; the server's ``$/cancelRequest`` for it
cancels that task. Callbacks may be plain functions or coroutine
functions, and may call the server themselves (the reader goes on reading
meanwhile).

When the output ends — the sidecar exited or was killed — every waiting
call, and every later one, fails with :class:`~larder.SidecarExited`
carrying the exit status and the tail of stderr.
"""

from __future__ import annotations

import asyncio
import collections
import inspect
import logging
from typing import Any, Callable

from ..errors import LarderError, MethodNotFound, SidecarExited
from ..wire import Lines, Message, decode_lines, encode_notification, encode_request, encode_response, result_of

__all__ = ["AsyncConnection"]

log = logging.getLogger("larder")

Handler = Callable[[Any], Any]
Shape = Callable[[Any], Any] | None

_STDERR_TAIL_LINES = 200
_READ_SIZE = 1 << 18


class AsyncConnection:
    """Requests and answers over an asyncio subprocess's stdin and stdout."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        if process.stdin is None or process.stdout is None or process.stderr is None:
            raise ValueError("the process needs pipes for stdin, stdout and stderr")
        self.process = process
        self._stdin = process.stdin
        self._next_id = 1
        #: Each request waiting for its answer: id → (future, shape).
        self._pending: dict[int, tuple[asyncio.Future[Any], Shape]] = {}
        self._progress: dict[Any, Handler] = {}
        #: Requests whose callers stopped waiting: their answers are dropped.
        self._abandoned: set[int] = set()
        self.request_handlers: dict[str, Handler] = {}
        self.event_handlers: dict[str, list[Handler]] = {}
        self.exit_info: tuple[int | None, str, str | None] | None = None
        self.closing = False
        self._input_closed = False
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL_LINES)
        #: The task answering each server-to-client request, by its id.
        self._answering: dict[Any, asyncio.Task[None]] = {}
        self._callbacks: asyncio.Queue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = asyncio.Queue()
        pid = process.pid
        self._stderr_task = asyncio.create_task(self._read_stderr(), name=f"larder-{pid}-stderr")
        self.reader_task = asyncio.create_task(self._read(), name=f"larder-{pid}-reader")
        self.callback_task = asyncio.create_task(self._run_callbacks(), name=f"larder-{pid}-callbacks")

    @property
    def stderr_tail(self) -> str:
        return "".join(self._stderr_tail)

    # ------------------------------------------------------------------
    # Requests

    async def request(self, method: str, params: Any, shape: Shape = None, progress: Handler | None = None) -> Any:
        """Sends one request and returns its result (shaped), or raises its
        error. Cancelling the awaiting task sends ``$/cancelRequest``."""
        [(rid, future, token)] = self.start([(method, params, shape, progress)])
        try:
            await self.drain()
            result = await future
        except asyncio.CancelledError:
            if self._pending.pop(rid, None) is not None:
                self._abandoned.add(rid)
                self._cancel_quietly(rid)
            raise
        finally:
            if token is not None:
                self.forget_progress(token)
        if token is not None:
            await self.wait_for_callbacks()
        return result

    def start(self, calls: list[tuple[str, Any, Shape, Handler | None]], batch: bool = False
              ) -> list[tuple[int, asyncio.Future[Any], Any]]:
        """Writes requests in one burst (a JSON array when ``batch``), each
        ``(method, params, shape, progress)``, without waiting for room in
        the pipe (see :meth:`drain`). Returns each request's id, the future
        of its shaped result, and its progress token (or ``None``)."""
        if self.exit_info is not None:
            raise SidecarExited(*self.exit_info)
        if self._input_closed:
            raise SidecarExited(self.process.returncode, self.stderr_tail, "the larder client was closed")
        loop = asyncio.get_running_loop()
        first = self._next_id
        sent: list[tuple[int, asyncio.Future[Any], Any]] = []
        lines: list[str] = []
        tokens: list[Any] = []
        try:
            for rid, (method, params, shape, progress) in enumerate(calls, first):
                token = None
                if progress is not None:
                    params = dict(params or {})
                    token = params.setdefault("workDoneToken", f"python-{rid}")
                    self._progress[token] = progress
                    tokens.append(token)
                lines.append(encode_request(rid, method, params))
                sent.append((rid, loop.create_future(), token))
        except (TypeError, ValueError) as e:
            for token in tokens:
                self._progress.pop(token, None)
            raise TypeError(f"parameters are not JSON: {e}") from e
        if batch:
            payload = "[" + ",".join(line[:-1] for line in lines) + "]\n"
        else:
            payload = "".join(lines)
        self._next_id = first + len(calls)
        for (rid, future, _), call in zip(sent, calls):
            self._pending[rid] = (future, call[2])
        self._write(payload.encode("utf-8"))
        return sent

    def _write(self, data: bytes) -> None:
        """Writes ``data`` unless the sidecar's input has closed: then it has
        gone, and the reader fails every waiting future once its output ends."""
        if not self._stdin.is_closing():
            self._stdin.write(data)

    def forget_progress(self, token: Any) -> None:
        """Stops routing ``$/progress`` for ``token`` (its request is answered)."""
        self._progress.pop(token, None)

    async def drain(self) -> None:
        """Waits while the sidecar's input pipe is full. A pipe that closed
        is not an error here: the sidecar has gone, and the reader fails
        every waiting future once its output ends."""
        try:
            await self._stdin.drain()
        except (ConnectionError, OSError) as e:
            log.debug("writing to larder failed: %s", e)

    async def notify(self, method: str, params: Any = None) -> None:
        """Sends a notification."""
        if self.exit_info is not None:
            raise SidecarExited(*self.exit_info)
        self._write(encode_notification(method, params))
        await self.drain()

    def _cancel_quietly(self, rid: int) -> None:
        """Asks the server to cancel ``rid``, whose answer nobody waits for now."""
        if self.exit_info is None:
            self._write(encode_notification("$/cancelRequest", {"id": rid}))

    # ------------------------------------------------------------------
    # Reading

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        lines = Lines()
        try:
            while True:
                data = await stdout.read(_READ_SIZE)
                if not data:
                    break
                complete = lines.feed(data)
                if complete:
                    self._file(decode_lines(complete))
        except (ConnectionError, OSError) as e:
            log.debug("reading larder's output failed: %s", e)
        except asyncio.CancelledError:
            # The event loop is shutting down with the client still open: close
            # the sidecar's input, so that it exits on its own, without waiting.
            self.close_input()
            self.end((self.process.returncode, self.stderr_tail, "the event loop stopped with the client open"))
            raise
        await self._output_ended()

    def _file(self, messages: list[Any]) -> None:
        """Settles answers' futures; queues callbacks for the rest."""
        pending = self._pending
        for m in messages:
            if type(m) is not dict:
                log.warning("larder sent a message that is not an object: %r", m)
            elif "method" in m:
                self._incoming(m)
            else:
                rid = m.get("id")
                waiting = pending.pop(rid, None) if type(rid) is int else None
                if waiting is None:
                    if type(rid) is int and rid in self._abandoned:
                        self._abandoned.discard(rid)
                    elif "error" in m:
                        log.warning("larder answered an error to no known request: %s", m.get("error"))
                    else:
                        log.warning("larder answered an unknown request id %r", rid)
                    continue
                future, shape = waiting
                if future.done():
                    continue
                try:
                    future.set_result(result_of(m, shape))
                except Exception as e:  # the request's error, or a malformed answer
                    future.set_exception(e)

    def _incoming(self, message: Message) -> None:
        method = message["method"]
        params = message.get("params")
        if not isinstance(method, str):
            log.warning("larder sent a message with a method that is not a string: %r", message)
        elif "id" in message:
            rid = message["id"]
            task = asyncio.create_task(self._answer_request(rid, method, params), name=f"larder-answer-{rid}")
            if _hashable(rid):
                self._answering[rid] = task
                task.add_done_callback(lambda _: self._answering.pop(rid, None))
        elif method == "$/cancelRequest" and isinstance(params, dict) and _hashable(params.get("id")):
            # The server stopped waiting for one of its requests: stop answering it.
            answering = self._answering.get(params["id"])
            if answering is not None:
                answering.cancel()
        elif method == "$/progress" and isinstance(params, dict) and _hashable(params.get("token")) \
                and params.get("token") in self._progress:
            self._callbacks.put_nowait((self._progress[params["token"]], (params.get("value"),)))
        else:
            handlers = self.event_handlers.get(method)
            if not handlers:
                log.debug("unhandled notification %s", method)
                return
            for fn in list(handlers):
                self._callbacks.put_nowait((fn, (params,)))

    async def _output_ended(self) -> None:
        """The sidecar's output closed: learn how it ended, and fail every
        waiting call."""
        try:
            returncode: int | None = await asyncio.wait_for(self.process.wait(), 5.0)
        except asyncio.TimeoutError:
            returncode = None
        try:
            await asyncio.wait_for(asyncio.shield(self._stderr_task), 2.0)
        except asyncio.TimeoutError:
            pass
        reason = "the larder client was closed" if self.closing and returncode == 0 else None
        self.end((returncode, self.stderr_tail, reason))

    def end(self, info: tuple[int | None, str, str | None]) -> None:
        """Marks the connection ended with ``info`` (``SidecarExited``'s
        arguments) unless it already is; fails every waiting call."""
        if self.exit_info is not None:
            return
        self.exit_info = info
        for answering in list(self._answering.values()):  # no answer can reach the sidecar now
            answering.cancel()
        pending, self._pending = self._pending, {}
        for future, _ in pending.values():
            if not future.done():
                future.set_exception(SidecarExited(*info))
        self._callbacks.put_nowait(None)

    async def _read_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        try:
            async for line in stderr:
                text = line.decode("utf-8", "replace")
                self._stderr_tail.append(text)
                log.debug("larder stderr: %s", text.rstrip())
        except (ConnectionError, OSError, ValueError):
            pass

    # ------------------------------------------------------------------
    # Callbacks

    async def wait_for_callbacks(self) -> None:
        """Returns once the callbacks queued so far have run (at once on the
        callback task itself, or after the end)."""
        if asyncio.current_task() is self.callback_task or self.callback_task.done():
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._callbacks.put_nowait((done.set_result, (None,)))
        await asyncio.wait([done, self.callback_task], return_when=asyncio.FIRST_COMPLETED)

    async def _answer_request(self, rid: Any, method: str, params: Any) -> None:
        fn = self.request_handlers.get(method)
        if fn is None:
            payload = encode_response(rid, error=MethodNotFound(f"Method not found: {method}").to_json())
        else:
            try:
                result = fn({} if params is None else params)
                if inspect.isawaitable(result):
                    result = await result
                payload = encode_response(rid, result)
            except LarderError as e:
                payload = encode_response(rid, error=e.to_json())
            except Exception as e:
                log.exception("the handler for %s failed", method)
                payload = encode_response(rid, error={"code": -32603,
                                                      "message": f"Internal error: {type(e).__name__}: {e}"})
        if self.exit_info is None:
            self._write(payload)
            await self.drain()

    async def _run_callbacks(self) -> None:
        while True:
            item = await self._callbacks.get()
            if item is None:
                return
            fn, args = item
            try:
                result = fn(*args)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("a larder callback failed")

    # ------------------------------------------------------------------
    # Closing

    def close_input(self) -> None:
        self._input_closed = True
        if not self._stdin.is_closing():
            self._stdin.close()

    async def join(self, timeout: float) -> None:
        """After the process has exited: waits for the tasks to finish
        (cancelling a callback still running after ``timeout``)."""
        await asyncio.wait([self.reader_task, self._stderr_task], timeout=timeout)
        answering = [t for t in self._answering.values() if t is not asyncio.current_task()]
        if answering:  # cancelled when the output ended
            await asyncio.wait(answering, timeout=timeout)
        self._callbacks.put_nowait(None)
        if asyncio.current_task() is not self.callback_task:
            done, _ = await asyncio.wait([self.callback_task], timeout=min(timeout, 2.0))
            if not done:
                self.callback_task.cancel()


def _hashable(value: Any) -> bool:
    return isinstance(value, (int, str, float, type(None)))
