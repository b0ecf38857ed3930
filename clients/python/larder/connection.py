"""The pipes to one ``larder`` process: writing requests, reading answers,
running callbacks. What the messages mean — ids, progress tokens, which
message is an answer, a server request or an event, the answer to a server
request — is :class:`~larder._session.Session`'s, shared with the asyncio
transport; this module moves bytes and decides which thread does what.

No thread reads the sidecar's output in the background. A thread that
waits for an answer reads it itself: whoever waits first takes the *read
turn* (a lock), reads what has arrived, files every answer under its
request id and hands notifications and server-to-client requests to the
callback thread; when its own answer is in, it gives the turn up and wakes
the other waiters, one of which takes it over. A single thread making
plain calls therefore writes a line and reads a line — no thread hop, no
future. Callbacks (server-to-client requests, event notifications,
``$/progress``) run in arrival order on one callback thread, so that a
callback may call the server itself. Because the server only sends
notifications while answering requests, they are read — and their handlers
run — while some thread waits for an answer.

Server requests of the methods in :attr:`Connection.concurrent_methods`
(``cache.fetch``, ``cache.fallback``) are answered instead on a small pool
of worker threads, several at once, so that a slow fetch holds up neither
the ordered callbacks nor other fetches. When the server cancels one of its
requests (``$/cancelRequest``, a fetch past its ``timeoutMs``), its answer
is dropped, and one not yet started is not run.

The input pipe is non-blocking: a writer whose burst does not fit reads
answers while it waits (when it can take the read turn), so that a long
pipeline never leaves both processes blocked on full pipes.
"""

from __future__ import annotations

import logging
import os
import queue
import select
import subprocess
import threading
import time
from typing import Any, Callable, Generic, TypeVar

from ._session import Handler, Session, hashable
from ._steps import run
from .errors import LarderError, SidecarExited, error_from_json
from .wire import Lines, Message, decode_line, decode_lines, encode_notification, result_of

__all__ = ["Connection", "Reply"]

log = logging.getLogger("larder")

T = TypeVar("T")
Shape = Callable[[Any], Any] | None

#: ``timeout=`` for "the connection's default" (``None`` means "forever").
DEFAULT_TIMEOUT = -1.0
_READ_SIZE = 1 << 18


class Connection:
    """Requests and answers over a sidecar process's stdin and stdout (see
    the module docstring for who reads when)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        if process.stdin is None or process.stdout is None or process.stderr is None:
            raise ValueError("the process needs pipes for stdin, stdout and stderr")
        self.process = process
        #: Seconds to wait for an answer by default (``None``: forever).
        self.timeout: float | None = None
        self._rfd = process.stdout.fileno()
        self._wfd = process.stdin.fileno()
        os.set_blocking(self._wfd, False)
        self._lines = Lines()
        self._buffer = memoryview(bytearray(_READ_SIZE))
        #: The JSON-RPC state: ids, progress, handlers, how the sidecar ended.
        self.session = Session(self._serve, self._server_cancelled, self._queue)
        self._write_lock = threading.Lock()
        self._read_lock = threading.Lock()
        self._turn = threading.Condition(threading.Lock())
        self._waiters = 0
        self._answers: dict[Any, Message] = {}
        #: The server-request methods answered on the worker pool (all at
        #: once, in no order) instead of on the callback thread.
        self.concurrent_methods: set[str] = set()
        #: How many threads answer :attr:`concurrent_methods` at once.
        self.max_workers = 8
        self._pool: _Workers | None = None
        #: Server requests being answered (by id), and those of them the
        #: server has cancelled (``$/cancelRequest``): their answers are dropped.
        self._serving: set[Any] = set()
        self._cancelled: set[Any] = set()
        self._serving_lock = threading.Lock()
        self._input_closed = False
        self._ended = threading.Event()
        self._callbacks: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = queue.SimpleQueue()
        pid = process.pid
        self._stderr_thread = threading.Thread(target=self._read_stderr, name=f"larder-{pid}-stderr", daemon=True)
        self.callback_thread = threading.Thread(target=self._run_callbacks, name=f"larder-{pid}-callbacks", daemon=True)
        self._stderr_thread.start()
        self.callback_thread.start()

    @property
    def stderr_tail(self) -> str:
        return self.session.stderr_tail

    # ------------------------------------------------------------------
    # Requests

    def request(self, method: str, params: Any, shape: Shape = None, progress: Handler | None = None,
                timeout: float | None = DEFAULT_TIMEOUT) -> Any:
        """Sends one request and returns its result (shaped), reading the
        answer on this thread unless another thread is already reading.
        ``timeout`` defaults to :attr:`timeout`."""
        if timeout == DEFAULT_TIMEOUT:
            timeout = self.timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._write_lock:
            rid, token, line = self.session.request(method, params, progress)
            self._write_locked(line)
        if token is None and deadline is None:
            message = self._read_own(rid)
            if message is not None:
                return result_of(message, shape)
        try:
            message = self._await(rid, deadline)
        except TimeoutError:
            self._give_up(rid)
            raise TimeoutError(f"no answer to request {rid} within {timeout}s") from None
        finally:
            if token is not None:
                self.session.forget_progress(token)
        if token is not None:
            self.wait_for_callbacks()
        return result_of(message, shape)

    def start(self, calls: list[tuple[str, Any, Handler | None]], batch: bool = False) -> tuple[int, list[Any]]:
        """Writes requests in one burst (a JSON array when ``batch``). Each
        call is ``(method, params, progress)``. Returns the id of the first
        (the others follow one by one) and each call's progress token (or
        ``None``)."""
        with self._write_lock:
            first, tokens, payload = self.session.requests(calls, batch)
            self._write_locked(payload)
        return first, tokens

    def send(self, methods: list[str], params: list[Any]) -> int:
        """Writes requests without progress callbacks in one burst, each
        method beside its params; returns the id of the first (the others
        follow one by one)."""
        with self._write_lock:
            first, payload = self.session.burst(methods, params)
            self._write_locked(payload)
        return first

    def answer(self, rid: int, timeout: float | None = None) -> Message:
        """The answer to request ``rid`` (read on this thread if need be)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        return self._await(rid, deadline)

    def settle(self, replies: list[Reply[Any]], timeout: float | None = None) -> list[Any]:
        """Waits for each reply in turn (``timeout`` for each) and returns
        their results in order, exceptions in the places of failed calls.
        Answers read already are taken straight from where they are filed."""
        pop = self._answers.pop
        pending, done = Reply._PENDING, Reply._DONE
        results: list[Any] = []
        append = results.append
        for reply in replies:
            if reply._state == pending:
                rid = reply.request_id
                if reply._progress is None and rid is not None:
                    message = pop(rid, None)
                    if message is None:
                        try:
                            message = self.answer(rid, timeout)
                        except SidecarExited as e:
                            reply._fail(e)
                            append(reply._value)
                            continue
                    if "error" in message or reply._done_callbacks is not None:
                        reply._settle_with(message)
                    else:  # Reply._settle_with's common case, without a call per reply
                        shape = reply._shape
                        try:
                            reply._value = message.get("result") if shape is None else shape(message.get("result"))
                            reply._state = done
                        except Exception as e:  # a malformed answer
                            reply._value = e
                            reply._state = Reply._FAILED
                else:
                    reply._wait(timeout)
            append(reply._value)
        return results

    def answered(self, rid: int) -> Message | None:
        """The answer to ``rid`` if it has been read, without waiting."""
        return self._answers.pop(rid, None)

    def finish_progress(self, token: Any) -> None:
        """Forgets a progress callback once its request is answered, and
        returns after the callbacks queued before the answer have run."""
        self.session.forget_progress(token)
        self.wait_for_callbacks()

    def notify(self, method: str, params: Any = None) -> None:
        """Sends a notification."""
        payload = encode_notification(method, params)
        with self._write_lock:
            self._write_locked(payload)

    def _give_up(self, rid: int) -> None:
        """A request timed out: its answer is dropped when it comes, and the
        server is asked to cancel it."""
        self.session.abandoned.add(rid)
        self._answers.pop(rid, None)
        try:
            self.notify("$/cancelRequest", {"id": rid})
        except LarderError:
            pass

    # ------------------------------------------------------------------
    # Writing

    def _write_locked(self, data: bytes) -> None:
        """Writes all of ``data`` (the write lock is held)."""
        if self.session.exit_info is not None:
            raise SidecarExited(*self.session.exit_info)
        if self._input_closed:
            raise SidecarExited(self.process.poll(), self.stderr_tail, "the larder client was closed")
        try:
            written = os.write(self._wfd, data)
        except (OSError, ValueError):
            written = 0  # tried again below, where a full pipe is waited for and a closed one reported
        if written != len(data):
            self._write_rest(memoryview(data)[written:])

    def _write_rest(self, view: memoryview) -> None:
        """What the first write left: waits for room in a full pipe, and
        reports a closed one."""
        while view:
            try:
                n = os.write(self._wfd, view)
            except BlockingIOError:
                self._wait_writable()
                continue
            except (OSError, ValueError) as e:
                # The sidecar is gone (EPIPE) or its input was closed: learn how it ended.
                if not self._ended.is_set():
                    self._drain_to_end()
                info = self.session.exit_info or (self.process.poll(), self.stderr_tail,
                                          f"cannot write to the larder sidecar: {e}")
                raise SidecarExited(*info) from e
            view = view[n:]

    def _wait_writable(self) -> None:
        """The input pipe is full: read answers meanwhile when no one else is
        reading, so the server can go on writing and hence reading."""
        if self._read_lock.acquire(blocking=False):
            try:
                readable, _, _ = select.select([self._rfd], [self._wfd], [])
                if readable:
                    self._read_some(None)
                    if self.session.exit_info is not None:
                        raise SidecarExited(*self.session.exit_info)
            finally:
                self._read_lock.release()
                self._wake()
        else:
            select.select([], [self._wfd], [], 0.05)

    def _drain_to_end(self) -> None:
        """Reads (and files) whatever the sidecar still wrote, up to its end."""
        with self._read_lock:
            while self.session.exit_info is None:
                self._read_some(None)

    # ------------------------------------------------------------------
    # Reading

    def _await(self, rid: int, deadline: float | None) -> Message:
        answers = self._answers
        while True:
            message = answers.pop(rid, None)
            if message is not None:
                return message
            if self.session.exit_info is not None:
                raise SidecarExited(*self.session.exit_info)
            if self._read_lock.acquire(blocking=False):
                try:
                    while rid not in answers and self.session.exit_info is None:
                        self._read_some(deadline)
                finally:
                    self._read_lock.release()
                    self._wake()
            else:
                self._wait_turn(rid, deadline)

    def _read_own(self, rid: int) -> Message | None:
        """The common case, made short: nothing else is read or waited for,
        and the next read holds exactly the answer to ``rid``. Otherwise
        files what it read and returns ``None``."""
        if self._answers or self._lines.pending or not self._read_lock.acquire(blocking=False):
            return None
        try:
            if self.session.exit_info is not None:
                return None
            try:
                data = self._read_output()
            except OSError:
                data = b""
            if data.find(b"\n") == len(data) - 1 > 0:
                message = decode_line(data)
                if type(message) is dict and message.get("id") == rid and "method" not in message:
                    return message
            self._received(data)
            return None
        finally:
            self._read_lock.release()
            if self._waiters:
                self._wake()

    def _wait_turn(self, rid: int, deadline: float | None) -> None:
        """Waits until ``rid`` is answered, the read turn is free, or the
        sidecar has ended."""
        with self._turn:
            self._waiters += 1
            try:
                while rid not in self._answers and self._read_lock.locked() and self.session.exit_info is None:
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        raise TimeoutError
                    self._turn.wait(remaining)
            finally:
                self._waiters -= 1

    def _wake(self) -> None:
        if self._waiters:
            with self._turn:
                self._turn.notify_all()

    def _read_some(self, deadline: float | None) -> None:
        """One read of the sidecar's output; files what it held. Raises
        ``TimeoutError`` when nothing arrives before ``deadline``."""
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._rfd], [], [], remaining)[0]:
                raise TimeoutError
        try:
            data = self._read_output()
        except OSError as e:
            log.debug("reading larder's output failed: %s", e)
            data = b""
        self._received(data)

    def _read_output(self) -> bytes:
        """One read of the sidecar's output (``b""`` at its end), made into
        the connection's own buffer: a fresh 256 KiB for each read, as
        ``os.read`` allocates, costs an mmap, mremap and munmap per answer
        whenever malloc's threshold has not grown past it (measured: 2.4 s
        instead of 1.0 s for 20,000 gets, most of it in the kernel)."""
        return self._buffer[:os.readv(self._rfd, [self._buffer])].tobytes()

    def _received(self, data: bytes) -> None:
        """Files what one read returned (``b""``: the output has ended)."""
        if not data:
            self._output_ended()
            return
        lines = self._lines.feed(data)
        if lines:
            self._file(decode_lines(lines))

    def _file(self, messages: list[Any]) -> None:
        """Files answers by id (any request may be waited for by some thread,
        or later by a reply); the session hands the rest to the hooks."""
        self.session.file(messages, self._answers.__setitem__)
        if self._waiters:
            with self._turn:
                self._turn.notify_all()

    def _serve(self, rid: Any, method: str, params: Any) -> None:
        """A server request: answered on the worker pool, or in order on the
        callback thread."""
        if hashable(rid):
            with self._serving_lock:
                self._serving.add(rid)
        if method in self.concurrent_methods:
            self._submit(rid, method, params)
        else:
            self._callbacks.put((self._answer_request, (rid, method, params)))

    def _server_cancelled(self, rid: Any) -> bool:
        """The server stopped waiting for one of its requests: its answer is
        dropped (and it is not run if it has not started)."""
        if rid not in self._serving:
            return False
        with self._serving_lock:
            if rid in self._serving:
                self._cancelled.add(rid)
        return True

    def _queue(self, fn: Handler, args: tuple[Any, ...]) -> None:
        self._callbacks.put((fn, args))

    def _output_ended(self) -> None:
        """The sidecar's output closed: learn how it ended; every waiter, now
        and later, gets :class:`~larder.SidecarExited`."""
        if self.session.exit_info is not None:
            return
        try:
            returncode = self.process.wait(5.0)
        except subprocess.TimeoutExpired:
            returncode = None
        self._stderr_thread.join(2.0)
        self.end(self.session.ended(returncode))

    def end(self, info: tuple[int | None, str, str | None]) -> None:
        """Marks the connection ended with ``info`` (``SidecarExited``'s
        arguments) unless it already is."""
        with self._turn:
            if self.session.end(info):
                self._callbacks.put(None)
            self._turn.notify_all()
        self._ended.set()

    # ------------------------------------------------------------------
    # Callbacks

    def wait_for_callbacks(self, timeout: float | None = None) -> None:
        """Returns once the callbacks queued so far have run (at once on the
        callback thread itself, or after the end)."""
        if threading.current_thread() is self.callback_thread or not self.callback_thread.is_alive():
            return
        done = threading.Event()
        self._callbacks.put((done.set, ()))
        done.wait(timeout)

    def _submit(self, rid: Any, method: str, params: Any) -> None:
        """Answers a server request on the worker pool."""
        if self._pool is None:
            self._pool = _Workers(self.max_workers, f"larder-{self.process.pid}-request")
        self._pool.submit(self._answer_request, rid, method, params)

    def _finish_serving(self, rid: Any) -> bool:
        """Forgets a server request; whether the server cancelled it."""
        if not hashable(rid):
            return False
        with self._serving_lock:
            self._serving.discard(rid)
            if rid in self._cancelled:
                self._cancelled.discard(rid)
                return True
        return False

    def _answer_request(self, rid: Any, method: str, params: Any) -> None:
        if hashable(rid) and rid in self._cancelled:  # given up on before it started
            self._finish_serving(rid)
            return
        payload = run(self.session.answer(rid, method, params))
        if self._finish_serving(rid):
            log.debug("dropped the answer to %s %r: the server cancelled it", method, rid)
            return
        try:
            with self._write_lock:
                self._write_locked(payload)
        except SidecarExited:
            pass

    def _run_callbacks(self) -> None:
        while True:
            item = self._callbacks.get()
            if item is None:
                return
            fn, args = item
            try:
                fn(*args)
            except Exception:
                log.exception("a larder callback failed")

    def _read_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        try:
            for line in stderr:
                self.session.heard(line)
        except (OSError, ValueError):
            pass

    # ------------------------------------------------------------------
    # Closing

    def close_input(self) -> None:
        with self._write_lock:
            self._input_closed = True
            try:
                assert self.process.stdin is not None
                self.process.stdin.close()
            except (OSError, ValueError):
                pass

    def join(self, timeout: float) -> None:
        """After the process has exited: stops the threads and closes the pipes."""
        self._callbacks.put(None)
        if self._pool is not None:  # a handler still running finishes on its own; its answer goes nowhere
            self._pool.shutdown()
        for t, limit in ((self._stderr_thread, timeout), (self.callback_thread, min(timeout, 2.0))):
            if t is not threading.current_thread():
                t.join(limit)
        for stream in (self.process.stdout, self.process.stderr):
            try:
                stream.close()  # type: ignore[union-attr]
            except (OSError, ValueError):
                pass


class _Workers:
    """A small pool of daemon threads, started as work comes, at most
    ``size`` of them; each works through the queue and stops after a while
    without work. Daemon threads, so that a handler stuck for good (a fetch
    that never returns) keeps no program from exiting."""

    _IDLE = 30.0

    def __init__(self, size: int, name: str) -> None:
        self._size = max(1, size)
        self._name = name
        self._queue: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        self._pending = 0
        self._closed = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        with self._lock:
            if self._closed:
                return
            self._queue.put((fn, args))
            self._pending += 1
            if self._pending > self._idle and self._threads < self._size:
                self._threads += 1
                threading.Thread(target=self._work, name=f"{self._name}-{self._threads}", daemon=True).start()

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            try:
                item = self._queue.get(timeout=self._IDLE)
            except queue.Empty:
                item = None
            with self._lock:
                self._idle -= 1
                if item is None:
                    if self._closed or self._pending == 0:
                        self._threads -= 1
                        return
                    continue
                self._pending -= 1
            fn, args = item
            try:
                fn(*args)
            except Exception:
                log.exception("a larder request handler failed")

    def shutdown(self) -> None:
        """Drops the work not started; the threads end once idle."""
        with self._lock:
            self._closed = True
            try:
                while True:
                    self._queue.get_nowait()
            except queue.Empty:
                pass
            self._pending = 0
            for _ in range(self._threads):
                self._queue.put(None)


class Reply(Generic[T]):
    """The answer to a request sent without waiting (:meth:`Larder.call_async`,
    pipelines), like a :class:`concurrent.futures.Future`. Nothing reads in
    the background: the answer is read when :meth:`result` or
    :meth:`exception` is called (or when another call reads past it)."""

    __slots__ = ("request_id", "_connection", "_shape", "_state", "_value", "_progress", "_done_callbacks")

    _PENDING, _DONE, _FAILED, _CANCELLED = range(4)

    def __init__(self, connection: Connection, shape: Shape = None) -> None:
        self.request_id: int | None = None
        self._connection = connection
        self._shape = shape
        self._state = Reply._PENDING
        self._value: Any = None
        self._progress: Any = None  # the progress token, once sent
        self._done_callbacks: list[Callable[[Reply[T]], Any]] | None = None

    def __repr__(self) -> str:
        state = ("pending", "done", "failed", "cancelled")[self._state]
        return f"<Reply id={self.request_id} {state}>"

    def _settle_with(self, message: Message) -> None:
        if "error" in message:
            self._state = Reply._FAILED
            self._value = error_from_json(message["error"])
        else:
            shape = self._shape
            try:
                self._value = message.get("result") if shape is None else shape(message.get("result"))
                self._state = Reply._DONE
            except Exception as e:  # a malformed answer
                self._value = e
                self._state = Reply._FAILED
        if self._done_callbacks is not None:
            self._run_done_callbacks()

    def _fail(self, error: BaseException) -> None:
        self._value = error
        self._state = Reply._FAILED
        self._run_done_callbacks()

    def _run_done_callbacks(self) -> None:
        callbacks, self._done_callbacks = self._done_callbacks, None
        for fn in callbacks or ():
            try:
                fn(self)
            except Exception:
                log.exception("a Reply's done callback failed")

    def add_done_callback(self, fn: Callable[[Reply[T]], Any]) -> None:
        """Calls ``fn(reply)`` once the reply is settled (at once if it is),
        on the thread that settles it, like
        :meth:`concurrent.futures.Future.add_done_callback`."""
        if self._state != Reply._PENDING:
            fn(self)
        elif self._done_callbacks is None:
            self._done_callbacks = [fn]
        else:
            self._done_callbacks.append(fn)

    def _wait(self, timeout: float | None) -> None:
        if self._state != Reply._PENDING:
            return
        if self.request_id is None:
            raise RuntimeError("this request has not been sent yet")
        try:
            message = self._connection.answer(self.request_id, timeout)
        except SidecarExited as e:
            self._fail(e)
            return
        except TimeoutError:
            raise TimeoutError(f"no answer to request {self.request_id} within {timeout}s") from None
        if self._progress is not None:
            self._connection.finish_progress(self._progress)
        self._settle_with(message)

    def done(self) -> bool:
        if self._state == Reply._PENDING and self.request_id is not None:
            message = self._connection.answered(self.request_id)
            if message is not None:
                self._settle_with(message)
        return self._state != Reply._PENDING

    def cancelled(self) -> bool:
        return self._state == Reply._CANCELLED

    def cancel(self) -> bool:
        """Cancels a request not sent yet (use :meth:`Larder.cancel` to ask
        the server to cancel one that was sent)."""
        if self._state == Reply._PENDING and self.request_id is None:
            self._state = Reply._CANCELLED
            self._run_done_callbacks()
            return True
        return self._state == Reply._CANCELLED

    def result(self, timeout: float | None = None) -> T:
        """The result; raises the request's error."""
        self._wait(timeout)
        if self._state == Reply._DONE:
            return self._value  # type: ignore[no-any-return]
        if self._state == Reply._CANCELLED:
            raise RuntimeError("the request was cancelled before it was sent")
        raise self._value

    def exception(self, timeout: float | None = None) -> BaseException | None:
        """The request's error, or ``None`` when it succeeded."""
        self._wait(timeout)
        if self._state == Reply._FAILED:
            return self._value  # type: ignore[no-any-return]
        return None
