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
        let cache = p["cache"], group = p["group"], key = p["key"]
        guard p.count == Self.present(cache, group, key), let name = Self.cacheName(cache),
              let (group, key) = Self.entryKey(group, key), admit(CacheGet.method) else { return .declined }
        do throws(StoreError) {
            let cache = try store.cache(namedUTF8: name, create: false)
            let found = try cache?.get(group: group, key: key) { $0.write(into: &result) } ?? false
            if !found { result.write(Cache.Lookup.notFound) }
        } catch {
            return failed(request, error)
        }
        return succeeded(request, result: &result, afterCommit: false)
    }

    private func directSet(_ request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        let p = request.params
        let cache = p["cache"], group = p["group"], key = p["key"], value = p["value"], ttlValue = p["ttl"]
        guard p.count == Self.present(cache, group, key, value, ttlValue), let name = Self.cacheName(cache),
              let (group, key) = Self.entryKey(group, key) else { return .declined }
        guard value.isPresent, let bytes = p.text("value") else { return .declined }
        let ttl: Int64?
        switch ttlValue {
        case .absent: ttl = nil
        case .plainString: return .declined
        case .other(let text):
            guard let ms = Self.milliseconds(text) else { return .declined }
            ttl = ms
        }
        guard admit(CacheSet.method) else { return .declined }
        let write = Cache.Write(key: EntryKey(group: group, key: key), kind: .json, bytes: Array(bytes), ttl: ttl)
        do throws(StoreError) {
            let cache = try store.cache(namedUTF8: name, create: true)!
            try cache.set(write)
        } catch {
            return failed(request, error)
        }
        result.writeASCII("{\"stored\":true,\"size\":")
        result.writeInt(write.bytes.count)
        result.writeASCII("}")
        return succeeded(request, result: &result, afterCommit: true)
    }

    /// Whether the request may run now; if not, the ordinary path refuses it properly.
    private func admit(_ method: String) -> Bool {
        guard lifecycleRefusal(for: method) == nil else { return false }
        begin(method)
        return true
    }

    /// Sends the result now, or holds it behind the commit when it is a
    /// write's or when earlier answers are waiting for one.
    private func succeeded(_ request: RequestView, result: inout JSONWriter, afterCommit: Bool) -> DirectAnswer {
        guard answersAreWaiting || afterCommit else { return .answered }
        holdDirect(request.id, result: result)
        return .later
    }

    /// Sends the error now, or holds it when earlier answers are waiting for the commit.
    private func failed(_ request: RequestView, _ error: StoreError) -> DirectAnswer {
        settleFailedTransaction()
        guard answersAreWaiting else { return .failed(error.responseError) }
        holdDirect(request.id, error: error.responseError)
        return .later
    }

    /// How many of the members are present: a request with any other member
    /// takes the ordinary path (which refuses unknown ones).
    private static func present(_ a: ParamsView.Value, _ b: ParamsView.Value, _ c: ParamsView.Value,
                                _ d: ParamsView.Value = .absent, _ e: ParamsView.Value = .absent) -> Int {
        func one(_ v: ParamsView.Value) -> Int { v.isPresent ? 1 : 0 }
        return one(a) + one(b) + one(c) + one(d) + one(e)
    }

    /// `key` (a non-empty plain string) in `group` (a plain string, "" when absent), as UTF-8.
    private static func entryKey(_ group: ParamsView.Value, _ key: ParamsView.Value)
        -> (group: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>)? {
        guard case .plainString(let key) = key, !key.isEmpty else { return nil }
        switch group {
        case .absent: return (UnsafeBufferPointer(start: nil, count: 0), key)
        case .plainString(let g): return (g, key)
        case .other: return nil
        }
    }

    /// `cache`: a non-empty plain string, "default" when absent; as UTF-8.
    private static func cacheName(_ cache: ParamsView.Value) -> UnsafeBufferPointer<UInt8>? {
        switch cache {
        case .absent: return UnsafeBufferPointer(start: Self.defaultCacheName.utf8Start, count: Self.defaultCacheName.utf8CodeUnitCount)
        case .plainString(let name): return name.isEmpty ? nil : name
        case .other: return nil
        }
    }

    private static let defaultCacheName: StaticString = "default"

    /// A `ttl` in seconds that `Params.milliseconds` accepts, as milliseconds.
    private static func milliseconds(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let first = text.first, first &- UInt8(ascii: "0") < 10 else { return nil }
        let seconds = JSONNumber(validLiteral: String(decoding: text, as: UTF8.self)).double
        guard seconds < 9e15 else { return nil }
        return Int64((seconds * 1000).rounded())
    }
}
