import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `object.put`: validates a value (or every value of an array) against the
/// newest version of its type (or the older one it names) and stores it, tagged.
enum ObjectPut: MethodDefinition {
    static let method = "object.put"

    struct Params: ParamsObject {
        static let members = ["cache", "group", "key", "type", "value", "values", "version", "ttl", "ifRevision", "ifAbsent"]
        static let requiredMembers = ["key", "type"]
        let cache: String
        let key: EntryKey
        let type: String
        /// One object (`value`) or an array of objects of `type` (`values`).
        let given: GivenObjects
        /// Written at this version rather than the newest: an app whose old
        /// release still writes must be able to say so; it migrates on read.
        let version: SchemaVersion?
        let ttl: Int64?
        let condition: WriteCondition?

        init(_ p: ParamsReader) throws(ResponseError) {
            key = try p.entryKey()
            type = try p.require("type", as: String.self)
            given = try p.givenObjects()
            version = try p.optional("version", as: String.self).map { text throws(ResponseError) in
                guard let v = SchemaVersion(text) else {
                    throw .invalidParams("\(p.path).version must be a version such as 1.0.2, not \(text.echoed)")
                }
                return v
            }
            ttl = try p.milliseconds("ttl")
            condition = try p.condition()
            cache = try p.cacheName()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        // Validate before anything is created: a refused put leaves no trace.
        let content = try r.server.mappingStoreErrors { () throws(StoreError) in try p.given.tagged(as: p.type, version: p.version, store: store) }
        let cache = try r.server.cache(p.cache, create: true)!
        let revision = try r.server.mappingStoreErrors { () throws(StoreError) in try cache.put(content, at: p.key, ttl: p.ttl, condition: p.condition) }
        if case .array(let array) = content {
            return .afterCommit(Result(type: p.type, version: array.version.text, count: array.values.count, revision: revision))
        }
        return .afterCommit(Result(type: p.type, version: content.version.text, count: nil, revision: revision))
    }

    struct Result: MethodResult {
        let type: String
        /// The version the value was validated against and stored under, as registered.
        let version: String
        /// For an array of objects: how many were stored.
        let count: Int?
        /// The entry's new revision (SPEC 6.14); not the object's version.
        let revision: Int64
        var json: JSON {
            var o: JSONObject = ["stored": true, "type": .string(type), "version": .string(version), "revision": .int(Int(revision))]
            if let count {
                o.append("form", "array")
                o.append("count", .int(count))
            }
            return .object(o)
        }
    }
}
