"""The Larder client: a ``larder`` sidecar process spoken to with JSON-RPC 2.0,
one JSON message per line, over its stdin/stdout.

Threads: one reads the sidecar's stdout and routes responses to the futures
waiting for them (by id); one keeps the tail of its stderr; one runs user
callbacks (server-to-client requests, notifications, progress) in arrival
order, so that a callback may itself call the server. Writes are serialized
by a lock, so any number of threads may share one client.
"""

from __future__ import annotations

import collections
import itertools
import json
import logging
import os
import queue
import shutil
import subprocess
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from .cache import CacheMethods, CacheView, camel, camel_keys
from .errors import LarderError, MethodNotFound, SidecarExited, error_from_json
from .entities import EntityMethods
from .objects import MigrateMethods, ObjectMethods, SchemaMethods, migrate_answer

__all__ = ["Larder", "Pipeline", "Namespace", "find_binary", "CLIENT_NAME", "CLIENT_VERSION"]

log = logging.getLogger("larder")

CLIENT_NAME = "larder-python"
CLIENT_VERSION = "0.1.0"

Handler = Callable[[Any], Any]
Transform = Callable[[Any], Any] | None

_STDERR_TAIL_LINES = 200


def find_binary(binary: str | os.PathLike[str] | None = None) -> str:
    """Where the ``larder`` executable is: ``binary`` if given, else
    ``$LARDER_BIN``, else ``larder`` on ``PATH``, else the repository's
    ``.build/release/larder`` then ``.build/debug/larder`` (for a checkout
    where this package lives in ``clients/python``)."""
    if binary:
        return os.fspath(binary)
    env = os.environ.get("LARDER_BIN")
    if env:
        return env
    on_path = shutil.which("larder")
    if on_path:
        return on_path
    repo = Path(__file__).resolve().parents[3]
    for config in ("release", "debug"):
        candidate = repo / ".build" / config / "larder"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise FileNotFoundError(
        "cannot find the larder executable: pass binary=, set $LARDER_BIN, put larder on PATH, "
        f"or build it with `swift build` in {repo}"
    )


class _Pending:
    """One request: its future, how to shape its result, its progress callback."""

    __slots__ = ("method", "params", "transform", "progress", "token", "future", "id")

    def __init__(self, method: str, params: Any, transform: Transform, progress: Handler | None) -> None:
        self.method = method
        self.params = params
        self.transform = transform
        self.progress = progress
        self.token: Any = None
        self.future: Future[Any] = Future()
        self.id: int | None = None


class Namespace:
    """Generic access to a method namespace, for methods without a dedicated
    wrapper: ``db.namespace("debug").advance_clock(seconds=5)`` calls
    ``debug.advanceClock {"seconds": 5}``. Keyword names are turned camelCase
    (``None`` ones left out); their values are sent as given, nested keys
    unchanged. Returns results (on a client) or futures (on a pipeline).

    Names are not checked here: the server refuses an unknown method with
    :class:`~larder.MethodNotFound` and an unknown parameter with
    :class:`~larder.InvalidParams`, both naming the name most likely meant
    (``e.suggestion``)."""

    def __init__(self, request: Callable[..., Any], name: str) -> None:
        self._request = request
        self._name = name

    def __getattr__(self, attr: str) -> Callable[..., Any]:
        if attr.startswith("_"):
            raise AttributeError(attr)
        method = f"{self._name}.{camel(attr)}"

        def invoke(**params: Any) -> Any:
            return self._request(method, camel_keys(params), None)

        invoke.__name__ = attr
        invoke.__doc__ = f"Calls ``{method}`` with the keywords as camelCase params (values as given)."
        return invoke


class Larder:
    """A connection to one ``larder`` sidecar. Create it with :meth:`spawn`
    and use it as a context manager::

        with Larder.spawn(memory=True) as db:
            db.cache.set("k", {"a": 1})
            db.cache.get("k")["value"]

    Attributes:
        cache: the ``cache.*`` methods (:class:`~larder.cache.CacheMethods`).
        schema: the ``schema.*`` methods (:class:`~larder.objects.SchemaMethods`).
        object: the ``object.*`` methods (:class:`~larder.objects.ObjectMethods`).
        migrate: the ``migrate.*`` methods (:class:`~larder.objects.MigrateMethods`).
        entity: the ``entity.*`` methods (:class:`~larder.entities.EntityMethods`).
        migration_callbacks: whether ``initialize`` declared
            ``capabilities.migrationCallbacks`` (the server then asks
            :meth:`on_migrate`'s handler for ``{"op": "callback"}`` steps).
        init_result: what ``initialize`` answered (``serverInfo``,
            ``protocolVersion``, ``capabilities``, ``store``), or ``None``.
        timeout: default seconds to wait for an answer (``None``: forever; a
            sidecar that dies still raises :class:`~larder.SidecarExited`).
    """

    def __init__(self, process: subprocess.Popen[bytes], *, timeout: float | None = None) -> None:
        if process.stdin is None or process.stdout is None or process.stderr is None:
            raise ValueError("the process needs pipes for stdin, stdout and stderr")
        self._proc = process
        self.timeout = timeout
        self.init_result: dict[str, Any] | None = None
        self.migration_callbacks = False
        self._ids = itertools.count(1)
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._pending: dict[Any, _Pending] = {}
        self._progress: dict[Any, Handler] = {}
        self._request_handlers: dict[str, Handler] = {}
        self._event_handlers: dict[str, list[Handler]] = {}
        self._exit_info: tuple[int | None, str, str | None] | None = None
        self._closed = False
        self._eof = threading.Event()
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL_LINES)
        self._callbacks: queue.Queue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = queue.Queue()
        self.cache = CacheMethods(self._request_sync)
        self.schema = SchemaMethods(self._request_sync)
        self.object = ObjectMethods(self._request_sync)
        self.migrate = MigrateMethods(self._request_sync)
        self.entity = EntityMethods(self._request_sync)

        self._stderr_thread = threading.Thread(target=self._read_stderr, name=f"larder-{self.pid}-stderr", daemon=True)
        self._callback_thread = threading.Thread(
            target=self._run_callbacks, name=f"larder-{self.pid}-callbacks", daemon=True
        )
        self._stdout_thread = threading.Thread(target=self._read_stdout, name=f"larder-{self.pid}-stdout", daemon=True)
        self._stderr_thread.start()
        self._callback_thread.start()
        self._stdout_thread.start()

    # ------------------------------------------------------------------
    # Starting and stopping

    @classmethod
    def spawn(
        cls,
        store: str | os.PathLike[str] | None = None,
        memory: bool = False,
        binary: str | os.PathLike[str] | None = None,
        app_version: str | None = None,
        args: Sequence[str] = (),
        *,
        events: bool = False,
        migration_callbacks: bool | None = None,
        on_migrate: Handler | None = None,
        client_info: dict[str, Any] | None = None,
        initialize: bool = True,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
    ) -> "Larder":
        """Starts ``larder`` and (unless ``initialize=False``) sends
        ``initialize`` and ``initialized``.

        Args:
            store: the store directory (``--store``); ``memory=True`` keeps
                everything in memory (``--memory``). With neither, the server
                uses its default store (``$LARDER_STORE``, ``~/.cache/larder``).
            binary: the executable (see :func:`find_binary`).
            app_version: sent as ``initialize``'s ``appVersion``.
            args: more command-line arguments, e.g. ``["--enable-test-methods"]``.
            events: ask for every cache event from the start
                (``capabilities.events``); otherwise use ``cache.subscribe``.
            on_migrate: the ``migrate.object`` handler (see :meth:`on_migrate`),
                registered before ``initialize``, which then declares
                ``capabilities.migrationCallbacks``.
            migration_callbacks: declare ``capabilities.migrationCallbacks``
                (``True``) or not (``False``); by default, declared exactly
                when a handler is registered by the time ``initialize`` is sent
                (``on_migrate=``).
            client_info: ``initialize``'s ``clientInfo`` (default: this library).
            timeout: the client's default answer timeout in seconds.
            env: the process environment (default: inherited).
        """
        if store is not None and memory:
            raise ValueError("give store or memory=True, not both")
        command = [find_binary(binary)]
        if store is not None:
            command += ["--store", os.fspath(store)]
        if memory:
            command.append("--memory")
        command += [str(a) for a in args]
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        db = cls(process, timeout=timeout)
        if on_migrate is not None:
            db.on_migrate(on_migrate)
        if initialize:
            try:
                db.initialize(client_info=client_info, app_version=app_version, events=events,
                              migration_callbacks=migration_callbacks)
            except BaseException:
                db.close()
                raise
        return db

    def initialize(
        self,
        *,
        client_info: dict[str, Any] | None = None,
        app_version: str | None = None,
        store: str | os.PathLike[str] | None = None,
        events: bool = False,
        migration_callbacks: bool | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """Sends ``initialize`` (then the ``initialized`` notification) and
        returns its result: ``{"serverInfo": {"name", "version"},
        "protocolVersion", "capabilities": {"methods", "framing", "limits"},
        "store": {"path", "persistent"}}``. ``store`` switches to that store
        directory. ``events`` asks for every cache event;
        ``migration_callbacks`` declares that this client answers
        ``migrate.object`` (default: whether :meth:`on_migrate` has a handler
        now). Must be the first request, and is accepted once.

        Other keywords are the other members of LSP's ``InitializeParams``
        (``process_id``, ``root_uri``, ``initialization_options``, ...), sent
        camelCase with their values as given; any other name is refused by
        the server with :class:`~larder.InvalidParams` naming it."""
        params: dict[str, Any] = {"clientInfo": client_info or {"name": CLIENT_NAME, "version": CLIENT_VERSION}}
        if app_version is not None:
            params["appVersion"] = app_version
        if store is not None:
            params["store"] = {"path": os.fspath(store)}
        if migration_callbacks is None:
            migration_callbacks = "migrate.object" in self._request_handlers
        capabilities: dict[str, Any] = {}
        if events:
            capabilities["events"] = True
        if migration_callbacks:
            capabilities["migrationCallbacks"] = True
        if capabilities:
            params["capabilities"] = capabilities
        params.update(camel_keys(extra))
        result = self.call("initialize", params)
        self.init_result = result
        declared = params.get("capabilities")
        self.migration_callbacks = isinstance(declared, dict) and declared.get("migrationCallbacks") is True
        self.notify("initialized", {})
        return result

    def close(self, timeout: float = 10.0) -> int | None:
        """Sends ``shutdown`` and ``exit``, closes the sidecar's input and waits
        for it; kills it only if it does not exit within ``timeout`` seconds.
        Returns its exit status. Safe to call more than once."""
        with self._state_lock:
            already = self._closed
            self._closed = True
        if not already and self._exit_info is None:
            try:
                self.call("shutdown", timeout=timeout)
                self.notify("exit")
            except (LarderError, TimeoutError, OSError) as e:
                log.debug("shutdown failed: %s", e)
        try:
            with self._write_lock:
                self._proc.stdin.close()  # type: ignore[union-attr]
        except (OSError, ValueError):
            pass
        try:
            self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            log.warning("larder (pid %s) did not exit within %ss; killing it", self.pid, timeout)
            self._proc.kill()
            self._proc.wait()
        self._eof.wait(timeout)
        # A callback still running user code is not waited for long (it is a daemon thread).
        for t, limit in ((self._stdout_thread, timeout), (self._stderr_thread, timeout),
                         (self._callback_thread, min(timeout, 2.0))):
            if t is not threading.current_thread():
                t.join(limit)
        for stream in (self._proc.stdout, self._proc.stderr):
            try:
                stream.close()  # type: ignore[union-attr]
            except (OSError, ValueError):
                pass
        return self._proc.returncode

    def __enter__(self) -> "Larder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "running" if self.alive else f"exited {self._proc.returncode}"
        return f"<Larder pid={self.pid} {state}>"

    @property
    def pid(self) -> int:
        """The sidecar's process id."""
        return self._proc.pid

    @property
    def process(self) -> subprocess.Popen[bytes]:
        return self._proc

    @property
    def alive(self) -> bool:
        """True while the sidecar is running and its output is open."""
        return self._exit_info is None and self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

    @property
    def stderr_tail(self) -> str:
        """The last lines the sidecar wrote to stderr."""
        return "".join(self._stderr_tail)

    # ------------------------------------------------------------------
    # Calling

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        progress: Handler | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Sends a request and returns its result, or raises the
        :class:`~larder.LarderError` subclass for its error code.

        ``progress`` receives the ``value`` of each ``$/progress``
        notification for this request: a ``workDoneToken`` is added to
        ``params`` (unless present) and the notifications carrying it are
        routed to ``progress`` (on the callback thread) before the result is
        returned. ``timeout`` (default: ``self.timeout``) raises
        :class:`TimeoutError` after sending ``$/cancelRequest``.
        """
        future = self.call_async(method, params, progress=progress)
        return self._wait(future, self.timeout if timeout is None else timeout)

    def call_async(
        self, method: str, params: dict[str, Any] | None = None, *, progress: Handler | None = None
    ) -> Future[Any]:
        """Like :meth:`call`, but returns a :class:`concurrent.futures.Future`
        at once (its ``request_id`` attribute is the JSON-RPC id)."""
        return self._submit([_Pending(method, params, None, progress)])[0]

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Sends a notification (no answer)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._write(_encode(message) + b"\n")

    def cancel(self, request: Future[Any] | int) -> None:
        """Sends ``$/cancelRequest`` for a request (its future or id)."""
        rid = getattr(request, "request_id", request)
        self.notify("$/cancelRequest", {"id": rid})

    def pipeline(self, *, batch: bool = False, raise_on_error: bool = True) -> "Pipeline":
        """Queues calls and sends them in one write when the ``with`` block
        ends (or at :meth:`Pipeline.flush`)::

            with db.pipeline() as p:
                for i in range(10_000):
                    p.cache.set(f"k{i}", i)
            p.results  # in order

        ``batch=True`` sends them as one JSON-RPC batch (a JSON array) instead
        of one message per line. With ``raise_on_error`` (the default) the
        first failed call's error is raised when the block ends (the results,
        including the errors, stay in ``p.results``)."""
        return Pipeline(self, batch=batch, raise_on_error=raise_on_error)

    def cache_view(self, cache: str = "default", group: str = "", *, ttl: float | None = None) -> CacheView:
        """A dict-like view of one group of one cache (see :class:`~larder.CacheView`)."""
        return CacheView(self, cache, group, ttl=ttl)

    def namespace(self, name: str) -> Namespace:
        """Generic access to ``name.*`` methods (see :class:`Namespace`)."""
        return Namespace(self._request_sync, name)

    def discover(self) -> dict[str, Any]:
        """``rpc.discover``: the server's OpenRPC document."""
        return self.call("rpc.discover")

    def shutdown(self) -> None:
        """``shutdown``: commits everything; afterwards only ``exit`` is accepted.
        (:meth:`close` does this for you.)"""
        self.call("shutdown")

    # ------------------------------------------------------------------
    # Server-to-client requests and notifications

    def on_request(self, method: str, fn: Handler | None = None) -> Any:
        """Answers the server's ``method`` requests with ``fn(params)``'s return
        value; a :class:`~larder.LarderError` raised by ``fn`` is sent as the
        error (any other exception as -32603). Runs on the callback thread.
        ``fn=None`` makes it a decorator; ``fn`` replaces an earlier one.
        Requests without a handler are answered with -32601."""
        if fn is None:
            return lambda f: self.on_request(method, f) or f
        self._request_handlers[method] = fn
        return None

    def on_migrate(self, fn: Handler | None = None) -> Any:
        """Answers ``migrate.object``: the server asks it for each
        ``{"op": "callback"}`` migration step, when an object is read
        (``object.get``, ``describe``, ``equals``, ``hash``) or during
        ``migrate.run``.

        ``fn(params)`` gets ``{"type", "key", "cache", "group",
        "fromVersion", "toVersion", "value"}`` (``value`` as the earlier
        steps left it) and returns the new value (a dict, answered as
        ``{"value": ...}``), or :data:`larder.DROP` to delete the object
        (``{"drop": true}``). Raising answers with an error: the read fails
        with :class:`~larder.MigrationFailed` and the stored object is left as
        it was, so a later read asks again. Runs on the callback thread: it
        may call the server, but not read another object that needs a
        callback itself (that question would wait behind this one).
        ``fn`` replaces an earlier handler and is returned, so this also works
        as a decorator (``@db.on_migrate`` or ``@db.on_migrate()``).

        The server only asks clients that declared
        ``capabilities.migrationCallbacks`` in ``initialize``: pass
        ``on_migrate=`` (or ``migration_callbacks=True``) to :meth:`spawn`,
        or register the handler before calling :meth:`initialize`.
        """
        if fn is None:
            return self.on_migrate
        if self.init_result is not None and not self.migration_callbacks:
            log.warning("on_migrate: this client did not declare capabilities.migrationCallbacks in initialize, "
                        "so the server will not call the handler (pass on_migrate= or migration_callbacks=True "
                        "to Larder.spawn)")

        def answer(params: Any) -> dict[str, Any]:
            return migrate_answer(fn(params))

        self.on_request("migrate.object", answer)
        return fn

    def on_event(self, method: str, fn: Handler | None = None) -> Any:
        """Calls ``fn(params)`` for each ``method`` notification from the
        server (``"cache.evicted"``, ``"cache.cleared"``; ``"$/progress"`` for
        progress without a per-call callback). Returns a function that removes
        the handler (or is a decorator when ``fn`` is ``None``)."""
        if fn is None:
            def decorate(f: Handler) -> Handler:
                self.on_event(method, f)
                return f

            return decorate
        with self._state_lock:
            self._event_handlers.setdefault(method, []).append(fn)

        def remove() -> None:
            with self._state_lock:
                handlers = self._event_handlers.get(method, [])
                if fn in handlers:
                    handlers.remove(fn)

        return remove

    # ------------------------------------------------------------------
    # Internals: sending

    def _request_sync(
        self, method: str, params: dict[str, Any] | None, transform: Transform, progress: Handler | None = None
    ) -> Any:
        future = self._submit([_Pending(method, params, transform, progress)])[0]
        return self._wait(future, self.timeout)

    def _wait(self, future: Future[Any], timeout: float | None) -> Any:
        try:
            return future.result(timeout)
        except TimeoutError:
            rid = getattr(future, "request_id", None)
            if not future.done() and rid is not None:
                try:
                    self.cancel(future)
                except LarderError:
                    pass
            raise TimeoutError(f"no answer to request {rid} within {timeout}s") from None

    def _submit(self, pendings: list[_Pending], batch: bool = False) -> list[Future[Any]]:
        messages = []
        for p in pendings:
            p.id = next(self._ids)
            p.future.request_id = p.id  # type: ignore[attr-defined]
            params = p.params
            if p.progress is not None:
                params = dict(params or {})
                p.token = params.setdefault("workDoneToken", f"python-{p.id}")
            message: dict[str, Any] = {"jsonrpc": "2.0", "id": p.id, "method": p.method}
            if params is not None:
                message["params"] = params
            messages.append(message)
        try:
            if batch:
                payload = _encode(messages) + b"\n"
            else:
                payload = b"".join(_encode(m) + b"\n" for m in messages)
        except (TypeError, ValueError) as e:
            raise TypeError(f"parameters are not JSON: {e}") from e
        with self._state_lock:
            if self._exit_info is None:
                for p in pendings:
                    self._pending[p.id] = p
                    if p.token is not None:
                        self._progress[p.token] = p.progress  # type: ignore[assignment]
                dead = None
            else:
                dead = self._exit_info
        if dead is not None:
            for p in pendings:
                p.future.set_exception(SidecarExited(*dead))
            return [p.future for p in pendings]
        try:
            self._write(payload)
        except SidecarExited as e:
            self._fail([p for p in pendings], e)
        return [p.future for p in pendings]

    def _write(self, payload: bytes) -> None:
        try:
            with self._write_lock:
                stdin = self._proc.stdin
                assert stdin is not None
                stdin.write(payload)
                stdin.flush()
        except (OSError, ValueError) as e:
            # The sidecar is gone (EPIPE) or its input was closed: let the
            # reader see the end of its output and say how it ended.
            self._eof.wait(5.0)
            info = self._exit_info or (self._proc.poll(), self.stderr_tail, f"cannot write to the larder sidecar: {e}")
            raise SidecarExited(*info) from e

    def _fail(self, pendings: Iterable[_Pending], error: LarderError) -> None:
        with self._state_lock:
            for p in pendings:
                self._pending.pop(p.id, None)
                if p.token is not None:
                    self._progress.pop(p.token, None)
        for p in pendings:
            if not p.future.done():
                p.future.set_exception(error)

    # ------------------------------------------------------------------
    # Internals: receiving

    def _read_stdout(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        try:
            for line in stdout:
                line = line.strip()
                if not line:
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    log.warning("larder sent a line that is not JSON: %r", line[:200])
                    continue
                if isinstance(message, list):
                    for m in message:
                        self._dispatch(m)
                else:
                    self._dispatch(message)
        except (OSError, ValueError) as e:
            log.debug("reading larder's output stopped: %s", e)
        except Exception:  # pragma: no cover - a bug here must not hang callers
            log.exception("the larder reader thread failed")
        finally:
            self._output_ended()

    def _dispatch(self, message: Any) -> None:
        if not isinstance(message, dict):
            log.warning("larder sent a message that is not an object: %r", message)
            return
        method = message.get("method")
        if isinstance(method, str):
            params = message.get("params")
            if "id" in message:
                self._callbacks.put((self._answer_request, (message["id"], method, params)))
            elif method == "$/progress" and isinstance(params, dict) and params.get("token") in self._progress:
                fn = self._progress.get(params.get("token"))
                if fn is not None:
                    self._callbacks.put((fn, (params.get("value"),)))
            else:
                with self._state_lock:
                    handlers = list(self._event_handlers.get(method, ()))
                if not handlers:
                    log.debug("unhandled notification %s", method)
                for fn in handlers:
                    self._callbacks.put((fn, (params,)))
            return
        rid = message.get("id")
        with self._state_lock:
            pending = self._pending.pop(rid, None) if _hashable(rid) else None
            if pending is not None and pending.token is not None:
                self._progress.pop(pending.token, None)
        if pending is None:
            if "error" in message:
                log.warning("larder answered an error to no known request: %s", message.get("error"))
            else:
                log.warning("larder answered an unknown request id %r", rid)
            return
        if pending.token is not None:
            # After the progress callbacks already queued for it.
            self._callbacks.put((self._complete, (pending, message)))
        else:
            self._complete(pending, message)

    @staticmethod
    def _complete(pending: _Pending, message: dict[str, Any]) -> None:
        if pending.future.done():
            return
        if "error" in message:
            pending.future.set_exception(error_from_json(message["error"]))
            return
        result = message.get("result")
        if pending.transform is not None:
            try:
                result = pending.transform(result)
            except Exception as e:  # a malformed answer
                pending.future.set_exception(e)
                return
        pending.future.set_result(result)

    def _answer_request(self, rid: Any, method: str, params: Any) -> None:
        fn = self._request_handlers.get(method)
        response: dict[str, Any] = {"jsonrpc": "2.0", "id": rid}
        if fn is None:
            response["error"] = MethodNotFound(f"Method not found: {method}").to_json()
        else:
            try:
                response["result"] = fn({} if params is None else params)
            except LarderError as e:
                response["error"] = e.to_json()
            except Exception as e:
                log.exception("the handler for %s failed", method)
                response["error"] = {"code": -32603, "message": f"Internal error: {type(e).__name__}: {e}"}
        try:
            payload = _encode(response)
        except (TypeError, ValueError) as e:
            response.pop("result", None)
            response["error"] = {"code": -32603, "message": f"Internal error: the result is not JSON: {e}"}
            payload = _encode(response)
        try:
            self._write(payload + b"\n")
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
        stderr = self._proc.stderr
        assert stderr is not None
        try:
            for line in stderr:
                text = line.decode("utf-8", "replace")
                self._stderr_tail.append(text)
                log.debug("larder stderr: %s", text.rstrip())
        except (OSError, ValueError):
            pass

    def _output_ended(self) -> None:
        """The sidecar's stdout closed: learn how it ended and fail every
        request still waiting."""
        try:
            returncode = self._proc.wait(5.0)
        except subprocess.TimeoutExpired:
            returncode = None
        self._stderr_thread.join(2.0)
        reason = "the larder client was closed" if self._closed and returncode == 0 else None
        info = (returncode, self.stderr_tail, reason)
        with self._state_lock:
            self._exit_info = info
            pendings = list(self._pending.values())
            self._pending.clear()
            self._progress.clear()
        for p in pendings:
            if not p.future.done():
                p.future.set_exception(SidecarExited(*info))
        self._callbacks.put(None)
        self._eof.set()


class Pipeline:
    """Calls queued to be sent in one write (see :meth:`Larder.pipeline`).

    ``p.call(...)``, ``p.cache.*``, ``p.schema.*``, ``p.object.*``,
    ``p.migrate.*``, ``p.entity.*`` and ``p.namespace(...)`` return futures;
    after the ``with`` block, ``p.results`` holds each call's result in
    order, or its exception for one that failed.
    """

    def __init__(self, db: Larder, *, batch: bool = False, raise_on_error: bool = True) -> None:
        self.db = db
        self.batch = batch
        self.raise_on_error = raise_on_error
        self.cache = CacheMethods(self._request)
        self.schema = SchemaMethods(self._request)
        self.object = ObjectMethods(self._request)
        self.migrate = MigrateMethods(self._request)
        self.entity = EntityMethods(self._request, pipelined=True)
        self.futures: list[Future[Any]] = []
        self._queued: list[_Pending] = []
        self._results: list[Any] | None = None

    def call(self, method: str, params: dict[str, Any] | None = None, *, progress: Handler | None = None) -> Future[Any]:
        """Queues a request; returns the future of its result."""
        p = _Pending(method, params, None, progress)
        return self._queue(p)

    def namespace(self, name: str) -> Namespace:
        return Namespace(self._request, name)

    def _request(
        self, method: str, params: dict[str, Any] | None, transform: Transform, progress: Handler | None = None
    ) -> Future[Any]:
        return self._queue(_Pending(method, params, transform, progress))

    def _queue(self, p: _Pending) -> Future[Any]:
        if self._results is not None:
            raise RuntimeError("this pipeline has already run")
        self._queued.append(p)
        self.futures.append(p.future)
        return p.future

    def __len__(self) -> int:
        return len(self.futures)

    def flush(self) -> None:
        """Sends what is queued (in one write) without waiting for answers."""
        queued, self._queued = self._queued, []
        if queued:
            self.db._submit(queued, batch=self.batch)

    def wait(self, timeout: float | None = None) -> list[Any]:
        """Sends what is queued and waits for every answer; returns the results
        (exceptions in the places of failed calls)."""
        self.flush()
        results: list[Any] = []
        for f in self.futures:
            error = f.exception(timeout if timeout is not None else self.db.timeout)
            results.append(error if error is not None else f.result())
        self._results = results
        return results

    @property
    def results(self) -> list[Any]:
        """Each call's result in order (its exception where it failed)."""
        if self._results is None:
            raise RuntimeError("the pipeline has not run yet: leave the with block or call wait()")
        return self._results

    def __enter__(self) -> "Pipeline":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            for p in self._queued:
                p.future.cancel()
            self._queued = []
            return
        results = self.wait()
        if self.raise_on_error:
            for r in results:
                if isinstance(r, BaseException):
                    raise r


def _encode(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def _hashable(value: Any) -> bool:
    return isinstance(value, (int, str, float, type(None)))
