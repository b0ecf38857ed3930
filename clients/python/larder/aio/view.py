"""One group of one cache seen as a mapping, for asyncio."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..cache import BytesLike, value_of
from ..errors import CacheNotFound
from ..results import Entry

if TYPE_CHECKING:  # pragma: no cover
    from .client import AsyncLarder

__all__ = ["AsyncCacheView"]


class _Absent:
    """A default no stored value can be."""


_ABSENT: Any = _Absent()


class AsyncCacheView:
    """:class:`larder.CacheView` for asyncio (``db.cache_view(...)``): the
    same operations, awaited, since a mapping's ``view[key]`` cannot be.

    ``await view.set(key, value)`` stores bytes as ``data`` and anything else
    as a JSON ``value``; ``await view.get(key, default)`` reads it back.
    ``async for key in view`` (or :meth:`keys`) goes through the group's
    valid keys in byte order a page at a time (``cache.keys``), and
    :meth:`items` reads each page's values with one ``cache.getMany`` —
    never one request per key.
    """

    #: Keys per ``cache.keys`` page (and per ``cache.getMany``) when iterating.
    page_size = 1000

    def __init__(self, db: AsyncLarder, cache: str = "default", group: str = "", *,
                 ttl: float | None = None) -> None:
        self.db = db
        self.cache = cache
        self.group = group
        #: TTL in seconds applied by :meth:`set` (None: the cache's lifespan).
        self.ttl = ttl

    def __repr__(self) -> str:
        return f"AsyncCacheView(cache={self.cache!r}, group={self.group!r})"

    async def set(self, key: str, value: Any, *, ttl: float | None = None) -> None:
        """Stores ``value`` (bytes as data) with an optional ``ttl`` in seconds."""
        ttl = self.ttl if ttl is None else ttl
        if isinstance(value, BytesLike):
            await self.db.cache.set(key, data=value, ttl=ttl, cache=self.cache, group=self.group)
        else:
            await self.db.cache.set(key, value, ttl=ttl, cache=self.cache, group=self.group)

    async def get(self, key: str, default: Any = None) -> Any:
        """The value (bytes for data), or ``default`` when there is none."""
        return await self.db.cache.get(key, default, cache=self.cache, group=self.group)

    async def entry(self, key: str) -> Entry:
        """The whole ``cache.get`` answer (with ``expired``, ``storedAt``, ``tier``...)."""
        return await self.db.cache.entry(key, cache=self.cache, group=self.group)

    async def contains(self, key: str) -> bool:
        """True for a stored, unexpired entry (``cache.has``)."""
        return (await self.db.cache.has(key, cache=self.cache, group=self.group))["valid"]

    async def remove(self, key: str) -> bool:
        """Deletes the entry; ``False`` when there was none."""
        return (await self.db.cache.remove(key, cache=self.cache, group=self.group))["removed"]

    async def pop(self, key: str, *default: Any) -> Any:
        """Removes ``key`` and returns its value (or ``default``; without
        one, :class:`KeyError` when there is none)."""
        value = await self.get(key, _ABSENT)
        if value is _ABSENT:
            if default:
                return default[0]
            raise KeyError(key)
        await self.remove(key)
        return value

    async def touch(self, key: str) -> bool:
        """Restarts the entry's lifetime; ``False`` when there is no entry."""
        return (await self.db.cache.touch(key, cache=self.cache, group=self.group))["found"]

    async def update(self, entries: Mapping[str, Any]) -> None:
        """Stores several entries in one ``cache.setMany`` (all or none)."""
        if entries:
            await self.db.cache.set_many(entries, cache=self.cache, group=self.group)

    async def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """``{key: value}`` for the keys that are found, in one ``cache.getMany``."""
        result = (await self.db.cache.get_many(list(keys), cache=self.cache, group=self.group))["entries"]
        return {k: value_of(e) for k, e in result.items() if e.get("found")}

    async def _pages(self, prefix: str | None, page_size: int | None) -> AsyncIterator[list[str]]:
        cursor: str | None = None
        while True:
            page = await self.db.cache.keys(prefix=prefix, limit=page_size or self.page_size, cursor=cursor,
                                            cache=self.cache, group=self.group)
            yield page["keys"]
            cursor = page.get("cursor")
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
        try:
            return (await self.db.cache.clear(tier=tier, cache=self.cache, group=self.group))["removed"]
        except CacheNotFound:  # an unknown cache is already empty
            return 0
