import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// What a request gives as an object: `value` (one object) or `values` (an
/// array of objects of one type).
enum GivenObjects {
    case single(JSON)
    case array([JSON])

    /// Validated and tagged for storage, at `version` (the newest when nil).
    func tagged(as type: String, version: SchemaVersion? = nil, store: Store) throws(StoreError) -> ObjectContent {
        switch self {
        case .single(let value): return .single(try ObjectValidator.tagged(value, as: type, version: version, store: store))
        case .array(let values): return .array(try ObjectValidator.taggedArray(values, as: type, version: version, store: store))
        }
    }
}

extension ParamsReader {
    /// `value` (any JSON, validated later as an object) or `values` (an array): exactly one of them.
    func givenObjects() throws(ResponseError) -> GivenObjects {
        switch (object["value"], self["values"]) {
        case (nil, nil):
            throw .invalidParams("\(path) needs value (an object) or values (an array of objects)")
        case (.some, .some):
            throw .invalidParams("\(path) has both value and values; give one")
        case (.some(let value), nil):
            return .single(value)
        case (nil, .some(let values)):
            return .array(try [JSON].decode(values, at: "\(path).values"))
        }
    }
}

/// An object named in a request: a key (in the request's cache and group),
/// or an inline `{type, value}` (or `{type, values}`, an array of objects).
enum ObjectOperand {
    case stored(cache: String, key: EntryKey)
    case inline(type: String, GivenObjects)

    /// `key` (with its `cache` and `group`), or `type` with `value` or
    /// `values`: the params of `object.describe` and `object.hash`, and the
    /// object form of `object.equals`' `a` and `b`.
    struct Params: ParamsObject {
        static let members = ["cache", "group", "key", "type", "value", "values"]
        let operand: ObjectOperand

        init(_ p: ParamsReader) throws(ResponseError) {
            if p.contains("key") {
                guard !p.contains("type") && p.object["value"] == nil && !p.contains("values") else {
                    throw .invalidParams("\(p.path) names an object by key or gives type and value (or values), not both")
                }
                operand = .stored(cache: try p.cacheName(), key: try p.entryKey())
                return
            }
            guard p.contains("type") else {
                throw .invalidParams("\(p.path) needs key, or type and value (or values)")
            }
            guard p.object["cache"] == nil && p.object["group"] == nil else {
                throw .invalidParams("\(p.path) gives type and value inline: cache and group belong with key")
            }
            operand = .inline(type: try p.require("type", as: String.self), try p.givenObjects())
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
    /// Resolves an operand to a tagged object, or array of objects, at the
    /// newest versions (stored ones migrated through `ObjectFetch`, which may
    /// ask the client first).
    func resolve(_ operand: ObjectOperand, completion: @escaping (Result<ObjectContent, ResponseError>) -> Void) {
        switch operand {
        case .inline(let type, let given):
            completion(Result { () throws(ResponseError) in
                try mappingStoreErrors { () throws(StoreError) in try given.tagged(as: type, store: store) }
            })
        case .stored(let cacheName, let key):
            let shown = key.key.echoed
            let missing = ResponseError.requestFailed("no object under key \"\(shown)\"", data: ["key": .string(shown)])
            let cache: Cache?
            do {
                cache = try mappingStoreErrors { () throws(StoreError) in try store.cache(named: cacheName, create: false) }
            } catch {
                return completion(.failure(error))
            }
            guard let cache else { return completion(.failure(missing)) }
            ObjectFetch.read(key, in: cache, server: self) { [unowned self] outcome in
                completion(outcome.flatMap { read in
                    switch read {
                    case .current(let s), .migrated(let s, _): return .success(.single(s))
                    case .array(let read): return .success(.array(read.array))
                    case .untyped(let type, let version, let value):
                        return Result { () throws(ResponseError) in
                            .single(try mappingStoreErrors { () throws(StoreError) in try StoredObject(untyped: type, version: version, value: value) })
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
                                 _ body: @escaping (ObjectContent) throws(ResponseError) -> R) -> Response<R> {
        let reply = r.reply
        resolve(operand) { [unowned self] resolved in
            gate.answer(reply, resolved.flatMap { s in Swift.Result { () throws(ResponseError) in try body(s).json } }, after: .commit)
        }
        return .deferred
    }
}
