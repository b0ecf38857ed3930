"""One group of one cache seen as a mapping, for asyncio: the operations of
:class:`larder.cache.CacheGroup`, awaited."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from .._steps import run_async
from ..cache import CacheGroup
from ..methods import Async
from ..results import Entry

__all__ = ["AsyncCacheView"]

class AsyncCacheView(CacheGroup[Async]):
    """:class:`larder.CacheView` for asyncio (``db.cache_view(...)``): the
    same operations, awaited, since a mapping's ``view[key]`` cannot be.

    ``await view.set(key, value)`` stores bytes as ``data`` and anything else
    as a JSON ``value``; ``await view.get(key, default)`` reads it back.
    ``async for key in view`` (or :meth:`keys`) goes through the group's
    valid keys in byte order a page at a time (``cache.keys``), and
    :meth:`items` reads each page's values with one ``cache.getMany`` —
    never one request per key.
    """

    async def set(self, key: str, value: Any, *, ttl: float | None = None) -> None:
        """Stores ``value`` (bytes as data) with an optional ``ttl`` in seconds."""
        await run_async(self._set(key, value, ttl))

    async def get(self, key: str, default: Any = None) -> Any:
        """The value (bytes for data), or ``default`` when there is none."""
        return await run_async(self._get(key, default))

    async def entry(self, key: str) -> Entry:
        """The whole ``cache.get`` answer (with ``expired``, ``storedAt``, ``tier``...)."""
        return await run_async(self._entry(key))

    async def contains(self, key: str) -> bool:
        """True for a stored, unexpired entry (``cache.has``)."""
        return await run_async(self._contains(key))

    async def remove(self, key: str) -> bool:
        """Deletes the entry; ``False`` when there was none."""
        return await run_async(self._remove(key))

    async def pop(self, key: str, *default: Any) -> Any:
        """Removes ``key`` and returns its value (or ``default``; without
        one, :class:`KeyError` when there is none)."""
        return await run_async(self._pop(key, default))

    async def touch(self, key: str) -> bool:
        """Restarts the entry's lifetime; ``False`` when there is no entry."""
        return await run_async(self._touch(key))

    async def update(self, entries: Mapping[str, Any]) -> None:
        """Stores several entries in one ``cache.setMany`` (all or none)."""
        await run_async(self._update(entries))

    async def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """``{key: value}`` for the keys that are found, in one ``cache.getMany``."""
        return await run_async(self._get_many(keys))

    async def _pages(self, prefix: str | None, page_size: int | None) -> AsyncIterator[list[str]]:
        cursor: str | None = None
        while True:
            keys, cursor = await run_async(self._page(prefix, page_size, cursor))
            yield keys
            if cursor is None:
                return

    async def keys(self, prefix: str | None = None, page_size: int | None = None) -> AsyncIterator[str]:
        """The group's valid keys (starting with ``prefix``) in byte order,
        fetched a page at a time."""
        async for page in self._pages(prefix, page_size):
            for key in page:
                yield key

    def __aiter__(self) -> AsyncIterator[str]:
        return self.keys()

    async def count(self) -> int:
        """How many valid keys the group has (paging through them)."""
        return sum([len(page) async for page in self._pages(None, None)])

    async def items(self, prefix: str | None = None) -> AsyncIterator[tuple[str, Any]]:
        """``(key, value)`` pairs in key order: a page of keys, then their
        values in one ``cache.getMany``. An entry that expires or goes between
        the two is left out."""
        async for page in self._pages(prefix, None):
            if page:
                for item in (await self.get_many(page)).items():
                    yield item

    async def clear(self, tier: str | None = None) -> int:
        """Empties this group (``cache.clear``); returns how many entries went."""
        return await run_async(self._clear(tier))
