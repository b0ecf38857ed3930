"""The Larder client: a ``larder`` sidecar process spoken to with JSON-RPC 2.0,
one JSON message per line, over its stdin/stdout.

The pipes, and who reads them when, are :class:`~larder.connection.Connection`'s
job: the thread making a call reads its own answer unless another thread is
already reading; callbacks (server-to-client requests, notifications,
progress) run in arrival order on one callback thread, so that a callback may
itself call the server. Any number of threads may share one client.
"""

from __future__ import annotations

import functools
import logging
import subprocess
from dataclasses import KW_ONLY, dataclass
from typing import Any, Callable, TypeVar

from ._client import Client, initializer
from ._spawn import CLIENT_NAME, CLIENT_VERSION, SpawnOptions, initialize_params, is_postgresql_url, spawner
from .binary import find_binary
from .cache import CacheMethods, CacheView
from .connection import Connection, Reply
from .errors import LarderError, SidecarExited
from .fetch import FETCH_METHODS
from .entities import EntityMethods
from .memoize import memoize
from .methods import Namespace, Piped, Sync
from .objects import MigrateMethods, ObjectMethods, SchemaMethods, migrate_answer
from .results import InitializeResult
from .locks import LockMethods, Locks
from .store import StoreMethods

__all__ = ["Larder", "Pipeline", "Namespace", "find_binary", "is_postgresql_url", "CLIENT_NAME", "CLIENT_VERSION"]

log = logging.getLogger("larder")

F = TypeVar("F", bound=Callable[..., Any])
Handler = Callable[[Any], Any]
Transform = Callable[[Any], Any] | None


@dataclass(frozen=True, repr=False)
class _SpawnArguments(SpawnOptions):
    """:meth:`Larder.spawn`'s arguments: the options, with this client's own."""

    _: KW_ONLY
    timeout: float | None = None
    options: SpawnOptions | None = None


class Larder(Client[Sync]):
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
        store: the ``store.*`` methods (:class:`~larder.store.StoreMethods`).
        lock: the ``lock.*`` methods, and ``with db.lock(name, ttl=...) as
            lease:`` (:class:`~larder.locks.Locks`).
        migration_callbacks: whether ``initialize`` declared
            ``capabilities.migrationCallbacks`` (the server then asks
            :meth:`on_migrate`'s handler for ``{"op": "callback"}`` steps).
        init_result: what ``initialize`` answered (``serverInfo``,
            ``protocolVersion``, ``capabilities``, ``store``; for a store on
            PostgreSQL, ``store["coherence"]``), or ``None``.
        timeout: default seconds to wait for an answer (``None``: forever; a
            sidecar that dies still raises :class:`~larder.SidecarExited`).
    """

    def __init__(self, process: subprocess.Popen[bytes], *, timeout: float | None = None) -> None:
        self._connection = Connection(process)
        self._proc = process
        self._connection.timeout = timeout
        super().__init__(self._connection.session, self._connection.request, asynchronous=False)
        self.lock = Locks(self._connection.request)
        fetchers = self.cache.fetchers
        for name in FETCH_METHODS:  # answered on the worker pool, several at once
            self._connection.session.request_handlers[name] = functools.partial(fetchers.answer, name)
            self._connection.concurrent_methods.add(name)

    # ------------------------------------------------------------------
    # Starting and stopping

    @classmethod
    @spawner(_SpawnArguments)
    def spawn(cls, given: _SpawnArguments) -> Larder:
        """Starts ``larder`` and (unless ``initialize=False``) sends
        ``initialize`` and ``initialized``.

        Takes the fields of :class:`~larder.SpawnOptions` as keywords
        (``store``, ``memory``, ``binary``, ``app_version`` and ``args``
        by position too; each is described there), and:

        Args:
            timeout: the client's default answer timeout in seconds.
            options: a :class:`~larder.SpawnOptions` whose fields stand for
                the arguments not given.
        """
        process = subprocess.Popen(given.command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=given.env)
        db = cls(process, timeout=given.timeout)
        if given.on_migrate is not None:
            db.on_migrate(given.on_migrate)
        if given.initialize:
            try:
                db.initialize(**given.initialize_keywords())
            except BaseException:
                db.close()
                raise
        return db

    @initializer(initialize_params)
    def initialize(self, params: dict[str, Any]) -> InitializeResult:
        """Sends ``initialize`` (then the ``initialized`` notification) and
        returns its result: ``{"serverInfo": {"name", "version"},
        "protocolVersion", "capabilities": {"methods", "framing", "limits"},
        "store": {"path", "persistent"}}``. ``store`` switches to that store:
        a directory (sent as ``store.path``), or a ``postgresql://`` URL (sent
        as ``store.url``, with ``pg_schema`` as ``store.schema`` and
        ``pg_coherence`` as ``store.coherence``, see :meth:`spawn`; ``path``
        in the result is then the URL, any password in it shown as ``***``,
        followed by a space and ``schema NAME``, and ``store.coherence`` the
        mode kept: ``"strict"``, ``"notify"`` or ``"poll"``).
        ``events`` asks for every cache event;
        ``migration_callbacks`` declares that this client answers
        ``migrate.object`` (default: whether :meth:`on_migrate` has a handler
        now). ``fetch`` declares that this client answers ``cache.fetch``
        and ``fallback`` (default: as ``fetch``) ``cache.fallback``, for
        ``db.cache.get_or_fetch``. ``encryption_key`` and
        ``encryption_keys`` are the keys of encrypted caches (see
        :meth:`spawn`). Must be the first request, and is accepted once.

        Other keywords are the other members of LSP's ``InitializeParams``
        (``process_id``, ``root_uri``, ``initialization_options``, ...), sent
        camelCase with their values as given; any other name is refused by
        the server with :class:`~larder.InvalidParams` naming it."""
        result: InitializeResult = self.call("initialize", params)
        self._initialized(params, result)
        self.notify("initialized", {})
        return result

    def close(self, timeout: float = 10.0) -> int | None:
        """Sends ``shutdown`` and ``exit``, closes the sidecar's input and waits
        for it; kills it only if it does not exit within ``timeout`` seconds.
        Returns its exit status. Safe to call more than once."""
        connection = self._connection
        already, self._closed = self._closed, True
        connection.session.closing = True
        if not already and connection.session.exit_info is None:
            try:
                self.call("shutdown", timeout=timeout)
                self.notify("exit")
            except (LarderError, TimeoutError, OSError) as e:
                log.debug("shutdown failed: %s", e)
        connection.close_input()
        try:
            self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            log.warning("larder (pid %s) did not exit within %ss; killing it", self.pid, timeout)
            self._proc.kill()
            self._proc.wait()
        returncode = self._proc.returncode
        reason = "the larder client was closed" if returncode == 0 else None
        connection.end((returncode, connection.stderr_tail, reason))
        connection.join(timeout)
        return returncode

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
        return self._connection.session.exit_info is None and self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

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
        return self._connection.request(method, params, None, progress,
                                        self.timeout if timeout is None else timeout)

    def call_async(self, method: str, params: dict[str, Any] | None = None, *,
                   progress: Handler | None = None) -> Reply[Any]:
        """Like :meth:`call`, but sends the request and returns at once: a
        :class:`~larder.connection.Reply` (``result(timeout)``,
        ``exception()``, ``done()``, ``request_id``, like a
        :class:`concurrent.futures.Future`). Its answer is read when you ask
        for it, or when another call reads past it."""
        reply: Reply[Any] = Reply(self._connection)
        first, tokens = self._connection.start([(method, params, progress)])
        reply.request_id = first
        reply._progress = tokens[0]
        return reply

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Sends a notification (no answer)."""
        self._connection.notify(method, params)

    def cancel(self, request: Reply[Any] | int) -> None:
        """Sends ``$/cancelRequest`` for a request (its reply or id)."""
        rid = request.request_id if isinstance(request, Reply) else request
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

    def memoize(self, cache: str | None = None, *, ttl: float | None = None, group: str | None = None,
                name: str | None = None, typed: bool = False) -> Callable[[F], F]:
        """A decorator that keeps a function's results in ``cache`` (the
        server's default cache when ``None``), like diskcache's
        ``memoize``::

            @db.memoize(cache="api", ttl=300)
            def profile(user_id: int) -> dict: ...

        The key is the function's full name (or ``name``) with its
        arguments, as JSON text (``typed=True`` adds their types), so
        arguments must be JSON values; ``f.__cache_key__(*args, **kwargs)``
        gives it. A result is stored as JSON (bytes as data), so a tuple
        comes back from the cache as a list. ``ttl`` is in seconds (default:
        the cache's lifespan)."""
        return memoize(self.cache, cache, ttl=ttl, group=group, name=name, typed=typed)

    def namespace(self, name: str) -> Namespace:
        """Generic access to ``name.*`` methods (see :class:`Namespace`)."""
        return Namespace(self._connection.request, name)

    def discover(self) -> dict[str, Any]:
        """``rpc.discover``: the server's OpenRPC document."""
        document: dict[str, Any] = self.call("rpc.discover")
        return document

    def shutdown(self) -> None:
        """``shutdown``: commits everything; afterwards only ``exit`` is accepted.
        (:meth:`close` does this for you.)"""
        self.call("shutdown")

    # ------------------------------------------------------------------
    # Server-to-client requests and notifications

    def on_migrate(self, fn: Handler | None = None) -> Any:
        """Answers ``migrate.object``: the server asks it for each
        ``{"op": "callback"}`` migration step, when an object is read
        (``object.get``, ``describe``, ``equals``, ``hash``) or during
        ``migrate.run``.

        ``fn(params)`` gets ``{"type", "key", "cache", "group",
        "fromVersion", "toVersion", "value", "index"?}`` (``value`` as the
        earlier steps left it; ``index`` for an element of an array of
        objects) and returns the new value (a dict, answered as
        ``{"value": ...}``), or :data:`larder.DROP` to delete the object, or
        only that element of an array (``{"drop": true}``). Raising answers with an error: the read fails
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
        self._check_migration_callbacks()

        def answer(params: Any) -> dict[str, Any]:
            return migrate_answer(fn(params))

        self.on_request("migrate.object", answer)
        return fn

    @property
    def timeout(self) -> float | None:
        """Seconds to wait for an answer by default (``None``: forever)."""
        return self._connection.timeout

    @timeout.setter
    def timeout(self, seconds: float | None) -> None:
        self._connection.timeout = seconds


class Pipeline:
    """Calls queued to be sent in one write (see :meth:`Larder.pipeline`).

    ``p.call(...)``, ``p.cache.*``, ``p.schema.*``, ``p.object.*``,
    ``p.migrate.*``, ``p.entity.*``, ``p.store.*`` and ``p.namespace(...)`` return a
    :class:`~larder.connection.Reply` each; after the ``with`` block,
    ``p.results`` holds each call's result in order, or its exception for one
    that failed. The answers are read together and decoded in bulk.
    """

    def __init__(self, db: Larder, *, batch: bool = False, raise_on_error: bool = True) -> None:
        self.db = db
        self.batch = batch
        self.raise_on_error = raise_on_error
        self._connection = db._connection
        self.cache: CacheMethods[Piped] = CacheMethods(self._request, db.cache.fetchers)
        self.schema: SchemaMethods[Piped] = SchemaMethods(self._request)
        self.object: ObjectMethods[Piped] = ObjectMethods(self._request)
        self.migrate: MigrateMethods[Piped] = MigrateMethods(self._request)
        self.entity: EntityMethods[Piped] = EntityMethods(self._request, pipelined=True)
        self.store: StoreMethods[Piped] = StoreMethods(self._request)
        self.lock: LockMethods[Piped] = LockMethods(self._request)
        #: Every call's reply, in order.
        self.replies: list[Reply[Any]] = []
        # The calls not sent yet: their methods and params side by side (no
        # tuple each, fewer objects for the garbage collector to visit), and
        # the progress callbacks of the few that have one, by position.
        self._methods: list[str] = []
        self._params: list[Any] = []
        self._progress: dict[int, Handler] = {}
        self._sent = 0
        self._results: list[Any] | None = None

    def call(self, method: str, params: dict[str, Any] | None = None, *, progress: Handler | None = None) -> Reply[Any]:
        """Queues a request; returns its reply."""
        return self._request(method, params, None, progress)

    def namespace(self, name: str) -> Namespace:
        return Namespace(self._request, name)

    def _request(self, method: str, params: dict[str, Any] | None, transform: Transform,
                 progress: Handler | None = None) -> Reply[Any]:
        if self._results is not None:
            raise RuntimeError("this pipeline has already run")
        reply: Reply[Any] = Reply(self._connection, transform)
        if progress is not None:
            self._progress[len(self.replies)] = progress
        self._methods.append(method)
        self._params.append(params)
        self.replies.append(reply)
        return reply

    def __len__(self) -> int:
        return len(self.replies)

    def flush(self) -> None:
        """Sends what is queued (in one write) without waiting for answers."""
        methods, params, progress = self._methods, self._params, self._progress
        if not methods:
            return
        self._methods, self._params, self._progress = [], [], {}
        sent = self._sent
        self._sent += len(methods)
        replies = self.replies[sent:sent + len(methods)]
        tokens: list[Any] = []
        try:
            if progress or self.batch:
                calls = [(m, p, progress.get(i)) for i, (m, p) in enumerate(zip(methods, params), sent)]
                first, tokens = self._connection.start(calls, batch=self.batch)
            else:
                first = self._connection.send(methods, params)
        except SidecarExited as e:
            for reply in replies:
                reply._fail(e)
            return
        for rid, reply in enumerate(replies, first):
            reply.request_id = rid
        if progress:
            for reply, token in zip(replies, tokens):
                reply._progress = token

    def wait(self, timeout: float | None = None) -> list[Any]:
        """Sends what is queued and waits for every answer; returns the results
        (exceptions in the places of failed calls)."""
        self.flush()
        results = self._connection.settle(self.replies, timeout if timeout is not None else self.db.timeout)
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
            for reply in self.replies[self._sent:]:
                reply.cancel()
            self._methods, self._params, self._progress = [], [], {}
            return
        results = self.wait()
        if self.raise_on_error:
            for r in results:
                if isinstance(r, BaseException):
                    raise r
