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
:class:`~larder.LarderError`) and returns the same things.

Each request is answered on a thread of its own, so a slow fetcher holds up
neither other fetches nor the client's other callbacks.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any, Callable

from .errors import LarderError, error_from_json

__all__ = ["NOT_FOUND", "Fetched", "Fetchers"]

Fetcher = Callable[[str], Any]
Fallback = Callable[[str, LarderError], Any]
Slot = tuple[str, str, str]


class _NotFound:
    def __repr__(self) -> str:
        return "NOT_FOUND"

    def __bool__(self) -> bool:
        return False


#: What a fetcher returns when there is nothing under the key.
NOT_FOUND: Any = _NotFound()


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

    def to_json(self) -> dict[str, Any]:
        from .cache import encode_data

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
    if isinstance(result, (bytes, bytearray, memoryview)):
        return Fetched(data=result).to_json()
    return {"value": result}


def _error(e: Exception) -> dict[str, Any]:
    if isinstance(e, LarderError):
        return e.to_json()
    return {"code": -32000, "message": f"{type(e).__name__}: {e}" if str(e) else type(e).__name__}


class Fetchers:
    """Which fetcher answers which key: per-call fetchers (``get_or_fetch``'s
    ``fetcher=``) by ``(cache, group, key)``, the latest registered first,
    then the cache's own (``cache.open(..., fetcher=)``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[Slot, list[tuple[Fetcher | None, Fallback | None]]] = {}
        # A call answered "revalidating" leaves its fetcher for the fetch the
        # server sends after the answer.
        self._lingering: dict[Slot, tuple[Fetcher | None, Fallback | None]] = {}
        self._caches: dict[str, tuple[Fetcher | None, Fallback | None]] = {}
        #: Whether ``initialize`` declared ``capabilities.fetch`` / ``fallback``.
        self.fetch_declared = False
        self.fallback_declared = False

    @staticmethod
    def slot(cache: str | None, group: str | None, key: str) -> Slot:
        return (cache or "default", group or "", key)

    def set_cache(self, cache: str, fetcher: Fetcher | None, fallback: Fallback | None) -> None:
        with self._lock:
            old = self._caches.get(cache, (None, None))
            self._caches[cache] = (fetcher or old[0], fallback or old[1])

    def push(self, slot: Slot, fetcher: Fetcher | None, fallback: Fallback | None) -> Callable[[Any], None]:
        """Registers a call's fetcher; returns ``release(result)``."""
        entry = (fetcher, fallback)
        with self._lock:
            self._calls.setdefault(slot, []).append(entry)

        def release(result: Any = None) -> None:
            with self._lock:
                stack = self._calls.get(slot, [])
                if entry in stack:
                    stack.remove(entry)
                if not stack:
                    self._calls.pop(slot, None)
                if isinstance(result, dict) and result.get("revalidating"):
                    self._lingering[slot] = entry

        return release

    def _find(self, params: Any, which: int) -> Any:
        slot = self.slot(params.get("cache"), params.get("group"), str(params.get("key")))
        with self._lock:
            for entry in reversed(self._calls.get(slot, [])):
                if entry[which] is not None:
                    return entry[which]
            entry = self._lingering.pop(slot, (None, None)) if which == 0 else self._lingering.get(slot, (None, None))
            if entry[which] is not None:
                return entry[which]
            return self._caches.get(slot[0], (None, None))[which]

    def _run(self, fn: Callable[[], Any]) -> Future[Any]:
        future: Future[Any] = Future()

        def work() -> None:
            try:
                future.set_result(fetch_answer(fn()))
            except Exception as e:  # the answer is an error
                future.set_exception(e if isinstance(e, LarderError) else error_from_json(_error(e)))

        threading.Thread(target=work, name="larder-fetch", daemon=True).start()
        return future

    def answer_fetch(self, params: Any) -> Any:
        """The ``cache.fetch`` handler."""
        fetcher = self._find(params, 0)
        if fetcher is None:
            raise LarderError(f"no fetcher for key {params.get('key')!r} of cache {params.get('cache')!r}", -32601)
        key = params.get("key")
        return self._run(lambda: fetcher(key))

    def answer_fallback(self, params: Any) -> Any:
        """The ``cache.fallback`` handler."""
        fallback = self._find(params, 1)
        if fallback is None:
            raise LarderError(f"no fallback for key {params.get('key')!r} of cache {params.get('cache')!r}", -32601)
        key = params.get("key")
        error = error_from_json(params.get("error"))
        return self._run(lambda: fallback(key, error))

