// `db.schema.*`, `db.object.*` and `db.migrate.*`: versioned object types,
// objects checked against them, and migrating what is stored.

import { checkJSON, CONDITIONS, TARGET } from './cache.js';
import { checkOptions, pick } from './options.js';

/** @typedef {import('./client.js').Larder} Larder */

/**
 * What an `onMigrate` handler returns to have the object deleted instead of
 * migrated (answered as `{drop: true}`). Also `Larder.DROP`.
 */
export const DROP = Symbol('larder.DROP');

/** `values` as the array sent: any iterable but a string. */
function valuesOf(values, where) {
  if (typeof values === 'string' || values === null || typeof values?.[Symbol.iterator] !== 'function') {
    throw new TypeError(`${where}: values must be an array (or iterable) of objects`);
  }
  const array = [...values];
  checkJSON(array, `${where}: values`);
  return array;
}

/** Params naming one object: a key string, or `{type, value}` / `{type, values}` / `{key, cache?, group?}`. */
function subject(what, target, where) {
  let params;
  if (typeof what === 'string') params = { key: what };
  else if (what !== null && typeof what === 'object' && !Array.isArray(what)) params = { ...what };
  else throw new TypeError('name an object by its key (a string) or as {type, value} (or {type, values})');
  if ('value' in params && 'values' in params) throw new TypeError(`${where}: give value or values, not both`);
  if (!('key' in params) && !('type' in params && ('value' in params || 'values' in params))) {
    throw new TypeError('name an object by its key (a string) or as {type, value} (or {type, values})');
  }
  if ('values' in params) params.values = valuesOf(params.values, where);
  return pick(params, target, TARGET);
}

/** An `object.equals` side: a key string, or `{type, value}` / `{type, values}` / `{key, cache?, group?}`, sent as given. */
function operand(what, name) {
  if (typeof what === 'string') return what;
  if (what !== null && typeof what === 'object' && !Array.isArray(what)) return what;
  throw new TypeError(`${name} must be a key (a string) or an object such as {type, value}`);
}

/**
 * `db.schema.*`: versioned object types. `fields` map names to types:
 * 'string', 'integer', 'number', 'bool', 'date', 'data', 'json', 'T?' (may be
 * absent), `{array: T}`, `{map: T}`, `{ref: 'OtherType'}`, `{optional: T}`,
 * or `{type: T, default: value}`. Definitions are sent as given (the server
 * refuses a misspelt member in them with InvalidParams); an unknown option
 * throws a TypeError, as for `db.cache`.
 */
export class SchemaMethods {
  #db;

  /** @param {Larder} db */
  constructor(db) {
    this.#db = db;
  }

  /**
   * `schema.register`: keeps one version (dotted numbers, '1.0.2') of a type.
   * `parent` names a type whose fields objects also have; `extensions` maps
   * category names to more (optional) fields; `migrations` is a list of
   * `{from: '1.0.0' | ['1.0.0', ...], steps: [...]}` with steps
   * `{op: 'rename', from, to}`, `{op: 'remove', field}`, `{op: 'set' |
   * 'default', field, value}`, `{op: 'convert', field, to, from?}` (to:
   * string, number, integer, bool, date, epochSeconds, epochMillis),
   * `{op: 'move', from, to}` (dotted paths) and `{op: 'callback'}` (asks
   * `onMigrate`). Resolves `{type, version, created}`; SchemaConflict when
   * the version is registered with another definition.
   */
  register(type, version, fields, options) {
    const known = ['parent', 'extensions', 'migrations'];
    const given = checkOptions('schema.register', options, known);
    return this.#db.call('schema.register', pick({ type, version, fields }, given, known));
  }

  /** `schema.get`: `{schema: {type, version, fields, parent?, extensions?, migrations?}, versions}` (newest, or `version`). */
  get(type, options) {
    return this.#db.call('schema.get', pick({ type }, checkOptions('schema.get', options, ['version']), ['version']));
  }

  /** `schema.list`: `{types: [{type, versions, newest, parent?}]}`. */
  list() {
    return this.#db.call('schema.list', {});
  }

  /** `schema.remove`: deletes every version; stored objects stay readable as plain maps. `{removed}`. */
  remove(type) {
    return this.#db.call('schema.remove', { type });
  }

  /**
   * `schema.extend`: adds a category's (optional) fields to the newest version. `{schema}`.
   * A `category` of null, undefined or '' is the unnamed one (HMCache's `registerPropertyName:`
   * without a category name): descriptions label its fields by their names alone.
   */
  extend(type, category, fields) {
    return this.#db.call('schema.extend', category == null ? { type, fields } : { type, category, fields });
  }
}

/**
 * `db.object.*`: values checked against their type, stored with its version,
 * migrated when read. An unknown option throws a TypeError, as for `db.cache`.
 */
export class ObjectMethods {
  #db;

  /** @param {Larder} db */
  constructor(db) {
    this.#db = db;
  }

  /**
   * `object.put`: validates `value` against the newest version of `type`
   * (or the registered `version` given, to write an object of an older
   * version on purpose) and stores it (`ttl` in seconds). `{stored, type,
   * version, revision}`, `revision` being the entry's new one (not the
   * object's version); `ifRevision` / `ifAbsent` make it conditional, as for
   * `cache.set` (ConditionFailed). InvalidObject (`data: {path, reason}`) or SchemaNotFound when
   * it does not fit. `values` (an array of objects of `type`) instead of
   * `value` stores them under the one key, as HMCache's
   * `+cacheArray:forKey:`; the result adds `form: 'array'` and `count`, and
   * a path names the element (`values[2].date`). A value JSON cannot hold,
   * or both `value` and `values`, throws a TypeError before anything is sent.
   * @param {string} key
   * @param {import('./index.js').ObjectPutOptions} options
   */
  put(key, options) {
    const { type, value, values, version, ttl, cache, group, ifRevision, ifAbsent } =
      checkOptions('object.put', options, ['type', 'value', 'values', 'version', 'ttl', ...TARGET, ...CONDITIONS]);
    if (value !== undefined && values !== undefined) throw new TypeError('object.put: give value or values, not both');
    const params = { key, type };
    if (values !== undefined) params.values = valuesOf(values, 'object.put');
    else {
      if (value !== undefined) checkJSON(value, 'object.put: value');
      params.value = value;
    }
    return this.#db.call('object.put',
      pick(params, { version, ttl, cache, group, ifRevision, ifAbsent }, ['version', 'ttl', ...TARGET, ...CONDITIONS]));
  }

  /**
   * `object.get`: `{found: false}`, or `{found: true, type, version, value,
   * migratedFrom?}` at the newest version (`migratedFrom`: the stored version,
   * when this read migrated and wrote it back); `{found: false, dropped: true,
   * type, migratedFrom}` when `onMigrate` dropped it. An array of objects is
   * `{found: true, form: 'array', type, version, values, migratedFrom?,
   * droppedElements?}`, each element migrated; when one fails, nothing is
   * written and the error's `data.index` names it. `type` checks the type
   * (RequestFailed otherwise). NotAnObject, MigrationMissing, MigrationFailed.
   */
  get(key, options) {
    const known = ['type', ...TARGET];
    return this.#db.call('object.get', pick({ key }, checkOptions('object.get', options, known), known));
  }

  /**
   * `object.describe`: HMCache's description, `{description: {'*Type': {field,
   * '(Category)field', '**Parent': {...}}}}` (every field there, an absent one
   * as null), of a stored object (its key) or of `{type, value}`; of an array
   * of objects (stored, or `{type, values}`), an array of descriptions.
   */
  describe(what, options) {
    return this.#db.call('object.describe',
      subject(what, checkOptions('object.describe', options, TARGET), 'object.describe'));
  }

  /**
   * `object.equals`: `{equal}` (same type and value). `a` and `b` are each a
   * key (in `cache`/`group`), `{type, value}`, `{type, values}` or `{key,
   * cache?, group?}`; an array of objects never equals a single object.
   */
  equals(a, b, options) {
    const target = checkOptions('object.equals', options, TARGET);
    return this.#db.call('object.equals', pick({ a: operand(a, 'a'), b: operand(b, 'b') }, target, TARGET));
  }

  /** `object.hash`: `{hash, algorithm: 'fnv1a64-canonical-json'}` of a key, `{type, value}` or `{type, values}`; equal objects hash alike. */
  hash(what, options) {
    return this.#db.call('object.hash', subject(what, checkOptions('object.hash', options, TARGET), 'object.hash'));
  }

  /**
   * `object.copy`: copies the object (or array of objects) as stored to
   * `toKey` (in `toCache`/`toGroup`, default the source's). `{copied, type,
   * version}`, with `form: 'array'` and `count` for an array.
   */
  copy(key, toKey, options) {
    const known = ['toCache', 'toGroup', ...TARGET];
    return this.#db.call('object.copy', pick({ key, toKey }, checkOptions('object.copy', options, known), known));
  }
}

/** `db.migrate.*`. An unknown option throws a TypeError, as for `db.cache`. */
export class MigrateMethods {
  #db;

  /** @param {Larder} db */
  constructor(db) {
    this.#db = db;
  }

  /**
   * `migrate.run`: migrates every stored object behind its type's newest
   * version (of one `type`, in one `cache`, or all), `batchSize` per
   * transaction (default 500). `dryRun: true` writes nothing back;
   * `onFailure: 'drop'` deletes objects that fail ('keep' by default).
   * `onProgress(value)` receives `{kind: 'begin'}`, `{kind: 'report',
   * percentage, message}` after batches and `{kind: 'end'}` (a
   * `workDoneToken` is added; `workDoneToken` chooses it); an aborted
   * `signal` stops it between batches (RequestCancelled, counts in `data`).
   * Resolves `{examined, migrated, upToDate, failed, dropped, failures:
   * [{key, group?, cache?, type?, fromVersion?, index?, error}]}`; the
   * elements of an array of objects count one by one.
   */
  run(options) {
    const sent = ['type', 'cache', 'dryRun', 'batchSize', 'onFailure', 'workDoneToken'];
    const given = checkOptions('migrate.run', options, [...sent, 'onProgress', 'signal']);
    return this.#db.call('migrate.run', pick({}, given, sent), pick({}, given, ['onProgress', 'signal']));
  }
}

