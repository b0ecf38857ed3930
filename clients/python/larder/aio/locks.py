"""``async with db.lock(name, ttl=...) as lease:`` on
:class:`~larder.aio.AsyncLarder`: :mod:`larder.locks`' lease, renewed by an
asyncio task instead of a thread."""

from __future__ import annotations

import asyncio
import contextlib
import time
from types import TracebackType

from ..errors import LarderError
from ..locks import Lease, LockMethods, lease_of, released_error, renewal_interval
from ..methods import Async

__all__ = ["AsyncHeldLock", "AsyncLocks"]


class AsyncHeldLock:
    """What ``db.lock(...)`` returns on ``AsyncLarder``: an async context
    manager that acquires the lease on entering (a
    :class:`~larder.locks.Lease`), renews it on a task every ``renew_every``
    seconds while the block runs, and releases it on leaving, also when the
    block raises. A lost lease is as with :class:`larder.locks.HeldLock`:
    ``lease.lost`` turns true, and leaving the block raises ``lease.error``
    (unless the block raised already)."""

    def __init__(self, methods: LockMethods[Async], name: str, ttl: float, wait: float | None,
                 renew_every: float | None) -> None:
        self._methods = methods
        self._name = name
        self._ttl = ttl
        self._wait = wait
        self._every = renewal_interval(ttl, renew_every)
        self._task: asyncio.Task[None] | None = None
        self._lease: Lease | None = None

    async def __aenter__(self) -> Lease:
        sent = time.monotonic()
        answer = await self._methods.acquire(self._name, ttl=self._ttl, wait=self._wait)
        self._lease = lease = lease_of(self._name, self._ttl, self._wait, sent, answer)
        self._task = asyncio.create_task(self._renew(lease), name=f"larder lease {self._name}")
        return lease

    async def _renew(self, lease: Lease) -> None:
        while True:
            await asyncio.sleep(self._every)
            sent = time.monotonic()
            try:
                answer = await self._methods.renew(lease.name, lease.token, ttl=lease.ttl)
            except LarderError as e:
                if lease._failed(e):
                    return
                continue
            lease._renewed(sent, answer)

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        lease, task = self._lease, self._task
        assert lease is not None and task is not None, "the lock was not entered"
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if lease.error is None:
            try:
                lease.error = released_error(lease, await self._methods.release(lease.name, lease.token))
            except LarderError as e:
                if error is None:
                    raise
                lease.error = e
        if lease.error is not None and error is None:
            raise lease.error


class AsyncLocks(LockMethods[Async]):
    """``db.lock`` on ``AsyncLarder``: the ``lock.*`` methods, awaited, and,
    called, a lease held for the length of an ``async with`` block::

        async with db.lock("reports/daily", ttl=30, wait=10) as lease:
            await write_report(fencing_token=lease.token)
    """

    def __call__(self, name: str, *, ttl: float, wait: float | None = None,
                 renew_every: float | None = None) -> AsyncHeldLock:
        """As :meth:`larder.locks.Locks.__call__`, for ``async with``."""
        return AsyncHeldLock(self, name, ttl, wait, renew_every)
