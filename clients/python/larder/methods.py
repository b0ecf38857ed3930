"""How one set of method classes serves every facade, typed for each.

``CacheMethods``, ``ObjectMethods``, ... are written once: each method builds
its params and hands them, with how to shape the result, to the ``request``
callable it was given. What a call returns depends on that callable: the
result itself on :class:`larder.Larder`, a :class:`~larder.connection.Reply`
on its pipeline, a coroutine on :class:`larder.aio.AsyncLarder` and an
:class:`asyncio.Future` on its pipeline.

For the type checker, each method is declared to return ``Call[R]`` (``R``
being the method's result type, usually a TypedDict from
:mod:`larder.results`) and decorated with :func:`method`; the class is
generic in the facade it serves (``CacheMethods[Sync]``,
``CacheMethods[Async]``, ...), and :func:`method`'s descriptor turns
``Call[R]`` into ``R``, ``Awaitable[R]``, ``Reply[R]`` or ``Future[R]``
accordingly. At run time :func:`method` returns the function unchanged, so
none of this costs anything per call.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Concatenate, Generic, ParamSpec, TypeVar, overload

from ._params import camel, camel_keys

if TYPE_CHECKING:  # pragma: no cover
    from .connection import Reply

__all__ = ["Async", "AsyncPiped", "Call", "Methods", "Namespace", "Piped", "Sync", "method", "pages"]

P = ParamSpec("P")
R = TypeVar("R")
K = TypeVar("K")


class Sync:
    """Facade kind: :class:`larder.Larder`, whose calls return results."""


class Piped:
    """Facade kind: :class:`larder.Pipeline`, whose calls return replies."""


class Async:
    """Facade kind: :class:`larder.aio.AsyncLarder`, whose calls are awaited."""


class AsyncPiped:
    """Facade kind: :class:`larder.aio.AsyncPipeline`, whose calls return futures."""


class Call(Generic[R]):
    """What a method is declared to return: a request whose result is ``R``.
    Only the type checker sees it; see the module docstring."""


class Methods(Generic[K]):
    """The base of the method classes: holds the ``request(method, params,
    shape, progress=None)`` callable of one facade."""

    def __init__(self, request: Callable[..., Any]) -> None:
        self._request: Callable[..., Call[Any]] = request


class Method(Generic[P, R]):
    """The type of a :func:`method`, as the type checker sees it."""

    def __init__(self, build: Callable[Concatenate[Any, P], Call[R]]) -> None:
        self._build = build

    @overload
    def __get__(self, obj: None, owner: Any) -> Method[P, R]: ...
    @overload
    def __get__(self, obj: Methods[Sync], owner: Any) -> Callable[P, R]: ...
    @overload
    def __get__(self, obj: Methods[Piped], owner: Any) -> Callable[P, Reply[R]]: ...
    @overload
    def __get__(self, obj: Methods[Async], owner: Any) -> Callable[P, Awaitable[R]]: ...
    @overload
    def __get__(self, obj: Methods[AsyncPiped], owner: Any) -> Callable[P, asyncio.Future[R]]: ...

    def __get__(self, obj: Any, owner: Any) -> Any:  # pragma: no cover - never runs (see method)
        raise NotImplementedError


class Pages(Generic[P, R]):
    """The type of a :func:`pages` method, as the type checker sees it: an
    iterator on a client, an async iterator on an asyncio client, and not
    there on a pipeline (it needs each page's answer)."""

    def __init__(self, fn: Callable[Concatenate[Any, P], Iterator[R] | AsyncIterator[R]]) -> None:
        self._fn = fn

    @overload
    def __get__(self, obj: None, owner: Any) -> Pages[P, R]: ...
    @overload
    def __get__(self, obj: Methods[Sync], owner: Any) -> Callable[P, Iterator[R]]: ...
    @overload
    def __get__(self, obj: Methods[Async], owner: Any) -> Callable[P, AsyncIterator[R]]: ...

    def __get__(self, obj: Any, owner: Any) -> Any:  # pragma: no cover - never runs (see pages)
        raise NotImplementedError


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


if TYPE_CHECKING:
    method = Method
    pages = Pages
else:
    def method(fn):
        """Marks a request method (see the module docstring); returns it unchanged."""
        return fn

    def pages(fn):
        """Marks a method that goes through pages of results, an iterator or
        an async iterator by facade (see :class:`Pages`); returns it unchanged."""
        return fn
