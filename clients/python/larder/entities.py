"""The ``entity.*`` methods (``db.entity``, and the same on a pipeline):
JSONCache-style models of entities, attributes and relationships, kept as
real tables and filled from the JSON a backend sends.

As elsewhere, parameters are snake_case keywords (``on_missing`` →
``onMissing``, ``order_by`` → ``orderBy``, ``date_format`` → ``dateFormat``),
``None`` means "leave it out" so the server's default applies, and results
are the protocol's plain dicts. Entity definitions, records and ``where``
clauses are sent exactly as given: their keys are never renamed here — the
server converts record keys with the model's ``casing`` (so a
``snake_case`` model takes and returns ``{"other_names": ...}``).

A model::

    db.entity.define("Bands", [
        {"name": "Band", "identifier": "name",
         "attributes": {"name": "string", "formed": "integer", "otherNames": "string?"},
         "relationships": [{"name": "albums", "destination": "Album", "toMany": True,
                            "inverse": "band", "deleteRule": "cascade"}]},
        {"name": "Album", "identifier": "name",
         "attributes": {"name": "string", "released": "date"},
         "relationships": [{"name": "band", "destination": "Band", "inverse": "albums"}]},
    ], casing="snake_case", date_format="iso8601")

Attribute types are ``"string"``, ``"integer"``, ``"number"``, ``"bool"``,
``"date"``, ``"data"`` (base64), ``"json"``, or one of them optional
(``"string?"``). Names in a model are camelCase; ``identifier`` (default
``"id"``) names a required string or integer attribute. A relationship is
``{"name", "destination", "toMany"?, "inverse"?, "deleteRule"?: "nullify" |
"cascade" | "deny"}``; a to-one relationship holds the destination's
identifier, a to-many one is the inverse of a to-one relationship and stores
nothing.

Writing: :meth:`EntityMethods.stage` records (any entities, in any order,
over several calls), then :meth:`EntityMethods.apply` them in one
transaction; or :meth:`EntityMethods.upsert` one batch at once. Records are
merged into stored ones: keys a record leaves out keep their stored value,
an explicit ``None`` clears an optional attribute or unlinks a relationship.
Both sides of a relationship with an inverse are kept in step, as Core Data
keeps them: setting one side of a one-to-one sets the other (and clears both
old partners), and a to-many key given as a list of identifiers is the whole
relationship, linking each record listed and unlinking those left out. Within
one batch a later record wins.

Converting without storing: :meth:`~EntityMethods.render` turns a record
written with the model's own names (``bandDescription``) and RFC 3339 dates
into the backend's JSON, whole, as :meth:`~EntityMethods.get` would return it
once stored (JSONCache's ``toJSONDictionary``); :meth:`~EntityMethods.parse`
does the reverse.

Reading: :meth:`~EntityMethods.get`, :meth:`~EntityMethods.get_many`,
:meth:`~EntityMethods.query` (and :meth:`~EntityMethods.iter_query`),
:meth:`~EntityMethods.count`. ``where`` maps JSON keys to a value (equality)
or to ``{operator: operand}`` with operators ``eq``, ``ne``, ``gt``, ``gte``,
``lt``, ``lte``, ``in`` (a list), ``like`` (``%`` and ``_``) and ``isNull``
(``True``/``False``), all combined with AND; dates are written in the model's
format and to-one relationships as the destination's identifier.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, Callable, TypeVar, cast

from ._params import camel_params
from .methods import Call, Methods, method, pages
from .results import (ApplyResult, DefineResult, DeleteResult, DiscardResult, EntityGetResult, EntityManyResult,
                      ModelsResult, QueryPage, StageResult)

K = TypeVar("K")

__all__ = ["EntityMethods"]


def _records(records: Iterable[Mapping[str, Any]]) -> list[Any]:
    """The records as a list, each sent as given."""
    if isinstance(records, (Mapping, str, bytes)):
        raise TypeError("records is a list of records (dicts); pass [record] for one")
    return [dict(r) if isinstance(r, Mapping) and not isinstance(r, dict) else r for r in records]


def _ids(ids: Iterable[Any]) -> list[Any]:
    if isinstance(ids, (Mapping, str, bytes)):
        raise TypeError("ids is a list of identifiers; pass [id] for one")
    return list(ids)


def _paths(include: str | Iterable[str] | None) -> list[str] | None:
    """``include`` as a list of relationship paths; a single path may be given as a str."""
    if include is None:
        return None
    if isinstance(include, str):
        return [include]
    return list(include)


def _order(order_by: str | Iterable[str] | None) -> str | list[str] | None:
    if order_by is None or isinstance(order_by, str):
        return order_by
    return list(order_by)


def _count(result: Any) -> int:
    return int(result["count"])


def _record(result: Any) -> dict[str, Any]:
    return cast(dict[str, Any], result["record"])


def _one_record(record: Mapping[str, Any], name: str) -> dict[str, Any]:
    """One record, sent as given."""
    if not isinstance(record, Mapping):
        raise TypeError(f"{name} is one record (a mapping), not {type(record).__name__}")
    return dict(record)


def _where(where: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if where is None:
        return None
    if not isinstance(where, Mapping):
        raise TypeError(f"where must be a mapping of keys to values or operators, not {type(where).__name__}")
    return dict(where)


class EntityMethods(Methods[K]):
    """The ``entity.*`` methods. On a client each call returns its result; on
    a pipeline, a :class:`~larder.connection.Reply` of it (and
    :meth:`iter_query`, which needs the answers, is not available); on an
    asyncio client, an awaitable (see :mod:`larder.methods`)."""

    def __init__(self, request: Callable[..., Any], *, pipelined: bool = False, asynchronous: bool = False) -> None:
        super().__init__(request)
        self._pipelined = pipelined
        self._asynchronous = asynchronous

    # -- models -------------------------------------------------------------

    @method
    def define(
        self,
        model: str | Mapping[str, Any],
        entities: Iterable[Mapping[str, Any]] | None = None,
        *,
        casing: str | None = None,
        date_format: str | None = None,
        reserved_words: Iterable[str] | None = None,
        encrypted: bool | None = None,
    ) -> Call[DefineResult]:
        """``entity.define``: creates a model's tables, or redefines it in place.

        ``model`` is the model's name and ``entities`` its entity definitions
        (see the module docstring); ``model`` may instead be a whole
        definition ``{"model", "entities", "casing"?, ...}``, such as one
        :meth:`models` lists. ``casing`` is ``"camelCase"`` (the default) or
        ``"snake_case"`` for the JSON keys of records; ``date_format`` is
        ``"iso8601"`` (the default), ``"iso8601Basic"`` or
        ``"epochSeconds"``; ``reserved_words`` (default ``["description"]``)
        are JSON keys held under the entity-qualified name
        (``description`` ⇄ ``bandDescription``). Entities are not encrypted:
        ``encrypted=True`` is refused with :class:`~larder.InvalidParams`
        saying why (their queries read their columns in the database); keep
        sensitive values in an encrypted cache.

        Returns ``{"model", "created": bool, "newEntities": [...], "added":
        ["Entity.member", ...]}``. Defining the same model again changes
        nothing; adding entities, optional attributes or relationships alters
        the tables in place. Any other change raises
        :class:`~larder.ModelConflict` (``data = {"model", "changes"}``); a
        malformed definition raises :class:`~larder.InvalidParams`.
        """
        if isinstance(model, Mapping):
            if entities is not None:
                raise TypeError("give a model name and entities, or one definition mapping, not both")
            params = dict(model)
            params.update(camel_params(casing=casing, date_format=date_format,
                                       reserved_words=None if reserved_words is None else list(reserved_words),
                                       encrypted=encrypted))
            return self._request("entity.define", params, None)
        if entities is None:
            raise TypeError("define() needs the model's entities")
        params = {"model": model, "entities": _records(entities)}
        params.update(camel_params(casing=casing, date_format=date_format,
                                   reserved_words=None if reserved_words is None else list(reserved_words),
                                   encrypted=encrypted))
        return self._request("entity.define", params, None)

    @method
    def models(self) -> Call[ModelsResult]:
        """``entity.models``: ``{"models": [{"model", "casing", "dateFormat",
        "reservedWords", "entities"}]}``, every model as stored (defaults
        filled in, optional types written ``{"optional": T}``), sorted by name."""
        return self._request("entity.models", {}, None)

    # -- writing ------------------------------------------------------------

    @method
    def stage(self, entity: str, records: Iterable[Mapping[str, Any]]) -> Call[StageResult]:
        """``entity.stage``: checks ``records`` of ``entity`` and adds them to
        the batch the server keeps until :meth:`apply` or :meth:`discard`.
        Nothing is written yet; references may name records staged later.
        A record staged twice (same identifier) is merged.

        Returns ``{"staged": len(records), "pending": distinct records in the
        batch}``. A bad record (wrong type, unknown key, missing identifier,
        a date not in the model's format) raises
        :class:`~larder.InvalidParams` naming it, and stages nothing of this
        call; an unknown entity raises :class:`~larder.EntityNotFound`.
        """
        return self._request("entity.stage", {"entity": entity, "records": _records(records)}, None)

    @method
    def apply(self, *, on_missing: str | None = None) -> Call[ApplyResult]:
        """``entity.apply``: writes everything staged in one transaction.

        Returns ``{"inserted", "updated", "linked", "unresolved"}`` and empties
        the batch. A reference to a record that exists neither in the batch
        nor in the store raises :class:`~larder.UnresolvedReferences`
        (``data = {"missing": {entity: [ids]}, "references": [...], "count"}``):
        nothing is written and the batch stays, so the missing records can be
        staged and the apply tried again. ``on_missing="null"`` clears such
        references instead (counted as ``unresolved``); ``"fail"`` is the
        default. A new record without every required attribute raises
        :class:`~larder.IncompleteRecord`.
        """
        return self._request("entity.apply", camel_params(on_missing=on_missing), None)

    @method
    def discard(self) -> Call[DiscardResult]:
        """``entity.discard``: drops the staged batch. ``{"discarded": n}``."""
        return self._request("entity.discard", {}, None)

    @method
    def upsert(self, entity: str, records: Iterable[Mapping[str, Any]], *,
               on_missing: str | None = None) -> Call[ApplyResult]:
        """``entity.upsert``: stages ``records`` in a batch of their own and
        applies it at once (the staged batch is left alone). Same result and
        errors as :meth:`apply`."""
        params = {"entity": entity, "records": _records(records)}
        params.update(camel_params(on_missing=on_missing))
        return self._request("entity.upsert", params, None)

    @method
    def delete(self, entity: str, id: Any) -> Call[DeleteResult]:
        """``entity.delete``: deletes the record with identifier ``id``,
        applying each relationship's delete rule — ``nullify`` clears the
        references to it, ``cascade`` deletes the related records too,
        ``deny`` refuses with :class:`~larder.DeleteDenied` (``data =
        {"entity", "id", "relationship", "related"}``) — all or nothing.
        ``{"deleted", "nullified"}`` (``deleted`` is 0 when there was no such
        record)."""
        return self._request("entity.delete", {"entity": entity, "id": id}, None)

    # -- reading ------------------------------------------------------------

    @method
    def get(self, entity: str, id: Any, *, include: str | Iterable[str] | None = None) -> Call[EntityGetResult]:
        """``entity.get``: ``{"found": False}`` or ``{"found": True, "record":
        {...}}``, the record in its model's casing and date format. To-one
        relationships are the destination's identifier and to-many ones the
        identifiers of the related records, unless ``include`` names them
        (``["albums", "members.musician"]``): those are nested records."""
        return self._request("entity.get", camel_params(entity=entity, id=id, include=_paths(include)), None)

    @method
    def get_many(self, entity: str, ids: Iterable[Any], *,
                 include: str | Iterable[str] | None = None) -> Call[EntityManyResult]:
        """``entity.getMany``: ``{"records": [...], "missing": [ids]}``, the
        records found in the order asked and the identifiers without one."""
        params = camel_params(entity=entity, ids=_ids(ids), include=_paths(include))
        return self._request("entity.getMany", params, None)

    @method
    def query(
        self,
        entity: str,
        *,
        where: Mapping[str, Any] | None = None,
        order_by: str | Iterable[str] | None = None,
        limit: int | None = None,
        offset: int | None = None,
        include: str | Iterable[str] | None = None,
    ) -> Call[QueryPage]:
        """``entity.query``: one page of the records matching every condition
        in ``where`` (see the module docstring).

        ``order_by`` is a key or a list of keys, ``"-key"`` for descending
        (the identifier breaks ties); ``limit`` is 1 to 100000 (server
        default 1000), ``offset`` where the page starts. Returns
        ``{"records": [...], "nextOffset"?}``; ``nextOffset`` is present when
        more records follow. See :meth:`iter_query` to go through them all.
        """
        params = camel_params(entity=entity, where=_where(where), order_by=_order(order_by), limit=limit,
                              offset=offset, include=_paths(include))
        return self._request("entity.query", params, None)

    @pages
    def iter_query(
        self,
        entity: str,
        *,
        where: Mapping[str, Any] | None = None,
        order_by: str | Iterable[str] | None = None,
        page_size: int | None = None,
        offset: int | None = None,
        include: str | Iterable[str] | None = None,
    ) -> Iterator[dict[str, Any]] | AsyncIterator[dict[str, Any]]:
        """Every record :meth:`query` matches, one ``entity.query`` per page
        of ``page_size`` (server default 1000), following ``nextOffset``.

        Pages are taken by offset: records written or deleted between pages
        may be skipped or seen twice (order by something stable and avoid
        writing while iterating when that matters). Only on a client, not on
        a pipeline; on :class:`~larder.aio.AsyncLarder` it is an async
        iterator (``async for record in db.entity.iter_query(...)``).
        """
        if self._pipelined:
            raise TypeError("iter_query needs each page's answer: call it on the client, not on a pipeline")
        where = _where(where)
        order_by = _order(order_by)
        include = _paths(include)
        # A client's query (for pages) or an asyncio client's (for async_pages).
        query = cast(Any, self).query

        def pages() -> Iterator[Any]:
            at = offset
            while True:
                page = query(entity, where=where, order_by=order_by, limit=page_size, offset=at, include=include)
                yield from page["records"]
                at = page.get("nextOffset")
                if at is None:
                    return

        async def async_pages() -> AsyncIterator[Any]:
            at = offset
            while True:
                page = await query(entity, where=where, order_by=order_by, limit=page_size, offset=at,
                                   include=include)
                for record in page["records"]:
                    yield record
                at = page.get("nextOffset")
                if at is None:
                    return

        return async_pages() if self._asynchronous else pages()

    # -- converting ---------------------------------------------------------

    @method
    def render(self, entity: str, record: Mapping[str, Any]) -> Call[dict[str, Any]]:
        """``entity.render``: ``record``, written with the model's attribute
        and relationship names (``{"bandDescription": ..., "otherNames":
        ...}``) and dates as RFC 3339 strings, returned as the backend's JSON:
        keys in the model's casing and reserved words, dates in its format,
        every member present — exactly what :meth:`get` would return once the
        record is stored. Nothing is stored or read but the model.

        A relationship may hold identifiers or nested records (nested
        records come back nested, a to-many list in identifier order); a
        record nested in a to-many relationship may leave out its link back.
        A record lacking a required attribute, or anything :meth:`stage`
        refuses, raises :class:`~larder.InvalidParams` naming it
        (``record.released``); an unknown entity raises
        :class:`~larder.EntityNotFound`. Returns the record itself.
        """
        return self._request("entity.render", {"entity": entity, "record": _one_record(record, "record")}, _record)

    @method
    def parse(self, entity: str, json: Mapping[str, Any]) -> Call[dict[str, Any]]:
        """``entity.parse``: the reverse of :meth:`render`. ``json``, a record
        as the backend sends it (or :meth:`get` returns it, nested records
        included), is checked as :meth:`stage` checks it — the same errors,
        named under ``json`` — and returned with the model's names and RFC
        3339 dates, with only the members it has. Nothing is stored. Returns
        the record itself.
        """
        return self._request("entity.parse", {"entity": entity, "json": _one_record(json, "json")}, _record)

    @method
    def count(self, entity: str, *, where: Mapping[str, Any] | None = None) -> Call[int]:
        """``entity.count``: how many records match ``where`` (all of them
        without), as an ``int``."""
        return self._request("entity.count", camel_params(entity=entity, where=_where(where)), _count)
