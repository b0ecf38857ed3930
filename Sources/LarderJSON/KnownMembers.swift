/// A member an object may not have: where it is, the names the object may
/// have, and the one that was most likely meant.
///
/// Every place that reads an object of known shape (a method's params, a
/// model or schema definition) refuses other members with this, so that a
/// typo such as `tll` for `ttl` fails loudly instead of being ignored.
public struct UnknownMember: Error, Equatable, Sendable {
    /// The member's full path, e.g. `params.entries[3].tll`.
    public let path: String
    /// The member's name as given.
    public let name: String
    /// Every member the object may have, in the order they are documented.
    public let expected: [String]
    /// The known name closest to the one given, if one is close enough.
    public let suggestion: String?

    public init(path: String, name: String, expected: [String]) {
        self.path = path
        self.name = name
        self.expected = expected
        suggestion = NearestName.suggestion(for: name, among: expected)
    }

    /// The same member seen from `prefix` (`params` for a path read relative to a request's params).
    public func located(under prefix: String) -> UnknownMember {
        UnknownMember(path: "\(prefix).\(path)", name: name, expected: expected)
    }
}

extension JSONObject {
    /// The first member not among `known`, located under `path`.
    public func unknownMember(knowing known: [String], at path: String) -> UnknownMember? {
        for m in members where !known.contains(m.key) {
            return UnknownMember(path: path.isEmpty ? m.key : "\(path).\(m.key)", name: m.key, expected: known)
        }
        return nil
    }
}

/// Which of a few known names a misspelt one most likely meant.
public enum NearestName {
    /// The candidate closest to `name`: the same once case and `_`/`-` are
    /// ignored (`max_count` for `maxCount`), or within a small edit distance
    /// where swapping two neighbours counts as one edit (`tll` for `ttl`,
    /// `cahce` for `cache`). Dotted names (`cache.get`) are compared part by
    /// part, each within its own allowance, so `cache.nope` suggests nothing
    /// rather than `cache.open`. Nil when nothing is close: a wrong guess
    /// would mislead more than no guess.
    public static func suggestion(for name: String, among candidates: [String]) -> String? {
        let wanted = folded(name)
        if let same = candidates.first(where: { folded($0) == wanted }) { return same }
        let wantedParts = wanted.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        var best: (name: String, distance: Int)?
        for c in candidates {
            let parts = folded(c).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            guard parts.count == wantedParts.count else { continue }
            var total = 0
            for (a, b) in zip(wantedParts, parts) {
                // About one edit in three characters, at least one and at most three.
                let allowance = min(3, max(1, a.count / 3))
                // The distance is at least the difference in length, so a name far
                // longer than any candidate (10 MB, say) costs no comparison.
                guard abs(a.count - b.count) <= allowance else { total = .max; break }
                let d = distance(Array(a), Array(b))
                guard d <= allowance else { total = .max; break }
                total += d
            }
            if total < (best?.distance ?? .max) { best = (c, total) }
        }
        return best?.name
    }

    private static func folded(_ s: String) -> [UInt8] {
        s.utf8.compactMap { b in
            if b == UInt8(ascii: "_") || b == UInt8(ascii: "-") { return nil }
            return (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b
        }
    }

    /// Optimal string alignment distance (Levenshtein with transpositions of neighbours).
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        let width = b.count + 1
        var rows = [Int](repeating: 0, count: (a.count + 1) * width)
        for j in 0...b.count { rows[j] = j }
        for i in 1...a.count {
            rows[i * width] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(rows[(i - 1) * width + j] + 1, rows[i * width + j - 1] + 1, rows[(i - 1) * width + j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d = min(d, rows[(i - 2) * width + j - 2] + 1)
                }
                rows[i * width + j] = d
            }
        }
        return rows[a.count * width + b.count]
    }
}
