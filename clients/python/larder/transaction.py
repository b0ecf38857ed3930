"""Transactions over several keys (``cache.transaction``, after etcd's
``Txn``): ``db.transaction()`` builds one, ``commit()`` sends it as one
request.

::

    txn = db.transaction(cache="accounts")
    txn.if_revision("alice", alice_revision).if_revision("bob", bob_revision)
    txn.set("alice", alice - 10).set("bob", bob + 10)
    txn.otherwise.get("alice").get("bob")
    result = txn.commit()

The comparisons are evaluated together, at one instant; if every one holds
the operations added to the transaction itself are applied, in order, else
those added to :attr:`Transaction.otherwise`: all of the branch or nothing,
answered once committed. A comparison that does not hold is not an error:
the result says ``succeeded: False`` and names the first one in
``failed`` (``commit(check=True)`` raises :class:`~larder.ConditionFailed`
instead).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Self, TypeVar

from ._params import MISSING, BytesLike, decode_entry, encode_data
from .errors import ConditionFailed
from .methods import Call, Methods, method
from .results import TransactionResult

K = TypeVar("K")

__all__ = ["Operations", "Transaction", "transaction_params", "transaction_result"]


def _target(element: dict[str, Any], cache: str | None, group: str | None) -> dict[str, Any]:
    if cache is not None:
        element["cache"] = cache
    if group is not None:
        element["group"] = group
    return element


def _with_data(element: Mapping[str, Any]) -> dict[str, Any]:
    """An element as written, ``data`` given as bytes turned to base64 text."""
    out = dict(element)
    if isinstance(out.get("data"), BytesLike):
        out["data"] = encode_data(out["data"])
    return out


def transaction_params(compare: Iterable[Mapping[str, Any]], then: Iterable[Mapping[str, Any]],
                       otherwise: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``cache.transaction``'s params: each element sent as written (so the
    server names one it cannot read, ``then[0].op``), ``data`` given as bytes
    turned to base64 text; an empty list left out."""
    params: dict[str, Any] = {}
    for name, elements in (("compare", compare), ("then", then), ("else", otherwise)):
        listed = [_with_data(e) for e in elements]
        if listed:
            params[name] = listed
    return params


def transaction_result(result: Any) -> TransactionResult:
    """``cache.transaction``'s answer, each ``get``'s ``data`` as bytes."""
    if isinstance(result, dict) and isinstance(result.get("results"), list):
        result = {**result, "results": [decode_entry(r) for r in result["results"]]}
    answer: TransactionResult = result
    return answer


def _checked(result: Any) -> TransactionResult:
    """:func:`transaction_result`, raising :class:`~larder.ConditionFailed`
    for a comparison that did not hold."""
    answer = transaction_result(result)
    failed = answer.get("failed")
    if not answer["succeeded"] and failed is not None:
        raise ConditionFailed(f"compare[{failed['index']}] on {failed['key']!r} did not hold "
                              f"(its revision is {failed['revision']})", data=dict(failed))
    return answer


class Operations:
    """One branch of a :class:`Transaction`: the operations applied, in
    order, when it is chosen. Each method adds one and returns the branch,
    so calls chain; its result takes that place in ``results``. ``cache``
    and ``group`` default to the transaction's."""

    def __init__(self, cache: str | None, group: str | None) -> None:
        self._cache = cache
        self._group = group
        self._operations: list[dict[str, Any]] = []

    def _element(self, fields: dict[str, Any], cache: str | None, group: str | None) -> dict[str, Any]:
        return _target(fields, self._cache if cache is None else cache, self._group if group is None else group)

    def _add(self, op: str, key: str, cache: str | None, group: str | None, **fields: Any) -> Self:
        self._operations.append(self._element({"op": op, "key": key, **fields}, cache, group))
        return self

    def set(self, key: str, value: Any = MISSING, *, data: Any = MISSING, ttl: float | None = None,
            cache: str | None = None, group: str | None = None) -> Self:
        """Stores ``value`` (any JSON) or ``data`` (bytes), as
        ``db.cache.set`` does (creating the cache if needed); its result is
        ``{"revision": R}``, the entry's new revision."""
        if (value is MISSING) == (data is MISSING):
            raise TypeError("give value (any JSON) or data (bytes), not both or neither")
        fields: dict[str, Any] = {"data": encode_data(data)} if data is not MISSING else {"value": value}
        if ttl is not None:
            fields["ttl"] = ttl
        return self._add("set", key, cache, group, **fields)

    def remove(self, key: str, *, cache: str | None = None, group: str | None = None) -> Self:
        """Removes the entry: ``{"removed": bool}``, whether there was one."""
        return self._add("remove", key, cache, group)

    def incr(self, key: str, by: int = 1, *, initial: int = 0, ttl: float | None = None,
             cache: str | None = None, group: str | None = None) -> Self:
        """Adds ``by`` to the integer under ``key``, from ``initial`` where
        there is none, as ``db.cache.increment`` does: ``{"value": sum,
        "revision": R}``. A live value that is not such an integer fails the
        whole transaction with :class:`~larder.NotAnInteger`."""
        fields: dict[str, Any] = {"by": by, "initial": initial}
        if ttl is not None:
            fields["ttl"] = ttl
        return self._add("increment", key, cache, group, **fields)

    def decr(self, key: str, by: int = 1, *, initial: int = 0, ttl: float | None = None,
             cache: str | None = None, group: str | None = None) -> Self:
        """:meth:`incr` by ``-by``."""
        return self.incr(key, -by, initial=initial, ttl=ttl, cache=cache, group=group)

    def get(self, key: str, *, cache: str | None = None, group: str | None = None) -> Self:
        """Reads the entry after the operations before it: what
        ``db.cache.entry`` answers (:class:`~larder.results.Entry`, ``data``
        as bytes)."""
        return self._add("get", key, cache, group)


class Transaction(Operations, Methods[K]):
    """A transaction being built (``db.transaction(cache=..., group=...)``):
    comparisons (``if_*``), the operations applied when they all hold
    (added to the transaction itself) and those applied otherwise (added to
    :attr:`otherwise`). Each method returns the transaction, so calls chain.
    :meth:`commit` sends it; on :class:`~larder.aio.AsyncLarder` it is
    awaited. Build a new one for each try: what it compares is what was read
    before it."""

    def __init__(self, request: Any, cache: str | None = None, group: str | None = None) -> None:
        Operations.__init__(self, cache, group)
        Methods.__init__(self, request)
        self._compare: list[dict[str, Any]] = []
        #: The operations applied when a comparison does not hold (the ``else`` branch).
        self.otherwise = Operations(cache, group)

    def __repr__(self) -> str:
        return (f"<Transaction compare={len(self._compare)} then={len(self._operations)} "
                f"otherwise={len(self.otherwise._operations)}>")

    def _comparison(self, key: str, cache: str | None, group: str | None, **test: Any) -> Self:
        self._compare.append(self._element({"key": key, **test}, cache, group))
        return self

    def if_revision(self, key: str, revision: int | None, *, cache: str | None = None,
                    group: str | None = None) -> Self:
        """Holds when the live entry is at ``revision``; ``None`` holds
        when there is no live entry (as :meth:`if_absent`), so what
        ``db.cache.get(key, with_revision=True)`` read can be given as it is."""
        if revision is None:
            return self.if_absent(key, cache=cache, group=group)
        return self._comparison(key, cache, group, revision=revision)

    def if_absent(self, key: str, *, cache: str | None = None, group: str | None = None) -> Self:
        """Holds when there is no live entry (an expired one is none, unless
        the cache returns expired entries)."""
        return self._comparison(key, cache, group, absent=True)

    def if_present(self, key: str, *, cache: str | None = None, group: str | None = None) -> Self:
        """Holds when there is a live entry."""
        return self._comparison(key, cache, group, present=True)

    def if_value(self, key: str, value: Any, *, cache: str | None = None, group: str | None = None) -> Self:
        """Holds when the live entry's JSON value equals ``value`` (objects
        whatever the order of their members, numbers by value: 1 == 1.0);
        an entry of bytes, or none, never does."""
        if isinstance(value, BytesLike):
            raise TypeError("if_value compares JSON values; an entry of bytes equals none")
        return self._comparison(key, cache, group, value=value)

    @method
    def commit(self, *, check: bool = False) -> Call[TransactionResult]:
        """Sends the transaction (``cache.transaction``) and answers
        ``{"succeeded": bool, "results": [...], "failed"?: {"index", "key",
        "revision"}}`` (:class:`~larder.results.TransactionResult`):
        ``results`` holds the result of each operation of the branch
        applied, in order; ``failed``, only when ``succeeded`` is false,
        the first comparison that did not hold and its entry's revision now
        (``None`` when there is none).

        ``check=True`` raises :class:`~larder.ConditionFailed` instead of
        answering ``succeeded: False`` (``e.index``, ``e.key``,
        ``e.revision``; the ``otherwise`` branch was applied all the same).
        Nothing is written when it raises anything else:
        :class:`~larder.NotAnInteger` (``e.index``, ``e.branch``) from an
        increment, :class:`~larder.InvalidParams` naming an element it
        cannot read (``compare[2]: ...``)."""
        params = transaction_params(self._compare, self._operations, self.otherwise._operations)
        return self._request("cache.transaction", params, _checked if check else transaction_result)
