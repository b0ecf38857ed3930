// index.d.ts against protocol/openrpc.json, the contract the server's own
// tests hold it to: every method's result against what its method resolves
// to, every server-to-client request and notification against the params
// type ServerMessages gives it, every code in x-error-codes against ErrorCode
// and its error class. A member added, removed, made optional or retyped on
// either side fails here, naming where.
//
// Both sides are compared as JSON: which members an object has, which are
// required, and each member's JSON types (TypeScript has one number, so
// `integer` reads as `number`), down through nested objects, arrays and
// maps. A oneOf of objects reads as one object whose members are required
// only where every branch requires them. `any` stands for a schema that
// gives no members: any JSON, an object of any members, or a union of JSON
// types. The declarations are read with TypeScript's compiler, the one `tsc`
// runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prerequisite } from './support.js';
import * as larder from '../index.js';

const OPENRPC = JSON.parse(readFileSync(new URL('../../../protocol/openrpc.json', import.meta.url), 'utf8'));
const SCHEMAS = OPENRPC.components.schemas;
const DECLARATIONS = fileURLToPath(new URL('../index.d.ts', import.meta.url));

/** TypeScript's compiler, from the installation `tsc` runs, or undefined. */
function typescript() {
  const tsc = spawnSync('sh', ['-c', 'command -v tsc'], { encoding: 'utf8' }).stdout.trim();
  if (!tsc) return undefined;
  return createRequire(import.meta.url)(join(dirname(realpathSync(tsc)), '..', 'lib', 'typescript.js'));
}

const ts = typescript();
const noTypeScript = prerequisite(!ts && 'tsc is not installed (Debian: apt-get install node-typescript)');

// A value as JSON sees it: `types`, JSON type names (`any` alone for any
// JSON); `members`, an object's named members as name -> {required, shape};
// `values`, the shape of an object's other members (undefined: no others);
// `items`, an array's elements.
const ANY = Object.freeze({ types: new Set(['any']), members: new Map() });
const JSON_TYPES = ['null', 'boolean', 'number', 'string', 'array', 'object'];

function shape(types, rest = {}) {
  return { types: new Set(types), members: new Map(), ...rest };
}

const isAny = (s) => s.types.size === 1 && s.types.has('any');

/** One shape for a value that may have any of `shapes`. */
function merged(shapes) {
  if (shapes.some(isAny)) return ANY;
  const result = shape(shapes.flatMap((s) => [...s.types]));
  if (JSON_TYPES.every((t) => result.types.has(t))) return ANY;
  const objects = shapes.filter((s) => s.types.has('object'));
  const names = [...new Set(objects.flatMap((s) => [...s.members.keys()]))].sort();
  for (const name of names) {
    const branches = objects.map((s) => s.members.get(name));
    result.members.set(name, {
      required: branches.every((b) => b?.required),
      shape: merged(branches.filter(Boolean).map((b) => b.shape)),
    });
  }
  const maps = objects.map((s) => s.values).filter(Boolean);
  if (maps.length) result.values = merged(maps);
  const arrays = shapes.map((s) => s.items).filter(Boolean);
  if (arrays.length) result.items = merged(arrays);
  return result;
}

function jsonType(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** `base` with a oneOf branch's properties and required members added. */
function narrowed(base, branch) {
  const { properties = {}, required = [], ...rest } = branch;
  const result = { ...base, ...rest, required: [...new Set([...(base.required ?? []), ...required])] };
  const all = { ...(base.properties ?? {}), ...properties };
  if (Object.keys(all).length) result.properties = all;
  return result;
}

/** The shape of a JSON Schema of openrpc.json; a schema met again inside itself is any JSON there. */
function schemaShape(schema, within = new Set()) {
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop();
    return within.has(name) ? ANY : schemaShape(SCHEMAS[name], new Set([...within, name]));
  }
  if (schema.oneOf && !schema.type && !schema.properties) return merged(schema.oneOf.map((b) => schemaShape(b, within)));
  if ('const' in schema) return shape([jsonType(schema.const)]);
  if (schema.enum) return shape(schema.enum.map(jsonType));
  let kind = schema.type;
  if (kind === undefined) {
    if (!schema.properties && !schema.oneOf) return ANY;
    kind = 'object';
  }
  if (Array.isArray(kind)) return merged(kind.map((k) => schemaShape({ ...schema, type: k }, within)));
  if (schema.oneOf) {
    const { oneOf, ...base } = schema;
    return merged(oneOf.map((branch) => schemaShape(narrowed(base, branch), within)));
  }
  if (kind === 'array') return shape(['array'], { items: schemaShape(schema.items ?? {}, within) });
  if (kind === 'integer') return shape(['number']);
  if (kind !== 'object') return shape([kind]);
  const result = shape(['object']);
  const required = new Set(schema.required ?? []);
  for (const [name, member] of Object.entries(schema.properties ?? {})) {
    result.members.set(name, { required: required.has(name), shape: schemaShape(member, within) });
  }
  const extra = schema.additionalProperties;
  if (schema.patternProperties) {
    result.values = merged(Object.values(schema.patternProperties).map((s) => schemaShape(s, within)));
  } else if (extra === undefined && result.members.size === 0) {
    result.values = ANY;
  } else if (extra && typeof extra === 'object') {
    result.values = schemaShape(extra, within);
  }
  return result;
}

/** A server-to-client message's by-name params as one object schema. */
function paramsSchema(message) {
  const params = message.params ?? [];
  return {
    type: 'object',
    additionalProperties: false,
    required: params.filter((p) => p.required).map((p) => p.name),
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema ?? {}])),
  };
}

let checked;

/** The checker over index.d.ts, and its exports by name (made once: about a second). */
function declarations() {
  checked ??= read();
  return checked;
}

function read() {
  const program = ts.createProgram([DECLARATIONS], { strict: true, noEmit: true, types: [], target: ts.ScriptTarget.ES2022 });
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(DECLARATIONS);
  const exports = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(file)).map((s) => [s.name, s]));
  return { checker, file, exports };
}

/** The shape of a TypeScript type of index.d.ts. */
function clientShape(d, type, within = new Set()) {
  const { checker, file } = d;
  const F = ts.TypeFlags;
  if (type.flags & (F.Any | F.Unknown)) return ANY;
  if (type.flags & (F.String | F.StringLiteral | F.TemplateLiteral)) return shape(['string']);
  if (type.flags & (F.Number | F.NumberLiteral)) return shape(['number']);
  if (type.flags & (F.Boolean | F.BooleanLiteral)) return shape(['boolean']);
  if (type.flags & F.Null) return shape(['null']);
  if (type.isUnion()) {
    const defined = type.types.filter((t) => !(t.flags & F.Undefined));
    return merged(defined.map((t) => clientShape(d, t, within)));
  }
  // Base64 data, decoded by the client.
  if (type.getSymbol()?.name === 'Buffer') return shape(['string']);
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    const elements = checker.getTypeArguments(type);
    return shape(['array'], { items: merged(elements.map((t) => clientShape(d, t, within))) });
  }
  if (!(type.flags & (F.Object | F.Intersection))) throw new Error(`no JSON shape for ${checker.typeToString(type)}`);
  if (within.has(type)) return ANY;
  const inner = new Set([...within, type]);
  const result = shape(['object']);
  for (const property of checker.getPropertiesOfType(type)) {
    const required = !(property.flags & ts.SymbolFlags.Optional);
    result.members.set(property.name, {
      required,
      shape: clientShape(d, checker.getTypeOfSymbolAtLocation(property, file), inner),
    });
  }
  const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
  if (index) result.values = clientShape(d, index.type, inner);
  return result;
}

const typesOf = (s) => [...s.types].sort().join('|');

/** Where `client` does not say what `contract` says, one line each. */
function differences(contract, client, path) {
  if (isAny(client)) {
    if (isAny(contract) || contract.types.size > 1 || (typesOf(contract) === 'object' && contract.members.size === 0)) return [];
    return [`${path}: openrpc.json says ${typesOf(contract)}, the client any`];
  }
  if (isAny(contract)) return [`${path}: openrpc.json allows any JSON, the client only ${typesOf(client)}`];
  if (typesOf(contract) !== typesOf(client)) return [`${path}: openrpc.json says ${typesOf(contract)}, the client ${typesOf(client)}`];
  const found = [];
  if (contract.types.has('object')) {
    const names = (s) => [...s.members.keys()].sort();
    for (const name of names(contract).filter((n) => !client.members.has(n))) {
      found.push(`${path}.${name}: in openrpc.json (${contract.members.get(name).required ? 'required' : 'optional'}), not in the client`);
    }
    for (const name of names(client).filter((n) => !contract.members.has(n))) {
      if (!contract.values || !isAny(contract.values)) found.push(`${path}.${name}: in the client, not in openrpc.json`);
    }
    for (const name of names(contract).filter((n) => client.members.has(n))) {
      const want = contract.members.get(name);
      const got = client.members.get(name);
      if (want.required !== got.required) {
        found.push(`${path}.${name}: openrpc.json has it ${want.required ? 'required' : 'optional'}, the client ${got.required ? 'required' : 'optional (?)'}`);
      }
      found.push(...differences(want.shape, got.shape, `${path}.${name}`));
    }
    if (!contract.values && client.values) {
      found.push(`${path}: openrpc.json names its members, the client has an index signature`);
    } else if (contract.values && !client.values && !(client.members.size && isAny(contract.values))) {
      found.push(`${path}: openrpc.json allows members of any name, the client only those it names`);
    } else if (contract.values && client.values) {
      found.push(...differences(contract.values, client.values, `${path}[*]`));
    }
  }
  if (contract.types.has('array') && contract.items && client.items) {
    found.push(...differences(contract.items, client.items, `${path}[]`));
  }
  return found;
}

// Where each method's result is declared: the class and method whose promise
// resolves to it.
const NAMESPACES = {
  cache: 'CacheMethods', schema: 'SchemaMethods', object: 'ObjectMethods', migrate: 'MigrateMethods',
  entity: 'EntityMethods', store: 'StoreMethods', lock: 'LockMethods',
};
const SESSION = { initialize: ['Larder', 'initialize'] };

// Methods the client has no typed wrapper for, and why.
const UNTYPED = {
  'cache.increment': 'not wrapped yet, called through call()',
  'debug.advanceClock': 'a test method (--enable-test-methods), called through call()',
  'debug.ask': 'a test method (--enable-test-methods), called through call()',
  'rpc.discover': 'answers openrpc.json itself, whose type is OpenRPC\'s meta-schema',
  shutdown: 'resolves to nothing once the server has answered null',
};

/** The class and method that answer `method`, or undefined. */
function wrapperOf(method) {
  if (SESSION[method]) return SESSION[method];
  const [prefix, name] = method.split('.');
  return NAMESPACES[prefix] && [NAMESPACES[prefix], name];
}

/** What the promise of `className.methodName` resolves to (its first signature's). */
function resolvedType(d, className, methodName) {
  const { checker, file, exports } = d;
  const cls = exports.get(className);
  if (!cls) return undefined;
  const instance = checker.getDeclaredTypeOfSymbol(cls);
  const member = checker.getPropertyOfType(instance, methodName);
  if (!member) return undefined;
  const [signature] = checker.getTypeOfSymbolAtLocation(member, file).getCallSignatures();
  return checker.getAwaitedType(signature.getReturnType());
}

const METHODS = new Map(OPENRPC.methods.map((m) => [m.name, m]));
const SERVER_TO_CLIENT = new Map(
  [...OPENRPC['x-notifications'], ...OPENRPC['x-server-requests']]
    .filter((m) => m.direction === 'server-to-client')
    .map((m) => [m.name, m]),
);

test('every method of openrpc.json has a typed wrapper in index.d.ts, or a reason not to', { skip: noTypeScript }, () => {
  const d = declarations();
  const missing = [...METHODS.keys()].filter((m) => !UNTYPED[m] && !(wrapperOf(m) && resolvedType(d, ...wrapperOf(m))));
  assert.deepEqual(missing, [], 'methods without a wrapper declared in index.d.ts');
  assert.deepEqual(Object.keys(UNTYPED).filter((m) => !METHODS.has(m)), [], 'not methods of openrpc.json');
});

test('every method resolves to its result as openrpc.json gives it', { skip: noTypeScript }, () => {
  const d = declarations();
  const found = [];
  for (const [method, { result }] of METHODS) {
    if (UNTYPED[method]) continue;
    const [className, methodName] = wrapperOf(method);
    const type = resolvedType(d, className, methodName);
    found.push(...differences(schemaShape(result.schema), clientShape(d, type), `${method} result (${className}.${methodName})`));
  }
  assert.deepEqual(found, []);
});

test('ServerMessages gives every server-to-client request and notification its params', { skip: noTypeScript }, () => {
  const d = declarations();
  assert.ok(d.exports.has('ServerMessages'), 'index.d.ts declares no ServerMessages');
  const map = d.checker.getDeclaredTypeOfSymbol(d.exports.get('ServerMessages'));
  const declared = d.checker.getPropertiesOfType(map).map((p) => p.name).sort();
  assert.deepEqual(declared, [...SERVER_TO_CLIENT.keys()].sort(), 'ServerMessages against openrpc.json');
  const found = [];
  for (const property of d.checker.getPropertiesOfType(map)) {
    const type = d.checker.getTypeOfSymbolAtLocation(property, d.file);
    found.push(...differences(schemaShape(paramsSchema(SERVER_TO_CLIENT.get(property.name))), clientShape(d, type), `${property.name} params`));
  }
  assert.deepEqual(found, []);
});

// The class is the code's name, with Error added where the name alone is not
// an error's (EncryptionKey, Integrity); ErrorCode names it in lowerCamelCase.
const ERROR_CODES = OPENRPC['x-error-codes'];
const lowerCamel = (name) => name[0].toLowerCase() + name.slice(1);

test('ErrorCode and the error classes are x-error-codes', () => {
  const codes = Object.fromEntries(ERROR_CODES.map((e) => [lowerCamel(e.name), e.code]));
  assert.deepEqual({ ...larder.ErrorCode }, codes);
  const wrong = [];
  for (const { name, code } of ERROR_CODES) {
    const Class = larder.LarderError.fromResponse({ code, message: 'm' }).constructor;
    if (![name, `${name}Error`].includes(Class.name) || Class.code !== code || larder[Class.name] !== Class) {
      wrong.push(`${code} is ${name} in openrpc.json; its class here is ${Class.name} (code ${Class.code})`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('index.d.ts declares ErrorCode and a class for every code as x-error-codes has them', { skip: noTypeScript }, () => {
  const d = declarations();
  const type = d.checker.getTypeOfSymbolAtLocation(d.exports.get('ErrorCode'), d.file);
  const declared = Object.fromEntries(d.checker.getPropertiesOfType(type).map((p) => [
    p.name, d.checker.getTypeOfSymbolAtLocation(p, d.file).value,
  ]));
  assert.deepEqual(declared, Object.fromEntries(ERROR_CODES.map((e) => [lowerCamel(e.name), e.code])));
  const undeclared = ERROR_CODES.map((e) => larder.LarderError.fromResponse({ code: e.code, message: 'm' }).constructor.name)
    .filter((name) => !d.exports.has(name));
  assert.deepEqual(undeclared, []);
});

test('a drift is named where it is', { skip: noTypeScript }, () => {
  const d = declarations();
  const drifted = resolvedType(d, 'CacheMethods', 'set');
  const contract = schemaShape(METHODS.get('cache.open').result.schema);
  assert.deepEqual(differences(contract, clientShape(d, drifted), 'cache.open result'), [
    'cache.open result.cache: in openrpc.json (required), not in the client',
    'cache.open result.config: in openrpc.json (required), not in the client',
    'cache.open result.created: in openrpc.json (required), not in the client',
    'cache.open result.storeBudget: in openrpc.json (optional), not in the client',
    'cache.open result.revision: in the client, not in openrpc.json',
    'cache.open result.size: in the client, not in openrpc.json',
    'cache.open result.stored: in the client, not in openrpc.json',
  ]);
});
