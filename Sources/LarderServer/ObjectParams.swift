import LarderCore
import LarderJSON
import LarderRPC

/// An object named in a request: a key (in the request's cache and group), or an inline `{type, value}`.
enum ObjectOperand {
    case stored(cache: String, key: EntryKey)
    case inline(type: String, value: JSON)

    /// `params.key` (with its `cache` and `group`), or `params.type` with `params.value`.
    static func from(_ p: Params) throws(ResponseError) -> ObjectOperand {
        if p.contains("key") { return .stored(cache: try p.cacheName(), key: try p.entryKey()) }
        guard p.contains("type") else {
            throw .invalidParams("\(p.path) needs key, or type and value")
        }
        let type = try p.require("type", as: String.self)
        guard let value = p.object["value"] else { throw .invalidParams("missing required parameter \(p.path).value (any JSON value)") }
        return .inline(type: type, value: value)
    }

    /// A member that is a key string or a `{type, value}` object (object.equals' `a` and `b`).
    static func member(_ name: String, of p: Params) throws(ResponseError) -> ObjectOperand {
        guard let v = p[name] else { throw .invalidParams("missing required parameter \(p.path).\(name) (a key or {type, value})") }
        if case .string(let key) = v {
            return .stored(cache: try p.cacheName(), key: EntryKey(group: try p.group(), key: try p.nonEmptyKey(key, at: "\(p.path).\(name)")))
        }
        return try from(try Params.decode(v, at: "\(p.path).\(name)"))
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
            let missing = ResponseError.requestFailed("no object under key \"\(key.key)\"", data: ["key": .string(key.key)])
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
    func answer(_ r: Request, about operand: ObjectOperand, _ body: @escaping (StoredObject) throws(ResponseError) -> JSON) -> Response {
        let reply = r.reply
        resolve(operand) { [unowned self] resolved in
            finishAfterCommit(reply, resolved.flatMap { s in Result { () throws(ResponseError) in try body(s) } })
        }
        return .deferred
    }
}
