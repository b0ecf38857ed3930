/// How a model's JSON keys are cased. Attribute and relationship names in a
/// model are camelCase, as in Core Data; with `snake_case` the JSON keys are
/// converted on the way in and back on the way out.
public enum KeyCasing: String, CaseIterable, Sendable {
    case camelCase
    case snakeCase = "snake_case"

    /// `band_members` → `bandMembers`, `user_id` → `userId`: an underscore
    /// that follows another character and precedes a lowercase ASCII letter is
    /// dropped and the letter capitalised. Every other character stays.
    public static func camelCased(_ key: String) -> String {
        let b = Array(key.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var k = 0
        while k < b.count {
            if b[k] == UInt8(ascii: "_"), k > 0, k + 1 < b.count, isLower(b[k + 1]) {
                out.append(b[k + 1] - 32)
                k += 2
            } else {
                out.append(b[k])
                k += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `bandMembers` → `band_members`, `userId` → `user_id`: an uppercase ASCII
    /// letter after the first character becomes an underscore and its lowercase.
    /// The inverse of `camelCased` for every name without `_` before a lowercase letter.
    public static func snakeCased(_ name: String) -> String {
        let b = Array(name.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(b.count + 4)
        for (k, c) in b.enumerated() {
            if k > 0 && isUpper(c) {
                out.append(UInt8(ascii: "_"))
                out.append(c + 32)
            } else {
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isLower(_ c: UInt8) -> Bool { c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z") }
    private static func isUpper(_ c: UInt8) -> Bool { c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") }
}

/// One entity's correspondence between JSON keys and model names: the JSON
/// key of a reserved word becomes the word qualified with the lower-camel
/// entity name (`description` ⇄ `bandDescription` for `Band`); any other key
/// is converted by the model's casing.
public struct KeyMap: Sendable {
    public let casing: KeyCasing
    private let qualifiedByWord: [String: String]
    private let wordByQualified: [String: String]

    public init(entity: String, casing: KeyCasing, reservedWords: [String]) {
        self.casing = casing
        let prefix = Self.lowerFirst(entity)
        var byWord: [String: String] = [:], byQualified: [String: String] = [:]
        for word in reservedWords {
            let qualified = prefix + Self.upperFirst(KeyCasing.camelCased(word))
            byWord[word] = qualified
            byQualified[qualified] = word
        }
        qualifiedByWord = byWord
        wordByQualified = byQualified
    }

    /// The model name a JSON key stands for.
    public func name(forKey key: String) -> String {
        if let q = qualifiedByWord[key] { return q }
        return casing == .snakeCase ? KeyCasing.camelCased(key) : key
    }

    /// The JSON key a model name is written as.
    public func key(forName name: String) -> String {
        if let word = wordByQualified[name] { return word }
        return casing == .snakeCase ? KeyCasing.snakeCased(name) : name
    }

    /// The qualified form of a reserved word, if `word` is one.
    func qualified(_ word: String) -> String? { qualifiedByWord[word] }

    static func lowerFirst(_ s: String) -> String {
        guard let first = s.first else { return s }
        return first.lowercased() + s.dropFirst()
    }

    static func upperFirst(_ s: String) -> String {
        guard let first = s.first else { return s }
        return first.uppercased() + s.dropFirst()
    }
}
