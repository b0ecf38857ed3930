"""The client's side of ``cache.getOrFetch``: the fetchers and fallbacks that
answer the server's ``cache.fetch`` and ``cache.fallback`` requests (SPEC 5.5).

A fetcher is any callable ``fetcher(key)`` returning what the key holds:

- a JSON value, answered as ``{"value": ...}``;
- ``bytes`` (or ``bytearray``/``memoryview``), answered as ``{"data": ...}``;
- :data:`NOT_FOUND` or ``None``: there is nothing (``{"found": false}``);
  return ``Fetched(None)`` to store a JSON ``null``;
- :class:`Fetched`, for a value with its own ``ttl`` in seconds.

Raising answers with an error, a failed attempt that the server retries.
A fallback is ``fallback(key, error)`` (``error`` is the last attempt's
:class:`~larder.LarderError`) and returns the same things. On
:class:`larder.aio.AsyncLarder` either may be a coroutine function.

:class:`larder.Larder` answers these requests on a small pool of threads
(:attr:`larder.connection.Connection.max_workers`), so that a slow fetcher
holds up neither other fetches nor the ordered event callbacks;
:class:`~larder.aio.AsyncLarder` answers each on a task of its own. A fetch
the server gave up on (``$/cancelRequest`` after ``timeoutMs``) is not
answered: its task is cancelled, and a thread's late answer is dropped.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Coroutine
from typing import Any, Awaitable, Callable, Union

from ._params import BytesLike, Sentinel, encode_data
from .errors import LarderError, error_from_json

__all__ = ["FETCH_METHODS", "NOT_FOUND", "Fallback", "Fetched", "Fetcher", "Fetchers", "fetch_answer"]

#: The server's requests that answer ``cache.getOrFetch``'s misses.
FETCH_METHODS = ("cache.fetch", "cache.fallback")

#: ``fetcher(key)``: a plain function, or (on the asyncio client) a coroutine function.
Fetcher = Callable[[str], Union[Any, Awaitable[Any]]]
#: ``fallback(key, error)``: likewise.
Fallback = Callable[[str, LarderError], Union[Any, Awaitable[Any]]]
Slot = tuple[str, str, str]
Pair = tuple["Fetcher | None", "Fallback | None"]


#: What a fetcher returns when there is nothing under the key.
NOT_FOUND: Any = Sentinel("NOT_FOUND")


class Fetched:
    """A fetcher's answer with options: ``Fetched(value, ttl=60)`` or
    ``Fetched(data=b"...", ttl=60)``. ``Fetched(None)`` is a JSON ``null``
    (a bare ``None`` means "not found")."""

    __slots__ = ("value", "data", "ttl")

    def __init__(self, value: Any = NOT_FOUND, *, data: Any = None, ttl: float | None = None) -> None:
        if value is not NOT_FOUND and data is not None:
            raise TypeError("give value or data, not both")
        self.value = value
        self.data = data
        self.ttl = ttl

    def __repr__(self) -> str:
        what = f"data={self.data!r}" if self.data is not None else repr(self.value)
        return f"Fetched({what}, ttl={self.ttl!r})"

    def to_json(self) -> dict[str, Any]:
        if self.data is not None:
            out: dict[str, Any] = {"data": encode_data(self.data)}
        elif self.value is NOT_FOUND:
            return {"found": False}
        else:
            out = {"value": self.value}
        if self.ttl is not None:
            out["ttl"] = self.ttl
        return out


def fetch_answer(result: Any) -> dict[str, Any]:
    """A fetcher's (or fallback's) return value as the protocol's answer."""
    if isinstance(result, Fetched):
        return result.to_json()
    if result is None or result is NOT_FOUND:
        return {"found": False}
    if isinstance(result, BytesLike):
        return Fetched(data=result).to_json()
    return {"value": result}


def failure(e: Exception) -> LarderError:
    """What a fetcher's exception is answered with: a
    :class:`~larder.LarderError` as it is (code, message, data), anything
    else as -32000 with its type and message."""
    if isinstance(e, LarderError):
        return e
    return LarderError(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__, -32000)


class Hold:
    """One ``get_or_fetch`` call's fetcher and fallback, registered for its
    key while the call is out. :meth:`release` is idempotent; an answer
    ``revalidating: true`` leaves the pair for the background fetch the
    server sends after it."""

    __slots__ = ("_fetchers", "_slot", "_pair", "_held")

    def __init__(self, fetchers: Fetchers, slot: Slot, fetcher: Fetcher | None, fallback: Fallback | None) -> None:
        self._fetchers = fetchers
        self._slot = slot
        self._pair: Pair = (fetcher, fallback)
        self._held = False

    def push(self) -> None:
        if self._pair == (None, None):
            return
        with self._fetchers._lock:
            self._fetchers._calls.setdefault(self._slot, []).append(self._pair)
        self._held = True

    def release(self, answer: Any = None) -> None:
        if not self._held:
            return
        self._held = False
        fetchers = self._fetchers
        with fetchers._lock:
            stack = fetchers._calls.get(self._slot)
            if stack is not None:
                try:
                    stack.remove(self._pair)
                except ValueError:
                    pass
                if not stack:
                    del fetchers._calls[self._slot]
            if isinstance(answer, dict) and answer.get("revalidating"):
                fetchers._lingering[self._slot] = self._pair

    def shaped(self, shape: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """``shape``, releasing this hold with the raw answer first."""
        def answered(entry: Any) -> Any:
            self.release(entry)
            return shape(entry)

        return answered

    async def around(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """Holds while the awaited ``call()`` is out (the asyncio client)."""
        self.push()
        try:
            return await call()
        finally:
            self.release()


class Fetchers:
    """Which fetcher answers which key: per-call fetchers (``get_or_fetch``'s
    ``fetcher=``) by ``(cache, group, key)``, the latest call's first, then
    a background refresh's (after an answer ``revalidating: true``), then
    the cache's own (``cache.open(..., fetcher=)``). Shared by a client and
    its pipelines."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[Slot, list[Pair]] = {}
        # A call answered "revalidating" leaves its fetcher for the fetch the
        # server sends after the answer (and its retries).
        self._lingering: dict[Slot, Pair] = {}
        self._caches: dict[str, Pair] = {}
        #: Whether ``initialize`` declared ``capabilities.fetch`` / ``fallback``.
        self.fetch_declared = False
        self.fallback_declared = False

    @staticmethod
    def slot(cache: str | None, group: str | None, key: str) -> Slot:
        return (cache or "default", group or "", key)

    def hold(self, cache: str | None, group: str | None, key: str,
             fetcher: Fetcher | None, fallback: Fallback | None) -> Hold:
        return Hold(self, self.slot(cache, group, key), fetcher, fallback)

    def set_cache(self, cache: str, fetcher: Fetcher | None, fallback: Fallback | None) -> None:
        """The cache's own fetcher and fallback (``None`` keeps the one set before)."""
        with self._lock:
            old = self._caches.get(cache, (None, None))
            self._caches[cache] = (fetcher or old[0], fallback or old[1])

    def find(self, params: Any, which: int) -> Any:
        """The fetcher (``which=0``) or fallback (1) for a request's params."""
        if not isinstance(params, dict):
            return None
        slot = self.slot(params.get("cache"), params.get("group"), str(params.get("key")))
        with self._lock:
            for pair in reversed(self._calls.get(slot, [])):
                if pair[which] is not None:
                    return pair[which]
            pair = self._lingering.get(slot, (None, None))
            if pair[which] is not None:
                return pair[which]
            return self._caches.get(slot[0], (None, None))[which]

    def _done_lingering(self, params: Any, fn: Any) -> None:
        """A background refresh answered: forget its fetcher."""
        slot = self.slot(params.get("cache"), params.get("group"), str(params.get("key")))
        with self._lock:
            if self._lingering.get(slot, (None, None))[0] is fn:
                del self._lingering[slot]

    # -- answering ----------------------------------------------------------

    def _prepare(self, method: str, params: Any) -> tuple[Callable[[], Any], Any]:
        which = 0 if method == "cache.fetch" else 1
        fn = self.find(params, which)
        what = "fetcher" if which == 0 else "fallback"
        if fn is None:
            key = params.get("key") if isinstance(params, dict) else None
            cache = params.get("cache") if isinstance(params, dict) else None
            raise LarderError(f"no {what} for key {key!r} of cache {cache!r}", -32601)
        key = params.get("key")
        if which == 0:
            return (lambda: fn(key)), fn
        error = error_from_json(params.get("error") or {"code": -32000, "message": "unknown"})
        return (lambda: fn(key, error)), fn

    def answer(self, method: str, params: Any) -> dict[str, Any]:
        """Answers ``cache.fetch`` or ``cache.fallback`` with a plain
        function (:class:`larder.Larder`, on a worker thread). A coroutine
        function's result is run to its end here, on a loop of its own."""
        run, fn = self._prepare(method, params)
        try:
            result = run()
            if inspect.iscoroutine(result):
                result = _run_coroutine(result)
            answer = fetch_answer(result)
        except Exception as e:
            raise failure(e) from e
        if method == "cache.fetch":
            self._done_lingering(params, fn)
        return answer

    async def answer_async(self, method: str, params: Any) -> dict[str, Any]:
        """Answers ``cache.fetch`` or ``cache.fallback`` on the asyncio
        client: a coroutine's result is awaited (a plain function runs on the
        loop). Cancelled by the server's ``$/cancelRequest``."""
        run, fn = self._prepare(method, params)
        try:
            result = run()
            if inspect.isawaitable(result):
                result = await result
            answer = fetch_answer(result)
        except Exception as e:
            raise failure(e) from e
        if method == "cache.fetch":
            self._done_lingering(params, fn)
        return answer


def _run_coroutine(coroutine: Coroutine[Any, Any, Any]) -> Any:
    import asyncio

    return asyncio.run(coroutine)
