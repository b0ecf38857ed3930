import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// Larder's own error codes, outside JSON-RPC's reserved -32768...-32000.
extension ErrorCode {
    public static let storeUnavailable = ErrorCode(rawValue: -31000)
    public static let storageFailure = ErrorCode(rawValue: -31001)
    public static let storeLocked = ErrorCode(rawValue: -31002)
    public static let storageUnavailable = ErrorCode(rawValue: -31003)
    public static let storeLost = ErrorCode(rawValue: -31004)
    public static let cacheNotFound = ErrorCode(rawValue: -31010)
    public static let schemaConflict = ErrorCode(rawValue: -31020)
    public static let schemaNotFound = ErrorCode(rawValue: -31021)
    public static let invalidObject = ErrorCode(rawValue: -31022)
    public static let notAnObject = ErrorCode(rawValue: -31023)
    public static let migrationMissing = ErrorCode(rawValue: -31030)
    public static let migrationFailed = ErrorCode(rawValue: -31031)
    public static let entityNotFound = ErrorCode(rawValue: -31040)
    public static let modelConflict = ErrorCode(rawValue: -31041)
    public static let unresolvedReferences = ErrorCode(rawValue: -31042)
    public static let deleteDenied = ErrorCode(rawValue: -31043)
    public static let incompleteRecord = ErrorCode(rawValue: -31044)
    public static let fetchFailed = ErrorCode(rawValue: -31050)
    public static let encryptionKey = ErrorCode(rawValue: -31060)
    public static let integrity = ErrorCode(rawValue: -31061)
    public static let appVersionSuperseded = ErrorCode(rawValue: -31070)
    public static let conditionFailed = ErrorCode(rawValue: -31080)
    public static let notAnInteger = ErrorCode(rawValue: -31081)
    public static let lockNotHeld = ErrorCode(rawValue: -31090)
}

extension StoreError {
    /// The one mapping from core errors to the protocol (and, for a store
    /// that cannot be opened at start, to the words on stderr). Every name,
    /// key, path and sentence in a core error may repeat what a client sent,
    /// so each is `echoed` (capped) here, in the message and in `data` alike.
    public var responseError: ResponseError {
        switch self {
        case .unavailable(let path, let reason):
            return ResponseError(code: .storeUnavailable, message: "store unavailable at \(path.echoed): \(reason.echoed)",
                                 data: ["path": .string(path.echoed)])
        case .lost(let path, let reason):
            return ResponseError(code: .storeLost, message: "store lost: \(path.echoed) was \(reason) while in use; nothing written since is kept",
                                 data: ["path": .string(path.echoed)])
        case .storage(let code, let message) where code & 0xFF == 5 || code & 0xFF == 6:
            // SQLITE_BUSY or SQLITE_LOCKED after the busy timeout: another process holds the store.
            return ResponseError(code: .storeLocked, message: "the store is locked by another process: \(message)",
                                 data: ["sqliteCode": .int(Int(code)), "retryable": true])
        case .storage(let code, let message):
            return ResponseError(code: .storageFailure, message: "storage failure: \(message)",
                                 data: ["sqliteCode": .int(Int(code))])
        case .storageUnavailable(let reason, let sqlState):
            // The PostgreSQL server cannot be reached; the sidecar reconnects by itself.
            var data: JSONObject = ["retryable": true]
            if let sqlState { data["sqlState"] = .string(sqlState) }
            return ResponseError(code: .storageUnavailable, message: "storage unavailable: \(reason.echoed)", data: .object(data))
        case .postgreSQL(let sqlState, let message) where isRetryable:
            // A serialization failure, a deadlock or a lock timeout: another writer was in the way, as with -31002.
            return ResponseError(code: .storeLocked, message: "the write conflicted with another: \(message.echoed)",
                                 data: ["sqlState": .string(sqlState), "retryable": true])
        case .postgreSQL(let sqlState, let message):
            return ResponseError(code: .storageFailure, message: "storage failure: \(message.echoed)", data: ["sqlState": .string(sqlState)])
        case .corrupt(let item, let reason):
            return Self.corrupt(item, reason: reason)
        case .internalFailure(let message):
            return .internalError(message)
        case .cacheNotFound(let name):
            let cache = name.echoed
            return ResponseError(code: .cacheNotFound, message: "no cache named \"\(cache)\"", data: ["cache": .string(cache)])
        case .schemaConflict(let type, let version):
            let (type, version) = (type.echoed, version.echoed)
            return ResponseError(code: .schemaConflict,
                                 message: "\(type) \(version) is already registered with a different definition",
                                 data: ["type": .string(type), "version": .string(version)])
        case .schemaNotFound(let type):
            let type = type.echoed
            return ResponseError(code: .schemaNotFound, message: "no schema registered for type \"\(type)\"", data: ["type": .string(type)])
        case .schemaVersionNotFound(let type, let version):
            let (type, version) = (type.echoed, version.echoed)
            return ResponseError(code: .schemaNotFound, message: "\(type) has no version \(version)",
                                 data: ["type": .string(type), "version": .string(version)])
        case .invalidObject(let path, let reason):
            let (path, reason) = (path.echoed, reason.echoed)
            return ResponseError(code: .invalidObject, message: "invalid object at \(path): \(reason)",
                                 data: ["path": .string(path), "reason": .string(reason)])
        case .notAnObject(let key):
            let key = key.echoed
            return ResponseError(code: .notAnObject, message: "the entry \"\(key)\" is not an object (it was stored with cache.set)",
                                 data: ["key": .string(key)])
        case .migrationMissing(let type, let from, let to, let fields):
            let (type, from, to, fields) = (type.echoed, from.echoed, to.echoed, fields.map(\.echoed))
            return ResponseError(code: .migrationMissing,
                                 message: "no migration leads \(type) from \(from) to \(to); fields that differ: \(fields.joined(separator: ", "))",
                                 data: ["type": .string(type), "fromVersion": .string(from), "toVersion": .string(to),
                                        "fields": .array(fields.map(JSON.string))])
        case .migrationFailed(let key, let type, let from, let to, let reason):
            let (key, type, from, to, reason) = (key.echoed, type.echoed, from.echoed, to.echoed, reason.echoed)
            return ResponseError(code: .migrationFailed, message: "migrating \(type) \"\(key)\" from \(from) to \(to) failed: \(reason)",
                                 data: ["key": .string(key), "type": .string(type), "fromVersion": .string(from),
                                        "toVersion": .string(to), "reason": .string(reason)])
        case .unknownMember(let unknown):
            return .unknownMember(unknown.located(under: "params"))
        case .invalidArgument(let field, let reason):
            return .invalidParams("\(field.echoed): \(reason.echoed)")
        case .entityNotFound(let entity):
            let entity = entity.echoed
            return ResponseError(code: .entityNotFound, message: "no model defines an entity named \"\(entity)\"",
                                 data: ["entity": .string(entity)])
        case .modelConflict(let model, let changes):
            let (model, changes) = (model.echoed, changes.map(\.echoed))
            return ResponseError(code: .modelConflict,
                                 message: "model \(model) cannot be redefined in place: \(changes.joined(separator: "; "))",
                                 data: ["model": .string(model), "changes": .array(changes.map(JSON.string))])
        case .unresolvedReferences(let references):
            return Self.unresolved(references)
        case .deleteDenied(let entity, let id, let relationship, let related):
            let (entity, id, relationship) = (entity.echoed, Self.echoed(id), relationship.echoed)
            return ResponseError(code: .deleteDenied,
                                 message: "cannot delete \(entity) \(id): \(related) related record\(related == 1 ? "" : "s") through \(relationship), whose delete rule is deny",
                                 data: ["entity": .string(entity), "id": id, "relationship": .string(relationship), "related": .int(related)])
        case .incompleteRecord(let entity, let id, let missing):
            let (entity, id, missing) = (entity.echoed, Self.echoed(id), missing.map(\.echoed))
            return ResponseError(code: .incompleteRecord,
                                 message: "\(entity) \(id) is new and lacks required attributes: \(missing.joined(separator: ", ")); nothing was written",
                                 data: ["entity": .string(entity), "id": id, "missing": .array(missing.map(JSON.string))])
        case .encryption(let cache, let problem):
            return Self.encryption(cache.echoed, problem)
        case .integrity(let cache, let key):
            let cache = cache.echoed
            guard let key = key?.echoed else {
                return ResponseError(code: .integrity,
                                     message: "a sealed key of cache \"\(cache)\" failed its integrity check: the store was changed outside Larder",
                                     data: ["cache": .string(cache)])
            }
            return ResponseError(code: .integrity,
                                 message: "the entry \"\(key)\" of cache \"\(cache)\" failed its integrity check: it was changed outside Larder, or moved; other entries are unaffected",
                                 data: ["cache": .string(cache), "key": .string(key)])
        case .appVersionSuperseded(let cache, let appVersion, let cacheAppVersion):
            let (cache, appVersion, cacheAppVersion) = (cache.echoed, appVersion.echoed, cacheAppVersion.echoed)
            return ResponseError(code: .appVersionSuperseded,
                                 message: "cache \"\(cache)\" holds the data of app version \(cacheAppVersion), whose process began using it after this one (\(appVersion)) did: this process reads it as empty and may not write to it",
                                 data: ["cache": .string(cache), "appVersion": .string(appVersion), "cacheAppVersion": .string(cacheAppVersion)])
        case .conditionFailed(let key, let expected, let revision):
            let key = key.echoed
            let found = revision.map { "is at revision \($0)" } ?? "does not exist"
            return ResponseError(code: .conditionFailed, message: "condition failed: the entry \"\(key)\" \(found), and the write wanted \(expected); nothing was written",
                                 data: ["key": .string(key), "revision": revision.map { .int(Int($0)) } ?? .null])
        case .notAnInteger(let key, let reason):
            let key = key.echoed
            return ResponseError(code: .notAnInteger, message: "the entry \"\(key)\" cannot be counted: \(reason.echoed); nothing was written",
                                 data: ["key": .string(key)])
        case .lockNotHeld(let name, let token):
            let name = name.echoed
            let now = token.map { "the lease held now has token \($0)" } ?? "no lease is held on it now"
            return ResponseError(code: .lockNotHeld, message: "the token given is not that of the lease on \"\(name)\": \(now)",
                                 data: ["name": .string(name), "token": token.map { .int(Int($0)) } ?? .null])
        case .operation(let branch, let index, _, .invalidArgument(let field, let reason)):
            return .invalidParams("params.\(branch)[\(index)].\(field.echoed): \(reason.echoed)")
        case .operation(let branch, let index, let key, let error):
            var e = error.responseError
            e.message = "\(branch)[\(index)]: \(e.message)"
            var data = e.data?.objectValue ?? JSONObject()
            data["key"] = .string(key.echoed)
            data["index"] = .int(index)
            data["branch"] = .string(branch)
            e.data = .object(data)
            return e
        case .element(let index, let error):
            var e = error.responseError
            e.message = "element \(index): \(e.message)"
            var data = e.data?.objectValue ?? JSONObject()
            data["index"] = .int(index)
            e.data = .object(data)
            return e
        }
    }

    /// -31060, with `data.reason` naming the problem (SPEC 6.11).
    private static func encryption(_ cache: String, _ problem: EncryptionProblem) -> ResponseError {
        let message: String
        var data: JSONObject = ["cache": .string(cache), "reason": .string(problem.rawValue)]
        switch problem {
        case .keyRequired:
            message = "cache \"\(cache)\" is encrypted and this session holds no key for it (initialize {encryption: {key}}, or larder --key-file)"
        case .keyMismatch:
            message = "the key this session holds for cache \"\(cache)\" is not the one its data was sealed under"
        case .rekeyInterrupted:
            message = "a rekey of cache \"\(cache)\" stopped part-way; cache.rekey with the same new key, from a session holding the old one, finishes it"
        case .rekeyRunning:
            message = "cache \"\(cache)\" is being rekeyed; it can be used again when cache.rekey has answered"
            data["retryable"] = true
        }
        return ResponseError(code: .encryptionKey, message: message, data: .object(data))
    }

    /// A record's identifier as an error repeats it: a string one capped like
    /// any text, a number (a short literal in practice) as it is.
    private static func echoed(_ id: JSON) -> JSON {
        guard case .string(let text) = id else { return id }
        return .string(text.echoed)
    }

    /// A storage failure naming the corrupt row. -31001 always carries a
    /// SQLite code; SQLITE_CORRUPT is SQLite's own word for a store whose
    /// content is not what was written.
    private static func corrupt(_ item: Corrupted, reason: String) -> ResponseError {
        let sqliteCorrupt: JSON = .int(11)
        let reason = reason.echoed
        switch item {
        case .cacheSettings(let cache):
            let cache = cache.echoed
            return ResponseError(code: .storageFailure, message: "storage failure: the settings of cache \"\(cache)\" are corrupt: \(reason)",
                                 data: ["sqliteCode": sqliteCorrupt, "cache": .string(cache), "reason": .string(reason)])
        case .schema(let type, let version):
            let (type, version) = (type.echoed, version.echoed)
            return ResponseError(code: .storageFailure, message: "storage failure: the stored definition of \(type) \(version) is corrupt: \(reason)",
                                 data: ["sqliteCode": sqliteCorrupt, "type": .string(type), "version": .string(version), "reason": .string(reason)])
        case .entityModel(let model):
            let model = model.echoed
            return ResponseError(code: .storageFailure, message: "storage failure: the stored definition of entity model \(model) is corrupt: \(reason)",
                                 data: ["sqliteCode": sqliteCorrupt, "model": .string(model), "reason": .string(reason)])
        }
    }

    /// Lists the missing records once each (by entity, in the order first met),
    /// and the references to them, the first hundred in full.
    private static func unresolved(_ references: [UnresolvedReference]) -> ResponseError {
        var missing = JSONObject()
        var seen = Set<String>()
        var names: [String] = []
        for r in references where seen.insert(r.destination + "\u{0}" + r.missingID.description).inserted {
            let (destination, missingID) = (r.destination.echoed, echoed(r.missingID))
            var ids = missing[destination]?.arrayValue ?? []
            ids.append(missingID)
            missing[destination] = .array(ids)
            names.append("\(destination) \(missingID)")
        }
        let shown = names.prefix(10).joined(separator: ", ") + (names.count > 10 ? " and \(names.count - 10) more" : "")
        let detail = references.prefix(100).map { r -> JSON in
            ["entity": .string(r.entity.echoed), "id": echoed(r.id), "relationship": .string(r.relationship.echoed),
             "destination": .string(r.destination.echoed), "missingId": echoed(r.missingID)]
        }
        return ResponseError(
            code: .unresolvedReferences,
            message: "\(references.count) reference\(references.count == 1 ? "" : "s") to records that exist neither in the batch nor in the store: \(shown); nothing was written",
            data: ["missing": .object(missing), "references": .array(detail), "count": .int(references.count)])
    }
}
