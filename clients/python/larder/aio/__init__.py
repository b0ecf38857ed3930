"""The asyncio Larder client::

    from larder.aio import AsyncLarder

    async with AsyncLarder.spawn(memory=True) as db:
        await db.cache.set("greeting", {"text": "hello"}, ttl=60)
        print(await db.cache.get("greeting"))

It shares the wire format (:mod:`larder.wire`), the method classes and the
binary lookup with :class:`larder.Larder`; only the transport differs
(:mod:`larder.aio.connection`).
"""

from .client import AsyncLarder, AsyncNamespace, AsyncPipeline, Spawn
from .view import AsyncCacheView

__all__ = ["AsyncCacheView", "AsyncLarder", "AsyncNamespace", "AsyncPipeline", "Spawn"]
