"""Leases on names (SPEC 6.13): the ``lock.*`` methods (``db.lock``, and the
same on a pipeline), and ``with db.lock(name, ttl=...) as lease:``, which
takes a lease, renews it on a thread of its own while the block runs and
gives it back when the block ends.

A lease is held until it expires by the store's clock; renewing it is what
keeps it. A holder that is paused, cut off or slow to renew may lose it
without knowing until its next renewal is refused: mutual exclusion holds
only while the lease does, so a write the lease protects should carry its
fencing ``token``, which only grows per name, and the resource written to
should refuse a token lower than one it has seen.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import TypeVar

from ._params import camel_params
from .errors import LarderError, LockNotAcquired, LockNotHeldError
from .methods import Call, Methods, Sync, method
from .results import LockAcquireResult, LockListResult, LockReleaseResult, LockRenewResult

K = TypeVar("K")

__all__ = ["HeldLock", "Lease", "LockMethods", "Locks", "lease_of", "released_error", "renewal_interval"]


class LockMethods(Methods[K]):
    """The ``lock.*`` methods. On a client each call returns its result; on a
    pipeline, a reply of it; on an asyncio client, an awaitable (see
    :mod:`larder.methods`)."""

    @method
    def acquire(self, name: str, *, ttl: float, wait: float | None = None) -> Call[LockAcquireResult]:
        """``lock.acquire``: takes the lease on ``name`` for ``ttl`` seconds
        under a new fencing token if nobody holds it; with ``wait``, waits up
        to that many seconds for it (other calls are answered meanwhile).

        Returns ``{"acquired": True, "token", "expiresAt"}``, or
        ``{"acquired": False, "holderExpiresAt", "heldHere"}``.
        """
        return self._request("lock.acquire", camel_params(name=name, ttl=ttl, wait=wait), None)

    @method
    def renew(self, name: str, token: int, *, ttl: float) -> Call[LockRenewResult]:
        """``lock.renew``: extends the live lease ``token`` on ``name`` to
        ``ttl`` seconds from now: ``{"token", "expiresAt"}``. Raises
        :class:`~larder.LockNotHeldError` when ``token`` is not the live
        lease's (it expired, was released, or another holds the name)."""
        return self._request("lock.renew", {"name": name, "token": token, "ttl": ttl}, None)

    @method
    def release(self, name: str, token: int) -> Call[LockReleaseResult]:
        """``lock.release``: gives the lease back: ``{"released": True}``, or
        ``False`` when it had expired or was released already and nobody
        took the name since. Raises :class:`~larder.LockNotHeldError` when
        another lease on the name came after ``token``."""
        return self._request("lock.release", {"name": name, "token": token}, None)

    @method
    def list(self, prefix: str | None = None) -> Call[LockListResult]:
        """``lock.list``: the store's live leases, whoever holds them, by name
        in byte order: ``{"locks": [{"name", "token", "expiresAt",
        "heldHere"}]}``; ``prefix`` keeps the names that begin with it."""
        return self._request("lock.list", camel_params(prefix=prefix), None)


class Lease:
    """A lease held by ``with db.lock(...)`` (or ``async with``).

    Attributes:
        name: the lock's name.
        token: the fencing token: send it with every write the lease
            protects, so that the resource can refuse a holder that lost it.
        ttl: the seconds each renewal asks for.
        expires_at: when the lease expires unless renewed again (ISO 8601,
            by the store's clock), as the last renewal answered.
        error: why the lease was lost (the refusal, or the last failed
            renewal's error), or ``None``.
    """

    def __init__(self, name: str, token: int, ttl: float, expires_at: str, valid_until: float) -> None:
        self.name = name
        self.token = token
        self.ttl = ttl
        self.expires_at = expires_at
        self.error: Exception | None = None
        # time.monotonic() by which the lease has certainly expired unless a
        # renewal sent before it succeeded: the send time of the last
        # successful acquire or renew, plus ttl.
        self._valid_until = valid_until

    @property
    def lost(self) -> bool:
        """Whether this holder can no longer count on the lease: a renewal
        was refused (:attr:`error`), or ``ttl`` seconds passed since the
        last renewal that succeeded was sent."""
        return self.error is not None or time.monotonic() >= self._valid_until

    def _renewed(self, sent: float, answer: LockRenewResult) -> None:
        self.expires_at = answer["expiresAt"]
        self._valid_until = sent + self.ttl

    def _failed(self, error: Exception) -> bool:
        """Notes a failed renewal; returns whether the lease is lost. A
        refusal loses it; any other failure only once ``ttl`` has passed
        since the last renewal that succeeded, retried until then."""
        if isinstance(error, LockNotHeldError) or time.monotonic() >= self._valid_until:
            self.error = error
            return True
        return False

    def __repr__(self) -> str:
        state = "lost" if self.lost else f"expires at {self.expires_at}"
        return f"Lease(name={self.name!r}, token={self.token}, {state})"


def renewal_interval(ttl: float, renew_every: float | None) -> float:
    """Seconds between renewals: ``renew_every``, or a third of ``ttl``, so
    that two renewals in a row may fail (or be late) before the lease
    expires."""
    every = ttl / 3 if renew_every is None else renew_every
    if not 0 < every < ttl:
        raise ValueError(f"renew_every must be more than 0 and less than ttl ({ttl:g} s), not {every:g}")
    return every


def lease_of(name: str, ttl: float, wait: float | None, sent: float, answer: LockAcquireResult) -> Lease:
    """The lease ``lock.acquire`` answered, sent at ``sent``
    (``time.monotonic()``); :class:`~larder.LockNotAcquired` when it was not
    acquired."""
    if not answer["acquired"]:
        raise LockNotAcquired(name, answer["holderExpiresAt"], answer["heldHere"], wait)
    return Lease(name, answer["token"], ttl, answer["expiresAt"], sent + ttl)


def released_error(lease: Lease, answer: LockReleaseResult) -> LockNotHeldError | None:
    """A lease given back as ``released: False`` had expired while held."""
    if answer["released"]:
        return None
    return LockNotHeldError(f"the lease on {lease.name!r} (token {lease.token}) had expired before it was released",
                            data={"name": lease.name, "token": None})


class HeldLock:
    """What ``db.lock(...)`` returns: a context manager that acquires the
    lease on entering (a :class:`Lease`), renews it on a daemon thread every
    ``renew_every`` seconds while the block runs, and releases it on leaving,
    also when the block raises.

    When a renewal is refused (:class:`~larder.LockNotHeldError`), or fails
    until ``ttl`` has passed, the lease is lost: ``lease.lost`` turns true at
    once, and leaving the block raises ``lease.error`` (unless the block
    raised already)."""

    def __init__(self, methods: LockMethods[Sync], name: str, ttl: float, wait: float | None,
                 renew_every: float | None) -> None:
        self._methods = methods
        self._name = name
        self._ttl = ttl
        self._wait = wait
        self._every = renewal_interval(ttl, renew_every)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lease: Lease | None = None

    def __enter__(self) -> Lease:
        sent = time.monotonic()
        answer = self._methods.acquire(self._name, ttl=self._ttl, wait=self._wait)
        self._lease = lease = lease_of(self._name, self._ttl, self._wait, sent, answer)
        self._thread = threading.Thread(target=self._renew, args=(lease,), daemon=True,
                                        name=f"larder lease {self._name}")
        self._thread.start()
        return lease

    def _renew(self, lease: Lease) -> None:
        while not self._stop.wait(self._every):
            sent = time.monotonic()
            try:
                answer = self._methods.renew(lease.name, lease.token, ttl=lease.ttl)
            except (LarderError, TimeoutError) as e:  # TimeoutError: past the client's timeout
                if lease._failed(e):
                    return
                continue
            lease._renewed(sent, answer)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        lease, thread = self._lease, self._thread
        assert lease is not None and thread is not None, "the lock was not entered"
        self._stop.set()
        thread.join()
        if lease.error is None:
            try:
                lease.error = released_error(lease, self._methods.release(lease.name, lease.token))
            except LarderError as e:
                if error is None:
                    raise
                lease.error = e
        if lease.error is not None and error is None:
            raise lease.error


class Locks(LockMethods[Sync]):
    """``db.lock``: the ``lock.*`` methods, and, called, a lease held for the
    length of a ``with`` block::

        with db.lock("reports/daily", ttl=30, wait=10) as lease:
            write_report(fencing_token=lease.token)
    """

    def __call__(self, name: str, *, ttl: float, wait: float | None = None,
                 renew_every: float | None = None) -> HeldLock:
        """Takes the lease on ``name`` for ``ttl`` seconds on entering the
        ``with`` block (waiting up to ``wait`` seconds for it; raises
        :class:`~larder.LockNotAcquired` if it did not get it), renews it
        every ``renew_every`` seconds (default: a third of ``ttl``) while the
        block runs, and gives it back when it ends. See :class:`HeldLock`."""
        return HeldLock(self, name, ttl, wait, renew_every)
