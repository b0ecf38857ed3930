import LarderJSON

/// Structural matching of an expected message against an actual one, as
/// transcripts define it: member order ignored, numbers by value, `[..]` in a
/// string matches any run of characters, the string `"{...}"` matches anything,
/// and a top-level array (a batch answer) matches as a multiset.
enum JSONPattern {
    /// Nil when `actual` matches `expected`, else where and how it differs.
    static func mismatch(expected: JSON, actual: JSON) -> String? {
        if case .array(let e) = expected, case .array(let a) = actual {
            return multisetMismatch(e, a)
        }
        return mismatch(expected, actual, path: "$")
    }

    private static func mismatch(_ expected: JSON, _ actual: JSON, path: String) -> String? {
        switch (expected, actual) {
        case (.string("{...}"), _):
            return nil
        case let (.string(e), .string(a)):
            return matches(pattern: e, a) ? nil : "\(path): expected \(JSON.string(e)), got \(JSON.string(a))"
        case let (.object(e), .object(a)):
            let expectedKeys = Set(e.keys), actualKeys = Set(a.keys)
            if let missing = expectedKeys.subtracting(actualKeys).sorted().first {
                return "\(path): missing member \"\(missing)\""
            }
            if let extra = actualKeys.subtracting(expectedKeys).sorted().first {
                return "\(path): unexpected member \"\(extra)\" = \(a[extra]!)"
            }
            for key in e.keys.sorted() {
                if let m = mismatch(e[key]!, a[key]!, path: "\(path).\(key)") { return m }
            }
            return nil
        case let (.array(e), .array(a)):
            guard e.count == a.count else { return "\(path): expected \(e.count) elements, got \(a.count)" }
            for k in 0..<e.count {
                if let m = mismatch(e[k], a[k], path: "\(path)[\(k)]") { return m }
            }
            return nil
        default:
            return expected == actual ? nil : "\(path): expected \(expected), got \(actual)"
        }
    }

    private static func multisetMismatch(_ expected: [JSON], _ actual: [JSON]) -> String? {
        guard expected.count == actual.count else { return "batch: expected \(expected.count) answers, got \(actual.count)" }
        var unmatched = actual
        for e in expected {
            guard let k = unmatched.firstIndex(where: { mismatch(e, $0, path: "$") == nil }) else {
                return "batch: no answer matches \(e)"
            }
            unmatched.remove(at: k)
        }
        return nil
    }

    /// `[..]` matches any run of characters; everything else literally.
    static func matches(pattern: String, _ text: String) -> Bool {
        let parts = pattern.components(separatedBy: "[..]")
        guard parts.count > 1 else { return pattern == text }
        var rest = Substring(text)
        guard rest.hasPrefix(parts[0]) else { return false }
        rest = rest.dropFirst(parts[0].count)
        for (k, part) in parts.enumerated().dropFirst() {
            if k == parts.count - 1 { return rest.hasSuffix(part) && rest.count >= part.count }
            guard let range = rest.range(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }
}

extension String {
    func components(separatedBy separator: String) -> [String] {
        var result: [String] = []
        var rest = Substring(self)
        while let r = rest.range(of: separator) {
            result.append(String(rest[..<r.lowerBound]))
            rest = rest[r.upperBound...]
        }
        result.append(String(rest))
        return result
    }
}

extension Substring {
    func range(of needle: String) -> Range<Index>? {
        guard !needle.isEmpty else { return startIndex..<startIndex }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
