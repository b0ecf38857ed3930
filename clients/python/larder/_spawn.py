"""How a sidecar is started and what ``initialize`` tells it: the
:class:`SpawnOptions` both clients take, declared once, and the
``initialize`` params built from them.

``Larder.spawn(...)`` and ``AsyncLarder.spawn(...)`` take every field of
:class:`SpawnOptions` as a keyword (the first five also by position), and
``options=SpawnOptions(...)``, which the other arguments given override. Their
signatures are made from the dataclass by :func:`spawner`, so the type
checker sees each keyword with its type.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
from dataclasses import KW_ONLY, dataclass
from typing import Any, Callable, Concatenate, Mapping, ParamSpec, Sequence, TypeVar

from ._params import camel_keys
from .binary import PgCoherence, command_line
from .encryption import Key, encryption_params
from .fetch import Fetchers

__all__ = ["CLIENT_NAME", "CLIENT_VERSION", "SpawnOptions", "check_encryption", "declare_fetch",
           "declares_migration_callbacks", "initialize_params", "is_postgresql_url", "spawner", "store_choice"]

CLIENT_NAME = "larder-python"
CLIENT_VERSION = "0.1.0"

Handler = Callable[[Any], Any]
P = ParamSpec("P")
A = TypeVar("A", bound="SpawnOptions")
C = TypeVar("C")
R = TypeVar("R")


@dataclass(frozen=True)
class SpawnOptions:
    """How to start a ``larder`` sidecar and what to declare in its
    ``initialize``: the arguments of :meth:`larder.Larder.spawn` and
    :meth:`larder.aio.AsyncLarder.spawn`, which also take an instance as
    ``options=`` (``Larder.spawn(options=shared, app_version="2.0")``: the
    arguments given override its fields). :func:`dataclasses.replace` makes a
    changed copy.

    Attributes:
        store: the store (``--store``): a directory, or a PostgreSQL
            database as a ``postgresql://USER@HOST:PORT/DB?OPTIONS`` (or
            ``postgres://``) URL, given as a ``str``, which every sidecar
            naming the same database and schema shares (what the URL
            leaves out comes from libpq's ``PG*`` environment variables
            and service file, as for ``psql``). ``memory=True`` keeps
            everything in memory (``--memory``). With neither, the server
            uses its default store (``$LARDER_STORE``, ``~/.cache/larder``).
        memory: keep everything in memory (``--memory``).
        binary: the executable (see :func:`larder.find_binary`).
        app_version: sent as ``initialize``'s ``appVersion``.
        args: more command-line arguments, e.g. ``["--enable-test-methods"]``.
        events: ask for every cache event from the start
            (``capabilities.events``); otherwise use ``cache.subscribe``.
        migration_callbacks: declare ``capabilities.migrationCallbacks``
            (``True``) or not (``False``); by default, declared exactly
            when a handler is registered by the time ``initialize`` is sent
            (``on_migrate=``).
        on_migrate: the ``migrate.object`` handler (see
            :meth:`larder.Larder.on_migrate`; on ``AsyncLarder`` it may be a
            coroutine function), registered before ``initialize``, which
            then declares ``capabilities.migrationCallbacks``.
        fetch: declare ``capabilities.fetch``, so that the server asks
            this client's fetchers on a miss of ``cache.getOrFetch``
            (:meth:`~larder.cache.CacheMethods.get_or_fetch`).
        fallback: declare ``capabilities.fallback`` (default: as ``fetch``).
        client_info: ``initialize``'s ``clientInfo`` (default: this library).
        initialize: send ``initialize`` and ``initialized`` once started
            (``False``: call :meth:`larder.Larder.initialize` yourself).
        env: the process environment (default: inherited).
        encryption_key: the key of every encrypted cache (``cache.open(...,
            encrypted=True)``): 32 bytes, or their base64 as a ``str``;
            sent in ``initialize``, never stored by the server. A key of
            another length raises :class:`ValueError` (another type,
            :class:`TypeError`) before the process starts.
        encryption_keys: keys of named caches, overriding
            ``encryption_key``: ``{"secrets": key}``.
        key_file: a file holding the key (its 32 bytes, or their base64),
            passed as ``--key-file``. The server refuses to start when its
            group or others may read the file (``chmod 600`` it): then
            :class:`~larder.SidecarExited` is raised, its message ending
            with the server's reason.
        pg_schema: the schema of a store on PostgreSQL (``--pg-schema``;
            the sidecar's default is ``larder``). Sidecars share a store
            when they name the same database and schema. Without a
            ``postgresql://`` ``store`` the sidecar refuses to start:
            :class:`~larder.SidecarExited` is raised, its message ending
            with the server's reason.
        pg_coherence: how a sidecar on PostgreSQL learns of other
            sidecars' writes before answering from its memory tiers
            (``--pg-coherence``; the sidecar's default is ``"strict"``):
            ``"strict"`` reads the store's commit count at the start of
            each burst of input (one round trip), so it is never stale
            after another sidecar's acknowledged write; ``"notify"``
            listens for PostgreSQL's notifications instead, with no round
            trip before a memory hit, stale for at most a
            notification's delay; ``"poll"`` reads the count at most
            every 50 ms, for servers and proxies without notifications
            (CockroachDB, YugabyteDB, PgBouncer in transaction mode).
            Writes catch up first in every mode. ``initialize``'s result
            tells the mode kept (``store.coherence``; ``"notify"`` falls
            back to ``"poll"`` where the server cannot ``LISTEN``).
            Without a ``postgresql://`` ``store``, or with a mode it does
            not know, the sidecar refuses to start:
            :class:`~larder.SidecarExited` is raised, its message ending
            with the server's reason.
    """

    store: str | os.PathLike[str] | None = None
    memory: bool = False
    binary: str | os.PathLike[str] | None = None
    app_version: str | None = None
    args: Sequence[str] = ()
    _: KW_ONLY
    events: bool = False
    migration_callbacks: bool | None = None
    on_migrate: Handler | None = None
    fetch: bool = False
    fallback: bool | None = None
    client_info: dict[str, Any] | None = None
    initialize: bool = True
    env: dict[str, str] | None = None
    encryption_key: Key | None = None
    encryption_keys: Mapping[str, Key] | None = None
    key_file: str | os.PathLike[str] | None = None
    pg_schema: str | None = None
    pg_coherence: PgCoherence | None = None

    def __repr__(self) -> str:
        """The fields not at their defaults; the keys and the environment as
        ``***``, and so the password in a URL, since a repr ends up in logs."""
        shown = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value == f.default:
                continue
            if f.name in ("encryption_key", "encryption_keys", "env"):
                shown.append(f"{f.name}=***")
            elif f.name == "store" and isinstance(value, str):
                shown.append(f"store={_masked(value)!r}")
            else:
                shown.append(f"{f.name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def command(self) -> list[str]:
        """The command line that starts the sidecar, once the keys are
        checked (:func:`check_encryption`): nothing starts with a bad one."""
        check_encryption(self.encryption_key, self.encryption_keys, self.initialize)
        return command_line(self.binary, self.store, self.memory, self.args, self.key_file, self.pg_schema,
                            self.pg_coherence)

    def initialize_keywords(self) -> dict[str, Any]:
        """The keywords of the ``initialize()`` call that follows the start."""
        return {"client_info": self.client_info, "app_version": self.app_version, "events": self.events,
                "migration_callbacks": self.migration_callbacks, "fetch": self.fetch, "fallback": self.fallback,
                "encryption_key": self.encryption_key, "encryption_keys": self.encryption_keys}


#: A password in a URL, as ``user:password@`` or ``password=`` (group 1:
#: what precedes it).
_PASSWORD = re.compile(r"(://[^:/@]*:)[^@/]*(?=@)|([?&]password=)[^&]*")


def _masked(url: str) -> str:
    """``url`` with any password in it as ``***``."""
    return _PASSWORD.sub(lambda m: (m.group(1) or m.group(2)) + "***", url)


#: The fields that ``spawn`` also takes by position, in order.
_POSITIONAL = [f.name for f in dataclasses.fields(SpawnOptions) if not f.kw_only]


def spawner(arguments: Callable[P, A]) -> Callable[[Callable[[type[C], A], R]],
                                                     Callable[Concatenate[type[C], P], R]]:
    """Makes a ``spawn(cls, given)`` classmethod body into one taking the
    arguments of the dataclass ``arguments``: :class:`SpawnOptions`' fields
    plus the client's own (``options``, and ``timeout`` on ``Larder``). The
    body is given the ``arguments`` instance, its :class:`SpawnOptions`
    fields taken from ``options`` where not given."""
    names = {f.name for f in dataclasses.fields(SpawnOptions)}
    signature = inspect.signature(arguments)

    def decorate(start: Callable[[type[C], A], R]) -> Callable[Concatenate[type[C], P], R]:
        def spawn(cls: type[C], /, *args: P.args, **kwargs: P.kwargs) -> R:
            try:
                given = arguments(*args, **kwargs)
            except TypeError as e:  # refused as a signature would refuse it, naming spawn
                raise TypeError(str(e).replace(f"{arguments.__qualname__}.__init__()",
                                               f"{cls.__name__}.spawn()")) from None
            base = getattr(given, "options", None)
            if base is not None:
                if not isinstance(base, SpawnOptions):
                    raise TypeError(f"options must be a SpawnOptions, not {type(base).__name__}")
                explicit = set(_POSITIONAL[:len(args)]) | kwargs.keys()
                given = dataclasses.replace(given, **{n: getattr(base, n) for n in names - explicit})
            return start(cls, given)

        spawn.__name__, spawn.__qualname__ = start.__name__, start.__qualname__
        spawn.__module__, spawn.__doc__ = start.__module__, start.__doc__
        spawn.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[inspect.Parameter("cls", inspect.Parameter.POSITIONAL_ONLY), *signature.parameters.values()],
            return_annotation=inspect.signature(start).return_annotation)
        return spawn

    return decorate


def initialize_params(*, client_info: dict[str, Any] | None = None, app_version: str | None = None,
                      store: str | os.PathLike[str] | None = None, events: bool = False,
                      migration_callbacks: bool | None = None, fetch: bool = False, fallback: bool | None = None,
                      encryption_key: Key | None = None, encryption_keys: Mapping[str, Key] | None = None,
                      pg_schema: str | None = None, pg_coherence: PgCoherence | None = None,
                      **extra: Any) -> dict[str, Any]:
    """``initialize``'s params from the keywords of both clients'
    ``initialize()``, which this declares (see
    :meth:`larder.Larder.initialize`); ``fallback`` defaults to ``fetch``.
    Raises :class:`TypeError` or :class:`ValueError` for a key that is not
    32 bytes (see :mod:`larder.encryption`)."""
    params: dict[str, Any] = {"clientInfo": client_info or {"name": CLIENT_NAME, "version": CLIENT_VERSION}}
    if app_version is not None:
        params["appVersion"] = app_version
    if store is not None or pg_schema is not None or pg_coherence is not None:
        params["store"] = store_choice(store, pg_schema, pg_coherence)
    encryption = encryption_params(encryption_key, encryption_keys)
    if encryption is not None:
        params["encryption"] = encryption
    capabilities: dict[str, Any] = {}
    if events:
        capabilities["events"] = True
    if migration_callbacks:
        capabilities["migrationCallbacks"] = True
    if fetch:
        capabilities["fetch"] = True
    if fetch if fallback is None else fallback:
        capabilities["fallback"] = True
    if capabilities:
        params["capabilities"] = capabilities
    params.update(camel_keys(extra))
    return params


def is_postgresql_url(store: str | os.PathLike[str]) -> bool:
    """Whether ``store`` names a PostgreSQL database rather than a directory,
    as the sidecar tells them apart: by its ``postgresql://`` or
    ``postgres://`` prefix."""
    return os.fspath(store).startswith(("postgresql://", "postgres://"))


def store_choice(store: str | os.PathLike[str] | None, pg_schema: str | None,
                 pg_coherence: PgCoherence | None = None) -> dict[str, Any]:
    """``initialize``'s ``store``: ``{"url"}`` for a PostgreSQL URL,
    ``{"path"}`` for a directory, with ``schema`` when ``pg_schema`` is
    given and ``coherence`` when ``pg_coherence`` is. What does not fit (a
    schema or coherence with a directory, or alone, or a mode the sidecar
    does not know) is sent as it is, for the sidecar to refuse with
    :class:`~larder.InvalidParams`."""
    choice: dict[str, Any] = {}
    if store is not None:
        choice["url" if is_postgresql_url(store) else "path"] = os.fspath(store)
    if pg_schema is not None:
        choice["schema"] = pg_schema
    if pg_coherence is not None:
        choice["coherence"] = pg_coherence
    return choice


def check_encryption(encryption_key: Key | None, encryption_keys: Mapping[str, Key] | None,
                     initialize: bool) -> None:
    """Checks ``spawn``'s keys before the process starts: they must be keys,
    and ``initialize`` (which sends them) must be sent."""
    if encryption_key is None and encryption_keys is None:
        return
    if not initialize:
        raise ValueError("encryption_key and encryption_keys are sent by initialize: with initialize=False, "
                         "pass them to initialize() instead")
    encryption_params(encryption_key, encryption_keys)


def declares_migration_callbacks(params: dict[str, Any]) -> bool:
    """Whether ``initialize`` params declare ``capabilities.migrationCallbacks``."""
    declared = params.get("capabilities")
    return isinstance(declared, dict) and declared.get("migrationCallbacks") is True


def declare_fetch(fetchers: Fetchers, params: dict[str, Any]) -> None:
    """Notes in ``fetchers`` what ``initialize`` params declared of
    ``capabilities.fetch`` and ``fallback``."""
    declared = params.get("capabilities")
    fetchers.fetch_declared = isinstance(declared, dict) and declared.get("fetch") is True
    fetchers.fallback_declared = isinstance(declared, dict) and declared.get("fallback") is True
