import LarderJSON
import LarderStorage

/// The versioned objects' registry: every registered version of each type
/// (`schema.register`, `schema.extend`), checked as it is registered, and
/// what has been read of it, kept until a rollback or another process's
/// commit.
final class ObjectStore {
    let database: any SQLConnection
    private let transactions: Transactions
    /// Registered versions per type, read from the store on first use.
    private let schemas = Derived<[ExactString: [TypeSchema]]>([:])

    init(database: any SQLConnection, transactions: Transactions) {
        self.database = database
        self.transactions = transactions
        transactions.observe(schemas)
    }

    /// Registers a version of a type. The same definition again is accepted;
    /// a different one under an existing version is a conflict, so nothing changes silently.
    /// Returns true when the version is new.
    func register(_ schema: TypeSchema) throws(StoreError) -> Bool {
        if try isRegistered(schema) { return false }
        // Whether the version is new is decided again holding the write lock,
        // when `beginWrite` has caught up with other processes: one may have
        // registered it since the look above, and its definition must then be
        // compared, not replaced.
        try transactions.begin()
        if try isRegistered(schema) { return false }
        try checkAgainstAncestors(schema)
        try checkNames(schema.fields + schema.extensions.flatMap(\.fields))
        try checkDefaults(schema.fields + schema.extensions.flatMap(\.fields))
        try save(schema)
        return true
    }

    /// Whether `schema`'s version is registered with this very definition;
    /// `.schemaConflict` when it is registered with another.
    private func isRegistered(_ schema: TypeSchema) throws(StoreError) -> Bool {
        guard let existing = try versions(of: schema.type).first(where: { $0.version == schema.version }) else { return false }
        // "1.0" and "1" are the same version: compare what they define, not how the version is spelled.
        var candidate = schema
        candidate.version = existing.version
        guard existing == candidate else {
            throw .schemaConflict(type: schema.type, version: schema.version.text)
        }
        return true
    }

    /// Adds extension fields to the newest version of a type, without a version bump.
    func extend(type: String, category: String, fields: [FieldDefinition]) throws(StoreError) -> TypeSchema {
        // The whole newest version is written back, so it is read holding the
        // write lock: another process's extension made since this process last
        // read it would otherwise be overwritten.
        try transactions.begin()
        guard var newest = try newestSchema(of: type) else { throw .schemaNotFound(type) }
        var taken = try registeredInheritedFields(of: newest).union(newest.ownFields.map(\.name))
        for f in fields where !taken.insert(f.name).inserted {
            throw .invalidArgument(field: "fields.\(f.name)", reason: "\(type) \(newest.version) already has a field \"\(f.name)\"")
        }
        try checkNames(fields)
        try checkDefaults(fields)
        if let k = newest.extensions.firstIndex(where: { $0.category == category }) {
            newest.extensions[k].fields += fields
        } else {
            newest.extensions.append((category, fields))
        }
        try save(newest)
        return newest
    }

    /// A child may not declare a field its ancestors already have.
    private func checkAgainstAncestors(_ schema: TypeSchema) throws(StoreError) {
        let inherited = try registeredInheritedFields(of: schema)
        if let clash = schema.ownFields.first(where: { inherited.contains($0.name) }) {
            throw .invalidArgument(field: "fields.\(clash.name)", reason: "\"\(clash.name)\" is already a field of an ancestor of \(schema.type)")
        }
    }

    /// Field names of the ancestors registered so far (they may come later).
    private func registeredInheritedFields(of schema: TypeSchema) throws(StoreError) -> Set<String> {
        var inherited = Set<String>()
        var next = schema.parent
        var seen: Set<String> = [schema.type]
        while let name = next, seen.insert(name).inserted, let parent = try newestSchema(of: name) {
            inherited.formUnion(parent.ownFields.map(\.name))
            next = parent.parent
        }
        return inherited
    }

    /// `$type` in a nested object names its type (a type inheriting from the
    /// one its field declares): no field can be called so.
    private func checkNames(_ fields: [FieldDefinition]) throws(StoreError) {
        if fields.contains(where: { $0.name == StoredObject.typeKey }) {
            throw .invalidArgument(field: "fields.\(StoredObject.typeKey)", reason: "\"\(StoredObject.typeKey)\" names the type of a nested object, so no field can be called so")
        }
    }

    /// A default must itself be a valid value of its field's type.
    private func checkDefaults(_ fields: [FieldDefinition]) throws(StoreError) {
        for f in fields {
            guard let d = f.defaultValue else { continue }
            do {
                _ = try ObjectValidator(objects: self).check(d, f.type, path: "fields.\(f.name).default", relative: "")
            } catch let e as StoreError {
                if case .invalidObject(let path, let reason) = e { throw .invalidArgument(field: path, reason: reason) }
                throw e
            } catch {
                throw .invalidArgument(field: "fields.\(f.name).default", reason: "\(error)")
            }
        }
    }

    private func save(_ schema: TypeSchema) throws(StoreError) {
        try transactions.begin()
        let s = try database.statement("INSERT INTO schemas (type, version, definition) VALUES (?, ?, ?) ON CONFLICT (type, version) DO UPDATE SET definition = excluded.definition")
        s.bind(1, schema.type).bind(2, schema.version.text).bind(3, schema.json.description)
        try s.run()
        schemas.value[ExactString(schema.type)] = nil
    }

    /// Every registered version of a type, oldest first.
    func versions(of type: String) throws(StoreError) -> [TypeSchema] {
        if let cached = schemas.value[ExactString(type)] { return cached }
        let s = try database.statement("SELECT version, definition FROM schemas WHERE type = ?")
        s.bind(1, type)
        var rows: [(String, String)] = []
        while try s.step() { rows.append((try s.string(0), try s.string(1))) }
        s.reset()
        var result: [TypeSchema] = []
        for (version, definition) in rows {
            result.append(try storedSchema(type: type, version: version, definition: definition))
        }
        result.sort { $0.version < $1.version }
        schemas.value[ExactString(type)] = result
        return result
    }

    /// A version as `save` stored it. Anything else is `.corrupt`: objects
    /// validated or migrated by a guessed definition would be changed for good.
    private func storedSchema(type: String, version: String, definition text: String) throws(StoreError) -> TypeSchema {
        func corrupt(_ reason: String) -> StoreError { .corrupt(.schema(type: type, version: version), reason: reason) }
        let json: JSON
        do { json = try JSONParser.parse(text) } catch { throw corrupt("not JSON (\(error))") }
        guard json["type"]?.stringValue == type, json["version"]?.stringValue == version else {
            throw corrupt("it describes type \(json["type"] ?? .null), version \(json["version"] ?? .null)")
        }
        do throws(StoreError) {
            return try TypeSchema(type: type, version: version, definition: json)
        } catch {
            guard case .invalidArgument(let field, let reason) = error else { throw error }
            throw corrupt("\(field): \(reason)")
        }
    }

    func newestSchema(of type: String) throws(StoreError) -> TypeSchema? {
        try versions(of: type).last
    }

    func schema(of type: String, version: SchemaVersion) throws(StoreError) -> TypeSchema? {
        try versions(of: type).first { $0.version == version }
    }

    /// Names of every registered type, sorted.
    func schemaTypes() throws(StoreError) -> [String] {
        let s = try database.statement("SELECT DISTINCT type FROM schemas ORDER BY type")
        defer { s.reset() }
        var names: [String] = []
        while try s.step() { names.append(try s.string(0)) }
        return names
    }

    /// Deletes every version of a type. Stored objects stay, readable as plain maps.
    func removeSchema(_ type: String) throws(StoreError) -> Int {
        let count = try versions(of: type).count
        guard count > 0 else { throw .schemaNotFound(type) }
        try transactions.begin()
        let s = try database.statement("DELETE FROM schemas WHERE type = ?")
        s.bind(1, type)
        try s.run()
        schemas.value[ExactString(type)] = nil
        return count
    }

    /// The newest versions of a schema's ancestors, nearest parent first.
    func ancestors(of schema: TypeSchema) throws(StoreError) -> [TypeSchema] {
        var chain: [TypeSchema] = []
        var seen: Set<String> = [schema.type]
        var next = schema.parent
        while let parentName = next {
            guard seen.insert(parentName).inserted else {
                throw .invalidArgument(field: "parent", reason: "\(schema.type) inherits from itself through \(parentName)")
            }
            guard let parent = try newestSchema(of: parentName) else { throw .schemaNotFound(parentName) }
            chain.append(parent)
            next = parent.parent
        }
        return chain
    }
}
