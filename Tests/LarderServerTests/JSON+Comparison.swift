import Foundation
import LarderJSON

extension JSON {
    /// Where `actual` first differs from `self`, nil when they are equal as
    /// JSON values (member order ignored, numbers by value). With `abridged`,
    /// `self` shows only part of `actual`: `actual` may have more members, and
    /// arrays may go on past the elements shown.
    func firstDifference(from actual: JSON, abridged: Bool = false, path: String = "$") -> String? {
        switch (self.resolved, actual.resolved) {
        case let (.object(expected), .object(actual)):
            for name in expected.keys.sorted() {
                guard let member = actual[name] else { return "\(path): missing member \"\(name)\"" }
                if let difference = expected[name]!.firstDifference(from: member, abridged: abridged, path: "\(path).\(name)") {
                    return difference
                }
            }
            if !abridged, let extra = Set(actual.keys).subtracting(expected.keys).sorted().first {
                return "\(path): unexpected member \"\(extra)\" = \(actual[extra]!)"
            }
            return nil
        case let (.array(expected), .array(actual)):
            if abridged ? actual.count < expected.count : actual.count != expected.count {
                return "\(path): expected \(expected.count) elements, got \(actual.count)"
            }
            for (k, element) in expected.enumerated() {
                if let difference = element.firstDifference(from: actual[k], abridged: abridged, path: "\(path)[\(k)]") {
                    return difference
                }
            }
            return nil
        case let (expected, actual):
            return expected == actual ? nil : "\(path): expected \(expected), got \(actual)"
        }
    }

    /// The value at a JSON Pointer (RFC 6901) such as `/store/path`, nil if there is none.
    subscript(pointer pointer: String) -> JSON? {
        var value = self.resolved
        for token in Self.tokens(of: pointer) {
            if let elements = value.arrayValue {
                guard let k = Int(token), elements.indices.contains(k) else { return nil }
                value = elements[k]
            } else {
                guard let member = value[token] else { return nil }
                value = member
            }
        }
        return value
    }

    /// A copy without the value at a JSON Pointer.
    func removing(pointer: String) -> JSON {
        removing(Self.tokens(of: pointer)[...])
    }

    private func removing(_ tokens: ArraySlice<String>) -> JSON {
        guard let token = tokens.first else { return self }
        switch self.resolved {
        case .object(var object):
            guard let member = object[token] else { return self }
            object[token] = tokens.count == 1 ? nil : member.removing(tokens.dropFirst())
            return .object(object)
        case .array(var elements):
            guard let k = Int(token), elements.indices.contains(k) else { return self }
            if tokens.count == 1 { elements.remove(at: k) } else { elements[k] = elements[k].removing(tokens.dropFirst()) }
            return .array(elements)
        default:
            return self
        }
    }

    private static func tokens(of pointer: String) -> [String] {
        pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            .map { $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") }
    }
}
