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
