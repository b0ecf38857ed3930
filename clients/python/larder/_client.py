"""What :class:`larder.Larder` and :class:`larder.aio.AsyncLarder` share
above their transports: the method namespaces, the handlers of what the
server sends, and what ``initialize`` declared. Each client adds how it
starts, calls and closes (threads, or asyncio).
"""

from __future__ import annotations

import inspect
import logging
from typing import Any, Callable, Concatenate, Generic, ParamSpec, TypeVar, cast

from ._session import Handler, Session
from ._spawn import declare_fetch, declares_migration_callbacks
from .cache import CacheMethods
from .entities import EntityMethods
from .objects import MigrateMethods, ObjectMethods, SchemaMethods
from .results import InitializeResult
from .store import StoreMethods
from .transaction import Transaction

__all__ = ["Client", "initializer"]

log = logging.getLogger("larder")

K = TypeVar("K")
P = ParamSpec("P")
R = TypeVar("R")
C = TypeVar("C", bound="Client[Any]")


class Client(Generic[K]):
    """The part of a client that does not depend on its transport (see the
    module docstring); ``K`` is the facade kind of its methods
    (:class:`~larder.methods.Sync` or :class:`~larder.methods.Async`)."""

    def __init__(self, session: Session, request: Callable[..., Any], *, asynchronous: bool) -> None:
        self._session = session
        #: What ``initialize`` answered, or ``None``.
        self.init_result: InitializeResult | None = None
        #: Whether ``initialize`` declared ``capabilities.migrationCallbacks``.
        self.migration_callbacks = False
        self._closed = False
        self.cache: CacheMethods[K] = CacheMethods(request, asynchronous=asynchronous)
        self.schema: SchemaMethods[K] = SchemaMethods(request)
        self.object: ObjectMethods[K] = ObjectMethods(request)
        self.migrate: MigrateMethods[K] = MigrateMethods(request)
        self.entity: EntityMethods[K] = EntityMethods(request, asynchronous=asynchronous)
        self.store: StoreMethods[K] = StoreMethods(request)

    def _initialized(self, params: dict[str, Any], result: InitializeResult) -> None:
        """Notes what ``initialize`` declared and answered."""
        self.init_result = result
        self.migration_callbacks = declares_migration_callbacks(params)
        declare_fetch(self.cache.fetchers, params)

    def transaction(self, *, cache: str | None = None, group: str | None = None) -> Transaction[K]:
        """A transaction over several keys, to build and then ``commit()``
        (see :class:`~larder.transaction.Transaction`); ``cache`` and
        ``group`` are those of each comparison and operation that names
        none::

            txn = db.transaction(cache="accounts")
            txn.if_revision("alice", seen).set("alice", 90).incr("bob", 10)
            txn.otherwise.get("alice")
            result = txn.commit()   # {"succeeded": True, "results": [...]}
        """
        return Transaction(self.cache._request, cache, group)

    @property
    def stderr_tail(self) -> str:
        """The last lines the sidecar wrote to stderr."""
        return self._session.stderr_tail

    # ------------------------------------------------------------------
    # Server-to-client requests and notifications

    def on_request(self, method: str, fn: Handler | None = None) -> Any:
        """Answers the server's ``method`` requests with ``fn(params)``'s return
        value; a :class:`~larder.LarderError` raised by ``fn`` is sent as the
        error (any other exception as -32603). Runs on the callback thread
        (on ``AsyncLarder``, on a task of its own, and what ``fn`` returns is
        awaited when it is awaitable). ``fn=None`` makes it a decorator;
        ``fn`` replaces an earlier one. Requests without a handler are
        answered with -32601."""
        if fn is None:
            return lambda f: self.on_request(method, f) or f
        self._session.request_handlers[method] = fn
        return None

    def on_event(self, method: str, fn: Handler | None = None) -> Any:
        """Calls ``fn(params)`` for each ``method`` notification from the
        server (``"cache.evicted"``, ``"cache.removed"``, ``"cache.cleared"``;
        ``"$/progress"`` for progress without a per-call callback; on
        ``AsyncLarder`` awaited when it is awaitable). Returns a function
        that removes the handler (or is a decorator when ``fn`` is ``None``)."""
        if fn is None:
            def decorate(f: Handler) -> Handler:
                self.on_event(method, f)
                return f

            return decorate
        handlers = self._session.event_handlers
        handlers[method] = [*handlers.get(method, ()), fn]

        def remove() -> None:
            handlers[method] = [h for h in handlers.get(method, ()) if h is not fn]

        return remove

    def _check_migration_callbacks(self) -> None:
        """Warns when a ``migrate.object`` handler comes after an
        ``initialize`` that did not declare it: the server will not ask."""
        if self.init_result is not None and not self.migration_callbacks:
            log.warning("on_migrate: this client did not declare capabilities.migrationCallbacks in initialize, "
                        "so the server will not call the handler (pass on_migrate= or migration_callbacks=True "
                        "to %s.spawn)", type(self).__name__)


def initializer(declared: Callable[P, dict[str, Any]]) -> Callable[[Callable[[C, dict[str, Any]], R]],
                                                                   Callable[Concatenate[C, P], R]]:
    """Makes ``initialize(self, params)``, the body that sends ``initialize``
    (and waits or awaits), into the method taking ``declared``'s keywords
    (:func:`~larder._spawn.initialize_params`'), the same on both clients.
    ``migration_callbacks`` left out means "whether a ``migrate.object``
    handler is registered now"."""
    signature = inspect.signature(declared)

    def decorate(send: Callable[[C, dict[str, Any]], R]) -> Callable[Concatenate[C, P], R]:
        def params(self: C, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
            if args:  # refused as a signature would refuse them
                raise TypeError(f"{type(self).__name__}.{send.__name__}() takes 1 positional argument but "
                                f"{len(args) + 1} were given")
            keywords = dict(kwargs)
            if keywords.get("migration_callbacks") is None:
                keywords["migration_callbacks"] = "migrate.object" in self._session.request_handlers
            return cast(Callable[..., dict[str, Any]], declared)(**keywords)

        def initialize(self: C, /, *args: P.args, **kwargs: P.kwargs) -> R:
            return send(self, params(self, args, kwargs))

        async def initialize_async(self: C, /, *args: Any, **kwargs: Any) -> Any:
            return await cast(Callable[..., Any], send)(self, params(self, args, kwargs))

        method = cast(Callable[Concatenate[C, P], R],
                      initialize_async if inspect.iscoroutinefunction(send) else initialize)
        method.__name__, method.__qualname__ = send.__name__, send.__qualname__
        method.__module__, method.__doc__ = send.__module__, send.__doc__
        method.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
                        *signature.parameters.values()],
            return_annotation=inspect.signature(send).return_annotation)
        return method

    return decorate
