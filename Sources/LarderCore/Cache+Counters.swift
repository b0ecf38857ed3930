import LarderJSON
import LarderStorage

/// Counters (SPEC 6.14): an entry whose value is a JSON integer, added to
/// atomically, as a conditional write is checked.
extension Cache {
    /// The largest integer a counter holds: every JSON reader takes it exactly (RFC 8259, 6).
    public static let largestCount: Int64 = (1 << 53) - 1

    /// Adds `delta` to the integer under `k` (`initial` where there is no
    /// live entry) and stores the sum, with `ttl` as `set` takes it: the
    /// entry's lifetime restarts as a set's does. Returns the sum and the
    /// entry's new revision.
    public func increment(_ k: EntryKey, by delta: Int64, initial: Int64, ttl: Int64?) throws(StoreError) -> (value: Int64, revision: Int64) {
        if checksAsItWrites, let pending = try incrementChecked(k, by: delta, initial: initial, ttl: ttl) {
            let written = try settled(pending)
            return (written.count, written.revision)
        }
        // A second attempt only where another server inserted the key after
        // it was found absent: then its row is there to be read, locked.
        for attempt in 0..<2 {
            _ = try joinWriteTransaction()
            try ready()
            let (entry, live) = try entryForWrite(k)
            let sum = try Self.sum(live, by: delta, initial: initial, key: k.key)
            do {
                // The row just read is updated by its id, not looked up again.
                let bytes = Array(String(sum).utf8)
                let revision = try bytes.withUnsafeBufferPointer { (value) throws(StoreError) in
                    try set(k, kind: .json, value: value, ttl: ttl, shared: bytes, condition: entry == nil ? .absent : nil,
                            known: entry.flatMap { $0.diskID == 0 ? nil : ($0.diskID, $0.size) })
                }
                return (sum, revision)
            } catch {
                guard case .conditionFailed = error, attempt == 0 else { throw error }
            }
        }
        throw .internalFailure("a counter's row was neither free nor there")
    }

    /// What a counter whose live entry is `live` holds after adding `delta`.
    static func sum(_ live: Entry?, by delta: Int64, initial: Int64, key: String) throws(StoreError) -> Int64 {
        let start = try live.map { (e) throws(StoreError) in try integer(e, key: key) } ?? initial
        let (sum, overflow) = start.addingReportingOverflow(delta)
        guard !overflow, abs(sum) <= largestCount else {
            throw .notAnInteger(key: key, reason: "\(start) + \(delta) is outside ±\(largestCount)")
        }
        return sum
    }

    /// The entry under `k` as a write about to replace it sees it, and the
    /// entry itself where it is live (expired and not returned: not live).
    /// A persistent cache's row is read from the store, locked, on
    /// PostgreSQL; on SQLite the memory tier holds what the row holds (see
    /// `check`), and only an entry it lacks is read from the store. Not
    /// `locking`, PostgreSQL's row is only read.
    func entryForWrite(_ k: EntryKey, locking: Bool = true) throws(StoreError) -> (entry: Entry?, live: Entry?) {
        let entry: Entry?
        if config.persistent {
            if context.database.dialect.pipelinesWrites {
                if locking {
                    try context.diskWriter.settle()
                    _ = try disk.revision(of: k, locking: true, lifespan: config.lifespan)
                }
                entry = try disk.lookup(k)
            } else {
                if let e = memory.peek(k) { entry = e } else { entry = try disk.lookup(k) }
            }
        } else {
            entry = memory.peek(k)
        }
        guard let entry, isLive(entry) else { return (entry, nil) }
        return (entry, entry)
    }

    /// Whether `entry` is live now: not expired, or the cache returns expired entries.
    func isLive(_ entry: Entry) -> Bool {
        config.returnsExpired || !entry.isExpired(at: context.clock.now, lifespan: config.lifespan)
    }

    /// The most bytes of a value read as a counter's: more, and it is not one.
    public static let counterTextLimit = 64

    /// The integer a counter's entry holds: a JSON number of at most
    /// `counterTextLimit` bytes whose value is exactly an integer within
    /// ±`largestCount` ("5", "-0", "5.0", "5e2"; not "5.5", nor
    /// 9007199254740993, which a Double would round), its exponent at most
    /// 4 digits after any zeros. PostgreSQL reads it so too
    /// (`CacheSQL.increment`), in numeric arithmetic, which is exact.
    static func integer(_ e: Entry, key: String) throws(StoreError) -> Int64 {
        guard e.kind == .json, e.bytes.count <= counterTextLimit, let number = JSONNumberText(e.bytes) else {
            let limit = e.kind == .json && e.bytes.count > counterTextLimit ? " of at most \(counterTextLimit) bytes" : ""
            throw .notAnInteger(key: key, reason: "its value is not a number\(limit)")
        }
        guard let n = number.exactInteger(upTo: largestCount) else {
            throw .notAnInteger(key: key, reason: "its value \(String(decoding: e.bytes, as: UTF8.self).prefix(40)) is not an integer within ±\(largestCount)")
        }
        return n
    }
}

/// A JSON number's text, taken apart (RFC 8259, 6), for a counter's exact
/// reading: digits, not a Double. Its parts are ranges of the text, not
/// copies: read on every increment, a copy of the digits and the limit's
/// digits counted through a String cost an increment about 1,750
/// instructions more than the Double reading it replaced (callgrind).
struct JSONNumberText {
    private let text: [UInt8]
    private let negative: Bool
    /// The integer part's digits, and the fraction's.
    private let whole: Range<Int>, fraction: Range<Int>
    /// The power of ten the digits (whole, then fraction) are multiplied by.
    private let scale: Int

    /// Nil unless `text` is a JSON number whose exponent has at most 4
    /// digits after any leading zeros.
    init?(_ text: [UInt8]) {
        var i = 0
        func digitsRun() -> Range<Int> {
            let start = i
            while i < text.count, text[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            return start..<i
        }
        negative = text.first == UInt8(ascii: "-")
        if negative { i += 1 }
        whole = digitsRun()
        guard !whole.isEmpty, whole.count == 1 || text[whole.lowerBound] != UInt8(ascii: "0") else { return nil }
        var fraction = whole.upperBound..<whole.upperBound
        if i < text.count, text[i] == UInt8(ascii: ".") {
            i += 1
            fraction = digitsRun()
            guard !fraction.isEmpty else { return nil }
        }
        var exponent = 0
        if i < text.count, text[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var sign = 1
            if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
                sign = text[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
            }
            let run = digitsRun()
            let significant = run.drop { text[$0] == UInt8(ascii: "0") }
            guard !run.isEmpty, significant.count <= 4 else { return nil }
            exponent = sign * significant.reduce(0) { $0 * 10 + Int(text[$1] &- UInt8(ascii: "0")) }
        }
        guard i == text.count else { return nil }
        self.text = text
        self.fraction = fraction
        scale = exponent - fraction.count
    }

    /// The `n`th digit of the whole part then the fraction, as a number.
    private func digit(_ n: Int) -> Int64 {
        let at = n < whole.count ? whole.lowerBound + n : fraction.lowerBound + n - whole.count
        return Int64(text[at] &- UInt8(ascii: "0"))
    }

    /// The number, if it is exactly an integer within ±`limit`.
    func exactInteger(upTo limit: Int64) -> Int64? {
        var first = 0, end = whole.count + fraction.count
        while first < end, digit(first) == 0 { first += 1 }
        if first == end { return 0 }
        if scale < 0 {
            // The digits below the point must all be zeros.
            guard -scale <= end - first else { return nil }
            for n in (end + scale)..<end where digit(n) != 0 { return nil }
            end += scale
            if first == end { return 0 }
        }
        let zeros = max(scale, 0)
        var limitDigits = 0, rest = limit
        while rest > 0 { limitDigits += 1; rest /= 10 }
        // More digits than the limit's cannot be within it.
        guard end - first + zeros <= limitDigits else { return nil }
        var n: Int64 = 0
        for k in first..<end { n = n * 10 + digit(k) }
        for _ in 0..<zeros { n *= 10 }
        guard n <= limit else { return nil }
        return negative ? -n : n
    }
}
