import LarderCore
import LarderJSON
import LarderRPC

/// The two hottest requests, `cache.get` and `cache.set`, answered straight
/// from their bytes: no JSON tree, no `Reply`, no method-table lookup, and a
/// get's result written once, into the output. Only plain requests are taken
/// (see `RequestView`); whatever this path does not recognise — other
/// members, escapes in names or keys, `data`, a missing cache for a get — it
/// declines before changing anything, and the ordinary path answers, with
/// the same semantics and every error message in one place.
extension Server {
    func answer(directly request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        if request.methodIs("cache.get") { return directGet(request, into: &result) }
        if request.methodIs("cache.set") { return directSet(request, into: &result) }
        return .declined
    }

    private func directGet(_ request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        let p = request.params
        guard p.hasOnly("cache", "group", "key"), let key = Self.entryKey(p), let name = Self.cacheName(p),
              admit(CacheGet.method) else { return .declined }
        let outcome = Result { () throws(StoreError) -> Void in
            guard let cache = try store.cache(named: name, create: false), let found = try cache.get(key) else {
                result.write(Cache.Lookup.notFound)
                return
            }
            found.write(into: &result)
        }
        return settle(request, outcome, result: &result, afterCommit: false)
    }

    private func directSet(_ request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        let p = request.params
        guard p.hasOnly("cache", "group", "key", "value", "ttl"), let key = Self.entryKey(p), let name = Self.cacheName(p) else {
            return .declined
        }
        guard let value = p.text("value") else { return .declined }
        let ttl: Int64?
        switch p["ttl"] {
        case .absent: ttl = nil
        case .plainString: return .declined
        case .other(let text):
            guard let ms = Self.milliseconds(text) else { return .declined }
            ttl = ms
        }
        guard admit(CacheSet.method) else { return .declined }
        let write = Cache.Write(key: key, kind: .json, bytes: Array(value), ttl: ttl)
        let outcome = Result { () throws(StoreError) -> Void in
            let cache = try store.cache(named: name, create: true)!
            try cache.set([write])
            result.writeASCII("{\"stored\":true,\"size\":")
            result.write(.int(write.bytes.count))
            result.writeASCII("}")
        }
        return settle(request, outcome, result: &result, afterCommit: true)
    }

    /// Whether the request may run now; if not, the ordinary path refuses it properly.
    private func admit(_ method: String) -> Bool {
        guard lifecycleRefusal(for: method) == nil else { return false }
        begin(method)
        return true
    }

    /// Sends the outcome now, or holds it behind the commit when it is a
    /// write's result or when earlier answers are waiting for one.
    private func settle(_ request: RequestView, _ outcome: Result<Void, StoreError>, result: inout JSONWriter,
                        afterCommit: Bool) -> DirectAnswer {
        if answersAreWaiting || (afterCommit && (try? outcome.get()) != nil) {
            switch outcome {
            case .success: holdDirect(request.id, .success(.fragment(JSONFragment(validJSON: result.bytes))))
            case .failure(let e): holdDirect(request.id, .failure(e.responseError))
            }
            return .later
        }
        switch outcome {
        case .success: return .answered
        case .failure(let e): return .failed(e.responseError)
        }
    }

    /// `key` (a non-empty plain string) in `group` (a plain string, "" when absent).
    private static func entryKey(_ p: ParamsView) -> EntryKey? {
        guard case .plainString(let key) = p["key"], !key.isEmpty else { return nil }
        let group: String
        switch p["group"] {
        case .absent: group = ""
        case .plainString(let g): group = String(decoding: g, as: UTF8.self)
        case .other: return nil
        }
        return EntryKey(group: group, key: String(decoding: key, as: UTF8.self))
    }

    /// `cache`: a non-empty plain string, "default" when absent.
    private static func cacheName(_ p: ParamsView) -> String? {
        switch p["cache"] {
        case .absent: return "default"
        case .plainString(let name): return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
        case .other: return nil
        }
    }

    /// A `ttl` in seconds that `Params.milliseconds` accepts, as milliseconds.
    private static func milliseconds(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let first = text.first, first &- UInt8(ascii: "0") < 10 else { return nil }
        let seconds = JSONNumber(validLiteral: String(decoding: text, as: UTF8.self)).double
        guard seconds < 9e15 else { return nil }
        return Int64((seconds * 1000).rounded())
    }
}
