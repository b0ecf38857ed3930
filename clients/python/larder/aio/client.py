"""The asyncio Larder client: :class:`AsyncLarder` and its pipelines."""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import KW_ONLY, dataclass
from typing import Any, Awaitable, Callable, Generator, TypeVar

from .._client import Client, initializer
from .._spawn import SpawnOptions, initialize_params, spawner
from ..cache import CacheMethods
from ..fetch import FETCH_METHODS
from ..entities import EntityMethods
from ..errors import LarderError, SidecarExited
from ..memoize import memoize_async
from ..methods import Async, AsyncPiped, Namespace
from ..objects import MigrateMethods, ObjectMethods, SchemaMethods, migrate_answer
from ..results import InitializeResult
from ..locks import LockMethods
from ..store import StoreMethods
from .connection import AsyncConnection
from .locks import AsyncLocks
from .view import AsyncCacheView

__all__ = ["AsyncLarder", "AsyncNamespace", "AsyncPipeline", "Spawn"]

log = logging.getLogger("larder")

A = TypeVar("A", bound=Callable[..., Awaitable[Any]])
Handler = Callable[[Any], Any]


class AsyncNamespace(Namespace):
    """:class:`larder.Namespace` for asyncio: ``await
    db.namespace("debug").advance_clock(seconds=5)``."""


@dataclass(frozen=True, repr=False)
class _SpawnArguments(SpawnOptions):
    """:meth:`AsyncLarder.spawn`'s arguments: the options, and ``options=``."""

    _: KW_ONLY
    options: SpawnOptions | None = None


class Spawn:
    """What :meth:`AsyncLarder.spawn` returns: await it for the client
    (``db = await AsyncLarder.spawn(...)``), or use it with ``async with``,
    which closes the client when the block ends."""

    def __init__(self, start: Callable[[], Awaitable[AsyncLarder]]) -> None:
        self._start = start
        self._db: AsyncLarder | None = None

    def __await__(self) -> Generator[Any, None, AsyncLarder]:
        return self._start().__await__()

    async def __aenter__(self) -> AsyncLarder:
        self._db = await self._start()
        return self._db

    async def __aexit__(self, *exc: Any) -> None:
        if self._db is not None:
            await self._db.close()


class AsyncLarder(Client[Async]):
    """A connection to one ``larder`` sidecar, for asyncio::

        async with AsyncLarder.spawn(memory=True) as db:
            await db.cache.set("k", {"a": 1})
            await db.cache.get("k")

    The same methods as :class:`larder.Larder` (``db.cache``, ``db.schema``,
    ``db.object``, ``db.migrate``, ``db.entity``, ``db.store``, ``db.lock``), awaited. Any number of
    tasks may call at once; each gets its own answer. Callbacks
    (:meth:`on_request`, :meth:`on_migrate`, :meth:`on_event`,
    ``progress=``) may be plain functions or coroutine functions, and may
    call the server. Events and progress run one at a time, in arrival
    order, on a task of their own; each request from the server is answered
    on a task of its own, which the server's ``$/cancelRequest`` for it
    cancels. To stop waiting, cancel the call (``asyncio.timeout``,
    ``asyncio.wait_for``): the server is sent ``$/cancelRequest``.
    """

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        """Wraps a started process; must run inside the event loop. Use
        :meth:`spawn` instead unless you start the process yourself."""
        self._connection = AsyncConnection(process)
        self._proc = process
        super().__init__(self._connection.session, self._connection.request, asynchronous=True)
        self.lock = AsyncLocks(self._connection.request)
        fetchers = self.cache.fetchers
        for name in FETCH_METHODS:  # each on a task of its own, cancelled by the server's $/cancelRequest
            self._connection.session.request_handlers[name] = functools.partial(fetchers.answer_async, name)

    # ------------------------------------------------------------------
    # Starting and stopping

    @classmethod
    @spawner(_SpawnArguments)
    def spawn(cls, given: _SpawnArguments) -> Spawn:
        """Starts ``larder`` with :func:`asyncio.create_subprocess_exec` and
        (unless ``initialize=False``) sends ``initialize`` and
        ``initialized``. Takes the fields of :class:`~larder.SpawnOptions`
        as keywords, as :meth:`larder.Larder.spawn` does, and ``options=``
        (there is no ``timeout``: cancel a call instead); ``on_migrate``, a
        fetcher and a fallback may be coroutine functions. A key that is not
        32 bytes raises here, before anything starts. ``await`` the result,
        or use it with ``async with``."""
        command = given.command()

        async def start() -> AsyncLarder:
            process = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env=given.env)
            db = cls(process)
            if given.on_migrate is not None:
                db.on_migrate(given.on_migrate)
            if given.initialize:
                try:
                    await db.initialize(**given.initialize_keywords())
                except BaseException:
                    await db.close()
                    raise
            return db

        return Spawn(start)

    @initializer(initialize_params)
    async def initialize(self, params: dict[str, Any]) -> InitializeResult:
        """Sends ``initialize``, then ``initialized``; see
        :meth:`larder.Larder.initialize`."""
        result: InitializeResult = await self.call("initialize", params)
        self._initialized(params, result)
        await self.notify("initialized", {})
        return result

    async def close(self, timeout: float = 10.0) -> int | None:
        """Sends ``shutdown`` and ``exit``, closes the sidecar's input and waits
        for it; kills it only if it does not exit within ``timeout`` seconds.
        Returns its exit status. Safe to call more than once."""
        connection = self._connection
        already, self._closed = self._closed, True
        connection.session.closing = True
        if not already and connection.session.exit_info is None:
            try:
                await asyncio.wait_for(self.call("shutdown"), timeout)
                await self.notify("exit")
            except (LarderError, asyncio.TimeoutError, OSError) as e:
                log.debug("shutdown failed: %s", e)
        connection.close_input()
        try:
            await asyncio.wait_for(self._proc.wait(), timeout)
        except asyncio.TimeoutError:
            log.warning("larder (pid %s) did not exit within %ss; killing it", self.pid, timeout)
            self._proc.kill()
            await self._proc.wait()
        returncode = self._proc.returncode
        await connection.join(timeout)
        reason = "the larder client was closed" if returncode == 0 else None
        connection.end((returncode, connection.stderr_tail, reason))
        return returncode

    async def __aenter__(self) -> AsyncLarder:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    def __repr__(self) -> str:
        state = "running" if self.alive else f"exited {self._proc.returncode}"
        return f"<AsyncLarder pid={self.pid} {state}>"

    @property
    def pid(self) -> int:
        """The sidecar's process id."""
        return self._proc.pid

    @property
    def process(self) -> asyncio.subprocess.Process:
        return self._proc

    @property
    def alive(self) -> bool:
        """True while the sidecar is running and its output is open."""
        return self._connection.session.exit_info is None and self._proc.returncode is None

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

    # ------------------------------------------------------------------
    # Calling

    async def call(self, method: str, params: dict[str, Any] | None = None, *,
                   progress: Handler | None = None) -> Any:
        """Sends a request and returns its result, or raises the
        :class:`~larder.LarderError` subclass for its error code. ``progress``
        receives each ``$/progress`` value for this request before the
        result is returned (see :meth:`larder.Larder.call`)."""
        return await self._connection.request(method, params, None, progress)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Sends a notification (no answer)."""
        await self._connection.notify(method, params)

    def pipeline(self, *, batch: bool = False, raise_on_error: bool = True) -> AsyncPipeline:
        """Queues calls and sends them in one write when the ``async with``
        block ends::

            async with db.pipeline() as p:
                for i in range(10_000):
                    p.cache.set(f"k{i}", i)
            p.results  # in order

        Each queued call returns an :class:`asyncio.Future` of its result.
        ``batch`` and ``raise_on_error`` are as for :meth:`larder.Larder.pipeline`."""
        return AsyncPipeline(self, batch=batch, raise_on_error=raise_on_error)

    def cache_view(self, cache: str = "default", group: str = "", *, ttl: float | None = None) -> AsyncCacheView:
        """One group of one cache as a mapping with awaited operations (see
        :class:`~larder.aio.view.AsyncCacheView`)."""
        return AsyncCacheView(self, cache, group, ttl=ttl)

    def memoize(self, cache: str | None = None, *, ttl: float | None = None, group: str | None = None,
                name: str | None = None, typed: bool = False) -> Callable[[A], A]:
        """A decorator that keeps a coroutine function's results in ``cache``
        (see :meth:`larder.Larder.memoize`; the keys are the same)::

            @db.memoize(cache="api", ttl=300)
            async def profile(user_id: int) -> dict: ...
        """
        return memoize_async(self.cache, cache, ttl=ttl, group=group, name=name, typed=typed)

    def namespace(self, name: str) -> AsyncNamespace:
        """Generic access to ``name.*`` methods, awaited (see :class:`larder.Namespace`)."""
        return AsyncNamespace(self._connection.request, name)

    async def discover(self) -> dict[str, Any]:
        """``rpc.discover``: the server's OpenRPC document."""
        document: dict[str, Any] = await self.call("rpc.discover")
        return document

    async def shutdown(self) -> None:
        """``shutdown``: commits everything; afterwards only ``exit`` is accepted.
        (:meth:`close` does this for you.)"""
        await self.call("shutdown")

    # ------------------------------------------------------------------
    # Server-to-client requests and notifications

    def on_migrate(self, fn: Handler | None = None) -> Any:
        """Answers ``migrate.object`` with ``fn(params)`` — a function or a
        coroutine function returning the new value or :data:`larder.DROP`;
        see :meth:`larder.Larder.on_migrate`. The server only asks a client
        that declared ``capabilities.migrationCallbacks``: pass
        ``on_migrate=`` to :meth:`spawn`."""
        if fn is None:
            return self.on_migrate
        self._check_migration_callbacks()
        handler = fn

        async def answer(params: Any) -> dict[str, Any]:
            result = handler(params)
            if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future):
                result = await result
            return migrate_answer(result)

        self.on_request("migrate.object", answer)
        return fn


class AsyncPipeline:
    """Calls queued to be sent in one write (see :meth:`AsyncLarder.pipeline`).

    ``p.call(...)``, ``p.cache.*``, ``p.schema.*``, ``p.object.*``,
    ``p.migrate.*``, ``p.entity.*``, ``p.store.*`` and ``p.namespace(...)`` return an
    :class:`asyncio.Future` each; after the ``async with`` block,
    ``p.results`` holds each call's result in order, or its exception for one
    that failed.
    """

    def __init__(self, db: AsyncLarder, *, batch: bool = False, raise_on_error: bool = True) -> None:
        self.db = db
        self.batch = batch
        self.raise_on_error = raise_on_error
        self.cache: CacheMethods[AsyncPiped] = CacheMethods(self._request, db.cache.fetchers)
        self.schema: SchemaMethods[AsyncPiped] = SchemaMethods(self._request)
        self.object: ObjectMethods[AsyncPiped] = ObjectMethods(self._request)
        self.migrate: MigrateMethods[AsyncPiped] = MigrateMethods(self._request)
        self.entity: EntityMethods[AsyncPiped] = EntityMethods(self._request, pipelined=True)
        self.store: StoreMethods[AsyncPiped] = StoreMethods(self._request)
        self.lock: LockMethods[AsyncPiped] = LockMethods(self._request)
        #: Every call's future, in order.
        self.futures: list[asyncio.Future[Any]] = []
        self._calls: list[tuple[str, Any, Any, Handler | None]] = []
        self._results: list[Any] | None = None

    def call(self, method: str, params: dict[str, Any] | None = None, *,
             progress: Handler | None = None) -> asyncio.Future[Any]:
        """Queues a request; returns the future of its result."""
        return self._request(method, params, None, progress)

    def namespace(self, name: str) -> AsyncNamespace:
        return AsyncNamespace(self._request, name)

    def _request(self, method: str, params: dict[str, Any] | None, shape: Any,
                 progress: Handler | None = None) -> asyncio.Future[Any]:
        if self._results is not None:
            raise RuntimeError("this pipeline has already run")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls.append((method, params, shape, progress))
        self.futures.append(future)
        return future

    def __len__(self) -> int:
        return len(self.futures)

    async def wait(self) -> list[Any]:
        """Sends what is queued in one write and waits for every answer;
        returns the results (exceptions in the places of failed calls)."""
        calls, self._calls = self._calls, []
        if calls:
            await self._send(calls, self.futures[len(self.futures) - len(calls):])
        self._results = [f.exception() or f.result() for f in self.futures]
        return self._results

    async def _send(self, calls: list[tuple[str, Any, Any, Handler | None]],
                    futures: list[asyncio.Future[Any]]) -> None:
        connection = self.db._connection
        try:
            sent = connection.start(calls, batch=self.batch)
        except SidecarExited as e:
            for future in futures:
                if not future.done():
                    future.set_exception(e)
            return
        await connection.drain()
        for (_, answer, token), future in zip(sent, futures):
            try:
                future.set_result(await answer)
            except Exception as e:
                future.set_exception(e)
            finally:
                if token is not None:
                    connection.forget_progress(token)
        if any(token is not None for _, _, token in sent):
            await connection.wait_for_callbacks()

    @property
    def results(self) -> list[Any]:
        """Each call's result in order (its exception where it failed)."""
        if self._results is None:
            raise RuntimeError("the pipeline has not run yet: leave the async with block or await wait()")
        return self._results

    async def __aenter__(self) -> AsyncPipeline:
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            for future in self.futures:
                future.cancel()
            self._calls = []
            return
        results = await self.wait()
        if self.raise_on_error:
            for r in results:
                if isinstance(r, BaseException):
                    raise r
