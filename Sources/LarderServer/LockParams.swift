import LarderJSON
import LarderRPC

/// The rules the `lock.*` methods' params share, each stated once.
enum LockRules {
    /// A lock's name is at most this many bytes of UTF-8: names are
    /// identifiers (a job, a resource), kept in an indexed column.
    static let maxNameBytes = 1024
    /// A lease lasts at most a year: a lease is meant to be renewed by a
    /// live holder, and one that outlives its holder keeps others waiting.
    static let maxTTLSeconds: Double = 365 * 24 * 3600
    /// `wait` is at most a day: a request waiting holds its answer open.
    static let maxWaitSeconds: Double = 24 * 3600

    /// `seconds` as milliseconds (at least 1 when more than 0), if more
    /// than 0 — or 0 too where `zeroAllowed` — and at most `max`.
    static func milliseconds(seconds: Double, max: Double, zeroAllowed: Bool) -> Int64? {
        if zeroAllowed && seconds == 0 { return 0 }
        guard seconds > 0 && seconds <= max else { return nil }
        return Swift.max(1, Int64((seconds * 1000).rounded()))
    }
}

extension ParamsReader {
    /// `name`: a non-empty name of at most `LockRules.maxNameBytes` bytes,
    /// without U+0000 (which PostgreSQL's text cannot hold).
    func lockName(_ member: String = "name", required: Bool = true) throws(ResponseError) -> String? {
        guard let name = required ? try require(member, as: String.self) : try optional(member, as: String.self) else { return nil }
        if required && name.isEmpty { throw .invalidParams("\(path).\(member) must not be empty") }
        if name.utf8.count > LockRules.maxNameBytes {
            throw .invalidParams("\(path).\(member) is \(name.utf8.count) bytes long; at most \(LockRules.maxNameBytes) are allowed")
        }
        if name.utf8.contains(0) { throw .invalidParams("\(path).\(member) must not contain the character U+0000") }
        return name
    }

    /// Seconds (fractional allowed), more than 0 — or 0 too where
    /// `zeroAllowed` — and at most `max`, as milliseconds (at least 1 when
    /// more than 0); nil when absent and not `required`.
    func seconds(_ member: String, max: Double, required: Bool, zeroAllowed: Bool = false) throws(ResponseError) -> Int64? {
        guard let seconds = required ? try require(member, as: Double.self) : try optional(member, as: Double.self) else { return nil }
        guard let milliseconds = LockRules.milliseconds(seconds: seconds, max: max, zeroAllowed: zeroAllowed) else {
            throw .invalidParams("\(path).\(member) must be \(zeroAllowed ? "at least" : "more than") 0 and at most \(Int(max)) seconds")
        }
        return milliseconds
    }

    /// `token`: a fencing token, a positive integer.
    func lockToken() throws(ResponseError) -> Int64 {
        let token = try require("token", as: Int.self)
        guard token > 0 else { throw .invalidParams("\(path).token must be a positive integer") }
        return Int64(token)
    }
}
