import LarderJSON

/// How `cache.getOrFetch` asks the client for a value it does not have:
/// how often, how long it waits, and how long what it learns is kept.
/// Stored with the cache's other settings; each call may override any of it.
/// Times are milliseconds.
public struct FetchSettings: Equatable, Sendable {
    /// Attempts after the first, made only after an error or a timeout.
    public var retries = 0
    /// The delay before retry n is about base × 2ⁿ⁻¹, at most `retryDelayMax`,
    /// with jitter (half of it random), so that clients do not retry in step.
    public var retryDelayBase: Int64 = 100
    public var retryDelayMax: Int64 = 2000
    /// How long one attempt may take before it counts as failed.
    public var timeout: Int64 = 30_000
    /// The lifetime of a fetched entry; nil: the cache's lifespan.
    public var ttl: Int64?
    /// How long a fetch that failed is remembered (and not tried again); 0: not at all.
    public var negativeTtl: Int64 = 0
    /// How long after it expires an entry is still answered at once, while
    /// one fetch in the background refreshes it; 0: never.
    public var staleWhileRevalidate: Int64 = 0
    /// Whether the processes and sidecars on the store fetch a missing key
    /// once between them: one takes the key's fetch lease and asks its
    /// client, the others wait for what it stores.
    public var shared = false

    public init() {}

    public static let maxRetries = 100
    public static let maxMilliseconds: Int64 = 86_400_000

    /// What a `cache.open` or a call names; what it leaves out stays as it was.
    public struct Change: Sendable {
        public var retries: Int?
        public var retryDelay: (base: Int64, max: Int64)?
        public var timeout: Int64?
        /// `.some(nil)`: back to the cache's lifespan.
        public var ttl: Int64??
        public var negativeTtl: Int64?
        public var staleWhileRevalidate: Int64?
        public var shared: Bool?

        public init() {}

        public func applied(to base: FetchSettings) -> FetchSettings {
            var f = base
            if let v = retries { f.retries = v }
            if let v = retryDelay { (f.retryDelayBase, f.retryDelayMax) = v }
            if let v = timeout { f.timeout = v }
            if let v = ttl { f.ttl = v }
            if let v = negativeTtl { f.negativeTtl = v }
            if let v = staleWhileRevalidate { f.staleWhileRevalidate = v }
            if let v = shared { f.shared = v }
            return f
        }
    }

    /// The delay before retry `n` (1 for the first retry), `random` in [0, 1).
    public func retryDelay(before n: Int, random: Double) -> Int64 {
        let exponent = min(n - 1, 40)
        let full = min(retryDelayMax, retryDelayBase.multipliedReportingOverflow(by: Int64(1) << exponent).overflow
                       ? retryDelayMax : retryDelayBase << exponent)
        return full / 2 + Int64(Double(full - full / 2) * random)
    }

    /// The longest a fetch with its retries may take, in milliseconds:
    /// every attempt's timeout and every retry's whole delay (before jitter).
    /// What another process's fetch of a key is waited for, at most.
    public var longestFetch: Int64 {
        var total = timeout.multipliedReportingOverflow(by: Int64(retries + 1))
        for n in stride(from: 1, through: retries, by: 1) where !total.overflow {
            total = total.partialValue.addingReportingOverflow(retryDelay(before: n, random: 1))
        }
        return total.overflow ? .max : total.partialValue
    }

    public var json: JSON {
        [
            "retries": .int(retries),
            "retryDelayMs": [.int(Int(retryDelayBase)), .int(Int(retryDelayMax))],
            "timeoutMs": .int(Int(timeout)),
            "ttl": ttl.map { .number(JSONNumber(Double($0) / 1000)) } ?? .null,
            "negativeTtl": .number(JSONNumber(Double(negativeTtl) / 1000)),
            "staleWhileRevalidate": .number(JSONNumber(Double(staleWhileRevalidate) / 1000)),
            "shared": .bool(shared),
        ]
    }

    /// As `json`, without `shared` when it is false.
    var storedJSON: JSON {
        guard !shared, case .object(let o) = json else { return json }
        return .object(JSONObject(o.members.filter { $0.key != "shared" }.map { ($0.key, $0.value) }))
    }

    struct StoredError: Error { let reason: String }

    /// Reads what `json` wrote, every member and nothing else; `shared`,
    /// which settings stored before protocol 1.7 do not have, may be absent.
    init(stored json: JSON) throws(StoredError) {
        guard case .object(let o) = json else { throw StoredError(reason: "expected an object, got \(json.typeName)") }
        let known = ["retries", "retryDelayMs", "timeoutMs", "ttl", "negativeTtl", "staleWhileRevalidate", "shared"]
        if let unknown = o.unknownMember(knowing: known, at: "fetch") {
            throw StoredError(reason: "unknown setting \"\(unknown.path)\"")
        }
        func member(_ key: String) throws(StoredError) -> JSON {
            guard let v = o[key] else { throw StoredError(reason: "\(key) is missing") }
            return v
        }
        func count(_ v: JSON, _ key: String) throws(StoredError) -> Int64 {
            guard let i = v.numberValue?.int, i >= 0, Int64(i) <= Self.maxMilliseconds else {
                throw StoredError(reason: "\(key): expected a non-negative integer, got \(v)")
            }
            return Int64(i)
        }
        func seconds(_ v: JSON, _ key: String) throws(StoredError) -> Int64 {
            guard let s = v.numberValue?.double, s >= 0, s < 9e15 else {
                throw StoredError(reason: "\(key): expected a non-negative number of seconds, got \(v)")
            }
            return Int64((s * 1000).rounded())
        }
        retries = Int(try count(try member("retries"), "retries"))
        guard case .array(let delay) = try member("retryDelayMs"), delay.count == 2 else {
            throw StoredError(reason: "retryDelayMs: expected [base, max]")
        }
        retryDelayBase = try count(delay[0], "retryDelayMs[0]")
        retryDelayMax = try count(delay[1], "retryDelayMs[1]")
        timeout = try count(try member("timeoutMs"), "timeoutMs")
        let t = try member("ttl")
        ttl = t.isNull ? nil : try seconds(t, "ttl")
        negativeTtl = try seconds(try member("negativeTtl"), "negativeTtl")
        staleWhileRevalidate = try seconds(try member("staleWhileRevalidate"), "staleWhileRevalidate")
        if let v = o["shared"] {
            guard case .bool(let b) = v else { throw StoredError(reason: "shared: expected a boolean, got \(v)") }
            shared = b
        }
    }
}
