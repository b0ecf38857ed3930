import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `object.get`: the object (or array of objects) at the newest version of
/// its type, migrated (and written back) if it was stored under an older one.
enum ObjectGet: MethodDefinition {
    static let method = "object.get"

    struct Params: ParamsObject {
        static let members = ["cache", "group", "key", "type"]
        static let requiredMembers = ["key"]
        let cache: String
        let key: EntryKey
        /// The type the caller expects; another is an error rather than a surprise.
        let type: String?

        init(_ p: ParamsReader) throws(ResponseError) {
            key = try p.entryKey()
            type = try p.optional("type", as: String.self)
            cache = try p.cacheName()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        guard let cache = try r.server.cache(p.cache, create: false) else { return .result(.notFound) }
        let reply = r.reply, server = r.server
        ObjectFetch.read(p.key, in: cache, server: server) { outcome in
            server.gate.answer(reply, outcome.flatMap { read in
                Swift.Result { () throws(ResponseError) in
                    // Read after the object, which a migration may have written back with a new revision.
                    let revision = try server.mappingStoreErrors { () throws(StoreError) in try cache.revision(of: p.key) }
                    return try Result(read, expected: p.type, key: p.key.key).json(revision: revision)
                }
            }, after: .commit)
        }
        return .deferred
    }

    enum Result: MethodResult {
        case notFound
        /// The object's type has no version left that it could be migrated to (a migration dropped it).
        case dropped(type: String, from: String)
        case found(type: String, version: String, value: JSON, migratedFrom: String?)
        /// An array of objects; `dropped`: indices of elements a migration callback dropped.
        case array(type: String, version: String, values: [JSON], migratedFrom: String?, dropped: [Int])

        init(_ read: ObjectRead, expected: String?, key: String) throws(ResponseError) {
            switch read {
            case .notFound: self = .notFound
            case .dropped(let type, let from): self = .dropped(type: type, from: from.text)
            case .current(let s): self = .found(type: s.type, version: s.version.text, value: s.plainValue, migratedFrom: nil)
            case .migrated(let s, let from):
                self = .found(type: s.type, version: s.version.text, value: s.plainValue, migratedFrom: from.text)
            case .untyped(let type, let version, let value): self = .found(type: type, version: version, value: value, migratedFrom: nil)
            case .array(let read):
                self = .array(type: read.array.type, version: read.array.version.text, values: read.array.plainValues,
                              migratedFrom: read.migratedFrom?.text, dropped: read.dropped)
            case .needsCallback: throw .internalError("a migration callback was left unanswered")
            }
            if let type = foundType, let expected, expected != type {
                let (key, type) = (key.echoed, type.echoed)
                throw .requestFailed("the object under \"\(key)\" is a \(type), not a \(expected.echoed)",
                                     data: ["key": .string(key), "type": .string(type)])
            }
        }

        /// The type of what was found.
        private var foundType: String? {
            switch self {
            case .found(let type, _, _, _), .array(let type, _, _, _, _): return type
            case .notFound, .dropped: return nil
            }
        }

        var json: JSON { json(revision: nil) }

        /// The result, a found object or array with the entry's `revision` (SPEC 6.14).
        func json(revision: Int64?) -> JSON {
            switch self {
            case .notFound: return ["found": false]
            case .dropped(let type, let from):
                return ["found": false, "dropped": true, "type": .string(type), "migratedFrom": .string(from)]
            case .found(let type, let version, let value, let from):
                var o: JSONObject = ["found": true, "type": .string(type), "version": .string(version), "value": value]
                if let from { o["migratedFrom"] = .string(from) }
                if let revision { o["revision"] = .int(Int(revision)) }
                return .object(o)
            case .array(let type, let version, let values, let from, let dropped):
                var o: JSONObject = ["found": true, "form": "array", "type": .string(type), "version": .string(version),
                                     "values": .array(values)]
                if let from { o["migratedFrom"] = .string(from) }
                if !dropped.isEmpty { o["droppedElements"] = .array(dropped.map(JSON.int)) }
                if let revision { o["revision"] = .int(Int(revision)) }
                return .object(o)
            }
        }
    }
}
