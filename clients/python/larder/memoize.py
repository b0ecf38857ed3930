"""``@db.memoize(...)``: a function's results kept in a cache, like
diskcache's ``Cache.memoize``."""

from __future__ import annotations

import functools
import json
from .fetch import Fetched
from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from .cache import CacheMethods

__all__ = ["memoize"]

F = TypeVar("F", bound=Callable[..., Any])


class _Absent:
    """A default no stored value can be."""


_ABSENT: Any = _Absent()


def memoize(methods: CacheMethods, cache: str | None, *, ttl: float | None, group: str | None,
            name: str | None, typed: bool) -> Callable[[F], F]:
    """The decorator behind :meth:`larder.Larder.memoize`."""

    def decorate(fn: F) -> F:
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

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = cache_key(*args, **kwargs)
            if methods.fetchers.fetch_declared:  # cache.getOrFetch: fn runs once however many threads miss

                def fetch(_: str) -> Fetched:
                    result = fn(*args, **kwargs)
                    if isinstance(result, (bytes, bytearray, memoryview)):
                        return Fetched(data=result, ttl=ttl)
                    return Fetched(result, ttl=ttl)

                return methods.get_or_fetch(key, fetch, cache=cache, group=group)
            value = methods.get(key, _ABSENT, cache=cache, group=group)
            if value is not _ABSENT:
                return value
            value = fn(*args, **kwargs)
            if isinstance(value, (bytes, bytearray, memoryview)):
                methods.set(key, data=value, ttl=ttl, cache=cache, group=group)
            else:
                methods.set(key, value, ttl=ttl, cache=cache, group=group)
            return value

        wrapper.__cache_key__ = cache_key  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
