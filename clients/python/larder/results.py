"""The result of each method, and the params of each request and
notification the server sends, as TypedDicts (protocol/openrpc.json's
schemas; member names as the protocol spells them; tests/test_contract.py
holds them to the document). A member the protocol leaves out in some
answers is ``NotRequired``: read it with ``.get``.

A few results are not the protocol's own: ``cache.get`` gives the value
itself, ``entity.count`` an ``int``, ``entity.render`` and ``entity.parse``
the record, and ``data`` comes back as ``bytes``."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

__all__ = [
    "ApplyResult", "CacheConfig", "CacheSummary", "CancelParams", "Capabilities", "ClearResult", "ClearedCache",
    "ClearedEvent", "CopyResult", "DefineResult", "DeleteResult", "DescribeResult", "DiscardResult", "DropResult",
    "EntityDefinition", "Entry", "EntityGetResult", "EntityManyResult", "EqualsResult", "EvictedEvent",
    "ExtendResult", "FallbackParams", "FetchParams", "FetchedEntry", "FetchSettings", "FoundResult",
    "GetManyResult", "GroupCount", "GroupsPage", "HashResult", "HasResult", "IncrementResult", "InitializeResult", "KeysPage",
    "Limits", "ListResult", "LockAcquireResult", "LockInfo", "LockListResult", "LockReleaseResult", "LockRenewResult", "MessageLimits", "MigrateObjectParams", "Migration", "MigrationCounts",
    "MigrationFailure", "MigrationStep", "ModelDefinition", "ModelsResult", "ObjectRead", "OpenResult", "OperationResult",
    "OptionalAttribute", "ProgressParams", "ProgressValue", "PutResult", "QueryPage", "RegisterResult", "RekeyResult",
    "RelationshipDefinition", "RemoveResult", "RemovedEvent", "ResponseError", "SchemaDefinition",
    "SchemaListResult", "SchemaRemoveResult", "SchemaResult", "SchemaSummary", "ServerInfo", "SetManyResult",
    "SetResult", "StageResult", "StatsResult", "StoreBudget", "StoreClearResult", "StoreInfo", "SubscribeResult",
    "TierStats", "TransactionFailure", "TransactionResult",
]

# -- cache.* ---------------------------------------------------------------------


class Limits(TypedDict):
    maxCount: int
    maxBytes: int


class FetchSettings(TypedDict):
    """How ``cache.getOrFetch`` asks the client for a missing key."""
    retries: int
    retryDelayMs: list[int]
    timeoutMs: int
    ttl: float | None
    negativeTtl: float
    staleWhileRevalidate: float
    shared: bool


class CacheConfig(TypedDict):
    persistent: bool
    memory: Limits
    disk: Limits
    lifespan: float
    returnsExpired: bool
    fetch: FetchSettings
    kind: str
    persistsAcrossVersions: bool
    purgeExpiredAfter: float | None
    encrypted: bool


class StoreBudget(TypedDict):
    """The store's budget (``--max-store-bytes``) and the bytes it holds."""
    maxBytes: int
    bytes: int
    exceeded: bool


class OpenResult(TypedDict):
    """``cache.open``: ``storeBudget`` when the server runs with ``--max-store-bytes``."""
    cache: str
    created: bool
    config: CacheConfig
    storeBudget: NotRequired[StoreBudget]


class SetResult(TypedDict):
    """``cache.set``: ``revision`` is the entry's new revision."""
    stored: bool
    size: int
    revision: int


class Entry(TypedDict):
    """``cache.get`` as :meth:`~larder.CacheMethods.entry` gives it: only
    ``found`` when nothing was found; ``value`` or ``data`` (as bytes) when
    something was."""
    found: bool
    value: NotRequired[Any]
    data: NotRequired[bytes]
    expired: NotRequired[bool]
    storedAt: NotRequired[str]
    expiresAt: NotRequired[str]
    tier: NotRequired[Literal["memory", "disk"]]
    revision: NotRequired[int]
    type: NotRequired[str]
    version: NotRequired[str]
    form: NotRequired[Literal["array"]]


class FetchedEntry(Entry):
    """``cache.getOrFetch`` as :meth:`~larder.CacheMethods.entry_or_fetch`
    gives it: :class:`Entry` with ``fetched`` (asked the client just now),
    and where they apply ``stored`` (false when a write won meanwhile),
    ``attempts`` (how many ``cache.fetch`` it took), ``fallback`` (the
    fallback's answer, never stored), ``revalidating`` (an expired entry
    answered while one fetch refreshes it), ``remembered`` (a failure or
    a miss remembered for ``negativeTtl``) and ``fetchedElsewhere`` (with
    ``shared``: another process on the store fetched and stored it while
    this call waited)."""
    fetched: bool
    stored: NotRequired[bool]
    attempts: NotRequired[int]
    fallback: NotRequired[bool]
    revalidating: NotRequired[bool]
    remembered: NotRequired[bool]
    fetchedElsewhere: NotRequired[bool]


class HasResult(TypedDict):
    """``cache.has``."""
    found: bool
    valid: bool


class RemoveResult(TypedDict):
    """``cache.remove``."""
    removed: bool


class FoundResult(TypedDict):
    """``cache.touch``: ``revived`` when the entry had expired and is valid again."""
    found: bool
    revived: NotRequired[bool]


class GetManyResult(TypedDict):
    """``cache.getMany``."""
    entries: dict[str, Entry]


class SetManyResult(TypedDict):
    """``cache.setMany``: ``revisions``, each entry's new revision in the order given."""
    stored: int
    size: int
    revisions: list[int]


class IncrementResult(TypedDict):
    """``cache.increment``: the sum stored, and the entry's new revision."""
    value: int
    revision: int


class OperationResult(TypedDict):
    """What one operation of ``cache.transaction`` answers: a ``set``
    ``{"revision"}``; a ``remove`` ``{"removed"}``, as :class:`RemoveResult`;
    an ``increment`` ``{"value", "revision"}``, as :class:`IncrementResult`;
    a ``get`` what :class:`Entry` holds (``data`` as bytes). One type whose
    members are all ``NotRequired``, so that ``results[i]["value"]`` reads
    without a cast, whichever operation stands there."""
    revision: NotRequired[int]
    removed: NotRequired[bool]
    found: NotRequired[bool]
    value: NotRequired[Any]
    data: NotRequired[bytes]
    expired: NotRequired[bool]
    storedAt: NotRequired[str]
    expiresAt: NotRequired[str]
    tier: NotRequired[Literal["memory", "disk"]]
    type: NotRequired[str]
    version: NotRequired[str]
    form: NotRequired[Literal["array"]]


class TransactionFailure(TypedDict):
    """The first comparison of ``cache.transaction`` that did not hold: its
    ``index`` in ``compare``, its ``key``, and the live entry's ``revision``
    now (``None`` when there is none)."""
    index: int
    key: str
    revision: int | None


class TransactionResult(TypedDict):
    """``cache.transaction``: whether every comparison held, the result of
    each operation of the branch applied, in order, and (only when not)
    the first comparison that did not."""
    succeeded: bool
    results: list[OperationResult]
    failed: NotRequired[TransactionFailure]


class KeysPage(TypedDict):
    """``cache.keys``: ``cursor`` only when another page follows."""
    keys: list[str]
    cursor: NotRequired[str]


class GroupCount(TypedDict):
    group: str
    count: int


class GroupsPage(TypedDict):
    """``cache.groups``: ``cursor`` only when another page follows."""
    groups: list[GroupCount]
    cursor: NotRequired[str]


class ClearResult(TypedDict):
    """``cache.clear``, ``cache.purgeExpired``."""
    removed: int


class ClearedCache(TypedDict):
    cache: str
    removed: int


class StoreClearResult(TypedDict):
    """``store.clear``: every cache that lost entries, in order of name."""
    removed: int
    caches: list[ClearedCache]


# -- lock.* ----------------------------------------------------------------------

class LockAcquireResult(TypedDict):
    """``lock.acquire``: acquired, with ``token`` and ``expiresAt``; or not,
    with ``holderExpiresAt`` and ``heldHere`` (whether this session holds
    the live lease)."""
    acquired: bool
    token: NotRequired[int]
    expiresAt: NotRequired[str]
    holderExpiresAt: NotRequired[str]
    heldHere: NotRequired[bool]


class LockRenewResult(TypedDict):
    """``lock.renew``: the lease's token (unchanged) and its new expiry."""
    token: int
    expiresAt: str


class LockReleaseResult(TypedDict):
    """``lock.release``: whether a live lease was given back."""
    released: bool


class LockInfo(TypedDict):
    """A live lease, as ``lock.list`` gives it."""
    name: str
    token: int
    expiresAt: str
    heldHere: bool


class LockListResult(TypedDict):
    """``lock.list``: the store's live leases, by name in byte order."""
    locks: list[LockInfo]


class TierStats(TypedDict):
    count: int
    bytes: int
    hits: int
    misses: int
    evictions: int


class StatsResult(TypedDict):
    """``cache.stats``: ``storeBudget`` when the server runs with ``--max-store-bytes``."""
    cache: str
    memory: TierStats
    disk: TierStats
    storeBudget: NotRequired[StoreBudget]


class CacheSummary(TypedDict):
    name: str
    config: CacheConfig
    count: int
    bytes: int


class ListResult(TypedDict):
    """``cache.list``."""
    caches: list[CacheSummary]


class DropResult(TypedDict):
    """``cache.drop``."""
    dropped: bool


class RekeyResult(TypedDict):
    """``cache.rekey``: ``resealed``, the entries this call re-sealed;
    ``resumed``, whether it finished a rekey stopped part-way."""
    cache: str
    resealed: int
    resumed: bool


class SubscribeResult(TypedDict):
    """``cache.subscribe``: the cache's name, or ``"*"``."""
    subscribed: str


# -- schema.* ----------------------------------------------------------------------


# The functional form, as "from" is a keyword. One step of a migration:
# ``op`` says which, and which other members it has.
MigrationStep = TypedDict("MigrationStep", {
    "op": str, "from": NotRequired[str], "to": NotRequired[str], "field": NotRequired[str], "value": NotRequired[Any],
})

# A migration to a schema's version ``from`` one version or several.
Migration = TypedDict("Migration", {"from": str | list[str], "steps": list[MigrationStep]})


class SchemaDefinition(TypedDict):
    type: str
    version: str
    fields: dict[str, Any]
    parent: NotRequired[str]
    extensions: NotRequired[dict[str, dict[str, Any]]]
    migrations: NotRequired[list[Migration]]


class RegisterResult(TypedDict):
    """``schema.register``."""
    type: str
    version: str
    created: bool


class SchemaResult(TypedDict):
    """``schema.get``."""
    schema: SchemaDefinition
    versions: list[str]


class SchemaSummary(TypedDict):
    type: str
    versions: list[str]
    newest: str
    parent: NotRequired[str]


class SchemaListResult(TypedDict):
    """``schema.list``."""
    types: list[SchemaSummary]


class SchemaRemoveResult(TypedDict):
    """``schema.remove``: how many versions went."""
    removed: int


class ExtendResult(TypedDict):
    """``schema.extend``."""
    schema: SchemaDefinition


# -- object.* ----------------------------------------------------------------------


class PutResult(TypedDict):
    """``object.put``: ``form`` (``"array"``) and ``count`` when ``values`` was given."""
    stored: bool
    type: str
    version: str
    revision: int
    form: NotRequired[Literal["array"]]
    count: NotRequired[int]


class ObjectRead(TypedDict):
    """``object.get``: only ``found`` when there is no object; ``dropped``
    (with ``type`` and ``migratedFrom``) when a migration callback dropped it;
    ``form: "array"`` with ``values`` (and ``droppedElements``, the indices a
    callback dropped) for an array of objects, ``value`` for one object."""
    found: bool
    type: NotRequired[str]
    version: NotRequired[str]
    value: NotRequired[Any]
    form: NotRequired[Literal["array"]]
    values: NotRequired[list[Any]]
    migratedFrom: NotRequired[str]
    revision: NotRequired[int]
    dropped: NotRequired[bool]
    droppedElements: NotRequired[list[int]]


class DescribeResult(TypedDict):
    """``object.describe``: ``{"*Type": {...}}``, or a list of them for an array of objects."""
    description: dict[str, Any] | list[dict[str, Any]]


class EqualsResult(TypedDict):
    """``object.equals``."""
    equal: bool


class HashResult(TypedDict):
    """``object.hash``."""
    hash: str
    algorithm: str


class CopyResult(TypedDict):
    """``object.copy``: ``form`` (``"array"``) and ``count`` for an array of objects."""
    copied: bool
    type: str
    version: str
    form: NotRequired[Literal["array"]]
    count: NotRequired[int]


# -- migrate.* ---------------------------------------------------------------------


class ResponseError(TypedDict):
    """A JSON-RPC error object, as a result or a server request carries it."""
    code: int
    message: str
    data: NotRequired[Any]


class MigrationFailure(TypedDict):
    key: str
    error: ResponseError
    group: NotRequired[str]
    cache: NotRequired[str]
    type: NotRequired[str]
    fromVersion: NotRequired[str]
    index: NotRequired[int]


class MigrationCounts(TypedDict):
    """``migrate.run``."""
    examined: int
    migrated: int
    upToDate: int
    failed: int
    dropped: int
    failures: list[MigrationFailure]


# -- entity.* ----------------------------------------------------------------------


class DefineResult(TypedDict):
    """``entity.define``."""
    model: str
    created: bool
    newEntities: list[str]
    added: list[str]


class RelationshipDefinition(TypedDict):
    name: str
    destination: str
    toMany: NotRequired[bool]
    inverse: NotRequired[str]
    deleteRule: NotRequired[Literal["nullify", "cascade", "deny"]]


class OptionalAttribute(TypedDict):
    optional: str


class EntityDefinition(TypedDict):
    """An entity: ``attributes`` maps each to its type, or ``{"optional": type}``."""
    name: str
    attributes: dict[str, str | OptionalAttribute]
    identifier: NotRequired[str]
    relationships: NotRequired[list[RelationshipDefinition]]


class ModelDefinition(TypedDict):
    """A model as stored."""
    model: str
    casing: Literal["camelCase", "snake_case"]
    dateFormat: Literal["iso8601", "iso8601Basic", "epochSeconds"]
    reservedWords: list[str]
    entities: list[EntityDefinition]
    encrypted: NotRequired[Literal[False]]


class ModelsResult(TypedDict):
    """``entity.models``: each model as stored."""
    models: list[ModelDefinition]


class StageResult(TypedDict):
    """``entity.stage``."""
    staged: int
    pending: int


class ApplyResult(TypedDict):
    """``entity.apply``, ``entity.upsert``."""
    inserted: int
    updated: int
    linked: int
    unresolved: int


class DiscardResult(TypedDict):
    """``entity.discard``."""
    discarded: int


class DeleteResult(TypedDict):
    """``entity.delete``."""
    deleted: int
    nullified: int


class EntityGetResult(TypedDict):
    """``entity.get``: ``record`` when ``found``."""
    found: bool
    record: NotRequired[dict[str, Any]]


class EntityManyResult(TypedDict):
    """``entity.getMany``."""
    records: list[dict[str, Any]]
    missing: list[Any]


class QueryPage(TypedDict):
    """``entity.query``: ``nextOffset`` only when more records follow."""
    records: list[dict[str, Any]]
    nextOffset: NotRequired[int]


# -- initialize ------------------------------------------------------------------


class ServerInfo(TypedDict):
    name: Literal["larder"]
    version: str


class MessageLimits(TypedDict):
    maxMessageBytes: int
    maxDepth: int


class Capabilities(TypedDict):
    methods: list[str]
    framing: list[Literal["lines", "content-length"]]
    limits: MessageLimits


class StoreInfo(TypedDict):
    """The store: ``path`` null for a memory-only one; ``maxBytes`` with
    ``--max-store-bytes``; ``coherence`` for a store on PostgreSQL."""
    path: str | None
    persistent: bool
    maxBytes: NotRequired[int]
    coherence: NotRequired[Literal["strict", "notify", "poll"]]


class InitializeResult(TypedDict):
    """``initialize``: ``appVersion`` when one was given, ``previousAppVersion``
    when the store last served another."""
    serverInfo: ServerInfo
    protocolVersion: str
    capabilities: Capabilities
    store: StoreInfo
    appVersion: NotRequired[str]
    previousAppVersion: NotRequired[str]


# -- from the server: what on_event and on_request handlers are given --------------


class EvictedEvent(TypedDict):
    """``cache.evicted``; with a subscription made ``with_values``, the entry's
    ``value`` (and for an object ``type``, ``version``, ``form``) or ``data``
    (base64, as sent)."""
    cache: str
    group: str
    key: str
    tier: Literal["memory", "disk"]
    reason: Literal["capacity", "expired", "storeBudget"]
    value: NotRequired[Any]
    data: NotRequired[str]
    type: NotRequired[str]
    version: NotRequired[str]
    form: NotRequired[Literal["array"]]


class RemovedEvent(TypedDict):
    """``cache.removed``, with the entry as :class:`EvictedEvent` has it."""
    cache: str
    group: str
    key: str
    tier: Literal["all"]
    reason: Literal["removed"]
    value: NotRequired[Any]
    data: NotRequired[str]
    type: NotRequired[str]
    version: NotRequired[str]
    form: NotRequired[Literal["array"]]


# The functional form, as "from" is a keyword. ``cache.cleared``: ``group``
# absent when every group went; ``kind`` when store.clear took only objects
# or only plain entries; ``reason``, ``from`` and ``to`` when an app of
# another version first used the cache.
ClearedEvent = TypedDict("ClearedEvent", {
    "cache": str, "group": NotRequired[str], "tier": Literal["memory", "disk", "all"],
    "kind": NotRequired[Literal["objects", "caches"]], "reason": NotRequired[Literal["appVersion"]],
    "from": NotRequired[str], "to": NotRequired[str],
})


class ProgressValue(TypedDict):
    """A ``$/progress`` value: ``kind`` ``"begin"`` (with ``title``),
    ``"report"`` or ``"end"``."""
    kind: Literal["begin", "report", "end"]
    title: NotRequired[str]
    cancellable: NotRequired[bool]
    percentage: NotRequired[int]
    message: NotRequired[str]


class ProgressParams(TypedDict):
    """``$/progress``: the request's ``workDoneToken`` and its progress."""
    token: str | float
    value: ProgressValue


class CancelParams(TypedDict):
    """``$/cancelRequest`` from the server: the id of its request given up."""
    id: str


class MigrateObjectParams(TypedDict):
    """``migrate.object``: ``index`` only for an element of an array of objects."""
    type: str
    key: str
    cache: str
    group: str
    fromVersion: str
    toVersion: str
    value: dict[str, Any]
    index: NotRequired[int]


class FetchParams(TypedDict):
    """``cache.fetch``: ``attempt`` counts from 1."""
    cache: str
    group: str
    key: str
    attempt: int


class FallbackParams(TypedDict):
    """``cache.fallback``: the last attempt's error."""
    cache: str
    group: str
    key: str
    error: ResponseError
