"""Exceptions raised by the Larder client.

Every JSON-RPC error the server answers with becomes a :class:`LarderError`
subclass chosen by its ``code``; an unknown code gives a plain
:class:`LarderError`. A sidecar process that goes away raises
:class:`SidecarExited`.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = [
    "LarderError",
    "ParseError",
    "InvalidRequest",
    "MethodNotFound",
    "InvalidParams",
    "InternalError",
    "ServerNotInitialized",
    "RequestCancelled",
    "RequestFailed",
    "StoreUnavailable",
    "StorageFailure",
    "StoreLocked",
    "StorageUnavailable",
    "StoreLost",
    "CacheNotFound",
    "SchemaConflict",
    "SchemaNotFound",
    "InvalidObject",
    "NotAnObject",
    "MigrationMissing",
    "MigrationFailed",
    "EntityNotFound",
    "ModelConflict",
    "UnresolvedReferences",
    "DeleteDenied",
    "IncompleteRecord",
    "FetchFailed",
    "EncryptionKeyError",
    "IntegrityError",
    "AppVersionSuperseded",
    "ConditionFailed",
    "NotAnInteger",
    "LockNotHeldError",
    "LockNotAcquired",
    "SidecarExited",
    "error_class",
    "error_from_json",
    "register_error",
]


class LarderError(Exception):
    """An error answered by the server (or, for subclasses without a
    protocol code such as :class:`SidecarExited`, raised by the client).

    Attributes:
        code: the JSON-RPC error code (``None`` when the error did not come
            from the server).
        message: the server's message.
        data: the error's ``data`` member, or ``None``.
    """

    #: The protocol code a subclass stands for.
    CODE: ClassVar[int | None] = None

    def __init__(self, message: str, code: int | None = None, data: Any = None) -> None:
        super().__init__(message)
        self.code = self.CODE if code is None else code
        self.message = message
        self.data = data

    def __str__(self) -> str:
        if self.code is None:
            return self.message
        return f"[{self.code}] {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, data={self.data!r})"

    @property
    def retryable(self) -> bool:
        """Whether the server says the same request may succeed if sent
        again unchanged (``data.retryable``): :class:`StorageUnavailable`
        always, :class:`StoreLocked` on a store on PostgreSQL,
        :class:`EncryptionKeyError` while a rekey runs."""
        return self._datum("retryable") is True

    def _datum(self, name: str) -> Any:
        """``data[name]`` when ``data`` is an object, else ``None``."""
        return self.data.get(name) if isinstance(self.data, dict) else None

    def to_json(self) -> dict[str, Any]:
        """The error as a JSON-RPC ``error`` object (used when the client
        answers a server-to-client request with an error)."""
        error: dict[str, Any] = {
            "code": self.code if self.code is not None else InternalError.CODE,
            "message": self.message,
        }
        if self.data is not None:
            error["data"] = self.data
        return error


_BY_CODE: dict[int, type[LarderError]] = {}


def register_error(cls: type[LarderError]) -> type[LarderError]:
    """Class decorator: makes ``cls`` the class raised for ``cls.CODE``."""
    if cls.CODE is not None:
        _BY_CODE[cls.CODE] = cls
    return cls


# JSON-RPC 2.0.
@register_error
class ParseError(LarderError):
    """-32700: the server could not parse a message as JSON."""
    CODE = -32700


@register_error
class InvalidRequest(LarderError):
    """-32600: not a valid request (or not acceptable now, e.g. after ``shutdown``)."""
    CODE = -32600


@register_error
class MethodNotFound(LarderError):
    """-32601: no such method (``debug.*`` need ``--enable-test-methods``).
    ``data = {"method", "suggestion"}`` when a known method is close (the
    message then ends ``(did you mean cache.get?)``); no ``data`` otherwise."""
    CODE = -32601

    @property
    def method(self) -> str | None:
        """The method asked for, when the server sent it (``data.method``)."""
        value = self._datum("method")
        return value if isinstance(value, str) else None

    @property
    def suggestion(self) -> str | None:
        """The known method most likely meant (``data.suggestion``), or ``None``."""
        value = self._datum("suggestion")
        return value if isinstance(value, str) else None


@register_error
class InvalidParams(LarderError):
    """-32602: missing, mistyped, out-of-range or unknown parameters. For a
    member the method does not know (at any depth: ``params.tll``,
    ``params.memory.max_cont``, ``params.entries[3].tll``) ``data =
    {"path", "expected": [every member allowed there], "suggestion"?}``;
    nothing was done."""
    CODE = -32602

    @property
    def path(self) -> str | None:
        """Where the unknown member is, such as ``"params.tll"`` (``data.path``), or ``None``."""
        value = self._datum("path")
        return value if isinstance(value, str) else None

    @property
    def expected(self) -> list[str] | None:
        """The members allowed at :attr:`path` (``data.expected``), or ``None``."""
        value = self._datum("expected")
        return [str(v) for v in value] if isinstance(value, list) else None

    @property
    def suggestion(self) -> str | None:
        """The known member most likely meant, such as ``"ttl"`` (``data.suggestion``), or ``None``."""
        value = self._datum("suggestion")
        return value if isinstance(value, str) else None


@register_error
class InternalError(LarderError):
    """-32603: a bug in the server."""
    CODE = -32603


# The Language Server Protocol's codes.
@register_error
class ServerNotInitialized(LarderError):
    """-32002: ``initialize`` is required first (``--require-initialize``)."""
    CODE = -32002


@register_error
class RequestCancelled(LarderError):
    """-32800: the request was cancelled (``$/cancelRequest``, or the client went away)."""
    CODE = -32800


@register_error
class RequestFailed(LarderError):
    """-32803: a valid request that could not be carried out."""
    CODE = -32803


# Larder's own codes.
@register_error
class StoreUnavailable(LarderError):
    """-31000: the store directory cannot be opened or created. ``data = {"path"}``."""
    CODE = -31000


@register_error
class StorageFailure(LarderError):
    """-31001: SQLite failed, or the PostgreSQL server of a store on
    PostgreSQL reported an error. ``data = {"sqliteCode"}``, or
    ``{"sqlState"}`` on PostgreSQL."""
    CODE = -31001


@register_error
class StoreLocked(LarderError):
    """-31002: another process held the store's lock for more than 5 seconds,
    or, on PostgreSQL, another sidecar's transaction was in the way (a
    serialization failure or deadlock); the write was not made and may be
    retried. ``data = {"sqliteCode"}``, or ``{"sqlState", "retryable"}`` on
    PostgreSQL."""
    CODE = -31002


@register_error
class StorageUnavailable(LarderError):
    """-31003: the PostgreSQL server of a store on PostgreSQL cannot be
    reached. The request was not carried out; the sidecar connects again by
    itself, and the request may be sent again (:attr:`retryable`).
    ``data = {"retryable": True, "sqlState"?}``."""
    CODE = -31003


@register_error
class StoreLost(LarderError):
    """-31004: the store's database file was deleted, moved away or replaced
    while the sidecar used it. The writes waiting for that commit were not
    kept; every later request fails the same way, and the sidecar exits with
    status 3. ``data = {"path"}``, the database file."""
    CODE = -31004


@register_error
class CacheNotFound(LarderError):
    """-31010: the named cache does not exist. ``data = {"cache"}``."""
    CODE = -31010


@register_error
class SchemaConflict(LarderError):
    """-31020: ``schema.register`` of a version that is already registered
    with a different definition. ``data = {"type", "version"}``."""
    CODE = -31020


@register_error
class SchemaNotFound(LarderError):
    """-31021: no schema is registered for the type. ``data = {"type"}``."""
    CODE = -31021


@register_error
class InvalidObject(LarderError):
    """-31022: a value does not fit its type's newest schema.
    ``data = {"path", "reason"}``, the path such as ``value.barObject.date``."""
    CODE = -31022


@register_error
class NotAnObject(LarderError):
    """-31023: the entry was stored with ``cache.set``, not ``object.put``.
    ``data = {"key"}``."""
    CODE = -31023


@register_error
class MigrationMissing(LarderError):
    """-31030: no registered migration leads the stored version to the newest.
    ``data = {"type", "fromVersion", "toVersion", "fields"}`` (the fields that differ)."""
    CODE = -31030


@register_error
class MigrationFailed(LarderError):
    """-31031: a migration step failed, or the client's ``migrate.object``
    handler answered with an error (or was not declared). The stored object is
    left as it was. ``data = {"key", "type", "fromVersion", "toVersion", "reason"}``."""
    CODE = -31031


@register_error
class EntityNotFound(LarderError):
    """-31040: no entity model defines an entity of that name (``entity.*``
    with an unknown ``entity``). ``data = {"entity"}``."""
    CODE = -31040


@register_error
class ModelConflict(LarderError):
    """-31041: ``entity.define`` of a model that exists, with changes that
    cannot be made in place (a type changed, an attribute removed or added as
    required, a relationship or the casing changed, ...). Nothing is changed.
    ``data = {"model", "changes": [one sentence per change]}``."""
    CODE = -31041


@register_error
class UnresolvedReferences(LarderError):
    """-31042: ``entity.apply`` / ``entity.upsert`` met to-one references to
    records that exist neither in the batch nor in the store; nothing was
    written (a staged batch stays). ``data = {"missing": {entity: [ids]},
    "references": [{"entity", "id", "relationship", "destination",
    "missingId"}] (the first 100), "count"}``. Pass ``on_missing="null"`` to
    clear such references instead."""
    CODE = -31042


@register_error
class DeleteDenied(LarderError):
    """-31043: ``entity.delete`` refused by a relationship whose delete rule
    is ``deny`` (anywhere in the cascade); nothing was deleted.
    ``data = {"entity", "id", "relationship", "related"}``."""
    CODE = -31043


@register_error
class IncompleteRecord(LarderError):
    """-31044: a record that is new to the store lacks required attributes
    (an existing record may be updated partially); nothing was written.
    ``data = {"entity", "id", "missing": [JSON keys]}``."""
    CODE = -31044


@register_error
class FetchFailed(LarderError):
    """-31050: ``cache.getOrFetch`` missed and could not get the value: every
    ``cache.fetch`` attempt failed and there was no fallback (or it failed
    too), the failure is remembered (``negativeTtl``), or the client did not
    declare ``capabilities.fetch``. ``data = {"attempts", "lastError":
    {code, message, data?}, "remembered"?, "fallbackError"?}``."""
    CODE = -31050

    @property
    def attempts(self) -> int | None:
        attempts = self._datum("attempts")
        return attempts if isinstance(attempts, int) else None

    @property
    def last_error(self) -> LarderError | None:
        error = self._datum("lastError")
        return None if error is None else error_from_json(error)


@register_error
class EncryptionKeyError(LarderError):
    """-31060: an encrypted cache cannot be used with the keys this session
    holds; nothing was read or written. :attr:`reason` says why:
    ``"keyRequired"`` (no key for the cache: give ``encryption_key``,
    ``encryption_keys`` or ``key_file``), ``"keyMismatch"`` (not the key its
    data was sealed under), ``"rekeyRunning"`` (a ``cache.rekey`` of it is
    under way: :attr:`retryable`, try again once it has answered),
    ``"rekeyInterrupted"`` (a ``cache.rekey`` stopped part-way: finish it
    with the same new key). ``data = {"cache", "reason", "retryable"?}``."""
    CODE = -31060

    @property
    def reason(self) -> str | None:
        """``"keyRequired"``, ``"keyMismatch"``, ``"rekeyRunning"`` or
        ``"rekeyInterrupted"`` (``data.reason``), or ``None``."""
        value = self._datum("reason")
        return value if isinstance(value, str) else None

    @property
    def cache(self) -> str | None:
        """The encrypted cache (``data.cache``), or ``None``."""
        value = self._datum("cache")
        return value if isinstance(value, str) else None


@register_error
class IntegrityError(LarderError):
    """-31061: a sealed entry of an encrypted cache does not open: its bytes
    were changed outside Larder, or moved to another key, cache or row. Only
    that entry is affected (other entries read as usual, and
    ``cache.remove`` removes it). ``data = {"cache", "key"?}``; no ``key``
    when what failed is a sealed key itself (met while listing keys or
    evicting)."""
    CODE = -31061

    @property
    def cache(self) -> str | None:
        """The encrypted cache (``data.cache``), or ``None``."""
        value = self._datum("cache")
        return value if isinstance(value, str) else None

    @property
    def key(self) -> str | None:
        """The entry's key (``data.key``), or ``None`` when it is not known."""
        value = self._datum("key")
        return value if isinstance(value, str) else None


@register_error
class AppVersionSuperseded(LarderError):
    """-31070: a process of another app version (``spawn``'s
    ``app_version``) claimed the cache after this one began using it: the
    cache holds that version's data now, which this sidecar reads as empty
    and may not write to; nothing was written. Not retryable: a sidecar of
    this version started anew claims the cache back (wiping it).
    ``data = {"cache", "appVersion", "cacheAppVersion"}``."""
    CODE = -31070

    @property
    def cache(self) -> str | None:
        """The cache (``data.cache``), or ``None``."""
        value = self._datum("cache")
        return value if isinstance(value, str) else None

    @property
    def app_version(self) -> str | None:
        """This sidecar's app version (``data.appVersion``), or ``None``."""
        value = self._datum("appVersion")
        return value if isinstance(value, str) else None

    @property
    def cache_app_version(self) -> str | None:
        """The version whose data the cache holds (``data.cacheAppVersion``), or ``None``."""
        value = self._datum("cacheAppVersion")
        return value if isinstance(value, str) else None


@register_error
class ConditionFailed(LarderError):
    """-31080: a conditional write's condition did not hold (``if_revision``:
    the live entry is at another revision, or there is none; ``if_absent``:
    there is a live entry). Nothing was written; in ``cache.setMany``,
    nothing of the call, and :attr:`index` names the element. Read the entry
    again and retry. ``data = {"key", "revision", "index"?}``. Also raised
    by a transaction's ``commit(check=True)`` for its first comparison that
    did not hold (:attr:`index` its place in ``compare``), after the
    transaction's other branch was applied."""
    CODE = -31080

    @property
    def key(self) -> str | None:
        """The entry's key (``data.key``), or ``None``."""
        value = self._datum("key")
        return value if isinstance(value, str) else None

    @property
    def revision(self) -> int | None:
        """The live entry's revision now (``data.revision``), or ``None``
        when there is no live entry."""
        value = self._datum("revision")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def index(self) -> int | None:
        """``cache.setMany``: the element whose condition failed; a
        transaction: the comparison (``data.index``); or ``None``."""
        value = self._datum("index")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


@register_error
class NotAnInteger(LarderError):
    """-31081: ``cache.increment``, or an ``increment`` in
    ``cache.transaction``, found a live entry whose value is not a JSON
    integer within ±(2**53 − 1), or the sum would leave that range.
    Nothing was written (in a transaction, nothing of it). ``data =
    {"key", "index"?, "branch"?}``."""
    CODE = -31081

    @property
    def key(self) -> str | None:
        """The entry's key (``data.key``), or ``None``."""
        value = self._datum("key")
        return value if isinstance(value, str) else None

    @property
    def index(self) -> int | None:
        """``cache.transaction``: the operation's place in its branch (``data.index``), or ``None``."""
        value = self._datum("index")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def branch(self) -> str | None:
        """``cache.transaction``: ``"then"`` or ``"else"`` (``data.branch``), or ``None``."""
        value = self._datum("branch")
        return value if isinstance(value, str) else None


@register_error
class LockNotHeldError(LarderError):
    """-31090: ``lock.renew`` or ``lock.release`` with a token that is not
    that of the lease on the name: another holder's, or (renewing) a lease
    that expired or was released. Nothing was changed; whoever held the
    lease under the token given no longer does. ``data = {"name",
    "token"}``, ``token`` being the live lease's now (``None`` when none
    is)."""
    CODE = -31090

    @property
    def name(self) -> str | None:
        """The lock's name (``data.name``), or ``None``."""
        value = self._datum("name")
        return value if isinstance(value, str) else None

    @property
    def token(self) -> int | None:
        """The token of the live lease on the name now (``data.token``), or
        ``None`` when nobody holds it."""
        value = self._datum("token")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


class LockNotAcquired(LarderError):
    """``db.lock(name, ...)`` did not get the lease: someone held it (this
    session too, ``held_here``: leases are not re-entrant) and ``wait``
    ran out. Raised by the client, from ``lock.acquire``'s answer
    ``{"acquired": false, ...}``; not a protocol error (``code`` is
    ``None``).

    Attributes:
        name: the lock's name.
        holder_expires_at: when the holder's lease expires unless renewed
            (ISO 8601).
        held_here: whether this session holds it.
    """

    def __init__(self, name: str, holder_expires_at: str, held_here: bool, wait: float | None = None) -> None:
        self.name = name
        self.holder_expires_at = holder_expires_at
        self.held_here = held_here
        holder = "this session" if held_here else "another holder"
        waited = f" after waiting {wait:g} s" if wait else ""
        super().__init__(f"lock {name!r} not acquired{waited}: {holder} holds it until {holder_expires_at} "
                         "unless renewed", None, None)


class SidecarExited(LarderError):
    """The ``larder`` process ended (or its output closed) while the client
    needed it. Raised by every pending and later call.

    Attributes:
        returncode: the exit status (negative: killed by that signal), or
            ``None`` if it could not be learned.
        stderr: the last lines the process wrote to stderr.
    """

    def __init__(self, returncode: int | None, stderr: str = "", reason: str | None = None) -> None:
        self.returncode = returncode
        self.stderr = stderr
        if reason is None:
            if returncode is None:
                reason = "the larder sidecar closed its output"
            elif returncode < 0:
                reason = f"the larder sidecar was killed by signal {-returncode}"
            else:
                reason = f"the larder sidecar exited with status {returncode}"
        message = reason
        if stderr.strip():
            message += "; its stderr ended with:\n" + stderr.rstrip()
        super().__init__(message, None, None)


def error_class(code: int) -> type[LarderError]:
    """The exception class for a code (``LarderError`` when unknown)."""
    return _BY_CODE.get(code, LarderError)


def error_from_json(error: Any) -> LarderError:
    """Builds the exception for a JSON-RPC ``error`` object."""
    if not isinstance(error, dict):
        return LarderError(f"malformed error object: {error!r}", InternalError.CODE, error)
    code = error.get("code")
    message = error.get("message")
    if not isinstance(message, str):
        message = repr(message)
    if not isinstance(code, int) or isinstance(code, bool):
        return LarderError(message, InternalError.CODE, error)
    return error_class(code)(message, code, error.get("data"))
