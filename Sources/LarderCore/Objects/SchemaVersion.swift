/// A schema version: dotted numbers compared part by part, so `1.0.2` < `1.0.10`
/// and `2` < `10`. Missing parts count as 0 (`1.0` equals `1.0.0`).
public struct SchemaVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public let text: String
    let parts: [UInt64]

    public init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        var parts: [UInt64] = []
        for p in pieces {
            guard !p.isEmpty, p.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = UInt64(p) else { return nil }
            parts.append(n)
        }
        guard !parts.isEmpty else { return nil }
        self.text = text
        while parts.count > 1 && parts.last == 0 { parts.removeLast() }
        self.parts = parts
    }

    public var description: String { text }

    public static func < (a: SchemaVersion, b: SchemaVersion) -> Bool { a.parts.lexicographicallyPrecedes(b.parts) }
    public static func == (a: SchemaVersion, b: SchemaVersion) -> Bool { a.parts == b.parts }
    public func hash(into hasher: inout Hasher) { hasher.combine(parts) }
}
