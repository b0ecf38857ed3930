"""The ``cache.*`` methods (``db.cache``, ``pipeline.cache``) and the dict-like
:class:`CacheView`.

Every method takes the protocol's parameters as snake_case keywords
(``returns_expired`` → ``returnsExpired``, ``max_count`` → ``maxCount``);
``None`` means "leave it out" so the server's default applies. Results are the
protocol's plain dicts, except that ``data`` (bytes stored with ``data=``) comes
back as :class:`bytes` instead of base64 text.

Nothing misspelt is dropped on the way: an unknown keyword raises
:class:`TypeError`, and a key the protocol does not know inside a mapping you
pass (``memory``/``disk`` limits, ``set_many`` entries) is sent as written, so
the server refuses the whole request with :class:`~larder.InvalidParams`
naming it and the name most likely meant (``e.path``, ``e.suggestion``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any, Awaitable, Callable, Generic, Iterable, Literal, Protocol, TypeVar, cast

from ._params import (ABSENT, MISSING, BytesLike, camel, camel_keys, camel_params, decode_entries, decode_entry,
                      encode_data, value_of)
from .errors import CacheNotFound
from .connection import Reply
from .encryption import Key, encode_key
from .fetch import Fallback, Fetcher, Fetchers
from .methods import Call, Methods, Sync, method
from ._steps import Steps, run
from .results import (ClearResult, DropResult, Entry, FetchedEntry, FoundResult, GetManyResult, GroupsPage, HasResult,
                      IncrementResult, KeysPage, ListResult, OpenResult, RekeyResult, RemoveResult, SetManyResult,
                      SetResult, StatsResult, SubscribeResult, TransactionResult)
from .transaction import transaction_params, transaction_result
from .wire import RawJSON, encode_json, encode_string

K = TypeVar("K")

__all__ = ["CacheClient", "CacheGroup", "CacheMethods", "CacheView", "MISSING", "camel", "camel_keys", "encode_data"]


#: The members of ``cache.open``'s ``memory`` and ``disk`` limits.
_LIMITS = ("maxCount", "maxBytes")


def _limits(given: Mapping[str, Any], name: str) -> dict[str, Any]:
    """``cache.open``'s ``memory`` or ``disk`` for the protocol:
    ``max_count`` / ``max_bytes`` (or the camelCase names) with ``None``
    meaning "leave it out". Any other key is sent exactly as written, so
    that the server refuses it under that name (``params.memory.max_cont``,
    with the name it most likely meant) instead of it being dropped or
    renamed into something else."""
    if not isinstance(given, Mapping):
        raise TypeError(f"{name} must be a mapping such as {{'max_count': 100}}, not {type(given).__name__}")
    out: dict[str, Any] = {}
    for k, v in given.items():
        if isinstance(k, str) and camel(k) in _LIMITS:
            if v is not None:
                out[camel(k)] = v
        else:
            out[k] = v
    return out


#: ``cache.open``'s ``fetch`` settings.
_FETCH = ("retries", "retryDelayMs", "timeoutMs", "ttl", "negativeTtl", "staleWhileRevalidate", "shared")


def _fetch_settings(given: Mapping[str, Any]) -> dict[str, Any]:
    """``cache.open``'s ``fetch`` for the protocol, renamed like
    :func:`_limits`: a key it does not know is sent as written."""
    if not isinstance(given, Mapping):
        raise TypeError(f"fetch must be a mapping such as {{'retries': 2}}, not {type(given).__name__}")
    out: dict[str, Any] = {}
    for k, v in given.items():
        if isinstance(k, str) and camel(k) in _FETCH:
            if v is not None:
                out[camel(k)] = list(v) if camel(k) == "retryDelayMs" and isinstance(v, tuple) else v
        else:
            out[k] = v
    return out


def _fetch_overrides(retries: int | None, retry_delay_ms: Iterable[float] | None, timeout_ms: float | None,
                     ttl: float | None, negative_ttl: float | None,
                     stale_while_revalidate: float | None, shared: bool | None) -> dict[str, Any]:
    """``cache.getOrFetch``'s own fetch settings, ``None`` left out."""
    return camel_params(retries=retries, retry_delay_ms=None if retry_delay_ms is None else list(retry_delay_ms),
                        timeout_ms=timeout_ms, ttl=ttl, negative_ttl=negative_ttl,
                        stale_while_revalidate=stale_while_revalidate, shared=shared)


def _put_value(params: dict[str, Any], value: Any, data: Any) -> None:
    if value is not MISSING and data is not MISSING:
        raise TypeError("give value or data, not both")
    if data is not MISSING:
        params["data"] = encode_data(data)
    elif value is not MISSING:
        params["value"] = value
    else:
        raise TypeError("give value (any JSON) or data (bytes)")


def _sum(result: Any) -> int:
    value: int = result["value"]
    return value


class CacheMethods(Methods[K]):
    """The ``cache.*`` methods. On a client each call returns its result; on a
    pipeline, a :class:`~larder.connection.Reply` of it; on
    :class:`~larder.aio.AsyncLarder`, an awaitable (see :mod:`larder.methods`).

    Common keywords: ``cache`` (the cache's name; the server's default is
    ``"default"``) and ``group`` (a namespace of keys inside the cache; default
    ``""``).
    """

    def __init__(self, request: Callable[..., Any], fetchers: Fetchers | None = None, *,
                 asynchronous: bool = False) -> None:
        super().__init__(request)
        #: The fetchers that answer ``cache.fetch`` / ``cache.fallback``
        #: (shared by a client and its pipelines).
        self.fetchers = fetchers if fetchers is not None else Fetchers()
        # AsyncLarder's calls are coroutines: a fetcher is registered when
        # one starts, not when it is made.
        self._asynchronous = asynchronous

    # -- settings ---------------------------------------------------------

    @method
    def open(
        self,
        cache: str,
        *,
        kind: Literal["cache", "store"] | None = None,
        persistent: bool | None = None,
        memory: Mapping[str, Any] | None = None,
        disk: Mapping[str, Any] | None = None,
        lifespan: float | None = None,
        returns_expired: bool | None = None,
        purge_expired_after: float | None = MISSING,
        persists_across_versions: bool | None = None,
        encrypted: bool | None = None,
        fetch: Mapping[str, Any] | None = None,
        fetcher: Fetcher | None = None,
        fallback: Fallback | None = None,
    ) -> Call[OpenResult]:
        """``cache.open``: creates the cache or changes its settings (evicting
        down to new limits).

        ``memory`` and ``disk`` are limits such as ``{"max_count": 100,
        "max_bytes": 1 << 20}`` (0 = unlimited; ``maxCount``/``maxBytes``
        work too). Any other key is sent as written and refused by the
        server: a misspelt limit raises :class:`~larder.InvalidParams`
        naming it (``params.memory.max_cont``, ``e.suggestion ==
        "maxCount"``) and changes nothing. ``lifespan`` is the default
        lifetime of entries in seconds (0 = forever). ``returns_expired``
        makes ``get`` hand back expired entries (with ``expired: True``).
        ``persistent=False`` keeps the entries in memory only (empty after a
        restart). Changing it on an existing cache moves the entries: to
        disk (then evicting down to the disk limits), or, the most recently
        used that fit, into memory, deleting the cache's rows (subscribers
        get ``cache.cleared`` with ``tier: "disk"``); a durable store stays
        persistent (:class:`~larder.InvalidParams`).
        ``kind="store"`` makes a durable store rather than a purgeable cache:
        its entries expire as a cache's do (``lifespan``, ``ttl``,
        ``returns_expired``; ``touch`` revives them), but only the client
        removes them — no disk limits, no purge, no eviction, never wiped
        when the app version changes; fixed at creation.
        ``purge_expired_after``: seconds after it expires that an entry is
        removed in the background (``None``: the default — at once, never
        with ``returns_expired`` nor in a durable store, which refuses any
        other value).
        ``persists_across_versions``
        keeps a cache's entries when an app of another version (``spawn``'s
        ``app_version``) first uses it; by default they are removed.
        ``encrypted=True`` seals the cache's keys and values on disk under the
        session's key (``spawn``'s ``encryption_key``, ``encryption_keys`` or
        ``key_file``); fixed at creation. Creating one without a key, or
        opening one with another key, raises
        :class:`~larder.EncryptionKeyError` (``e.reason`` ``"keyRequired"`` or
        ``"keyMismatch"``).

        ``fetch`` is the cache's settings for :meth:`get_or_fetch`, with the
        names of its keywords (``retries``, ``retry_delay_ms``,
        ``timeout_ms``, ``ttl``, ``negative_ttl``,
        ``stale_while_revalidate``, ``shared``; camelCase works too; other keys are sent
        as written and refused). ``fetcher`` and ``fallback`` are kept by
        this client as the cache's own: :meth:`get_or_fetch` uses them when
        called without its own (see :mod:`larder.fetch`).

        Returns ``{"cache": name, "created": bool, "config": {"persistent",
        "memory": {"maxCount", "maxBytes"}, "disk": {...}, "lifespan",
        "returnsExpired", "fetch": {...}, "encrypted", ...}}``.
        """
        params = camel_params(cache=cache, kind=kind, persistent=persistent, lifespan=lifespan,
                              returns_expired=returns_expired, persists_across_versions=persists_across_versions,
                              encrypted=encrypted)
        if purge_expired_after is not MISSING:
            params["purgeExpiredAfter"] = purge_expired_after
        if memory is not None:
            params["memory"] = _limits(memory, "memory")
        if disk is not None:
            params["disk"] = _limits(disk, "disk")
        if fetch is not None:
            params["fetch"] = _fetch_settings(fetch)
        if fetcher is not None or fallback is not None:
            self.fetchers.set_cache(cache, fetcher, fallback)
        return self._request("cache.open", params, None)

    # -- single entries ---------------------------------------------------

    @method
    def set(
        self,
        key: str,
        value: Any = MISSING,
        *,
        data: Any = MISSING,
        ttl: float | None = None,
        cache: str | None = None,
        group: str | None = None,
        if_revision: int | None = None,
        if_absent: bool | None = None,
    ) -> Call[SetResult]:
        """``cache.set``: stores ``value`` (any JSON, including ``None``) or
        ``data`` (bytes) under ``key``; ``ttl`` in seconds (0 = never
        expires; default: the cache's lifespan). Creates the cache if needed.

        ``if_revision=R`` writes only if the live entry is at revision ``R``,
        ``if_absent=True`` only if there is no live entry; otherwise nothing
        is written and :class:`~larder.ConditionFailed` is raised with the
        live entry's ``revision`` (``None`` when there is none).

        Returns ``{"stored": True, "size": bytes, "revision": R}`` once
        committed, ``R`` being the entry's new revision.
        """
        if type(key) is str and value is not MISSING and data is MISSING and ttl is None and cache is None \
                and group is None and if_revision is None and if_absent is None:
            try:
                raw = RawJSON('{"key":%s,"value":%s}' % (
                    encode_string(key), encode_string(value) if type(value) is str else encode_json(value)))
            except (TypeError, ValueError):
                raw = None  # not JSON: sent as a mapping below, refused where any request's params are
            if raw is not None:
                return self._request("cache.set", raw, None)
        params: dict[str, Any] = {"key": key}
        if value is not MISSING and data is MISSING:
            params["value"] = value
        else:
            _put_value(params, value, data)
        if ttl is not None:
            params["ttl"] = ttl
        if cache is not None:
            params["cache"] = cache
        if group is not None:
            params["group"] = group
        if if_revision is not None:
            params["ifRevision"] = if_revision
        if if_absent is not None:
            params["ifAbsent"] = if_absent
        return self._request("cache.set", params, None)

    @method
    def get(self, key: str, default: Any = None, *, cache: str | None = None, group: str | None = None,
            with_revision: bool = False) -> Call[Any]:
        """``cache.get``: the value stored under ``key`` (``bytes`` for one
        stored as data), or ``default`` when there is none (or it has
        expired, unless the cache returns expired entries). :meth:`entry`
        gives the whole answer.

        ``with_revision=True`` answers ``(value, revision)`` instead, the
        revision being ``None`` when there is no entry: what a
        compare-and-set reads before writing with ``if_revision``."""
        if with_revision:
            return self._request("cache.get", camel_params(key=key, cache=cache, group=group),
                                 lambda entry: (value_of(entry, default), entry.get("revision")))
        params: Any
        if type(key) is str and cache is None and group is None:
            params = RawJSON('{"key":%s}' % encode_string(key))
        else:
            params = {"key": key}
            if cache is not None:
                params["cache"] = cache
            if group is not None:
                params["group"] = group
        if default is None:
            return self._request("cache.get", params, value_of)
        return self._request("cache.get", params, lambda entry: value_of(entry, default))

    @method
    def entry(self, key: str, *, cache: str | None = None, group: str | None = None) -> Call[Entry]:
        """``cache.get``, the whole answer: ``{"found": False}``, or
        ``{"found": True, "value": ...}`` / ``{"found": True, "data":
        b"..."}`` with ``"expired": bool``, ``"storedAt": "RFC 3339"``,
        ``"expiresAt"`` (when it expires), ``"tier": "memory" | "disk"`` and
        ``"revision"`` (changed by every write of the entry).
        """
        return self._request("cache.get", camel_params(key=key, cache=cache, group=group), decode_entry)

    @method
    def has(self, key: str, *, cache: str | None = None, group: str | None = None) -> Call[HasResult]:
        """``cache.has``: ``{"found": bool, "valid": bool}`` (valid = not
        expired); does not count as a use."""
        return self._request("cache.has", camel_params(key=key, cache=cache, group=group), None)

    @method
    def remove(self, key: str, *, cache: str | None = None, group: str | None = None,
               if_revision: int | None = None) -> Call[RemoveResult]:
        """``cache.remove``: deletes from every tier. ``{"removed": bool}``.
        ``if_revision``: only if the live entry is at that revision, as for :meth:`set`."""
        return self._request("cache.remove", camel_params(key=key, cache=cache, group=group,
                                                          if_revision=if_revision), None)

    @method
    def touch(self, key: str, *, cache: str | None = None, group: str | None = None,
              if_revision: int | None = None) -> Call[FoundResult]:
        """``cache.touch``: restarts the entry's lifetime from now, keeping its
        revision. ``{"found": bool}``, with ``"revived": True`` when the entry
        had expired but was still stored. ``if_revision``: only if the live
        entry is at that revision, as for :meth:`set`."""
        return self._request("cache.touch", camel_params(key=key, cache=cache, group=group,
                                                         if_revision=if_revision), None)

    # -- counters -----------------------------------------------------------

    @method
    def increment(self, key: str, by: int | None = None, *, initial: int | None = None, ttl: float | None = None,
                  cache: str | None = None, group: str | None = None) -> Call[IncrementResult]:
        """``cache.increment``: adds ``by`` (default 1; may be negative) to the
        integer under ``key`` atomically with every other writer, starting
        from ``initial`` (default 0) where there is no live entry, and stores
        the sum as :meth:`set` would (``ttl`` as there). ``{"value": sum,
        "revision": R}``. Raises :class:`~larder.NotAnInteger` when the live
        value is not an integer within ±(2**53 − 1), or the sum would not
        be; nothing is written then."""
        return self._request("cache.increment", camel_params(key=key, by=by, initial=initial, ttl=ttl, cache=cache,
                                                             group=group), None)

    @method
    def incr(self, key: str, by: int = 1, *, initial: int = 0, ttl: float | None = None, cache: str | None = None,
             group: str | None = None) -> Call[int]:
        """:meth:`increment`, answering the sum alone."""
        return self._request("cache.increment", camel_params(key=key, by=by, initial=initial, ttl=ttl, cache=cache,
                                                             group=group), _sum)

    @method
    def decr(self, key: str, by: int = 1, *, initial: int = 0, ttl: float | None = None, cache: str | None = None,
             group: str | None = None) -> Call[int]:
        """:meth:`increment` by ``-by``, answering the sum alone."""
        return self._request("cache.increment", camel_params(key=key, by=-by, initial=initial, ttl=ttl, cache=cache,
                                                             group=group), _sum)

    # -- several keys at once ------------------------------------------------

    @method
    def transaction(self, compare: Iterable[Mapping[str, Any]] = (), then: Iterable[Mapping[str, Any]] = (),
                    otherwise: Iterable[Mapping[str, Any]] = ()) -> Call[TransactionResult]:
        """``cache.transaction`` from its elements as the protocol spells
        them (``data`` may be bytes): ``compare``, ``then`` and
        ``otherwise`` (sent as ``else``). ``db.transaction()`` builds them
        (:class:`~larder.transaction.Transaction`), and its ``commit()``
        describes the answer (:class:`~larder.results.TransactionResult`).
        An element is sent as written, so the server refuses one it cannot
        read with :class:`~larder.InvalidParams` naming its place
        (``then[0].op``, with the name most likely meant) and nothing is
        written."""
        return self._request("cache.transaction", transaction_params(compare, then, otherwise), transaction_result)

    # -- fetched on a miss -------------------------------------------------

    @method
    def get_or_fetch(
        self,
        key: str,
        fetcher: Fetcher | None = None,
        *,
        default: Any = None,
        cache: str | None = None,
        group: str | None = None,
        fallback: Fallback | None = None,
        retries: int | None = None,
        retry_delay_ms: Iterable[float] | None = None,
        timeout_ms: float | None = None,
        ttl: float | None = None,
        negative_ttl: float | None = None,
        stale_while_revalidate: float | None = None,
        shared: bool | None = None,
    ) -> Call[Any]:
        """``cache.getOrFetch``: the value under ``key`` (like :meth:`get`);
        on a miss the server asks ``fetcher(key)`` for it (``cache.fetch``),
        retrying as the settings say, stores what it returns and answers
        with it. However many threads, tasks (or clients) ask for one
        missing key at once, the fetcher runs once and all get its answer.

        ``fetcher`` returns a JSON value, ``bytes`` (stored as data),
        :data:`~larder.NOT_FOUND` or ``None`` (nothing: ``default`` is
        returned and nothing stored), or :class:`~larder.Fetched` (a value
        with its own ``ttl``); raising fails the attempt. On
        :class:`~larder.aio.AsyncLarder` it may be a coroutine function.
        Without ``fetcher``, the cache's (``open(..., fetcher=)``) is used.
        ``fallback(key, error)`` answers when every attempt failed (it is
        returned, never stored). When it all fails:
        :class:`~larder.FetchFailed` with ``data = {"attempts",
        "lastError"}``.

        The other keywords override the cache's ``fetch`` settings for this
        call: ``retries``, ``retry_delay_ms`` (``[base, max]``),
        ``timeout_ms`` (per attempt), ``ttl`` (seconds the fetched entry
        lives), ``negative_ttl`` (seconds a failure is remembered),
        ``stale_while_revalidate`` (seconds an expired entry is still
        answered while it is fetched again), ``shared`` (fetch the key once
        between every process on the store: one asks its fetcher, the
        others wait for the value it stores; a persistent cache's).

        The client must have declared ``capabilities.fetch`` (and
        ``fallback``): ``Larder.spawn(..., fetch=True)``.
        """
        def value(entry: Any) -> Any:
            return value_of(entry, default)

        return self._fetch(key, fetcher, fallback, cache, group, value, _fetch_overrides(
            retries, retry_delay_ms, timeout_ms, ttl, negative_ttl, stale_while_revalidate, shared))

    @method
    def entry_or_fetch(
        self,
        key: str,
        fetcher: Fetcher | None = None,
        *,
        cache: str | None = None,
        group: str | None = None,
        fallback: Fallback | None = None,
        retries: int | None = None,
        retry_delay_ms: Iterable[float] | None = None,
        timeout_ms: float | None = None,
        ttl: float | None = None,
        negative_ttl: float | None = None,
        stale_while_revalidate: float | None = None,
        shared: bool | None = None,
    ) -> Call[FetchedEntry]:
        """:meth:`get_or_fetch`, the whole answer: what :meth:`entry` answers
        with ``"fetched"`` (the value was fetched just now), ``"stored"``,
        ``"attempts"``, ``"fallback"`` (it is the fallback's answer),
        ``"revalidating"`` (an expired entry, being fetched again),
        ``"remembered"`` and ``"fetchedElsewhere"`` (with ``shared``, fetched
        by another process while this call waited) where they apply (:class:`~larder.results.FetchedEntry`)."""
        return self._fetch(key, fetcher, fallback, cache, group, decode_entry, _fetch_overrides(
            retries, retry_delay_ms, timeout_ms, ttl, negative_ttl, stale_while_revalidate, shared))

    def _fetch(self, key: str, fetcher: Fetcher | None, fallback: Fallback | None, cache: str | None,
               group: str | None, shape: Callable[[Any], Any], overrides: dict[str, Any]) -> Call[Any]:
        """Sends ``cache.getOrFetch`` with ``fetcher``/``fallback`` registered
        for the key while it is out: until it is answered (or fails, or is
        cancelled), whatever the facade."""
        params = {**camel_params(cache=cache, group=group), "key": key, **overrides}
        hold = self.fetchers.hold(cache, group, key, fetcher, fallback)
        shaped = hold.shaped(shape)
        if self._asynchronous:  # a coroutine: registered while it runs
            request = cast(Callable[..., Awaitable[Any]], self._request)
            return cast(Call[Any], hold.around(lambda: request("cache.getOrFetch", params, shaped)))
        hold.push()
        try:
            result = self._request("cache.getOrFetch", params, shaped)
        except BaseException:
            hold.release()
            raise
        if isinstance(result, (Reply, asyncio.Future)):  # a pipeline's: released once it settles
            result.add_done_callback(lambda _: hold.release())
        else:  # the answer itself: settled already
            hold.release()
        return result

    # -- several entries --------------------------------------------------

    @method
    def get_many(self, keys: Iterable[str], *, cache: str | None = None,
                 group: str | None = None) -> Call[GetManyResult]:
        """``cache.getMany``: ``{"entries": {key: <what get answers>}}``."""
        params = camel_params(cache=cache, group=group)
        params["keys"] = list(keys)
        return self._request("cache.getMany", params, decode_entries)

    @method
    def set_many(
        self,
        entries: Iterable[Mapping[str, Any]] | Mapping[str, Any],
        *,
        cache: str | None = None,
        group: str | None = None,
    ) -> Call[SetManyResult]:
        """``cache.setMany``: stores all entries or none.

        ``entries`` is a list of ``{"key", "value" | "data": bytes, "ttl"?,
        "group"?, "ifRevision"?, "ifAbsent"?}`` (an entry's ``group``
        overrides the request's; a condition that does not hold writes
        nothing of the call and raises :class:`~larder.ConditionFailed` with
        the element's ``index``), or a
        mapping ``{key: value}`` where bytes values are stored as data. An
        entry is sent as written (``data`` as base64, ``None`` members other
        than ``value`` left out): one with another key, such as ``"tll"``,
        raises :class:`~larder.InvalidParams` naming it
        (``params.entries[0].tll``, ``e.suggestion == "ttl"``) and nothing is
        stored.

        Returns ``{"stored": count, "size": total bytes, "revisions": [...]}``,
        each entry's new revision in the order given.
        """
        items: list[dict[str, Any]] = []
        if isinstance(entries, Mapping):
            for k, v in entries.items():
                item: dict[str, Any] = {"key": k}
                _put_value(item, MISSING if isinstance(v, BytesLike) else v, v if isinstance(v, BytesLike) else MISSING)
                items.append(item)
        else:
            for e in entries:
                item = {k: v for k, v in e.items() if k not in ("value", "data") and v is not None}
                if "value" in e or "data" in e:
                    _put_value(item, e.get("value", MISSING), e.get("data", MISSING))
                # else the server names the entry (and a misspelt "value" in it)
                items.append(item)
        params = camel_params(cache=cache, group=group)
        params["entries"] = items
        return self._request("cache.setMany", params, None)

    @method
    def keys(
        self,
        *,
        prefix: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        cache: str | None = None,
        group: str | None = None,
    ) -> Call[KeysPage]:
        """``cache.keys``: one page of a group's valid keys in byte order.

        ``limit`` is 1…100000 (server default 1000). Returns ``{"keys": [...],
        "cursor": "..."}``; ``cursor`` is present only when another page
        exists — pass it back to get that page.
        """
        return self._request(
            "cache.keys", camel_params(prefix=prefix, limit=limit, cursor=cursor, cache=cache, group=group), None
        )

    @method
    def groups(
        self,
        *,
        prefix: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        cache: str | None = None,
    ) -> Call[GroupsPage]:
        """``cache.groups``: one page of the cache's groups in byte order,
        each with how many entries ``cache.keys`` would list in it (not
        counting its sub-groups).

        ``prefix="a."`` lists the sub-groups of ``a`` (HMCache's groups are
        directories). ``limit`` is 1…100000 (server default 1000). Returns
        ``{"groups": [{"group", "count"}], "cursor": "..."}``; ``cursor`` is
        present only when another page exists — pass it back to get that page.
        """
        return self._request("cache.groups", camel_params(prefix=prefix, limit=limit, cursor=cursor, cache=cache), None)

    # -- whole caches -----------------------------------------------------

    @method
    def clear(self, *, tier: str | None = None, cache: str | None = None,
              group: str | None = None) -> Call[ClearResult]:
        """``cache.clear``: empties ``tier`` (``"memory"``, ``"disk"`` or
        ``"all"``, the default) of the cache, or of one group when ``group``
        is given (all groups otherwise). ``{"removed": count}``; fails with
        :class:`~larder.CacheNotFound` for an unknown cache."""
        return self._request("cache.clear", camel_params(tier=tier, cache=cache, group=group), None)

    @method
    def purge_expired(self, *, cache: str | None = None, group: str | None = None) -> Call[ClearResult]:
        """``cache.purgeExpired``: deletes expired entries (of one group when
        ``group`` is given, else all groups). ``{"removed": count}``."""
        return self._request("cache.purgeExpired", camel_params(cache=cache, group=group), None)

    @method
    def stats(self, *, cache: str | None = None) -> Call[StatsResult]:
        """``cache.stats``: ``{"cache", "memory": {"count", "bytes", "hits",
        "misses", "evictions"}, "disk": {...}}`` (counters since the process
        started); :class:`~larder.CacheNotFound` for an unknown cache."""
        return self._request("cache.stats", camel_params(cache=cache), None)

    @method
    def list(self) -> Call[ListResult]:
        """``cache.list``: ``{"caches": [{"name", "config", "count", "bytes"}]}``."""
        return self._request("cache.list", {}, None)

    @method
    def drop(self, cache: str) -> Call[DropResult]:
        """``cache.drop``: deletes a cache with its settings and entries.
        ``{"dropped": True}``; :class:`~larder.CacheNotFound` if there is none."""
        return self._request("cache.drop", {"cache": cache}, None)

    @method
    def rekey(
        self,
        cache: str,
        key: Key,
        *,
        batch_size: int | None = None,
        progress: Callable[[Any], Any] | None = None,
        work_done_token: str | int | None = None,
    ) -> Call[RekeyResult]:
        """``cache.rekey``: re-seals every entry of the encrypted ``cache``
        under the new ``key`` (32 bytes, or their base64 as a ``str``; checked
        here: :class:`ValueError` or :class:`TypeError`), ``batch_size``
        entries per transaction (server default 500). The session must hold
        the cache's current key; from the answer on it uses the new one, and
        later sessions must give it (``encryption_keys={cache: key}``).

        ``progress`` receives each ``$/progress`` value — ``{"kind":
        "begin", ...}``, ``{"kind": "report", "percentage", "message"}``
        after each full batch, ``{"kind": "end", "message"}`` — before the
        result is returned (a ``workDoneToken`` is added for it;
        ``work_done_token`` chooses it). Meanwhile other uses of the cache
        raise :class:`~larder.EncryptionKeyError` with ``reason ==
        "rekeyRunning"`` and ``retryable`` true.

        A rekey stopped part-way (the process ended, a failed commit) loses
        nothing: the cache then raises ``reason == "rekeyInterrupted"`` until
        ``rekey`` with the same new key, from a session holding the old one,
        finishes it (``resumed: True``).

        Returns ``{"cache", "resealed": entries re-sealed by this call,
        "resumed": bool}``.
        """
        params = camel_params(cache=cache, key=encode_key(key, "key"), batch_size=batch_size,
                         work_done_token=work_done_token)
        return self._request("cache.rekey", params, None, progress)

    @method
    def subscribe(self, *, cache: str | None = None, with_values: bool | None = None) -> Call[SubscribeResult]:
        """``cache.subscribe``: asks for ``cache.evicted``, ``cache.removed``
        (``cache.remove`` removed an entry) and ``cache.cleared``
        notifications for one cache, or all when ``cache`` is ``None``.
        ``with_values=True`` has ``cache.evicted`` and ``cache.removed``
        carry the entry's ``value`` or ``data`` (base64 text, as the protocol
        sends it). Receive them with ``db.on_event``. ``{"subscribed": name
        or "*"}``."""
        return self._request("cache.subscribe", camel_params(cache=cache, with_values=with_values), None)


class CacheClient(Protocol[K]):
    """What a view needs of a client: its ``cache.*`` methods.
    :class:`~larder.Larder` is a ``CacheClient[Sync]``,
    :class:`~larder.aio.AsyncLarder` a ``CacheClient[Async]``."""

    @property
    def cache(self) -> CacheMethods[K]: ...


class CacheGroup(Generic[K]):
    """One group of one cache, as :class:`CacheView` and
    :class:`~larder.aio.AsyncCacheView` see it. Each operation is written
    here once, as :data:`~larder._steps.Steps`: :func:`~larder._steps.run`
    drives it on :class:`~larder.Larder` and
    :func:`~larder._steps.run_async` on :class:`~larder.aio.AsyncLarder`,
    so the two views differ only in whether they await."""

    #: Keys per ``cache.keys`` page (and per ``cache.getMany``) when iterating.
    page_size = 1000

    def __init__(self, db: CacheClient[K], cache: str = "default", group: str = "", *,
                 ttl: float | None = None) -> None:
        self.db = db
        self.cache = cache
        self.group = group
        #: TTL in seconds applied by ``set`` (None: the cache's lifespan).
        self.ttl = ttl

    def __repr__(self) -> str:
        return f"{type(self).__name__}(cache={self.cache!r}, group={self.group!r})"

    @property
    def _methods(self) -> CacheMethods[Any]:
        return self.db.cache

    def _set(self, key: str, value: Any, ttl: float | None) -> Steps[None]:
        ttl = self.ttl if ttl is None else ttl
        if isinstance(value, BytesLike):
            yield self._methods.set(key, data=value, ttl=ttl, cache=self.cache, group=self.group)
        else:
            yield self._methods.set(key, value, ttl=ttl, cache=self.cache, group=self.group)

    def _get(self, key: str, default: Any) -> Steps[Any]:
        return (yield self._methods.get(key, default, cache=self.cache, group=self.group))

    def _entry(self, key: str) -> Steps[Entry]:
        entry: Entry = yield self._methods.entry(key, cache=self.cache, group=self.group)
        return entry

    def _contains(self, key: str) -> Steps[bool]:
        return bool((yield self._methods.has(key, cache=self.cache, group=self.group))["valid"])

    def _remove(self, key: str) -> Steps[bool]:
        return bool((yield self._methods.remove(key, cache=self.cache, group=self.group))["removed"])

    def _touch(self, key: str) -> Steps[bool]:
        return bool((yield self._methods.touch(key, cache=self.cache, group=self.group))["found"])

    def _pop(self, key: str, default: tuple[Any, ...]) -> Steps[Any]:
        value = yield from self._get(key, ABSENT)
        if value is ABSENT:
            if default:
                return default[0]
            raise KeyError(key)
        yield from self._remove(key)
        return value

    def _update(self, entries: Mapping[str, Any]) -> Steps[None]:
        if entries:
            yield self._methods.set_many(entries, cache=self.cache, group=self.group)

    def _get_many(self, keys: Iterable[str]) -> Steps[dict[str, Any]]:
        result = (yield self._methods.get_many(list(keys), cache=self.cache, group=self.group))["entries"]
        return {k: value_of(e, ABSENT) for k, e in result.items() if e.get("found")}

    def _page(self, prefix: str | None, page_size: int | None, cursor: str | None
              ) -> Steps[tuple[list[str], str | None]]:
        """One page of keys, and the cursor of the next (``None`` after the last)."""
        page = yield self._methods.keys(prefix=prefix, limit=page_size or self.page_size, cursor=cursor,
                                        cache=self.cache, group=self.group)
        return page["keys"], page.get("cursor")

    def _clear(self, tier: str | None) -> Steps[int]:
        try:
            return int((yield self._methods.clear(tier=tier, cache=self.cache, group=self.group))["removed"])
        except CacheNotFound:  # an unknown cache is already empty
            return 0


class CacheView(CacheGroup[Sync], MutableMapping[str, Any]):
    """One group of one cache as a :class:`collections.abc.MutableMapping`
    (``db.cache_view(...)``).

    ``view[key] = b"..."`` stores bytes as ``data``; any other value is stored
    as JSON ``value``. ``view[key]`` returns the value (bytes for data) and
    raises :class:`KeyError` when there is none; ``del view[key]`` likewise.
    ``key in view`` is true for a stored, unexpired entry. Iterating yields the
    group's valid keys in byte order, a page at a time (``cache.keys``);
    ``values()`` and ``items()`` read each page's values with one
    ``cache.getMany`` — never one request per key. ``len(view)`` counts the
    keys by paging through them.
    """

    def set(self, key: str, value: Any, *, ttl: float | None = None) -> None:
        """Stores ``value`` (bytes as data) with an optional ``ttl`` in seconds."""
        run(self._set(key, value, ttl))

    def __setitem__(self, key: str, value: Any) -> None:
        self.set(key, value)

    def __getitem__(self, key: str) -> Any:
        value = run(self._get(key, ABSENT))
        if value is ABSENT:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        return run(self._get(key, default))

    def entry(self, key: str) -> Any:
        """The whole ``cache.get`` answer (with ``expired``, ``storedAt``, ``tier``...)."""
        return run(self._entry(key))

    def __delitem__(self, key: str) -> None:
        if not run(self._remove(key)):
            raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and run(self._contains(key))

    def touch(self, key: str) -> bool:
        """Restarts the entry's lifetime; ``False`` when there is no entry."""
        return run(self._touch(key))

    def update(self, other: Any = (), /, **kw: Any) -> None:
        """Stores several entries in one ``cache.setMany`` (all or none)."""
        run(self._update(dict(other, **kw)))

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """``{key: value}`` for the keys that are found, in one ``cache.getMany``."""
        return run(self._get_many(keys))

    def _pages(self, prefix: str | None, page_size: int | None) -> Iterator[list[str]]:
        cursor: str | None = None
        while True:
            keys, cursor = run(self._page(prefix, page_size, cursor))
            yield keys
            if cursor is None:
                return

    def keys(self, prefix: str | None = None, page_size: int | None = None) -> Iterator[str]:  # type: ignore[override]
        """The group's valid keys (starting with ``prefix``) in byte order,
        fetched a page at a time."""
        for page in self._pages(prefix, page_size):
            yield from page

    def __iter__(self) -> Iterator[str]:
        return self.keys()

    def __len__(self) -> int:
        return sum(len(page) for page in self._pages(None, None))

    def items(self, prefix: str | None = None) -> Iterator[tuple[str, Any]]:  # type: ignore[override]
        """``(key, value)`` pairs in key order: a page of keys, then their
        values in one ``cache.getMany``. An entry that expires or goes between
        the two is left out."""
        for page in self._pages(prefix, None):
            if page:
                yield from self.get_many(page).items()

    def values(self, prefix: str | None = None) -> Iterator[Any]:  # type: ignore[override]
        """The values, in key order (see :meth:`items`)."""
        for _, value in self.items(prefix):
            yield value

    def pop(self, key: str, *default: Any) -> Any:
        """Removes ``key`` and returns its value (or ``default``)."""
        return run(self._pop(key, default))

    def clear(self, tier: str | None = None) -> int:  # type: ignore[override]
        """Empties this group (``cache.clear``); returns how many entries went."""
        return run(self._clear(tier))
