"""The ``store.*`` methods (``db.store``, and the same on a pipeline): what
acts on every cache of the store at once."""

from __future__ import annotations

from typing import Literal, TypeVar

from ._params import camel_params
from .methods import Call, Methods, method
from .results import StoreClearResult

K = TypeVar("K")

__all__ = ["StoreMethods"]


class StoreMethods(Methods[K]):
    """The ``store.*`` methods. On a client each call returns its result; on
    a pipeline, a reply of it; on an asyncio client, an awaitable (see
    :mod:`larder.methods`)."""

    @method
    def clear(
        self,
        *,
        kind: Literal["all", "objects", "caches"] | None = None,
        include_stores: bool | None = None,
    ) -> Call[StoreClearResult]:
        """``store.clear``: removes entries from every cache of the store.

        ``kind="objects"`` removes only the objects (what ``object.put``
        stored; HMCache's ``+clearCache``), ``"caches"`` only the plain
        entries (``cache.set``'s), ``"all"`` (the server's default) both.
        Durable stores (``cache.open(kind="store")``) are left alone unless
        ``include_stores=True``. Schemas, entity models and entity records
        are never touched, and the caches keep their settings.

        Returns ``{"removed": total, "caches": [{"cache", "removed"}]}``,
        one member per cache that lost entries; subscribers get one
        ``cache.cleared`` for each (with ``kind`` when only one kind went).
        """
        return self._request("store.clear", camel_params(kind=kind, include_stores=include_stores), None)
