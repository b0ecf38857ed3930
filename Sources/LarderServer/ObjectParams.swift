import LarderCore
import LarderJSON
import LarderRPC

/// An object named in a request: a key (in the request's cache and group), or an inline `{type, value}`.
enum ObjectOperand {
    case stored(cache: String, key: EntryKey)
    case inline(type: String, value: JSON)

    /// `key` (with its `cache` and `group`), or `type` with `value`: the
    /// params of `object.describe` and `object.hash`, and the object form of
    /// `object.equals`' `a` and `b`.
    struct Params: ParamsObject {
        static let members = ["cache", "group", "key", "type", "value"]
        let operand: ObjectOperand

        init(_ p: ParamsReader) throws(ResponseError) {
            if p.contains("key") {
                guard !p.contains("type") && p.object["value"] == nil else {
                    throw .invalidParams("\(p.path) names an object by key or gives type and value, not both")
                }
                operand = .stored(cache: try p.cacheName(), key: try p.entryKey())
                return
            }
            guard p.contains("type") else {
                throw .invalidParams("\(p.path) needs key, or type and value")
            }
            guard p.object["cache"] == nil && p.object["group"] == nil else {
                throw .invalidParams("\(p.path) gives type and value inline: cache and group belong with key")
            }
            let type = try p.require("type", as: String.self)
            guard let value = p.object["value"] else { throw .invalidParams("missing required parameter \(p.path).value (any JSON value)") }
            operand = .inline(type: type, value: value)
        }
    }

    /// A member that is a key string (in the request's cache and group) or an
    /// object as `Params` reads it (`object.equals`' `a` and `b`).
    static func member(_ name: String, of p: ParamsReader) throws(ResponseError) -> ObjectOperand {
        guard let v = p[name] else { throw .invalidParams("missing required parameter \(p.path).\(name) (a key or {type, value})") }
        if case .string(let key) = v {
            return .stored(cache: try p.cacheName(), key: EntryKey(group: try p.group(), key: try p.nonEmptyKey(key, at: "\(p.path).\(name)")))
        }
        return try Params.decode(v, at: "\(p.path).\(name)").operand
    }
}

extension Server {
    /// Resolves an operand to a tagged object at the newest versions (stored
    /// ones migrated through `ObjectFetch`, which may ask the client first).
    func resolve(_ operand: ObjectOperand, completion: @escaping (Result<StoredObject, ResponseError>) -> Void) {
        switch operand {
        case .inline(let type, let value):
            completion(Result { () throws(ResponseError) in
                try core { () throws(StoreError) in try ObjectValidator.tagged(value, as: type, store: store) }
            })
        case .stored(let cacheName, let key):
            let shown = key.key.echoed
            let missing = ResponseError.requestFailed("no object under key \"\(shown)\"", data: ["key": .string(shown)])
            let cache: Cache?
            do {
                cache = try core { () throws(StoreError) in try store.cache(named: cacheName, create: false) }
            } catch {
                return completion(.failure(error))
            }
            guard let cache else { return completion(.failure(missing)) }
            ObjectFetch.read(key, in: cache, server: self) { [unowned self] outcome in
                completion(outcome.flatMap { read in
                    switch read {
                    case .current(let s), .migrated(let s, _): return .success(s)
                    case .untyped(let type, let version, let value):
                        return Result { () throws(ResponseError) in
                            try core { () throws(StoreError) in try StoredObject(untyped: type, version: version, value: value) }
                        }
                    case .notFound, .dropped: return .failure(missing)
                    case .needsCallback: return .failure(.internalError("a migration callback was left unanswered"))
                    }
                })
            }
        }
    }

    /// Resolves one operand and answers with `body`'s result.
    func answer<R: MethodResult>(_ r: Request, about operand: ObjectOperand,
                                 _ body: @escaping (StoredObject) throws(ResponseError) -> R) -> Response<R> {
        let reply = r.reply
        resolve(operand) { [unowned self] resolved in
            finishAfterCommit(reply, resolved.flatMap { s in Swift.Result { () throws(ResponseError) in try body(s).json } })
        }
        return .deferred
    }
}
