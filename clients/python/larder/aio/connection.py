"""The pipes to one ``larder`` process, for asyncio: the transport under the
same :class:`~larder._session.Session` as the threaded one.

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
import inspect
import logging
from typing import Any, Callable

from .._session import Handler, Session, hashable
from .._steps import run_async
from ..errors import SidecarExited
from ..wire import Lines, Message, decode_lines, encode_notification, result_of

__all__ = ["AsyncConnection"]

log = logging.getLogger("larder")

Shape = Callable[[Any], Any] | None

_READ_SIZE = 1 << 18


class AsyncConnection:
    """Requests and answers over an asyncio subprocess's stdin and stdout."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        if process.stdin is None or process.stdout is None or process.stderr is None:
            raise ValueError("the process needs pipes for stdin, stdout and stderr")
        self.process = process
        self._stdin = process.stdin
        #: The JSON-RPC state: ids, progress, handlers, how the sidecar ended.
        self.session = Session(self._serve, self._server_cancelled, self._queue)
        #: Each request waiting for its answer: id → (future, shape).
        self._pending: dict[int, tuple[asyncio.Future[Any], Shape]] = {}
        self._input_closed = False
        #: The task answering each server-to-client request, by its id.
        self._answering: dict[Any, asyncio.Task[None]] = {}
        self._callbacks: asyncio.Queue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = asyncio.Queue()
        pid = process.pid
        self._stderr_task = asyncio.create_task(self._read_stderr(), name=f"larder-{pid}-stderr")
        self.reader_task = asyncio.create_task(self._read(), name=f"larder-{pid}-reader")
        self.callback_task = asyncio.create_task(self._run_callbacks(), name=f"larder-{pid}-callbacks")

    @property
    def stderr_tail(self) -> str:
        return self.session.stderr_tail

    # ------------------------------------------------------------------
    # Requests

    async def request(self, method: str, params: Any, shape: Shape = None, progress: Handler | None = None) -> Any:
        """Sends one request and returns its result (shaped), or raises its
        error. Cancelling the awaiting task sends ``$/cancelRequest``."""
        self._check_open()
        rid, token, line = self.session.request(method, params, progress)
        future = self._expect(rid, shape)
        self._write(line)
        try:
            await self.drain()
            result = await future
        except asyncio.CancelledError:
            if self._pending.pop(rid, None) is not None:
                self.session.abandoned.add(rid)
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
        self._check_open()
        first, tokens, payload = self.session.requests([(m, p, progress) for m, p, _, progress in calls], batch)
        sent = [(rid, self._expect(rid, call[2]), token) for (rid, call), token in zip(enumerate(calls, first), tokens)]
        self._write(payload)
        return sent

    def _check_open(self) -> None:
        if self.session.exit_info is not None:
            raise SidecarExited(*self.session.exit_info)
        if self._input_closed:
            raise SidecarExited(self.process.returncode, self.stderr_tail, "the larder client was closed")

    def _expect(self, rid: int, shape: Shape) -> asyncio.Future[Any]:
        """The future that the answer to ``rid`` settles."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = (future, shape)
        return future

    def _write(self, data: bytes) -> None:
        """Writes ``data`` unless the sidecar's input has closed: then it has
        gone, and the reader fails every waiting future once its output ends."""
        if not self._stdin.is_closing():
            self._stdin.write(data)

    def forget_progress(self, token: Any) -> None:
        """Stops routing ``$/progress`` for ``token`` (its request is answered)."""
        self.session.forget_progress(token)

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
        if self.session.exit_info is not None:
            raise SidecarExited(*self.session.exit_info)
        self._write(encode_notification(method, params))
        await self.drain()

    def _cancel_quietly(self, rid: int) -> None:
        """Asks the server to cancel ``rid``, whose answer nobody waits for now."""
        if self.session.exit_info is None:
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
        """Settles answers' futures; the session hands the rest to the hooks."""
        self.session.file(messages, self._settle)

    def _settle(self, rid: int, message: Message) -> bool:
        """Settles the future waiting for ``rid``; ``False`` when none does."""
        waiting = self._pending.pop(rid, None)
        if waiting is None:
            return False
        future, shape = waiting
        if not future.done():
            try:
                future.set_result(result_of(message, shape))
            except Exception as e:  # the request's error, or a malformed answer
                future.set_exception(e)
        return True

    def _serve(self, rid: Any, method: str, params: Any) -> None:
        """A server request: answered on a task of its own."""
        task = asyncio.create_task(self._answer_request(rid, method, params), name=f"larder-answer-{rid}")
        if hashable(rid):
            self._answering[rid] = task
            task.add_done_callback(lambda _: self._answering.pop(rid, None))

    def _server_cancelled(self, rid: Any) -> bool:
        """The server stopped waiting for one of its requests: stop answering it."""
        answering = self._answering.get(rid)
        if answering is not None:
            answering.cancel()
        return True

    def _queue(self, fn: Handler, args: tuple[Any, ...]) -> None:
        self._callbacks.put_nowait((fn, args))

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
        self.end(self.session.ended(returncode))

    def end(self, info: tuple[int | None, str, str | None]) -> None:
        """Marks the connection ended with ``info`` (``SidecarExited``'s
        arguments) unless it already is; fails every waiting call."""
        if not self.session.end(info):
            return
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
                self.session.heard(line)
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
        payload = await run_async(self.session.answer(rid, method, params))
        if self.session.exit_info is None:
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
