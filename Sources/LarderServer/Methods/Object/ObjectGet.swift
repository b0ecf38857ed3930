import LarderCore
import LarderJSON
import LarderRPC

/// `object.get`: the object at the newest version of its type, migrated (and
/// written back) if it was stored under an older one.
enum ObjectGet: MethodHandler {
    static let method = "object.get"
    static let requiredParams = ["key"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let key = try r.params.entryKey()
        let expected = try r.params.optional("type", as: String.self)
        guard let cache = try r.server.cache(r, create: false) else { return .result(["found": false]) }
        let reply = r.reply, server = r.server
        ObjectFetch.read(key, in: cache, server: server) { outcome in
            server.finishAfterCommit(reply, outcome.flatMap { read in answer(read, expected: expected, key: key.key) })
        }
        return .deferred
    }

    static func answer(_ read: ObjectRead, expected: String?, key: String) -> Result<JSON, ResponseError> {
        func found(_ type: String, _ version: String, _ value: JSON, from: String? = nil) -> Result<JSON, ResponseError> {
            if let expected, expected != type {
                return .failure(.requestFailed("the object under \"\(key)\" is a \(type), not a \(expected)",
                                               data: ["key": .string(key), "type": .string(type)]))
            }
            var o: JSONObject = ["found": true, "type": .string(type), "version": .string(version), "value": value]
            if let from { o["migratedFrom"] = .string(from) }
            return .success(.object(o))
        }
        switch read {
        case .notFound: return .success(["found": false])
        case .dropped(let type, let from):
            return .success(["found": false, "dropped": true, "type": .string(type), "migratedFrom": .string(from.text)])
        case .current(let s): return found(s.type, s.version.text, s.plainValue)
        case .migrated(let s, let from): return found(s.type, s.version.text, s.plainValue, from: from.text)
        case .untyped(let type, let version, let value): return found(type, version, value)
        case .needsCallback: return .failure(.internalError("a migration callback was left unanswered"))
        }
    }
}
