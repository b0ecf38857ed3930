"""The ``schema.*``, ``object.*`` and ``migrate.*`` methods (``db.schema``,
``db.object``, ``db.migrate``, and the same on a pipeline), and :data:`DROP`.

As with ``db.cache``, parameters are snake_case keywords (``to_key`` →
``toKey``, ``dry_run`` → ``dryRun``), ``None`` means "leave it out" so the
server's default applies, and results are the protocol's plain dicts. What
you pass as data — field definitions, migration steps, object values — is
sent exactly as given (its keys are never renamed).

Schemas: a type's ``fields`` map names to types: ``"string"``, ``"integer"``,
``"number"``, ``"bool"``, ``"date"``, ``"data"``, ``"json"``, ``"T?"`` (may be
absent), ``{"array": T}``, ``{"map": T}``, ``{"ref": "OtherType"}``,
``{"optional": T}``, or ``{"type": T, "default": value}``. A version's
``migrations`` is a list of ``{"from": "1.0.0" | ["1.0.0", ...], "steps":
[...]}`` with steps ``{"op": "rename", "from", "to"}``, ``{"op": "remove",
"field"}``, ``{"op": "set" | "default", "field", "value"}``, ``{"op":
"convert", "field", "to": "string" | "number" | "integer" | "bool" | "date" |
"epochSeconds" | "epochMillis", "from"?}``, ``{"op": "move", "from", "to"}``
(dotted paths reach into nested objects) and ``{"op": "callback"}``, which
asks the client (see :meth:`larder.Larder.on_migrate`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Callable, TypeVar

from ._params import MISSING, camel_params
from .methods import Call, Methods, method
from .results import (CopyResult, DescribeResult, EqualsResult, ExtendResult, HashResult, MigrationCounts,
                      ObjectRead, PutResult, RegisterResult, SchemaListResult, SchemaRemoveResult, SchemaResult)

K = TypeVar("K")

__all__ = ["SchemaMethods", "ObjectMethods", "MigrateMethods", "DROP", "migrate_answer"]


class _Drop:
    def __repr__(self) -> str:
        return "larder.DROP"

    def __reduce__(self) -> str:
        return "DROP"


#: Returned by an :meth:`~larder.Larder.on_migrate` handler: delete the object
#: instead of migrating it (answered as ``{"drop": true}``).
DROP: Any = _Drop()


def migrate_answer(result: Any) -> dict[str, Any]:
    """The ``migrate.object`` answer for what a handler returned:
    ``{"drop": True}`` for :data:`DROP`, else ``{"value": result}``."""
    if result is DROP:
        return {"drop": True}
    return {"value": result}



def _operand(obj: Any, name: str) -> Any:
    """An ``object.equals`` side: a key string, or a mapping such as
    ``{"type", "value"}``, ``{"type", "values"}`` or ``{"key", "cache"?,
    "group"?}`` sent as given."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, Mapping):
        return dict(obj)
    raise TypeError(f"{name} must be a key (str) or a mapping such as {{'type': ..., 'value': ...}}, "
                    f"not {type(obj).__name__}")


def _values(values: Iterable[Any] | None) -> list[Any] | None:
    """``values`` as the list sent: any iterable but a string or a mapping."""
    if values is None:
        return None
    if isinstance(values, (str, bytes, Mapping)):
        raise TypeError(f"values must be a list of objects, not {type(values).__name__}")
    return list(values)


def _subject(key: Any, type_name: str | None, value: Any, values: Iterable[Any] | None, cache: str | None,
             group: str | None) -> dict[str, Any]:
    """Params naming one object: a stored ``key`` (in ``cache``/``group``), or
    an inline ``type`` and ``value`` (or ``values``, an array of objects);
    ``key`` may also be such a mapping."""
    params: dict[str, Any] = {}
    if isinstance(key, Mapping):
        params.update(key)
        key = None
    if key is not None:
        if not isinstance(key, str):
            raise TypeError(f"key must be a str or a mapping, not {type(key).__name__}")
        params["key"] = key
    if type_name is not None:
        params["type"] = type_name
    if value is not MISSING:
        params["value"] = value
    listed = _values(values)
    if listed is not None:
        params["values"] = listed
    if "value" in params and "values" in params:
        raise TypeError("give value or values, not both")
    inline = "value" in params or "values" in params
    if "key" in params and ("type" in params or inline):
        raise TypeError("give key, or type and value (or values), not both")
    if "key" not in params and ("type" not in params or not inline):
        raise TypeError("give key (a stored object), or type and value (an object not stored) or values (an array)")
    params.update(camel_params(cache=cache, group=group))
    return params


class SchemaMethods(Methods[K]):
    """The ``schema.*`` methods: versioned object types. On a client each
    call returns its result; on a pipeline, a reply of it; on an asyncio
    client, an awaitable (see :mod:`larder.methods`)."""

    @method
    def register(
        self,
        type: str,
        version: str,
        fields: Mapping[str, Any],
        *,
        parent: str | None = None,
        extensions: Mapping[str, Mapping[str, Any]] | None = None,
        migrations: list[Mapping[str, Any]] | None = None,
    ) -> Call[RegisterResult]:
        """``schema.register``: keeps one version of a type.

        ``version`` is dotted numbers (``"1.0.2"``; ``"1.0"`` equals
        ``"1.0.0"``). ``fields`` maps field names to types (see the module
        docstring); ``parent`` names a type whose fields objects also have;
        ``extensions`` maps category names to more (optional) fields;
        ``migrations`` lead older versions into this one (an older version
        that only lacks optional fields needs none).

        Returns ``{"type", "version", "created": bool}`` (``created`` is
        ``False`` when the same definition was registered before). Raises
        :class:`~larder.SchemaConflict` when this version is registered with
        another definition, :class:`~larder.InvalidParams` for a malformed one.
        """
        params: dict[str, Any] = {"type": type, "version": version, "fields": dict(fields)}
        if parent is not None:
            params["parent"] = parent
        if extensions is not None:
            params["extensions"] = {k: dict(v) for k, v in extensions.items()}
        if migrations is not None:
            params["migrations"] = [dict(m) for m in migrations]
        return self._request("schema.register", params, None)

    @method
    def get(self, type: str, *, version: str | None = None) -> Call[SchemaResult]:
        """``schema.get``: ``{"schema": {"type", "version", "fields",
        "parent"?, "extensions"?, "migrations"?}, "versions": [oldest, ...,
        newest]}`` for the newest version, or for ``version``.
        :class:`~larder.SchemaNotFound` for an unknown type."""
        return self._request("schema.get", camel_params(type=type, version=version), None)

    @method
    def list(self) -> Call[SchemaListResult]:
        """``schema.list``: ``{"types": [{"type", "versions", "newest",
        "parent"?}]}``, sorted by type."""
        return self._request("schema.list", {}, None)

    @method
    def remove(self, type: str) -> Call[SchemaRemoveResult]:
        """``schema.remove``: deletes every version of a type; its stored
        objects stay readable as plain maps. ``{"removed": versions}``;
        :class:`~larder.SchemaNotFound` for an unknown type."""
        return self._request("schema.remove", {"type": type}, None)

    @method
    def extend(self, type: str, category: str | None, fields: Mapping[str, Any]) -> Call[ExtendResult]:
        """``schema.extend``: adds a category's fields (always optional) to
        the newest version of a type, without a new version; ``category``
        None (or ``""``) is the unnamed category, as HMCache's
        ``registerPropertyName:`` without a category name, whose fields
        descriptions label by their names alone. ``{"schema": <the extended
        definition>}``."""
        params: dict[str, Any] = {"type": type, "fields": dict(fields)}
        if category is not None:
            params["category"] = category
        return self._request("schema.extend", params, None)


class ObjectMethods(Methods[K]):
    """The ``object.*`` methods: values checked against a registered type,
    stored tagged with its version and migrated to the newest version when
    read. Common keywords: ``cache`` and ``group``, as for ``db.cache``."""

    @method
    def put(
        self,
        key: str,
        type: str,
        value: Any = MISSING,
        *,
        values: Iterable[Any] | None = None,
        ttl: float | None = None,
        cache: str | None = None,
        group: str | None = None,
        version: str | None = None,
        if_revision: int | None = None,
        if_absent: bool | None = None,
    ) -> Call[PutResult]:
        """``object.put``: validates ``value`` against the newest version of
        ``type`` (or against ``version``, an older registered version such as
        ``"1"``, to write an object of that version on purpose, as a writer
        that only knows that version would) and stores it under
        ``key`` tagged with that version (``ttl`` in seconds, as for
        ``cache.set``). ``{"stored": True, "type", "version", "revision"}``,
        ``revision`` being the entry's new revision (not the object's
        version); ``if_revision`` and ``if_absent`` make the write
        conditional, as for ``cache.set``.

        ``values=[...]`` instead of ``value`` stores an array of objects of
        ``type`` under the one key (HMCache's ``+cacheArray:forKey:``), each
        validated; the result adds ``"form": "array"`` and ``"count"``.

        Raises :class:`~larder.InvalidObject` (``data = {"path", "reason"}``,
        e.g. ``value.barObject.date`` or ``values[2].date``) for a value that
        does not fit, and :class:`~larder.SchemaNotFound` for an unknown type.
        """
        params = camel_params(key=key, type=type, ttl=ttl, cache=cache, group=group, version=version,
                              if_revision=if_revision, if_absent=if_absent)
        listed = _values(values)
        if value is not MISSING and listed is not None:
            raise TypeError("give value or values, not both")
        if listed is not None:
            params["values"] = listed
        elif value is not MISSING:
            params["value"] = value
        else:
            raise TypeError("give value (an object) or values (a list of objects)")
        return self._request("object.put", params, None)

    @method
    def get(self, key: str, *, type: str | None = None, cache: str | None = None,
            group: str | None = None) -> Call[ObjectRead]:
        """``object.get``: the object at the newest version of its type.

        Returns ``{"found": False}``, or ``{"found": True, "type", "version",
        "value", "migratedFrom"?}``; ``migratedFrom`` is the stored version
        when the object was migrated (and written back) by this read. An
        object dropped by a migration callback gives ``{"found": False,
        "dropped": True, "type", "migratedFrom"}``. An array of objects
        (``put(..., values=...)``) gives ``{"found": True, "form": "array",
        "type", "version", "values", "migratedFrom"?, "droppedElements"?}``,
        each element migrated; when one fails the error's ``data`` has its
        ``index`` and nothing is written.

        ``type`` checks the object's type (:class:`~larder.RequestFailed` if
        it differs). Raises :class:`~larder.NotAnObject` for an entry stored
        with ``cache.set``, :class:`~larder.MigrationMissing` when no
        migration leads to the newest version, :class:`~larder.MigrationFailed`
        when one fails (the stored object is left as it was).
        """
        return self._request("object.get", camel_params(key=key, type=type, cache=cache, group=group), None)

    @method
    def describe(
        self,
        key: str | Mapping[str, Any] | None = None,
        *,
        type: str | None = None,
        value: Any = MISSING,
        values: Iterable[Any] | None = None,
        cache: str | None = None,
        group: str | None = None,
    ) -> Call[DescribeResult]:
        """``object.describe``: HMCache's description of a stored object
        (``key``) or of a value (``type=``, ``value=``): ``{"description":
        {"*Type": {field: value, "(Category)field": value, "**Parent":
        {...}}}}``, every field of the type there (``None`` when absent),
        nested objects described the same way. An array of objects (stored,
        or ``values=``) is described as a list of such descriptions."""
        return self._request("object.describe", _subject(key, type, value, values, cache, group), None)

    @method
    def equals(self, a: str | Mapping[str, Any], b: str | Mapping[str, Any], *,
               cache: str | None = None, group: str | None = None) -> Call[EqualsResult]:
        """``object.equals``: ``{"equal": bool}`` — the same type and the same
        value (member order and number spelling aside).

        ``a`` and ``b`` are each a key (in ``cache``/``group``), ``{"type",
        "value"}``, ``{"type", "values"}`` (an array of objects), or
        ``{"key", "cache"?, "group"?}``. Stored objects are migrated first.
        An array is never equal to a single object. A missing key raises
        :class:`~larder.RequestFailed`.
        """
        params = camel_params(cache=cache, group=group)
        params["a"] = _operand(a, "a")
        params["b"] = _operand(b, "b")
        return self._request("object.equals", params, None)

    @method
    def hash(
        self,
        key: str | Mapping[str, Any] | None = None,
        *,
        type: str | None = None,
        value: Any = MISSING,
        values: Iterable[Any] | None = None,
        cache: str | None = None,
        group: str | None = None,
    ) -> Call[HashResult]:
        """``object.hash``: ``{"hash": 16 hex digits, "algorithm":
        "fnv1a64-canonical-json"}`` of a stored object (``key``) or a value
        (``type=``, ``value=`` or ``values=``); equal objects hash alike, in
        every process."""
        return self._request("object.hash", _subject(key, type, value, values, cache, group), None)

    @method
    def copy(
        self,
        key: str,
        to_key: str,
        *,
        to_cache: str | None = None,
        to_group: str | None = None,
        cache: str | None = None,
        group: str | None = None,
    ) -> Call[CopyResult]:
        """``object.copy``: copies the object under ``key`` (in ``cache`` /
        ``group``) as stored to ``to_key`` (in ``to_cache`` / ``to_group``,
        by default the source's), keeping its lifetime. ``{"copied": True,
        "type", "version"}`` (with ``"form": "array"`` and ``"count"`` for an
        array of objects); :class:`~larder.RequestFailed` when there is no
        object under ``key``."""
        params = camel_params(key=key, to_key=to_key, to_cache=to_cache, to_group=to_group, cache=cache, group=group)
        return self._request("object.copy", params, None)


class MigrateMethods(Methods[K]):
    """The ``migrate.*`` methods."""

    @method
    def run(
        self,
        *,
        type: str | None = None,
        cache: str | None = None,
        dry_run: bool | None = None,
        batch_size: int | None = None,
        on_failure: str | None = None,
        progress: Callable[[Any], Any] | None = None,
        work_done_token: str | int | None = None,
    ) -> Call[MigrationCounts]:
        """``migrate.run``: migrates every stored object that is behind the
        newest version of its type (of one ``type``, in one ``cache``, or
        all), ``batch_size`` objects per transaction (server default 500).

        ``dry_run=True`` migrates without writing anything back.
        ``on_failure="drop"`` deletes objects whose migration fails
        (``"keep"``, the default, leaves them). ``progress`` receives each
        ``$/progress`` value — ``{"kind": "begin", ...}``, ``{"kind":
        "report", "percentage", "message"}`` after each batch, ``{"kind":
        "end", "message"}`` — before the result is returned (a
        ``workDoneToken`` is added for it; ``work_done_token`` chooses it).

        Returns ``{"examined", "migrated", "upToDate", "failed", "dropped",
        "failures": [{"key", "group"?, "cache"?, "type"?, "fromVersion"?,
        "index"?, "error"}]}``; the elements of an array of objects count one
        by one (``index``: the element that failed). Callback steps are answered by the ``on_migrate``
        handler while it runs. Cancelling the request stops it between
        batches (:class:`~larder.RequestCancelled` with the counts as
        ``data``).
        """
        params = camel_params(type=type, cache=cache, dry_run=dry_run, batch_size=batch_size,
                              on_failure=on_failure, work_done_token=work_done_token)
        return self._request("migrate.run", params, None, progress)
