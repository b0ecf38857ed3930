import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// The two hottest requests, `cache.get` and `cache.set` (and a memory hit
/// of `cache.getOrFetch`, `cache.increment`, and `lock.acquire` without
/// `wait` and `lock.release`, whose strict round trips coordinate), answered straight
/// from their bytes: no JSON tree, no `Reply`, no method-table lookup, and a
/// get's result written once, into the output. Only plain requests are taken
/// (see `RequestView`); whatever this path does not take — other members,
/// escapes in names or keys, `data` that is not base64, an empty name or key,
/// a `ttl` that `ParamRules` refuses — it declines before changing anything,
/// and the ordinary path answers (or says what is wrong). Only where the
/// params come from differs: the defaults and limits (`ParamRules`), the core
/// call and the result's encoding (`CacheGet.lookup`, `CacheSet.write`) are
/// the methods' own.
///
/// Large values are why `data` is taken here too: the ordinary path holds a
/// value as the request, its JSON tree and its decoded bytes at once.
extension Server {
    func answer(directly request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        if request.methodIs(CacheGet.methodName) { return directGet(request, into: &result) }
        if request.methodIs(CacheSet.methodName) { return directSet(request, into: &result) }
        if request.methodIs(CacheGetOrFetch.methodName) { return directGetOrFetch(request, into: &result) }
        if request.methodIs(CacheIncrement.methodName) { return directIncrement(request, into: &result) }
        if request.methodIs(LockAcquire.methodName) { return directLockAcquire(request, into: &result) }
        if request.methodIs(LockRelease.methodName) { return directLockRelease(request, into: &result) }
        return .declined
    }

    /// A lease taken without `wait` (which a lease held elsewhere would
    /// turn into a wait, the ordinary path's to keep).
    private func directLockAcquire(_ request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        let p = request.params
        let name = p["name"], ttl = p["ttl"]
        guard p.count == Self.present(name, ttl), let name = Self.lockName(name), case .other(let text) = ttl,
              let seconds = Self.number(text), let ttl = LockRules.milliseconds(seconds: seconds, max: LockRules.maxTTLSeconds, zeroAllowed: false),
              admit(LockAcquire.method) else { return .declined }
        do throws(StoreError) {
            LockAcquire.Result(try store.acquireLock(name, ttl: ttl)).write(into: &result)
        } catch {
            return failed(request, error)
        }
        return gate.answerDirect(request, result: result, after: .commit)
    }

    private func directLockRelease(_ request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        let p = request.params
        let name = p["name"], token = p["token"]
        guard p.count == Self.present(name, token), let name = Self.lockName(name), case .other(let digits) = token,
              let token = Self.decimal(digits, maxDigits: 18), token > 0, admit(LockRelease.method) else { return .declined }
        do throws(StoreError) {
            try LockRelease.release(name, token: token, on: self).write(into: &result)
        } catch {
            return failed(request, error)
        }
        return gate.answerDirect(request, result: result, after: .commit)
    }

    /// A lock's name: a plain string (so without U+0000, which only an
    /// escape could give) within `LockRules.maxNameBytes`, not empty.
    private static func lockName(_ v: ParamsView.Value) -> String? {
        guard case .plainString(let name) = v, !name.isEmpty, name.count <= LockRules.maxNameBytes else { return nil }
        return String(decoding: name, as: UTF8.self)
    }

    /// A number literal's value; nil for anything else (a string, `true`, `null`, an array or object).
    private static func number(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let first = text.first, first &- UInt8(ascii: "0") < 10 || first == UInt8(ascii: "-") else { return nil }
        return JSONNumber(validLiteral: String(decoding: text, as: UTF8.self)).double
    }

    /// A counter's increment, where `by` and `initial` are plain integers.
    private func directIncrement(_ request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        let p = request.params
        let cache = p["cache"], group = p["group"], key = p["key"], by = p["by"], initial = p["initial"], ttlValue = p["ttl"]
        guard p.count == Self.present(cache, group, key, by, initial) + Self.present(ttlValue, .absent),
              let name = Self.cacheName(cache), let (group, key) = Self.entryKey(group, key),
              let by = Self.count(by, absent: 1), let initial = Self.count(initial, absent: 0),
              case .some(let ttl) = Self.ttl(ttlValue), admit(CacheIncrement.method) else { return .declined }
        let answer: WriteAnswer<CacheIncrement.Result>
        do throws(StoreError) {
            answer = try CacheIncrement.increment(EntryKey(group: group, key: key), by: by, initial: initial, ttl: ttl,
                                                  in: store.cache(namedUTF8: name, create: true)!)
        } catch {
            return failed(request, error)
        }
        return answerDirect(request, answer, into: &result) { $0.write(into: &$1) }
    }

    /// Answers a write's request after the commit: its result, written into
    /// `result` now, or the one the commit decides.
    @inline(__always)
    private func answerDirect<R>(_ request: RequestView, _ answer: WriteAnswer<R>, into result: inout JSONWriter,
                                 write: @escaping (R, inout JSONWriter) -> Void) -> DirectAnswer {
        switch answer {
        case .result(let r):
            write(r, &result)
            return gate.answerDirect(request, result: result, after: .commit)
        case .decided(let pending, let made):
            return gate.answerDirect(request, pending: pending) { write(made($0), &$1) }
        }
    }

    /// An integer a counter can hold, given as an optional minus sign and
    /// digits alone (`absent` when not given); nil for anything else.
    private static func count(_ v: ParamsView.Value, absent: Int64) -> Int64? {
        guard case .other(let text) = v else {
            if case .absent = v { return absent }
            return nil
        }
        let negative = text.first == UInt8(ascii: "-")
        guard let n = decimal(UnsafeBufferPointer(rebasing: text.dropFirst(negative ? 1 : 0)), maxDigits: 16),
              n <= Cache.largestCount else { return nil }
        return negative ? -n : n
    }

    /// `digits` (ASCII digits alone, at most `maxDigits`, which must keep the
    /// value within Int64) as a number; nil for anything else.
    private static func decimal(_ digits: UnsafeBufferPointer<UInt8>, maxDigits: Int) -> Int64? {
        guard !digits.isEmpty, digits.count <= maxDigits else { return nil }
        var n: Int64 = 0
        for d in digits {
            guard d &- UInt8(ascii: "0") < 10 else { return nil }
            n = n * 10 + Int64(d &- UInt8(ascii: "0"))
        }
        return n
    }

    /// A `ttl` as milliseconds: none (`.some(nil)`) when absent, nil (the
    /// ordinary path's to take) unless a number `ParamRules` accepts.
    private static func ttl(_ v: ParamsView.Value) -> Int64?? {
        switch v {
        case .absent: return .some(nil)
        case .plainString: return nil
        case .other(let text): return milliseconds(text).map { .some($0) }
        }
    }

    /// A memory-tier hit of `cache.getOrFetch` costs what a get costs; a miss,
    /// an expired entry or a call with settings of its own goes the ordinary way.
    private func directGetOrFetch(_ request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        let p = request.params
        let cache = p["cache"], group = p["group"], key = p["key"]
        guard p.count == Self.present(cache, group, key), let name = Self.cacheName(cache),
              let (group, key) = Self.entryKey(group, key), admit(CacheGetOrFetch.method) else { return .declined }
        do throws(StoreError) {
            guard let found = try store.cache(namedUTF8: name, create: false)?.getFresh(group: group, key: key, {
                CacheGetOrFetch.Result.write($0, into: &result)
            }), found else { return .declined }
        } catch {
            return failed(request, error)
        }
        return gate.answerDirect(request, result: result, after: .now)
    }

    private func directGet(_ request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        let p = request.params
        let cache = p["cache"], group = p["group"], key = p["key"]
        guard p.count == Self.present(cache, group, key), let name = Self.cacheName(cache),
              let (group, key) = Self.entryKey(group, key), admit(CacheGet.method) else { return .declined }
        do throws(StoreError) {
            try CacheGet.lookup(in: store, cache: name, group: group, key: key, into: &result)
        } catch {
            return failed(request, error)
        }
        return gate.answerDirect(request, result: result, after: .now)
    }

    private func directSet(_ request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        let p = request.params
        let cache = p["cache"], group = p["group"], key = p["key"], value = p["value"], ttlValue = p["ttl"]
        // `data` is looked for only without `value`; with both, the count below declines.
        var stored = value, isData = false
        if case .absent = value { (stored, isData) = (p["data"], true) }
        // A condition's members are looked for only when there are more
        // members than these (each lookup is about 120 instructions, callgrind).
        var ifRevision = ParamsView.Value.absent, ifAbsent = ParamsView.Value.absent
        let plain = Self.present(cache, group, key, stored, ttlValue)
        if p.count > plain { (ifRevision, ifAbsent) = (p["ifRevision"], p["ifAbsent"]) }
        guard p.count == plain + Self.present(ifRevision, ifAbsent), let name = Self.cacheName(cache),
              let (group, key) = Self.entryKey(group, key), case .some(let condition) = Self.condition(ifRevision, ifAbsent) else {
            return .declined
        }
        guard case .some(let ttl) = Self.ttl(ttlValue) else { return .declined }
        let text: UnsafeBufferPointer<UInt8>
        if isData {
            // Base64 has no escapes: anything but a plain string is not base64 (or is null, "absent").
            guard case .plainString(let base64) = stored, Base64.decodedCount(base64) != nil else { return .declined }
            text = base64
        } else {
            guard let json = p.text("value") else { return .declined }
            text = json
        }
        guard admit(CacheSet.method) else { return .declined }
        var bytes = text
        if isData {
            // The request's bytes are the connection's own and already recorded:
            // nothing reads its base64 again, so it is decoded where it lies.
            let count = Base64.decodeInPlace(UnsafeMutableBufferPointer(mutating: text))!
            bytes = UnsafeBufferPointer(rebasing: text.prefix(count))
        }
        let entryKey = EntryKey(group: group, key: key)
        let answer: WriteAnswer<CacheSet.Result>
        do throws(StoreError) {
            answer = try CacheSet.write(entryKey, kind: isData ? .data : .json, value: bytes, ttl: ttl, condition: condition, in: store, cache: name)
        } catch {
            return failed(request, error)
        }
        return answerDirect(request, answer, into: &result) { $0.write(into: &$1) }
    }

    /// Whether the request may run now; if not, the ordinary path refuses it properly.
    private func admit(_ method: String) -> Bool {
        guard lifecycleRefusal(for: method) == nil else { return false }
        begin(method)
        return true
    }

    /// Fails the request now, or in its turn after the answers held.
    private func failed(_ request: RequestView, _ error: StoreError) -> DirectAnswer {
        gate.settleFailedRequest()
        gate.answerDirect(request.id, error: error.responseError)
        return .later
    }

    /// How many of the members are present: a request with any other member
    /// takes the ordinary path, which refuses members a method does not know.
    private static func present(_ a: ParamsView.Value, _ b: ParamsView.Value, _ c: ParamsView.Value = .absent,
                                _ d: ParamsView.Value = .absent, _ e: ParamsView.Value = .absent) -> Int {
        // A pattern match rather than `isPresent`: that getter lives in another
        // module and, being package-internal, is called rather than inlined
        // (five calls, about 45 instructions a request, measured with callgrind).
        @inline(__always) func one(_ v: ParamsView.Value) -> Int {
            if case .absent = v { return 0 }
            return 1
        }
        return one(a) + one(b) + one(c) + one(d) + one(e)
    }

    /// A write's condition (SPEC 6.14): none (`.some(nil)`), `ifRevision`
    /// given as digits alone, or `ifAbsent` as `true` or `false`; nil for
    /// anything else (both members, a sign, a fraction, an exponent, more
    /// digits than an Int64 surely holds), which the ordinary path takes.
    private static func condition(_ ifRevision: ParamsView.Value, _ ifAbsent: ParamsView.Value) -> WriteCondition?? {
        switch (ifRevision, ifAbsent) {
        case (.absent, .absent):
            return .some(nil)
        case (.other(let digits), .absent):
            return decimal(digits, maxDigits: 18).map { .some(.revision($0)) }
        case (.absent, .other(let literal)):
            if literal.elementsEqual("true".utf8) { return .some(.absent) }
            if literal.elementsEqual("false".utf8) { return .some(nil) }
            return nil
        default:
            return nil
        }
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

    /// `cache`: a non-empty plain string, the default cache when absent; as UTF-8.
    private static func cacheName(_ cache: ParamsView.Value) -> UnsafeBufferPointer<UInt8>? {
        switch cache {
        case .absent:
            let name = ParamRules.defaultCacheName
            return UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        case .plainString(let name): return name.isEmpty ? nil : name
        case .other: return nil
        }
    }

    /// A `ttl` that is a number literal (compact JSON starting with a digit
    /// or a minus sign), as milliseconds by `ParamRules`.
    private static func milliseconds(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        number(text).flatMap { ParamRules.milliseconds(seconds: $0) }
    }
}
