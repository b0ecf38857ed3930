// `db.schema.*`, `db.object.*` and `db.migrate.*`: versioned object types,
// objects checked against them, and migrating what is stored.

import { checkJSON, TARGET } from './cache.js';
import { checkOptions, pick } from './options.js';

/** @typedef {import('./client.js').Larder} Larder */

/**
 * What an `onMigrate` handler returns to have the object deleted instead of
 * migrated (answered as `{drop: true}`). Also `Larder.DROP`.
 */
export const DROP = Symbol('larder.DROP');

/** Params naming one object: a key string, or `{type, value}` / `{key, cache?, group?}`. */
function subject(what, target) {
  let params;
  if (typeof what === 'string') params = { key: what };
  else if (what !== null && typeof what === 'object' && !Array.isArray(what)) params = { ...what };
  else throw new TypeError('name an object by its key (a string) or as {type, value}');
  if (!('key' in params) && !('type' in params && 'value' in params)) {
    throw new TypeError('name an object by its key (a string) or as {type, value}');
  }
  return pick(params, target, TARGET);
}

/** An `object.equals` side: a key string, or `{type, value}` / `{key, cache?, group?}`, sent as given. */
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

  /** `schema.extend`: adds a category's (optional) fields to the newest version. `{schema}`. */
  extend(type, category, fields) {
    return this.#db.call('schema.extend', { type, category, fields });
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
   * version}`; InvalidObject (`data: {path, reason}`) or SchemaNotFound when
   * it does not fit. A value JSON cannot hold throws a TypeError before
   * anything is sent.
   * @param {string} key
   * @param {import('./index.js').ObjectPutOptions} options
   */
  put(key, options) {
    const { type, value, version, ttl, cache, group } =
      checkOptions('object.put', options, ['type', 'value', 'version', 'ttl', ...TARGET]);
    if (value !== undefined) checkJSON(value, 'object.put: value');
    return this.#db.call('object.put', pick({ key, type, value }, { version, ttl, cache, group }, [
      'version', 'ttl', ...TARGET,
    ]));
  }

  /**
   * `object.get`: `{found: false}`, or `{found: true, type, version, value,
   * migratedFrom?}` at the newest version (`migratedFrom`: the stored version,
   * when this read migrated and wrote it back); `{found: false, dropped: true,
   * type, migratedFrom}` when `onMigrate` dropped it. `type` checks the type
   * (RequestFailed otherwise). NotAnObject, MigrationMissing, MigrationFailed.
   */
  get(key, options) {
    const known = ['type', ...TARGET];
    return this.#db.call('object.get', pick({ key }, checkOptions('object.get', options, known), known));
  }

  /**
   * `object.describe`: HMCache's description, `{description: {'*Type': {field,
   * '(Category)field', '**Parent': {...}}}}`, of a stored object (its key) or
   * of `{type, value}`.
   */
  describe(what, options) {
    return this.#db.call('object.describe', subject(what, checkOptions('object.describe', options, TARGET)));
  }

  /**
   * `object.equals`: `{equal}` (same type and value). `a` and `b` are each a
   * key (in `cache`/`group`), `{type, value}` or `{key, cache?, group?}`.
   */
  equals(a, b, options) {
    const target = checkOptions('object.equals', options, TARGET);
    return this.#db.call('object.equals', pick({ a: operand(a, 'a'), b: operand(b, 'b') }, target, TARGET));
  }

  /** `object.hash`: `{hash, algorithm: 'fnv1a64-canonical-json'}` of a key or `{type, value}`; equal objects hash alike. */
  hash(what, options) {
    return this.#db.call('object.hash', subject(what, checkOptions('object.hash', options, TARGET)));
  }

  /** `object.copy`: copies the object as stored to `toKey` (in `toCache`/`toGroup`, default the source's). `{copied, type, version}`. */
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
   * [{key, group?, cache?, type?, fromVersion?, error}]}`.
   */
  run(options) {
    const sent = ['type', 'cache', 'dryRun', 'batchSize', 'onFailure', 'workDoneToken'];
    const given = checkOptions('migrate.run', options, [...sent, 'onProgress', 'signal']);
    return this.#db.call('migrate.run', pick({}, given, sent), pick({}, given, ['onProgress', 'signal']));
  }
}

