// entity.* against the real binary: JSONCache's scenario, merging, references,
// queries, delete rules, models and redefinitions.
import { test, prerequisite } from './support.js';
import assert from 'node:assert/strict';
import {
  Larder, LarderError, InvalidParams, EntityNotFound, ModelConflict, UnresolvedReferences, DeleteDenied,
  IncompleteRecord,
} from '../index.js';

const ARGS = ['--enable-test-methods', '--clock', '2026-01-01T00:00:00Z'];

/** Runs `fn(db)` against a fresh in-memory sidecar. */
async function withDb(fn) {
  const db = await Larder.spawn({ memory: true, args: ARGS });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** The promise's rejection (fails if it resolves). */
async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}

// JSONCache's README model: names in camelCase as in Core Data, JSON keys in snake_case.
const BANDS_ENTITIES = [
  {
    name: 'Band', identifier: 'name',
    attributes: {
      name: 'string', formed: 'integer', disbanded: 'integer?', hiatus: 'string?', bandDescription: 'string?',
      otherNames: 'string?',
    },
    relationships: [
      { name: 'albums', destination: 'Album', toMany: true, inverse: 'band', deleteRule: 'cascade' },
      { name: 'members', destination: 'BandMember', toMany: true, inverse: 'band', deleteRule: 'cascade' },
    ],
  },
  {
    name: 'BandMember',
    attributes: { id: 'string', instruments: 'string', joined: 'integer', left: 'integer?' },
    relationships: [
      { name: 'band', destination: 'Band', inverse: 'members' },
      { name: 'musician', destination: 'Musician', inverse: 'bands' },
    ],
  },
  {
    name: 'Musician', identifier: 'name',
    attributes: { name: 'string', born: 'integer', died: 'integer?', instruments: 'string' },
    relationships: [{ name: 'bands', destination: 'BandMember', toMany: true, inverse: 'musician', deleteRule: 'deny' }],
  },
  {
    name: 'Album', identifier: 'name',
    attributes: { name: 'string', released: 'date', label: 'string?' },
    relationships: [{ name: 'band', destination: 'Band', inverse: 'albums' }],
  },
];

// The backend's JSON, one array per entity, as in JSONCache's README.
const BANDS = [{
  name: 'Japan', formed: 1974, disbanded: 1991, hiatus: '1982-1989',
  description: 'Initially a glam-inspired group [...]', other_names: 'Rain Tree Crow',
}];
const BAND_MEMBERS = [
  ['David Sylvian', 'Lead vocals, keyboards, guitar'], ['Mick Karn', 'Bass, saxophone'],
  ['Steve Jansen', 'Drums, percussion'], ['Richard Barbieri', 'Keyboards, synthesizers'],
].map(([name, instruments]) => ({
  id: `${name} in Japan`, musician: name, band: 'Japan', instruments, joined: 1974, left: 1991,
}));
const MUSICIANS = [
  { name: 'David Sylvian', born: 1958, instruments: 'Vocals, guitar, keyboards' },
  { name: 'Mick Karn', born: 1958, died: 2011, instruments: 'Bass, saxophone, clarinet' },
  { name: 'Steve Jansen', born: 1959, instruments: 'Drums, percussion, keyboards' },
  { name: 'Richard Barbieri', born: 1957, instruments: 'Keyboards, synthesizers' },
];
const ALBUMS = [
  { name: 'Gentlemen Take Polaroids', band: 'Japan', released: '1980-10-24T00:00:00Z', label: 'Virgin' },
  { name: 'Tin Drum', band: 'Japan', released: '1981-11-13T00:00:00Z', label: 'Virgin' },
];

function defineBands(db) {
  return db.entity.define('Bands', BANDS_ENTITIES, { casing: 'snake_case', dateFormat: 'iso8601' });
}

async function loadBands(db) {
  await defineBands(db);
  await db.entity.stage('Band', BANDS);
  await db.entity.stage('BandMember', BAND_MEMBERS);
  await db.entity.stage('Musician', MUSICIANS);
  await db.entity.stage('Album', ALBUMS);
  return db.entity.apply();
}

const names = (page) => page.records.map((r) => r.name);

// MARK: - The JSONCache scenario

test('JSONCache: four arrays staged in several calls, applied once, read back with include', () => withDb(async (db) => {
  assert.deepEqual(await defineBands(db), {
    model: 'Bands', created: true, newEntities: ['Band', 'BandMember', 'Musician', 'Album'], added: [],
  });
  const sent = structuredClone([BANDS, BAND_MEMBERS, MUSICIANS, ALBUMS]);
  assert.deepEqual(await db.entity.stage('Band', BANDS), { staged: 1, pending: 1 });
  assert.deepEqual(await db.entity.stage('BandMember', BAND_MEMBERS), { staged: 4, pending: 5 });
  assert.deepEqual(await db.entity.stage('Musician', MUSICIANS), { staged: 4, pending: 9 });
  assert.deepEqual(await db.entity.stage('Album', ALBUMS), { staged: 2, pending: 11 });
  assert.deepEqual(await db.entity.count('Band'), { count: 0 }, 'nothing written before apply');
  assert.deepEqual(await db.entity.apply(), { inserted: 11, updated: 0, linked: 10, unresolved: 0 });
  assert.deepEqual([BANDS, BAND_MEMBERS, MUSICIANS, ALBUMS], sent, 'records are sent as given, not changed');
  assert.deepEqual(await db.entity.stage('Band', []), { staged: 0, pending: 0 }, 'apply emptied the batch');

  const got = await db.entity.get('Band', 'Japan', { include: ['albums', 'members'] });
  assert.equal(got.found, true);
  const { albums, members, ...japan } = got.record;
  assert.deepEqual(japan, BANDS[0], 'snake_case keys, the reserved word under its JSON name');
  assert.deepEqual(albums, ALBUMS);
  assert.deepEqual(members.map((m) => m.musician), ['David Sylvian', 'Mick Karn', 'Richard Barbieri', 'Steve Jansen']);

  const deep = (await db.entity.get('Band', 'Japan', { include: 'members.musician' })).record;
  assert.deepEqual(deep.albums, ['Gentlemen Take Polaroids', 'Tin Drum'], 'not included: identifiers');
  assert.deepEqual(deep.members.find((m) => m.id === 'Mick Karn in Japan').musician, {
    name: 'Mick Karn', born: 1958, died: 2011, instruments: 'Bass, saxophone, clarinet', bands: ['Mick Karn in Japan'],
  });
  assert.deepEqual(await db.entity.get('Band', 'Duran Duran'), { found: false });

  // A later batch of albums alone links to the stored band; dates come back in UTC.
  await db.entity.stage('Album', [
    { name: 'Oil on Canvas', band: 'Japan', released: '1983-06-01T09:00:00.000+09:00', label: 'Virgin' },
  ]);
  assert.deepEqual(await db.entity.apply(), { inserted: 1, updated: 0, linked: 1, unresolved: 0 });
  assert.equal((await db.entity.get('Album', 'Oil on Canvas')).record.released, '1983-06-01T00:00:00Z');

  const many = await db.entity.getMany('Band', ['Duran Duran', 'Japan'], { include: ['albums'] });
  assert.deepEqual(many.missing, ['Duran Duran']);
  assert.deepEqual(names(many), ['Japan']);
  assert.equal(many.records[0].albums.length, 3);

  await db.entity.stage('Album', [{ name: 'Quiet Life', band: 'Japan' }]);
  assert.deepEqual(await db.entity.discard(), { discarded: 1 });
  assert.deepEqual(await db.entity.count('Album'), { count: 3 });
}));

test('stages issued in one tick leave in one write and settle in order', () => withDb(async (db) => {
  await defineBands(db);
  const results = await Promise.all([
    db.entity.stage('Album', ALBUMS),
    db.entity.stage('BandMember', BAND_MEMBERS),
    db.entity.stage('Musician', MUSICIANS),
    db.entity.stage('Band', BANDS),
    db.entity.apply(),
    db.entity.count('BandMember', { where: { band: 'Japan' } }),
  ]);
  assert.deepEqual(results.slice(0, 4).map((r) => r.pending), [2, 6, 10, 11]);
  assert.deepEqual(results[4], { inserted: 11, updated: 0, linked: 10, unresolved: 0 });
  assert.deepEqual(results[5], { count: 4 });
}));

test('upsert leaves the staged batch alone', () => withDb(async (db) => {
  await defineBands(db);
  await db.entity.stage('Musician', MUSICIANS.slice(0, 1));
  assert.deepEqual(await db.entity.upsert('Musician', MUSICIANS.slice(1)), { inserted: 3, updated: 0, linked: 0, unresolved: 0 });
  assert.deepEqual(await db.entity.stage('Musician', []), { staged: 0, pending: 1 });
  assert.equal((await db.entity.apply()).inserted, 1);
  assert.deepEqual(await db.entity.count('Musician'), { count: 4 });
}));

// MARK: - Merging

test('records merge: absent keys stay, null clears', () => withDb(async (db) => {
  await loadBands(db);
  assert.deepEqual(await db.entity.upsert('Band', [{ name: 'Japan', formed: 1973 }]), {
    inserted: 0, updated: 1, linked: 0, unresolved: 0,
  });
  let japan = (await db.entity.get('Band', 'Japan')).record;
  assert.deepEqual([japan.formed, japan.hiatus, japan.other_names], [1973, '1982-1989', 'Rain Tree Crow']);
  await db.entity.upsert('Band', [{ name: 'Japan', hiatus: null, other_names: null }]);
  japan = (await db.entity.get('Band', 'Japan')).record;
  assert.deepEqual([japan.formed, japan.hiatus, japan.other_names, japan.disbanded], [1973, null, null, 1991]);
  // null unlinks a to-one relationship; the to-many side follows.
  await db.entity.upsert('Album', [{ name: 'Tin Drum', band: null }]);
  assert.equal((await db.entity.get('Album', 'Tin Drum')).record.band, null);
  assert.deepEqual((await db.entity.get('Band', 'Japan')).record.albums, ['Gentlemen Take Polaroids']);
  // A required attribute cannot be cleared; nothing of that call is written.
  const e = await rejection(db.entity.upsert('Band', [{ name: 'Japan', hiatus: 'again' }, { name: 'Japan', formed: null }]));
  assert.ok(e instanceof InvalidParams);
  assert.match(e.message, /formed is required/);
  assert.equal((await db.entity.get('Band', 'Japan')).record.hiatus, null);
  // The same record staged twice is merged.
  await db.entity.stage('Musician', [{ name: 'Mick Karn', born: 1959 }]);
  assert.deepEqual(await db.entity.stage('Musician', [{ name: 'Mick Karn', instruments: 'Bass' }]), { staged: 1, pending: 1 });
  assert.equal((await db.entity.apply()).updated, 1);
  const karn = (await db.entity.get('Musician', 'Mick Karn')).record;
  assert.deepEqual([karn.born, karn.died, karn.instruments], [1959, 2011, 'Bass']);
}));

test('IncompleteRecord: a new record needs every required attribute', () => withDb(async (db) => {
  await loadBands(db);
  const e = await rejection(db.entity.upsert('Album', [{ name: 'Quiet Life', band: 'Japan' }]));
  assert.ok(e instanceof IncompleteRecord);
  assert.ok(e instanceof LarderError);
  assert.equal(e.code, -31044);
  assert.deepEqual(e.data, { entity: 'Album', id: 'Quiet Life', missing: ['released'] });
  assert.deepEqual(await db.entity.get('Album', 'Quiet Life'), { found: false });
  await db.entity.stage('Album', [{ name: 'Quiet Life', band: 'Japan' }]);
  await assert.rejects(db.entity.apply(), IncompleteRecord);
  await db.entity.stage('Album', [{ name: 'Quiet Life', released: '1979-11-01T00:00:00Z' }]);
  assert.deepEqual(await db.entity.apply(), { inserted: 1, updated: 0, linked: 1, unresolved: 0 });
}));

test('bad records stage nothing; unknown entities are EntityNotFound', () => withDb(async (db) => {
  await defineBands(db);
  await db.entity.stage('Band', BANDS);
  await assert.rejects(
    db.entity.stage('Album', [ALBUMS[0], { ...ALBUMS[1], released: '1981-13-13T00:00:00Z' }]),
    (e) => e instanceof InvalidParams && /records\[1\]\.released/.test(e.message),
  );
  await assert.rejects(db.entity.stage('Band', [{ name: 'Japan', genre: 'new wave' }]), /no attribute or relationship "genre"/);
  assert.deepEqual(await db.entity.stage('Album', []), { staged: 0, pending: 1 });
  const e = await rejection(db.entity.stage('Venue', [{ id: 'Budokan' }]));
  assert.ok(e instanceof EntityNotFound);
  assert.equal(e.code, -31040);
  assert.deepEqual(e.data, { entity: 'Venue' });
  await assert.rejects(db.entity.query('Venue'), EntityNotFound);
}));

// MARK: - References

test('UnresolvedReferences: nothing written, the batch stays; onMissing null clears', () => withDb(async (db) => {
  await defineBands(db);
  await db.entity.stage('Album', [ALBUMS[1], { name: 'Vienna', band: 'Ultravox', released: '1980-07-11T00:00:00Z' }]);
  const e = await rejection(db.entity.apply());
  assert.ok(e instanceof UnresolvedReferences);
  assert.equal(e.code, -31042);
  assert.deepEqual(e.data, {
    missing: { Band: ['Japan', 'Ultravox'] },
    references: [
      { entity: 'Album', id: 'Tin Drum', relationship: 'band', destination: 'Band', missingId: 'Japan' },
      { entity: 'Album', id: 'Vienna', relationship: 'band', destination: 'Band', missingId: 'Ultravox' },
    ],
    count: 2,
  });
  assert.deepEqual(await db.entity.count('Album'), { count: 0 });
  assert.deepEqual(await db.entity.stage('Album', []), { staged: 0, pending: 2 });
  await db.entity.stage('Band', [{ name: 'Japan', formed: 1974 }]);
  assert.deepEqual(await db.entity.apply({ onMissing: 'null' }), { inserted: 3, updated: 0, linked: 1, unresolved: 1 });
  assert.equal((await db.entity.get('Album', 'Vienna')).record.band, null);
  assert.equal((await db.entity.get('Album', 'Tin Drum')).record.band, 'Japan');
  await assert.rejects(db.entity.apply({ onMissing: 'ignore' }), (x) => x instanceof InvalidParams && /onMissing/.test(x.message));
}));

test('upsert with unresolved references', () => withDb(async (db) => {
  await defineBands(db);
  const member = {
    id: 'Midge Ure in Ultravox', band: 'Ultravox', musician: 'Midge Ure', instruments: 'Vocals, guitar', joined: 1979,
  };
  const e = await rejection(db.entity.upsert('BandMember', [member]));
  assert.ok(e instanceof UnresolvedReferences);
  assert.deepEqual(e.data.missing, { Band: ['Ultravox'], Musician: ['Midge Ure'] });
  assert.deepEqual(await db.entity.count('BandMember'), { count: 0 });
  assert.deepEqual(await db.entity.upsert('BandMember', [member], { onMissing: 'null' }), {
    inserted: 1, updated: 0, linked: 0, unresolved: 2,
  });
  assert.deepEqual((await db.entity.get('BandMember', member.id)).record, {
    ...member, band: null, musician: null, left: null,
  });
}));

test('inverses are kept in step: one-to-one, to-many lists, later records winning', () => withDb(async (db) => {
  await db.entity.define('Travel', [
    { name: 'Person', attributes: { id: 'string' }, relationships: [{ name: 'passport', destination: 'Passport', inverse: 'owner' }] },
    { name: 'Passport', attributes: { id: 'string' }, relationships: [{ name: 'owner', destination: 'Person', inverse: 'passport' }] },
    {
      name: 'Team', attributes: { id: 'integer' },
      relationships: [{ name: 'players', destination: 'Player', toMany: true, inverse: 'team' }],
    },
    { name: 'Player', attributes: { id: 'string' }, relationships: [{ name: 'team', destination: 'Team' }] },
  ]);
  await db.entity.upsert('Person', [{ id: 'ann' }, { id: 'bob' }]);
  await db.entity.upsert('Passport', [{ id: 'P1', owner: 'ann' }]);
  assert.deepEqual((await db.entity.get('Person', 'ann', { include: 'passport' })).record, {
    id: 'ann', passport: { id: 'P1', owner: 'ann' },
  });
  await db.entity.upsert('Person', [{ id: 'bob', passport: 'P1' }]);
  assert.deepEqual((await db.entity.getMany('Person', ['ann', 'bob'])).records, [
    { id: 'ann', passport: null }, { id: 'bob', passport: 'P1' },
  ]);
  await db.entity.upsert('Team', [{ id: 1 }, { id: 2 }]);
  await db.entity.upsert('Player', [{ id: 'p' }, { id: 'q' }]);
  assert.equal((await db.entity.upsert('Team', [{ id: 1, players: ['p', 'q'] }])).linked, 2);
  assert.deepEqual((await db.entity.get('Player', 'p')).record, { id: 'p', team: 1 });
  // A later record of the batch wins over an earlier one setting the other side.
  await db.entity.stage('Team', [{ id: 2, players: ['p', 'q'] }]);
  await db.entity.stage('Player', [{ id: 'q', team: 1 }]);
  await db.entity.apply();
  assert.deepEqual((await db.entity.getMany('Team', [1, 2])).records.map((r) => r.players), [['q'], ['p']]);
}));

// MARK: - Queries

test('queries with several operators', () => withDb(async (db) => {
  await loadBands(db);
  await db.entity.upsert('Album', [
    { name: 'Oil on Canvas', band: 'Japan', released: '1983-06-01T00:00:00Z', label: 'Virgin' },
    { name: 'Exorcising Ghosts', band: 'Japan', released: '1984-11-01T00:00:00Z' },
    { name: 'Adolescent Sex', band: 'Japan', released: '1978-04-08T00:00:00Z', label: 'Hansa' },
  ]);
  const q = async (entity, options) => names(await db.entity.query(entity, options));
  assert.deepEqual(await q('Album'), ['Adolescent Sex', 'Exorcising Ghosts', 'Gentlemen Take Polaroids', 'Oil on Canvas', 'Tin Drum']);
  assert.deepEqual(await q('Album', { where: { band: 'Japan', released: { gte: '1981-01-01T00:00:00Z' } }, orderBy: ['-released'] }),
    ['Exorcising Ghosts', 'Oil on Canvas', 'Tin Drum']);
  assert.deepEqual(await q('Album', { where: { released: { gt: '1978-04-08T00:00:00Z', lt: '1983-06-01T00:00:00Z' } }, orderBy: 'released' }),
    ['Gentlemen Take Polaroids', 'Tin Drum']);
  assert.deepEqual(await q('Album', { where: { released: { lte: '1980-10-24T00:00:00+00:00' } } }), ['Adolescent Sex', 'Gentlemen Take Polaroids']);
  assert.deepEqual(await q('Album', { where: { label: { in: ['Hansa', 'Polydor'] } } }), ['Adolescent Sex']);
  assert.deepEqual(await q('Album', { where: { label: { isNull: true } } }), ['Exorcising Ghosts']);
  assert.deepEqual(await q('Album', { where: { label: null } }), ['Exorcising Ghosts']);
  // ne keeps records whose value is null.
  assert.deepEqual(await q('Album', { where: { label: { ne: 'Virgin' } } }), ['Adolescent Sex', 'Exorcising Ghosts']);
  assert.deepEqual(await q('Album', { where: { label: { eq: 'Virgin' }, name: { like: '%n%' } } }),
    ['Gentlemen Take Polaroids', 'Oil on Canvas', 'Tin Drum']);
  assert.deepEqual(await q('Musician', { where: { born: { in: [1957, 1958] }, died: { isNull: true } } }), ['David Sylvian', 'Richard Barbieri']);
  assert.deepEqual(await q('Musician', { orderBy: ['born', '-name'] }), ['Richard Barbieri', 'Mick Karn', 'David Sylvian', 'Steve Jansen']);
  assert.deepEqual(await q('Band', { where: { other_names: { like: 'rain%' } } }), ['Japan'], 'snake_case keys; like ignores ASCII case');
  const [member] = (await db.entity.query('BandMember', { where: { musician: 'Mick Karn' }, include: 'musician' })).records;
  assert.equal(member.musician.died, 2011);

  await assert.rejects(db.entity.query('Album', { where: { released: { after: '1980-01-01T00:00:00Z' } } }), /unknown member params.where.released.after/);
  await assert.rejects(db.entity.count('Band', { where: { formed: { like: '19%' } } }), /like compares strings/);
  await assert.rejects(db.entity.query('Band', { where: { albums: 'Tin Drum' } }), /to-many relationship/);
  await assert.rejects(db.entity.query('Album', { limit: 0 }), InvalidParams);
  assert.throws(() => db.entity.query('Album', { where: [['name', 'Tin Drum']] }), TypeError);
}));

test('pages follow nextOffset; iterQuery walks them', () => withDb(async (db) => {
  await defineBands(db);
  await db.entity.upsert('Musician', Array.from({ length: 23 }, (_, i) => ({
    name: `M${String(i).padStart(2, '0')}`, born: 1940 + i, instruments: 'drums',
  })));
  const where = { born: { gte: 1945 } };
  const first = await db.entity.query('Musician', { where, orderBy: '-born', limit: 5 });
  assert.deepEqual(names(first), ['M22', 'M21', 'M20', 'M19', 'M18']);
  assert.equal(first.nextOffset, 5);
  const last = await db.entity.query('Musician', { where, orderBy: '-born', limit: 5, offset: 15 });
  assert.deepEqual(names(last), ['M07', 'M06', 'M05']);
  assert.equal('nextOffset' in last, false);
  const exact = await db.entity.query('Musician', { limit: 23 });
  assert.equal(exact.records.length, 23);
  assert.equal(exact.nextOffset, undefined);
  assert.deepEqual(await db.entity.query('Musician', { offset: 100 }), { records: [] });

  const born = [];
  for await (const r of db.entity.iterQuery('Musician', { where, orderBy: '-born', pageSize: 4 })) born.push(r.born);
  assert.deepEqual(born, Array.from({ length: 18 }, (_, i) => 1962 - i));
  const tail = [];
  for await (const r of db.entity.iterQuery('Musician', { pageSize: 10, offset: 20 })) tail.push(r.name);
  assert.deepEqual(tail, ['M20', 'M21', 'M22']);
  let n = 0;
  for await (const r of db.entity.iterQuery('Musician')) n += r ? 1 : 0;
  assert.equal(n, 23);
  // Leaving early stops asking.
  for await (const r of db.entity.iterQuery('Musician', { pageSize: 2 })) if (r.name === 'M01') break;
  for await (const r of db.entity.iterQuery('Musician', { where: { born: 1800 } })) assert.fail(`unexpected ${r.name}`);
}));

test('count', () => withDb(async (db) => {
  await loadBands(db);
  assert.deepEqual(await db.entity.count('BandMember'), { count: 4 });
  assert.deepEqual(await db.entity.count('BandMember', { where: { instruments: { like: '%keyboards%' } } }), { count: 2 });
  assert.deepEqual(await db.entity.count('Album', { where: { band: 'Japan', released: { lt: '1981-01-01T00:00:00Z' } } }), { count: 1 });
  assert.deepEqual(await db.entity.count('Musician', { where: {} }), { count: 4 });
}));

// MARK: - Deleting

test('delete rules: deny refuses, cascade follows', () => withDb(async (db) => {
  await loadBands(db);
  const e = await rejection(db.entity.delete('Musician', 'Mick Karn'));
  assert.ok(e instanceof DeleteDenied);
  assert.equal(e.code, -31043);
  assert.deepEqual(e.data, { entity: 'Musician', id: 'Mick Karn', relationship: 'bands', related: 1 });
  assert.deepEqual(await db.entity.count('Musician'), { count: 4 });
  assert.deepEqual(await db.entity.delete('Band', 'Japan'), { deleted: 7, nullified: 0 });
  assert.deepEqual([await db.entity.count('Album'), await db.entity.count('BandMember')], [{ count: 0 }, { count: 0 }]);
  assert.deepEqual((await db.entity.get('Musician', 'Mick Karn')).record.bands, []);
  assert.deepEqual(await db.entity.delete('Musician', 'Mick Karn'), { deleted: 1, nullified: 0 });
  assert.deepEqual(await db.entity.delete('Musician', 'Mick Karn'), { deleted: 0, nullified: 0 });
}));

test('delete: nullify, and a deny inside a cascade refuses everything', () => withDb(async (db) => {
  await db.entity.define('Org', [
    { name: 'Team', attributes: { id: 'string' }, relationships: [{ name: 'people', destination: 'Person', toMany: true, inverse: 'team', deleteRule: 'cascade' }] },
    {
      name: 'Person', attributes: { id: 'string' },
      relationships: [{ name: 'team', destination: 'Team' }, { name: 'badge', destination: 'Badge', deleteRule: 'deny' }],
    },
    { name: 'Badge', attributes: { id: 'integer' } },
  ]);
  await db.entity.upsert('Badge', [{ id: 7 }]);
  await db.entity.upsert('Team', [{ id: 't' }]);
  await db.entity.upsert('Person', [{ id: 'a', team: 't', badge: 7 }, { id: 'b', team: 't' }]);
  const e = await rejection(db.entity.delete('Team', 't'));
  assert.ok(e instanceof DeleteDenied);
  assert.deepEqual(e.data, { entity: 'Person', id: 'a', relationship: 'badge', related: 1 });
  const counts = async () => Promise.all(['Team', 'Person', 'Badge'].map(async (n) => (await db.entity.count(n)).count));
  assert.deepEqual(await counts(), [1, 2, 1]);
  assert.deepEqual(await db.entity.delete('Badge', 7), { deleted: 1, nullified: 1 });
  assert.deepEqual((await db.entity.get('Person', 'a')).record, { id: 'a', team: 't', badge: null });
  assert.deepEqual(await db.entity.delete('Team', 't'), { deleted: 3, nullified: 0 });
  await assert.rejects(db.entity.delete('Badge', '7'), /identifier of Badge \(integer\)/);
}));

// MARK: - Models

test('models, additions in place, and a refused redefinition', () => withDb(async (db) => {
  assert.deepEqual(await db.entity.models(), { models: [] });
  await defineBands(db);
  const { models: [model] } = await db.entity.models();
  assert.deepEqual([model.model, model.casing, model.dateFormat, model.reservedWords], ['Bands', 'snake_case', 'iso8601', ['description']]);
  assert.deepEqual(model.entities[0].attributes.hiatus, { optional: 'string' });
  assert.deepEqual(model.entities[0].relationships[0], BANDS_ENTITIES[0].relationships[0]);
  assert.equal(model.entities[1].identifier, 'id');
  assert.equal(model.entities[1].relationships[0].deleteRule, 'nullify');
  const unchanged = { model: 'Bands', created: false, newEntities: [], added: [] };
  assert.deepEqual(await defineBands(db), unchanged);
  assert.deepEqual(await db.entity.define(model), unchanged, 'a listed definition defines the same model');

  const grown = structuredClone(BANDS_ENTITIES);
  grown[0].attributes.website = 'string?';
  grown.push({ name: 'Label', attributes: { id: 'string' } });
  assert.deepEqual(await db.entity.define({ model: 'Bands', entities: grown }, { casing: 'snake_case' }), {
    model: 'Bands', created: false, newEntities: ['Label'], added: ['Band.website'],
  });
  await db.entity.upsert('Band', [{ name: 'Japan', formed: 1974, website: 'example.org' }]);

  const changed = structuredClone(grown);
  changed[0].attributes.formed = 'string';
  changed[0].attributes.country = 'string';
  delete changed[3].attributes.label;
  const e = await rejection(db.entity.define('Bands', changed, { casing: 'snake_case' }));
  assert.ok(e instanceof ModelConflict);
  assert.equal(e.code, -31041);
  assert.deepEqual(e.data, {
    model: 'Bands',
    changes: [
      'attribute Band.formed changed from integer to string',
      'attribute Band.country added as required string (existing records have no value; add it as string?)',
      'attribute Album.label removed',
    ],
  });
  await assert.rejects(db.entity.define('Bands', grown), (x) => x instanceof ModelConflict && /casing changed from snake_case to camelCase/.test(x.message));
  assert.equal((await db.entity.get('Band', 'Japan')).record.formed, 1974);
  assert.equal((await db.entity.models()).models[0].entities.length, 5);
  await assert.rejects(
    db.entity.define('Venues', [{ name: 'Venue', attributes: { id: 'string', city_name: 'string' } }], { casing: 'snake_case' }),
    /does not survive snake_case conversion/,
  );
  await assert.rejects(db.entity.define('Venues', [{ name: 'Band', attributes: { id: 'string' } }]), /belongs to model Bands/);
}));

test('date formats and reserved words', () => withDb(async (db) => {
  await assert.rejects(
    db.entity.define('Log2', [{ name: 'Row', attributes: { id: 'integer', summary: 'string' } }], { reservedWords: ['summary'] }),
    /reserved word/,
  );
  await db.entity.define('Log', [{ name: 'Entry', attributes: { id: 'integer', at: 'date', entrySummary: 'string?' } }], {
    dateFormat: 'iso8601Basic', reservedWords: ['summary'],
  });
  await db.entity.upsert('Entry', [{ id: 1, at: '20000822T122800.5+0200', summary: 's' }]);
  assert.deepEqual((await db.entity.get('Entry', 1)).record, { id: 1, at: '20000822T102800.500Z', summary: 's' });
  assert.deepEqual(await db.entity.count('Entry', { where: { at: { gte: '20000822T102800Z' } } }), { count: 1 });
  await db.entity.define('Clock', [{ name: 'Tick', attributes: { id: 'integer', at: 'date' } }], { dateFormat: 'epochSeconds' });
  await db.entity.upsert('Tick', [{ id: 1, at: 966947280 }, { id: 2, at: 966947280.25 }]);
  const ats = [];
  for await (const r of db.entity.iterQuery('Tick')) ats.push(r.at);
  assert.deepEqual(ats, [966947280, 966947280.25]);
}));

// MARK: - The wrappers

test('params are sent as given; argument checks', () => withDb(async (db) => {
  const sent = [];
  const call = db.call;
  db.call = (method, params) => {
    sent.push([method, params]);
    return Promise.resolve({});
  };
  try {
    const record = { other_names: 'x', nested: { snake_key: 1 }, camelKey: null, skipped: undefined };
    await db.entity.upsert('Band', new Set([record]), { onMissing: 'null' });
    await db.entity.query('Band', { where: { other_names: { isNull: false } }, orderBy: ['-formed', 'name'], include: 'albums' });
    await db.entity.define('Bands', [{ name: 'Band', attributes: { id: 'string' } }], { dateFormat: 'epochSeconds', reservedWords: ['summary'] });
    await db.entity.apply();
    await db.entity.count('Band');
    await db.entity.get('Band', 5, { include: undefined });
    await db.entity.render('Band', record);
    await db.entity.parse('Band', record);
    assert.deepEqual(sent, [
      ['entity.upsert', { entity: 'Band', records: [record], onMissing: 'null' }],
      ['entity.query', { entity: 'Band', where: { other_names: { isNull: false } }, orderBy: ['-formed', 'name'], include: ['albums'] }],
      ['entity.define', { model: 'Bands', entities: [{ name: 'Band', attributes: { id: 'string' } }], dateFormat: 'epochSeconds', reservedWords: ['summary'] }],
      ['entity.apply', {}],
      ['entity.count', { entity: 'Band' }],
      ['entity.get', { entity: 'Band', id: 5 }],
      ['entity.render', { entity: 'Band', record }],
      ['entity.parse', { entity: 'Band', json: record }],
    ]);
    assert.equal(sent[0][1].records[0], record, 'the record object itself');
  } finally {
    db.call = call;
  }
  assert.throws(() => db.entity.stage('Band', { name: 'Japan' }), /array/);
  assert.throws(() => db.entity.getMany('Band', 'Japan'), /ids must be an array/);
  assert.throws(() => db.entity.define('Bands'), /entities/);
  assert.throws(() => db.entity.define({ model: 'Bands', entities: [] }, []), /not both/);
  assert.throws(() => db.entity.render('Band', [{ name: 'Japan' }]), /one record/);
  assert.throws(() => db.entity.parse('Band', null), /one record/);
}));

// MARK: - Render and parse

test('render: a struct in the model\'s names as the backend\'s JSON, nothing stored; parse: back', () => withDb(async (db) => {
  await defineBands(db);
  const { record: u2 } = await db.entity.render('Band', {
    name: 'U2', bandDescription: 'Dublin boys', formed: 1976, otherNames: 'Passengers',
  });
  assert.deepEqual(u2, {
    name: 'U2', formed: 1976, disbanded: null, hiatus: null, description: 'Dublin boys', other_names: 'Passengers',
    albums: [], members: [],
  });
  assert.deepEqual(Object.keys(u2), ['name', 'formed', 'disbanded', 'hiatus', 'description', 'other_names', 'albums', 'members']);
  const { record: boy } = await db.entity.render('Album', { name: 'Boy', released: '1980-10-20T09:00:00+09:00', band: 'U2' });
  assert.deepEqual(boy, { name: 'Boy', released: '1980-10-20T00:00:00Z', label: null, band: 'U2' });
  assert.deepEqual(await db.entity.count('Band'), { count: 0 });
  assert.deepEqual(await db.entity.parse('Band', { name: 'U2', description: 'Dublin boys', other_names: null }), {
    record: { name: 'U2', bandDescription: 'Dublin boys', otherNames: null },
  });
}));

test('render is what get resolves after storing; parse of a rendering gives the parse back', () => withDb(async (db) => {
  await loadBands(db);
  const ids = { Band: 'name', BandMember: 'id', Musician: 'name', Album: 'name' };
  const toMany = { Band: ['albums', 'members'], Musician: ['bands'], BandMember: [], Album: [] };
  for (const [entity, records] of [['Band', BANDS], ['BandMember', BAND_MEMBERS], ['Musician', MUSICIANS], ['Album', ALBUMS]]) {
    for (const sent of records) {
      const { record: stored } = await db.entity.get(entity, sent[ids[entity]]);
      const { record: model } = await db.entity.parse(entity, stored);
      const { record: rendered } = await db.entity.render(entity, model);
      assert.equal(JSON.stringify(rendered), JSON.stringify(stored), `${entity} ${sent[ids[entity]]}`);
      assert.deepEqual((await db.entity.parse(entity, rendered)).record, model);
      await db.entity.upsert(entity, [rendered]);
      assert.equal(JSON.stringify((await db.entity.get(entity, sent[ids[entity]])).record), JSON.stringify(rendered));
      const { record: fromBackend } = await db.entity.render(entity, (await db.entity.parse(entity, sent)).record);
      for (const key of toMany[entity]) fromBackend[key] = stored[key];
      assert.deepEqual(fromBackend, stored);
    }
  }
  const { record: nested } = await db.entity.get('Band', 'Japan', { include: ['albums', 'members.musician'] });
  const { record: model } = await db.entity.parse('Band', nested);
  assert.equal(JSON.stringify((await db.entity.render('Band', model)).record), JSON.stringify(nested));
}));

test('parse refuses what stage refuses, with the same message; render needs a whole record', () => withDb(async (db) => {
  await defineBands(db);
  for (const [entity, record] of [
    ['Band', { name: 'Japan', formed: '1974' }], ['Band', { formed: 1974 }],
    ['Album', { name: 'Quiet Life', released: '1979-13-01T00:00:00Z' }], ['Band', { name: 'Japan', genre: 'new wave' }],
  ]) {
    const staged = await rejection(db.entity.stage(entity, [record]));
    const parsed = await rejection(db.entity.parse(entity, record));
    assert.ok(parsed instanceof InvalidParams && staged instanceof InvalidParams);
    assert.equal(parsed.message, staged.message.replace('records[0]', 'json'));
  }
  await assert.rejects(db.entity.render('Album', { name: 'Quiet Life', band: 'Japan' }),
    (e) => e instanceof InvalidParams && /record: Album "Quiet Life" lacks required attributes: released/.test(e.message));
  await assert.rejects(db.entity.render('Band', {
    name: 'Japan', formed: 1974, albums: [{ name: 'Vienna', released: '1980-07-11T00:00:00Z', band: 'Ultravox' }],
  }), (e) => e instanceof InvalidParams && /so its band must be "Japan"/.test(e.message));
  await assert.rejects(db.entity.parse('Venue', { id: 'Budokan' }), (e) => e instanceof EntityNotFound);
}));

// What each wrapper can send, to compare with the OpenRPC document.
const WRAPPER_PARAMS = {
  'entity.define': ['model', 'entities', 'casing', 'dateFormat', 'reservedWords', 'encrypted'],
  'entity.models': [],
  'entity.stage': ['entity', 'records'],
  'entity.apply': ['onMissing'],
  'entity.discard': [],
  'entity.upsert': ['entity', 'records', 'onMissing'],
  'entity.get': ['entity', 'id', 'include'],
  'entity.getMany': ['entity', 'ids', 'include'],
  'entity.query': ['entity', 'where', 'orderBy', 'limit', 'offset', 'include'],
  'entity.count': ['entity', 'where'],
  'entity.delete': ['entity', 'id'],
  'entity.render': ['entity', 'record'],
  'entity.parse': ['entity', 'json'],
};

test('every entity method the server offers has a wrapper, and rpc.discover agrees', (t) => withDb(async (db) => {
  const offered = db.server.capabilities.methods.filter((m) => m.startsWith('entity.')).sort();
  assert.deepEqual(offered, Object.keys(WRAPPER_PARAMS).sort(), 'the entity methods this client wraps');
  for (const name of offered) assert.equal(typeof db.entity[name.slice('entity.'.length)], 'function', `no wrapper for ${name}`);
  const doc = await db.discover();
  const documented = new Map(doc.methods.map((m) => [m.name, (m.params ?? []).map((p) => p.name).sort()]));
  const missing = offered.filter((m) => !documented.has(m));
  if (missing.length === offered.length) {
    t.skip(prerequisite('the OpenRPC document does not list the entity.* methods'));
    return;
  }
  assert.deepEqual(missing, [], 'rpc.discover documents every entity method');
  for (const name of offered) assert.deepEqual(documented.get(name), [...WRAPPER_PARAMS[name]].sort(), name);
}));
