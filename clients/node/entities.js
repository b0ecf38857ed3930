// `db.entity.*`: entity models kept as tables, filled from JSON records.

import { checkOptions, pick } from './options.js';

/** @typedef {import('./client.js').Larder} Larder */

/** `records` (any iterable of records) as an array, each record sent as given. */
function recordList(records, what = 'records') {
  if (records === null || typeof records !== 'object' || typeof records[Symbol.iterator] !== 'function') {
    throw new TypeError(`${what} must be an array (or another iterable); pass [${what === 'ids' ? 'id' : 'record'}] for one`);
  }
  return Array.isArray(records) ? records : [...records];
}

/** `include` as an array of relationship paths; one path may be given as a string. */
function includePaths(include) {
  if (include === undefined || include === null) return undefined;
  return typeof include === 'string' ? [include] : [...include];
}

/** One record, sent as given. */
function oneRecord(record, what) {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new TypeError(`${what} must be one record (an object)`);
  }
  return record;
}

function whereClause(where) {
  if (where === undefined || where === null) return undefined;
  if (typeof where !== 'object' || Array.isArray(where)) {
    throw new TypeError('where must be an object mapping keys to values or to {operator: operand}');
  }
  return where;
}

function orderKeys(orderBy) {
  if (orderBy === undefined || orderBy === null || typeof orderBy === 'string') return orderBy ?? undefined;
  return [...orderBy];
}

const DEFINE_OPTIONS = ['casing', 'dateFormat', 'reservedWords', 'encrypted'];

/**
 * `db.entity.*`: JSONCache-style models of entities, attributes and
 * relationships, kept as real tables and filled from a backend's JSON.
 *
 * Entity definitions, records and `where` clauses are sent exactly as given;
 * their keys are never renamed here: the server converts record keys with
 * the model's `casing` (a `snake_case` model takes and returns
 * `{other_names: ...}`); the server refuses a misspelt member of a
 * definition or a `where` operator with InvalidParams naming it, and an
 * unknown option throws a TypeError, as for `db.cache`. Records merge into
 * stored ones: keys a record leaves out keep their value; an explicit `null`
 * clears an optional attribute or unlinks a relationship.
 *
 * `where` maps JSON keys to a value (equality) or to `{operator: operand}`
 * with `eq`, `ne`, `gt`, `gte`, `lt`, `lte`, `in` (an array), `like` (`%`,
 * `_`) and `isNull` (true/false), combined with AND; dates are written in the
 * model's format and to-one relationships as the destination's identifier.
 */
export class EntityMethods {
  #db;

  /** @param {Larder} db */
  constructor(db) {
    this.#db = db;
  }

  /**
   * `entity.define`: creates a model's tables, or redefines it in place.
   * `define(model, entities, {casing, dateFormat, reservedWords})`, or
   * `define({model, entities, casing?, dateFormat?, reservedWords?})` (such as
   * a definition `models()` lists).
   *
   * `entities`: `[{name, identifier?, attributes: {name: type}, relationships?:
   * [{name, destination, toMany?, inverse?, deleteRule?: 'nullify' | 'cascade'
   * | 'deny'}]}]`, names in camelCase; types 'string', 'integer', 'number',
   * 'bool', 'date', 'data' (base64), 'json', or one of them optional
   * ('string?'). `casing`: 'camelCase' (default) or 'snake_case' for the
   * JSON keys; `dateFormat`: 'iso8601' (default), 'iso8601Basic' or
   * 'epochSeconds'; `reservedWords` (default ['description']): JSON keys held
   * as the entity-qualified name (`description` ⇄ `bandDescription`).
   * Entities are not encrypted: `encrypted: true` rejects with InvalidParams
   * saying why (their queries read their columns in the database); keep
   * sensitive values in an encrypted cache.
   *
   * Resolves `{model, created, newEntities, added: ['Entity.member']}`. The
   * same definition again changes nothing; new entities, optional attributes
   * and relationships are added in place; any other change rejects with
   * ModelConflict (`data: {model, changes}`), a malformed one with InvalidParams.
   */
  define(model, entities, options) {
    let params;
    if (model !== null && typeof model === 'object' && !Array.isArray(model)) {
      if (Array.isArray(entities)) throw new TypeError('give a model name and entities, or one definition object, not both');
      params = { ...model };
      pick(params, checkOptions('entity.define', entities ?? undefined, DEFINE_OPTIONS), DEFINE_OPTIONS);
    } else {
      if (entities === undefined) throw new TypeError('define() needs the model\'s entities');
      const given = checkOptions('entity.define', options, DEFINE_OPTIONS);
      params = pick({ model, entities: recordList(entities, 'entities') }, given, DEFINE_OPTIONS);
    }
    return this.#db.call('entity.define', params);
  }

  /**
   * `entity.models`: `{models: [{model, casing, dateFormat, reservedWords,
   * entities}]}`, every model as stored (defaults filled in, optional types
   * written `{optional: T}`), sorted by name.
   */
  models() {
    return this.#db.call('entity.models', {});
  }

  /**
   * `entity.stage`: checks `records` of `entity` and adds them to the batch
   * the server keeps until `apply` or `discard`; nothing is written yet, and
   * references may name records staged later. A record staged twice (same
   * identifier) is merged. Resolves `{staged, pending}` (distinct records in
   * the batch). A bad record rejects with InvalidParams naming it (and stages
   * nothing of this call); an unknown entity with EntityNotFound.
   */
  stage(entity, records) {
    return this.#db.call('entity.stage', { entity, records: recordList(records) });
  }

  /**
   * `entity.apply`: writes everything staged in one transaction and empties
   * the batch. Resolves `{inserted, updated, linked, unresolved}`. A
   * reference to a record that exists neither in the batch nor in the store
   * rejects with UnresolvedReferences: nothing is written and the batch stays
   * (stage the missing records and apply again, or `discard`);
   * `onMissing: 'null'` clears such references instead (counted as
   * `unresolved`). A new record lacking required attributes rejects with
   * IncompleteRecord. Both sides of a relationship with an inverse are kept
   * in step: setting one side of a one-to-one sets the other (clearing both
   * old partners), and a to-many key given as a list of identifiers is the
   * whole relationship; within the batch a later record wins.
   */
  apply(options) {
    return this.#db.call('entity.apply', pick({}, checkOptions('entity.apply', options, ['onMissing']), ['onMissing']));
  }

  /** `entity.discard`: drops the staged batch. `{discarded}`. */
  discard() {
    return this.#db.call('entity.discard', {});
  }

  /**
   * `entity.upsert`: stages `records` in a batch of their own and applies it
   * at once (the staged batch is left alone). Resolves and rejects as `apply`.
   */
  upsert(entity, records, options) {
    const given = checkOptions('entity.upsert', options, ['onMissing']);
    return this.#db.call('entity.upsert', pick({ entity, records: recordList(records) }, given, ['onMissing']));
  }

  /**
   * `entity.get`: `{found: false}` or `{found: true, record}`, in the model's
   * casing and date format. To-one relationships are the destination's
   * identifier and to-many ones the related identifiers, unless `include`
   * (a path or an array, e.g. `['albums', 'members.musician']`) nests them.
   */
  get(entity, id, options) {
    const { include } = checkOptions('entity.get', options, ['include']);
    return this.#db.call('entity.get', pick({ entity, id }, { include: includePaths(include) }, ['include']));
  }

  /** `entity.getMany`: `{records, missing}`, the records found in the order asked and the identifiers without one. */
  getMany(entity, ids, options) {
    const { include } = checkOptions('entity.getMany', options, ['include']);
    return this.#db.call('entity.getMany', pick({ entity, ids: recordList(ids, 'ids') }, { include: includePaths(include) }, [
      'include',
    ]));
  }

  /**
   * `entity.query`: one page of the records matching `where`. `orderBy`: a
   * key or an array, `'-key'` descending (the identifier breaks ties);
   * `limit` 1 to 100000 (default 1000); `offset`; `include` as for `get`.
   * Resolves `{records, nextOffset?}`; `nextOffset` is there when more
   * records follow (see `iterQuery`).
   */
  query(entity, options) {
    const { where, orderBy, limit, offset, include } = checkOptions('entity.query', options, [
      'where', 'orderBy', 'limit', 'offset', 'include',
    ]);
    const params = pick({ entity }, {
      where: whereClause(where), orderBy: orderKeys(orderBy), limit, offset, include: includePaths(include),
    }, ['where', 'orderBy', 'limit', 'offset', 'include']);
    return this.#db.call('entity.query', params);
  }

  /**
   * Every record `query` matches, as an async iterator: one `entity.query`
   * per page of `pageSize` (default 1000), following `nextOffset`. Pages are
   * taken by offset, so records written or deleted meanwhile may be skipped
   * or seen twice.
   */
  async *iterQuery(entity, options) {
    const { where, orderBy, pageSize, offset, include } = checkOptions('entity.iterQuery', options, [
      'where', 'orderBy', 'pageSize', 'offset', 'include',
    ]);
    const asked = {
      where: whereClause(where), orderBy: orderKeys(orderBy), limit: pageSize, include: includePaths(include),
    };
    let at = offset;
    do {
      const page = await this.query(entity, { ...asked, offset: at });
      yield* page.records;
      at = page.nextOffset;
    } while (at !== undefined);
  }

  /** `entity.count`: `{count}`, the records matching `where` (all without). */
  count(entity, options) {
    const { where } = checkOptions('entity.count', options, ['where']);
    return this.#db.call('entity.count', pick({ entity }, { where: whereClause(where) }, ['where']));
  }

  /**
   * `entity.render`: `record`, written with the model's attribute and
   * relationship names (`{bandDescription, otherNames}`) and dates as RFC
   * 3339 strings, as the backend's JSON: keys in the model's casing and
   * reserved words, dates in its format, every member present — exactly what
   * `get` would resolve once the record is stored (JSONCache's
   * `toJSONDictionary`). Nothing is stored or read but the model.
   * Relationships may hold identifiers or nested records (a to-many list
   * comes back in identifier order); a record nested in a to-many
   * relationship may leave out its link back. Resolves `{record}`. A missing
   * required attribute, or anything `stage` refuses, rejects with
   * InvalidParams naming it (`record.released`); an unknown entity with
   * EntityNotFound.
   */
  render(entity, record) {
    return this.#db.call('entity.render', { entity, record: oneRecord(record, 'record') });
  }

  /**
   * `entity.parse`: the reverse of `render`. `json`, a record as the
   * backend sends it (or `get` resolves it, nested records included), is
   * checked as `stage` checks it — the same errors, named under `json` — and
   * resolves `{record}` with the model's names and RFC 3339 dates, with only
   * the members it has. Nothing is stored.
   */
  parse(entity, json) {
    return this.#db.call('entity.parse', { entity, json: oneRecord(json, 'json') });
  }

  /**
   * `entity.delete`: deletes the record with identifier `id`, applying each
   * relationship's delete rule (nullify clears references to it, cascade
   * deletes the related records, deny rejects with DeleteDenied), all or
   * nothing. `{deleted, nullified}` (`deleted: 0` when there was no such record).
   */
  delete(entity, id) {
    return this.#db.call('entity.delete', { entity, id });
  }
}

