// Compiled (never run) by `tsc --noEmit -p clients/node`: the declarations
// accept what the README shows and refuse what the client refuses.
import {
  CacheNotFound, ConditionFailed, DROP, NotAnInteger, EncryptionKeyError, ErrorCode, FetchFailed, findBinary, NOT_FOUND, IntegrityError, InvalidParams, Larder,
  LarderError, Lease, LockNotAcquired, LockNotHeldError, PgCoherence, RekeyResult, SidecarExited, Transaction, TransactionResult,
  Transport,
} from '../../index.js';

declare function use(...values: unknown[]): void;

export async function readme(): Promise<void> {
  const db = await Larder.spawn({ store: './data', appVersion: '1.4.0', onMigrate: ({ value }) => (value.obsolete ? DROP : value) });
  await db.cache.open('thumbs', { memory: { maxCount: 500 }, lifespan: 3600 });
  const stored: { stored: true; size: number } = await db.cache.set('user:1', { name: 'Ada' }, { ttl: 60 });
  await db.cache.set('avatar:1', new Uint8Array([1, 2]), { cache: 'thumbs' });
  await db.cache.set('raw', undefined, { data: new ArrayBuffer(4) });
  const hit = await db.cache.get('user:1');
  if (hit.found) use(hit.value, hit.storedAt, hit.tier, hit.data?.byteLength);
  const thumbs = db.cacheView('thumbs', { group: 'small', ttl: 600 });
  await thumbs.set('a', 'x');
  for await (const key of thumbs) use(key);
  await db.object.put('n1', { type: 'Note', value: { title: 'hi' }, version: '1' });
  const bars = await db.object.put('bars', { type: 'Bar', values: [{ name: 'a' }, { name: 'b' }] });
  use(bars.form, bars.count);
  const read = await db.object.get('bars');
  if (read.form === 'array') use(read.values?.length, read.droppedElements);
  use((await db.object.describe({ type: 'Bar', values: [{ name: 'c' }] })).description);
  for await (const { group, count } of db.cache.iterGroups({ prefix: 'docs.' })) use(group, count);
  const cleared = await db.store.clear({ kind: 'objects', includeStores: false });
  use(cleared.removed, cleared.caches[0]?.cache);
  await db.migrate.run({ batchSize: 100, onProgress: (p) => use(p.kind) });
  for await (const album of db.entity.iterQuery('Album', { where: { released: { gte: '1980' } }, pageSize: 500 })) {
    use(album);
  }
  const { record: json } = await db.entity.render('Band', { name: 'U2', otherNames: 'Passengers' });
  const { record: model } = await db.entity.parse('Band', json);
  use(json.other_names, model.otherNames);
  await db.cache.open('session', { persistent: false });
  const opened = await db.cache.open('session', { persistent: true });
  use(opened.config.fetch.retryDelayMs[1], opened.storeBudget?.exceeded);
  db.onEvent('cache.evicted', ({ key, reason }) => use(key, reason === 'storeBudget'));
  db.onEvent('cache.cleared', (params) => use(params.group ?? '*', params.from));
  db.onEvent('*', (params, method) => use(params.anything, method));
  db.onRequest('cache.fetch', ({ attempt }) => attempt > 1);
  // @ts-expect-error a cache.fetch request has no value
  db.onRequest('cache.fetch', ({ value }) => value);
  const counts = await db.migrate.run();
  use(counts.failures[0]?.error.code);
  try {
    await db.cache.stats({ cache: 'nope' });
  } catch (e) {
    if (e instanceof CacheNotFound) use(e.code, e.message, e.data);
    if (e instanceof SidecarExited) use(e.exitCode, e.signal, e.stderr);
    if (e instanceof LarderError && e.code === ErrorCode.invalidParams) use(e instanceof InvalidParams);
  }
  db.transport.send('{"jsonrpc":"2.0","method":"initialized"}');
  const transport: Transport = Transport.spawn(findBinary(), ['--memory'], { onMessage: (text) => use(text) });
  transport.end();
  const status = await db.close({ timeout: 1000 });
  use(stored.size, status.exitCode, status.signal);

  await db.cache.open('rates', {
    fetch: { retries: 1, retryDelayMs: [1, 5], negativeTtl: 10, staleWhileRevalidate: 30, shared: true },
    fetcher: async (key, { attempt }) => (attempt > 1 ? NOT_FOUND : { key }),
    fallback: (key, { error }) => error.message,
  });
  const fetched = await db.cache.getOrFetch('user:9', async (key, ctx) => {
    ctx.ttl = 60;
    ctx.signal.addEventListener('abort', () => {});
    return new Uint8Array([key.length]);
  }, { retries: 2, timeoutMs: 100, shared: false });
  const elsewhere: boolean | undefined = fetched.fetchedElsewhere;
  use(elsewhere);
  use(fetched.fetched, fetched.stored, fetched.attempts, fetched.revalidating, fetched.data);
  use(await db.cache.getOrFetch('usd', { cache: 'rates' }), Larder.NOT_FOUND, db.fallback);
  try {
    await db.cache.getOrFetch('x', null);
  } catch (e) {
    if (e instanceof FetchFailed) use(e.data, ErrorCode.fetchFailed);
  }
  await Larder.spawn({ memory: true, fallback: true, fetcher: async () => undefined });

  const key = new Uint8Array(32);
  const secret = await Larder.spawn({ store: './data', encryptionKey: key, encryptionKeys: { vault: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=' } });
  await secret.cache.open('secrets', { encrypted: true });
  const rekeyed: RekeyResult = await secret.cache.rekey('secrets', new ArrayBuffer(32), { batchSize: 100, onProgress: (p) => use(p.kind) });
  use(rekeyed.resealed, rekeyed.resumed);
  try {
    await secret.cache.get('token', { cache: 'secrets' });
  } catch (e) {
    if (e instanceof EncryptionKeyError && e.reason === 'rekeyRunning') use(e.retryable, e.cache);
    if (e instanceof IntegrityError) use(e.key, e.cache, ErrorCode.integrity, ErrorCode.encryptionKey);
  }
  await Larder.spawn({ store: './data', keyFile: './larder.key', encryptionKeys: new Map([['vault', key]]) });
  const shared = await Larder.spawn({ store: 'postgresql://app@db.internal:5432/app', pgSchema: 'shop' });
  use(shared.server.store.path);
  await Larder.spawn({ memory: true, initialize: false }).then((later) => later.initialize({ store: 'postgresql://', pgSchema: 'shop' }));
  const coherence: PgCoherence = 'notify';
  await Larder.spawn({ store: 'postgresql://', pgSchema: 'shop', pgCoherence: coherence });
  await Larder.spawn({ memory: true, initialize: false }).then((later) => later.initialize({ store: 'postgresql://', pgCoherence: 'poll' }));

  const lease: Lease = await db.lock('reports/daily', { ttl: 30, wait: 10 });
  try {
    use(lease.token, lease.expiresAt, lease.lost);
  } finally {
    await lease.release();
  }
  const taken = await db.lock.acquire('job', { ttl: 30 });
  if (taken.acquired) await db.lock.release('job', taken.token);
  else use(taken.holderExpiresAt, taken.heldHere);
  use((await db.lock.renew('job', 1, { ttl: 30 })).expiresAt, (await db.lock.list({ prefix: 'reports/' })).locks[0]?.heldHere);
  try {
    await db.lock('job', { ttl: 5 });
  } catch (e) {
    if (e instanceof LockNotAcquired) use(e.lockName, e.holderExpiresAt, e.heldHere);
    if (e instanceof LockNotHeldError) use(e.lockName, e.token, ErrorCode.lockNotHeld);
  }
  const job = await db.cache.get('job');
  try {
    const next: number = job.found
      ? (await db.cache.set('job', 'running', { ifRevision: job.revision })).revision
      : (await db.cache.set('job', 'queued', { ifAbsent: true })).revision;
    await db.cache.touch('job', { ifRevision: next });
    await db.cache.remove('job', { ifRevision: next });
    const many: number[] = (await db.cache.setMany([{ key: 'a', value: 1, ifAbsent: true }])).revisions;
    const put: number = (await db.object.put('n', { type: 'Note', value: {}, ifRevision: many[0] })).revision;
    use(put, (await db.object.get('n')).revision);
  } catch (e) {
    if (e instanceof ConditionFailed) use(e.key, e.revision, e.index, ErrorCode.conditionFailed);
  }
  try {
    const hits: number = (await db.cache.increment('hits', { by: 5, initial: 10, ttl: 60 })).value;
    use(hits, (await db.cache.decrement('stock')).revision);
  } catch (e) {
    if (e instanceof NotAnInteger) use(e.key, ErrorCode.notAnInteger);
  }
  const [from, to] = (await db.transaction({ cache: 'bank' }).get('alice').get('bob').commit()).results;
  const txn: Transaction = db.transaction({ cache: 'bank' })
    .ifRevision('alice', from.revision ?? null).ifRevision('bob', to.revision ?? null)
    .ifAbsent('lock:x', { group: 'locks' }).ifPresent('bob').ifValue('limit', { max: 100 })
    .set('alice', from.value - 10).set('blob', undefined, { data: new Uint8Array([1]) })
    .increment('bob', { by: 10 }).decrement('stock').remove('pending').get('bob');
  txn.else.get('alice').get('bob');
  try {
    const moved: TransactionResult = await txn.commit();
    if (!moved.succeeded && moved.failed) use(moved.failed.index, moved.failed.key, moved.failed.revision);
    use(moved.results[0].revision, moved.results[3].value, moved.results[4].removed, moved.results[5].data?.byteLength);
    use((await txn.commit({ check: true })).succeeded);
    use((await db.cache.transaction({ compare: [{ key: 'k', absent: true }], then: [{ op: 'set', key: 'k', value: 1 }] })).results);
  } catch (e) {
    if (e instanceof ConditionFailed) use(e.index, e.key, e.revision);
    if (e instanceof NotAnInteger) use(e.index, e.branch);
  }
  // @ts-expect-error a comparison holds one test
  await db.cache.transaction({ compare: [{ key: 'k', absent: false }] });
  // @ts-expect-error an operation is set, remove, increment or get
  await db.cache.transaction({ then: [{ op: 'inc', key: 'n' }] });
  // @ts-expect-error the else branch is not committed on its own
  await txn.else.commit();
  // @ts-expect-error a misspelt option is refused
  db.transaction().increment('n', { bye: 2 });

  // @ts-expect-error a remove takes no ifAbsent
  await db.cache.remove('job', { ifAbsent: true });

  // @ts-expect-error a lease needs a ttl
  await db.lock('job', { wait: 5 });
  // @ts-expect-error a key is bytes or base64 text
  await Larder.spawn({ encryptionKey: 42 });
  // @ts-expect-error entities are never encrypted
  await db.entity.define('M', [], { encrypted: true });
  // @ts-expect-error a misspelt option is refused
  await db.cache.set('k', 1, { tll: 5 });
  // @ts-expect-error object.put needs a type
  await db.object.put('n2', { value: {} });
  // @ts-expect-error value or values, not both
  await db.object.put('n3', { type: 'Bar', value: {}, values: [] });
  // @ts-expect-error store.clear's kinds are all, objects and caches
  await db.store.clear({ kind: 'everything' });
  // @ts-expect-error a schema is a name
  await Larder.spawn({ store: 'postgresql://', pgSchema: 5 });
  // @ts-expect-error coherence is strict, notify or poll
  await Larder.spawn({ store: 'postgresql://', pgCoherence: 'strcit' });
  // @ts-expect-error framing is 'lines' or 'content-length'
  await Larder.spawn({ framing: 'xml' });
}
