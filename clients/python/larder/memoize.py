"""``@db.memoize(...)``: a function's results kept in a cache, like
diskcache's ``Cache.memoize`` — for plain functions on :class:`larder.Larder`
and for coroutine functions on :class:`larder.aio.AsyncLarder`."""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any, Awaitable, Callable, TypeVar

from ._params import ABSENT, BytesLike
from .fetch import Fetched

if TYPE_CHECKING:  # pragma: no cover
    from .cache import CacheMethods
    from .methods import Async, Sync

__all__ = ["memoize", "memoize_async"]

F = TypeVar("F", bound=Callable[..., Any])
A = TypeVar("A", bound=Callable[..., Awaitable[Any]])


def _key_function(fn: Callable[..., Any], name: str | None, typed: bool) -> Callable[..., str]:
    """The cache key for a call of ``fn``: its full name (or ``name``) with
    the arguments, as JSON text (``typed`` adds their types)."""
    base = name or f"{fn.__module__}.{fn.__qualname__}"

    def cache_key(*args: Any, **kwargs: Any) -> str:
        parts: list[Any] = [base, list(args), sorted(kwargs.items())]
        if typed:
            parts.append([type(a).__qualname__ for a in args])
            parts.append(sorted((k, type(v).__qualname__) for k, v in kwargs.items()))
        try:
            return json.dumps(parts, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{base}: memoized arguments must be JSON values: {e}") from None

    return cache_key


def _stored(value: Any) -> dict[str, Any]:
    """How a result is stored: bytes as data, anything else as a JSON value."""
    if isinstance(value, BytesLike):
        return {"data": value}
    return {"value": value}


def _fetched(value: Any, ttl: float | None) -> Fetched:
    """A result as a fetcher's answer: stored like :func:`_stored` (``None`` as a JSON null)."""
    if isinstance(value, BytesLike):
        return Fetched(data=value, ttl=ttl)
    return Fetched(value, ttl=ttl)


def memoize(methods: CacheMethods[Sync], cache: str | None, *, ttl: float | None, group: str | None,
            name: str | None, typed: bool) -> Callable[[F], F]:
    """The decorator behind :meth:`larder.Larder.memoize`."""

    def decorate(fn: F) -> F:
        cache_key = _key_function(fn, name, typed)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = cache_key(*args, **kwargs)
            if methods.fetchers.fetch_declared:  # cache.getOrFetch: fn runs once however many threads miss

                def fetch(_: str) -> Fetched:
                    return _fetched(fn(*args, **kwargs), ttl)

                return methods.get_or_fetch(key, fetch, cache=cache, group=group)
            value = methods.get(key, ABSENT, cache=cache, group=group)
            if value is not ABSENT:
                return value
            value = fn(*args, **kwargs)
            methods.set(key, **_stored(value), ttl=ttl, cache=cache, group=group)
            return value

        wrapper.__cache_key__ = cache_key  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def memoize_async(methods: CacheMethods[Async], cache: str | None, *, ttl: float | None, group: str | None,
                  name: str | None, typed: bool) -> Callable[[A], A]:
    """The decorator behind :meth:`larder.aio.AsyncLarder.memoize`: the same
    keys and storage as :func:`memoize`, for coroutine functions."""

    def decorate(fn: A) -> A:
        cache_key = _key_function(fn, name, typed)

        @functools.wraps(fn)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = cache_key(*args, **kwargs)
            if methods.fetchers.fetch_declared:  # cache.getOrFetch: fn runs once however many tasks miss

                async def fetch(_: str) -> Fetched:
                    return _fetched(await fn(*args, **kwargs), ttl)

                return await methods.get_or_fetch(key, fetch, cache=cache, group=group)
            value = await methods.get(key, ABSENT, cache=cache, group=group)
            if value is not ABSENT:
                return value
            value = await fn(*args, **kwargs)
            await methods.set(key, **_stored(value), ttl=ttl, cache=cache, group=group)
            return value

        wrapper.__cache_key__ = cache_key  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
