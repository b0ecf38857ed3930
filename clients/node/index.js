// The Node.js client for Larder: spawns the `larder` sidecar and speaks
// JSON-RPC 2.0 with it over stdin/stdout. Each module holds one part:
//
//   client.js     Larder: requests, answers, server requests, notifications
//   transport.js  Transport: the process, framed pipes, backpressure; findBinary
//   framing.js    how message bodies become bytes and back
//   cache.js      db.cache.*
//   view.js       CacheView, one cache as a Map-like object
//   objects.js    db.schema.*, db.object.*, db.migrate.*, DROP
//   entities.js   db.entity.*
//   store.js      db.store.*
//   locks.js      db.lock: lock.* and leases renewed while held
//   transaction.js db.transaction(): cache.transaction built and committed
//   errors.js     LarderError and one class per error code
//   options.js    options checked before anything is sent
//   encryption.js keys for encrypted caches, checked before they are sent

export { Larder, CLIENT_NAME, CLIENT_VERSION } from './client.js';
export { Transport, findBinary, PACKAGED_BINARY } from './transport.js';
export { CacheMethods, NOT_FOUND } from './cache.js';
export { CacheView } from './view.js';
export { DROP, SchemaMethods, ObjectMethods, MigrateMethods } from './objects.js';
export { EntityMethods } from './entities.js';
export { StoreMethods } from './store.js';
export { Lease, LockMethods } from './locks.js';
export { Transaction, TransactionBranch } from './transaction.js';
export * from './errors.js';
