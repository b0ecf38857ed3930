import LarderJSON
import LarderStorage

/// The outcome of reading an object.
public enum ObjectRead: Sendable {
    case notFound
    /// Stored at the newest versions already.
    case current(StoredObject)
    /// Migrated from `from` to the newest version and written back.
    case migrated(StoredObject, from: SchemaVersion)
    /// Its type is no longer registered: the value as a plain map.
    case untyped(type: String, version: String, value: JSON)
    /// The client's migration callback asked for it to be dropped; it was deleted.
    case dropped(type: String, from: SchemaVersion)
    /// The migration needs the client's answer to this first.
    case needsCallback(CallbackRequest)
    /// An array of objects, each element read as one object is.
    case array(ObjectArrayRead)
}

/// An array of objects as a read left it.
public struct ObjectArrayRead: Sendable {
    /// The array at the newest versions (written back when it was behind),
    /// or as stored when its type is no longer registered.
    public var array: StoredObjectArray
    /// The version it was stored under, when this read migrated it.
    public var migratedFrom: SchemaVersion?
    /// How many elements this read migrated; the others were current.
    public var migrated: Int
    /// Indices, in the array as stored, of the elements the client's migration
    /// callback asked to drop: they were left out of what was written back.
    public var dropped: [Int]
}

extension Cache {
    /// Validates `value` against the newest schema of `type` and stores it.
    public func putObject(_ k: EntryKey, type: String, value: JSON, ttl: Int64?) throws(StoreError) -> StoredObject {
        let stored = try ObjectValidator.tagged(value, as: type, objects: context.objects)
        try put(.single(stored), at: k, ttl: ttl)
        return stored
    }

    /// Stores an object, or an array of objects, already validated
    /// (`ObjectValidator.tagged`, `ObjectValidator.taggedArray`); returns the entry's revision.
    @discardableResult
    public func put(_ content: ObjectContent, at k: EntryKey, ttl: Int64?, condition: WriteCondition? = nil) throws(StoreError) -> Int64 {
        try set(Write(key: k, kind: .object, bytes: content.json.encoded, ttl: ttl, condition: condition))
    }

    /// The revision of the entry under `k` as it stands, expired or not; nil when there is none.
    public func revision(of k: EntryKey) throws(StoreError) -> Int64? {
        try current(k)?.entry.revision
    }

    /// The stored object or array of objects, without migrating it.
    public func storedContent(_ k: EntryKey) throws(StoreError) -> (ObjectContent, Entry)? {
        guard let lookup = try get(k) else { return nil }
        guard lookup.entry.kind == .object, let json = try? JSONParser.parse(lookup.entry.bytes),
              let content = ObjectContent(json) else { throw .notAnObject(key: k.key) }
        return (content, lookup.entry)
    }

    /// Reads an object, migrating it to the newest versions if it is behind
    /// (and writing the result back); a failed migration changes nothing.
    public func readObject(_ k: EntryKey, answers: [String: CallbackAnswer] = [:], writeBack: Bool = true) throws(StoreError) -> ObjectRead {
        guard let (content, entry) = try storedContent(k) else { return .notFound }
        let stored: StoredObject
        switch content {
        case .single(let one): stored = one
        case .array(let array): return try readArray(array, k, entry, answers: answers, writeBack: writeBack)
        }
        if try context.objects.versions(of: stored.type).isEmpty {
            return .untyped(type: stored.type, version: stored.version.text, value: stored.plainValue)
        }
        let migrator = ObjectUpgrader(objects: context.objects, key: k.key, answers: answers)
        if try migrator.isCurrent(stored) { return .current(stored) }
        do {
            let upgraded = try migrator.upgrade(stored)
            if writeBack { try rewrite(k, entry, bytes: upgraded.json.encoded) }
            return .migrated(upgraded, from: stored.version)
        } catch MigrationStop.needsCallback(let request) {
            return .needsCallback(request)
        } catch MigrationStop.drop {
            if writeBack { _ = try remove(k) }
            return .dropped(type: stored.type, from: stored.version)
        } catch {
            throw failure(error, stored, key: k.key)
        }
    }

    /// Reads an array of objects: each element migrated as one object is,
    /// all written back together, or nothing written when one fails (the
    /// error names its index).
    private func readArray(_ array: StoredObjectArray, _ k: EntryKey, _ entry: Entry, answers: [String: CallbackAnswer],
                           writeBack: Bool) throws(StoreError) -> ObjectRead {
        guard let newest = try context.objects.newestSchema(of: array.type) else {
            return .array(ObjectArrayRead(array: array, migratedFrom: nil, migrated: 0, dropped: []))
        }
        var values: [JSONObject] = [], migrated = 0, dropped: [Int] = []
        for (index, element) in array.elements.enumerated() {
            let migrator = ObjectUpgrader(objects: context.objects, key: k.key, answers: answers, element: index)
            do {
                if try migrator.isCurrent(element) {
                    values.append(element.value)
                    continue
                }
                values.append(try migrator.upgrade(element).value)
                migrated += 1
            } catch MigrationStop.needsCallback(let request) {
                return .needsCallback(request)
            } catch MigrationStop.drop {
                dropped.append(index)
            } catch {
                throw .element(index: index, error: failure(error, element, key: k.key))
            }
        }
        let ancestors = try context.objects.ancestors(of: newest).map { (type: $0.type, version: $0.version) }
        let labelled = array.version == newest.version && array.parents.count == ancestors.count
            && zip(array.parents, ancestors).allSatisfy { $0.type == $1.type && $0.version == $1.version }
        if migrated == 0 && dropped.isEmpty && labelled {
            return .array(ObjectArrayRead(array: array, migratedFrom: nil, migrated: 0, dropped: []))
        }
        let upgraded = StoredObjectArray(type: array.type, version: newest.version, values: values, parents: ancestors)
        if writeBack { try rewrite(k, entry, bytes: upgraded.json.encoded) }
        return .array(ObjectArrayRead(array: upgraded, migratedFrom: array.version, migrated: migrated, dropped: dropped))
    }

    /// What a migration that stopped with `error` is reported as.
    private func failure(_ error: any Error, _ stored: StoredObject, key: String) -> StoreError {
        switch error {
        case MigrationStop.failed(let e): return e
        case let e as StoreError: return e
        default:
            // For the message only: the error reported is the migration's.
            let to = (try? context.objects.newestSchema(of: stored.type))??.version.text ?? "?"
            return .migrationFailed(key: key, type: stored.type, from: stored.version.text, to: to, reason: "\(error)")
        }
    }

    /// Replaces an entry's bytes, keeping when it was stored and its lifetime.
    func rewrite(_ k: EntryKey, _ old: Entry, bytes: [UInt8]) throws(StoreError) {
        var e = old
        e.bytes = bytes
        if config.persistent {
            try context.transactions.begin(changing: .entries)
            e.revision = try newRevision()
            try bytes.withUnsafeBufferPointer { (value) throws(StoreError) in try writeToDisk(k, &e, value: value) }
        } else {
            e.revision = try newRevision()
        }
        memory.remove(k)
        memory.put(k, e)
        evictFromMemory()
    }

    /// How many objects the cache holds.
    public func objectCount() throws(StoreError) -> Int {
        guard config.persistent else { return memory.keys().filter { memory.peek($0)?.kind == .object }.count }
        let s = try context.database.statement("SELECT COUNT(*) FROM entries WHERE cache = ? AND kind = 2")
        s.bind(1, id)
        defer { s.reset() }
        _ = try s.step()
        return try s.int(0)
    }

    /// Keys of object entries after `cursor` in (group, key) order, for migrate.run.
    public func objectKeys(after cursor: EntryKey?, limit: Int) throws(StoreError) -> [EntryKey] {
        guard try readyToRead() else { return [] }
        if config.persistent {
            guard sealer != nil else { return try disk.objectKeys(after: cursor, limit: limit) }
            let keys = try disk.sealedKeys(ofKind: .object)
            return Array(keys.drop { k in cursor.map { !EntryKey.precedes($0, k) } ?? false }.prefix(limit))
        }
        let keys = memory.keys().filter { memory.peek($0)?.kind == .object }.sorted { a, b in
            a.group == b.group ? a.key.utf8.lexicographicallyPrecedes(b.key.utf8) : a.group.utf8.lexicographicallyPrecedes(b.group.utf8)
        }
        let after = keys.drop { k in
            guard let c = cursor else { return false }
            return !(c.group.utf8.lexicographicallyPrecedes(k.group.utf8)
                || (c.group == k.group && c.key.utf8.lexicographicallyPrecedes(k.key.utf8)))
        }
        return Array(after.prefix(limit))
    }
}

extension DiskTier {
    func objectKeys(after cursor: EntryKey?, limit: Int) throws(StoreError) -> [EntryKey] {
        // Two statements, not one with "?2 IS NULL OR …": the optional form keeps
        // SQLite from seeking to the cursor, and every page would scan from the start.
        let s: any SQLStatement
        if let cursor {
            s = try db.statement("""
                SELECT grp, key FROM entries WHERE cache = ?1 AND (grp, key) > (?2, ?3) AND kind = 2
                ORDER BY grp, key LIMIT ?4
                """)
            s.bind(2, cursor.group).bind(3, cursor.key)
        } else {
            s = try db.statement("SELECT grp, key FROM entries WHERE cache = ?1 AND kind = 2 ORDER BY grp, key LIMIT ?4")
        }
        s.bind(1, cacheID).bind(4, limit)
        defer { s.reset() }
        var keys: [EntryKey] = []
        while try s.step() { keys.append(EntryKey(group: try s.string(0), key: try s.string(1))) }
        return keys
    }
}
